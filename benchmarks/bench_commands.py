"""The commands users run most, timed end to end: fit cold and warm, ``--help``, the page.

Each command runs in a fresh process through the console script, as a user types it:

- ``embias fit religion --refit --seed 1 --out DIR``, **cold**: every cache folder new and
  empty (``XDG_CACHE_HOME``, ``JAX_COMPILATION_CACHE_DIR``, ``MPLCONFIGDIR``, PyTensor's
  and numba's) — a first run on a fresh machine; **warm**: the same folders again, filled;
- ``embias --help``;
- ``embias report religion --from FIT --out PAGE`` from the fit just saved (its figures drawn
  with the fit).

``--embias PATH`` (repeatable) times other installs' console scripts too (for instance one
built from an older commit), in alternating rounds so that the machine's drift and load fall
on every install alike. Each figure is the median of ``--rounds`` runs (cold: one fit a round,
fresh folders each time). Prints a table and writes ``benchmarks/results/bench_commands.json``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import Tables, fresh_cache_env

HERE = Path(__file__).resolve().parent
DEFAULT_EMBIAS = HERE.parent / ".venv" / "bin" / "embias"


def timed(command: list[str], env: dict[str, str]) -> float:
    """Wall seconds of ``command``; stops the benchmark with its output if it fails."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n"
                         f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return wall


def one_round(embias: str, work: Path) -> dict[str, float]:
    """One cold fit, one warm fit, ``--help`` and the page, for one console script."""
    env = fresh_cache_env(work / "cache")
    models = work / "models"
    fit = [embias, "fit", "religion", "--refit", "--seed", "1", "--out", str(models),
           "--no-progress"]
    out = {"embias fit religion, cold": timed(fit, env),
           "embias fit religion, warm": timed(fit, env),
           "embias --help": timed([embias, "--help"], env)}
    saved = next(p for p in models.iterdir() if p.is_dir())
    out["embias report religion --from FIT"] = timed(
        [embias, "report", "religion", "--from", str(saved), "--out", str(work / "page.html")],
        env)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embias", action="append", default=[], metavar="PATH",
                    help="another install's console script (repeatable)")
    ap.add_argument("--label", action="append", default=[], metavar="TEXT",
                    help="a label per --embias (default: its path)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    installs = {"this checkout": str(DEFAULT_EMBIAS)}
    labels = args.label + args.embias[len(args.label):]
    installs |= dict(zip(labels, args.embias, strict=True))
    times: dict[str, dict[str, list[float]]] = {name: {} for name in installs}
    out = Tables(__file__, title="The commands users run most: fit cold and warm, --help, "
                 "the audit page", settings={"rounds": args.rounds,
                                             "installs": "; ".join(installs)})
    for r in range(args.rounds):
        for name, embias in installs.items():
            with tempfile.TemporaryDirectory(prefix="embias-bench-commands-") as folder:
                for command, wall in one_round(embias, Path(folder)).items():
                    times[name].setdefault(command, []).append(wall)
            print(f"round {r + 1}, {name}: " + ", ".join(
                f"{c} {v[-1]:.2f} s" for c, v in times[name].items()), flush=True)
    commands = list(next(iter(times.values())))
    first = next(iter(installs))
    header = ["command", *(f"{name}: median s (range)" for name in installs)]
    if len(installs) > 1:
        header += [f"{name} / {first}" for name in list(installs)[1:]]
    rows = []
    for command in commands:
        med = {n: statistics.median(times[n][command]) for n in installs}
        row = [command, *(f"{med[n]:.2f} ({min(times[n][command]):.2f}–"
                          f"{max(times[n][command]):.2f})" for n in installs)]
        row += [f"{med[n] / med[first]:.2f}" for n in list(installs)[1:]]
        rows.append(row)
    out.table(f"Wall seconds, fresh process each, median of {args.rounds} alternating rounds",
              header, rows, note="cold: new cache folders for every fit; warm: the same folders "
              "again. The page is built from the fit just saved, without refitting.")
    out.write()


if __name__ == "__main__":
    sys.exit(main())
