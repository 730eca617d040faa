"""Start-up time of the command line: ``embias --help`` and every sub-command's ``--help``.

Run: .venv/bin/python benchmarks/bench_cli.py   (prints its figures and writes
``benchmarks/results/bench_cli.json``; exit 1 if over target)
Target: every ``--help`` < 0.3 s wall, each in a fresh process (the
console script, as a user runs it), best of 5. Also lists any heavy module (numpy, pandas,
pymc, gensim, matplotlib) that parsing imported — there must be none.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
from pathlib import Path

from record import Tables
from timing import best_of

TARGET = 0.3
HEAVY = ("numpy", "pandas", "pymc", "gensim", "matplotlib")
REPEAT = 5


def cpu_of_children() -> float:
    """CPU time (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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

    out = Tables(__file__, title="Command line start-up: --help of every command",
                 settings={"timing": "best wall time of 5 fresh processes (console script)"})
    def timed(argv: list[str]) -> tuple[float, float]:
        """Best wall time of REPEAT runs and their mean CPU time."""
        cpu = cpu_of_children()
        t, _ = best_of(lambda: run(argv), repeat=REPEAT)
        return t, (cpu_of_children() - cpu) / REPEAT

    t, cpu = timed([sys.executable, "-c", "pass"])
    rows = [["python -c pass (interpreter start-up)", f"{t:.3f}", f"{cpu:.3f}", "—", ""]]
    worst = 0.0
    for path in command_paths(build_parser()):
        t, cpu = timed([str(script), *path, "--help"])
        worst = max(worst, t)
        label = " ".join(["embias", *path, "--help"])
        rows.append([label, f"{t:.3f}", f"{cpu:.3f}", f"< {TARGET} s",
                     "ok" if t < TARGET else "OVER TARGET"])
    out.table("Commands: best wall time of --help",
              ["command", "wall (s)", "mean CPU (s)", "target (wall)", "within target"],
              rows, note=f"Slowest --help: {worst:.3f} s wall (target < {TARGET} s). Wall time "
                         "is the best of the runs; CPU time (user + system) is their mean, "
                         "which waiting on a loaded machine does not inflate. The first row is "
                         "the interpreter's own start-up, for scale; it has no target.")
    probe = ("import sys; from embias.cli import build_parser; build_parser(); "
             f"print([m for m in {HEAVY!r} if m in sys.modules])")
    heavy = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                           text=True).stdout.strip()
    out.table("Heavy modules imported while parsing", ["check", "found", "target"],
              [[f"modules of {', '.join(HEAVY)} imported by build_parser()", heavy, "none"]])
    out.write()
    return 0 if worst < TARGET and heavy == "[]" else 1


if __name__ == "__main__":
    sys.exit(main())
