"""Start-up time of the command line: ``embias --help`` and every sub-command's ``--help``.

Run: .venv/bin/python benchmarks/bench_cli.py   (prints its figures; exit 1 if over target)
Target (issue 12, item 1): every ``--help`` < 0.3 s wall, each in a fresh process (the
console script, as a user runs it), best of 5. Also lists any heavy module (numpy, pandas,
pymc, gensim, matplotlib) that parsing imported — there must be none.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from timing import best_of

TARGET = 0.3
HEAVY = ("numpy", "pandas", "pymc", "gensim", "matplotlib")


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
                  ) -> list[tuple[str, ...]]:
    """Every command path of the parser: ``()``, ``("fit",)``, ``("bbu", "n")`` …"""
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += command_paths(sub, (*prefix, name))
    return found


def main() -> int:
    from embias.cli import build_parser

    script = Path(sys.executable).with_name("embias")
    if not script.exists():
        raise SystemExit(f"console script not found next to the interpreter: {script}")

    def run(argv: list[str]) -> None:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    t, _ = best_of(lambda: run([sys.executable, "-c", "pass"]))
    print(f"{'python -c pass (interpreter start-up)':<40} {t:6.3f} s")
    worst = 0.0
    for path in command_paths(build_parser()):
        argv = [str(script), *path, "--help"]
        t, _ = best_of(lambda argv=argv: run(argv))
        worst = max(worst, t)
        label = " ".join(["embias", *path, "--help"])
        print(f"{label:<40} {t:6.3f} s {'ok' if t < TARGET else 'OVER TARGET'}")
    probe = ("import sys; from embias.cli import build_parser; build_parser(); "
             f"print([m for m in {HEAVY!r} if m in sys.modules])")
    heavy = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                           text=True).stdout.strip()
    print(f"heavy modules imported by build_parser(): {heavy}")
    print(f"slowest --help: {worst:.3f} s (target < {TARGET} s)")
    return 0 if worst < TARGET and heavy == "[]" else 1


if __name__ == "__main__":
    sys.exit(main())
