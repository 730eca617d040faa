"""What every benchmark script writes next to its figures: the machine, the date, the load.

The benchmark scripts print their figures and write them to ``benchmarks/results/`` (JSON),
from which the documentation's benchmarks page is generated (``docs/_ext/benchtables.py``).
:func:`provenance` is the record of where and when a run was made; :class:`Tables` collects
the tables a script prints so that the file holds exactly what was printed. Run the scripts
as scripts (this folder is then on ``sys.path``).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    """The machine a run is made on: CPU model and count, operating system, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version()}


def provenance() -> dict[str, Any]:
    """Machine, UTC date and the load average (1, 5, 15 min) at the start of a run."""
    return {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average_before": list(os.getloadavg())}


def fresh_cache_env(folder: Path) -> dict[str, str]:
    """This process's environment with every compile and data cache in new folders under
    ``folder`` (DESIGN §11's "cold"): PyTensor's (``base_compiledir``, the user's other
    ``PYTENSOR_FLAGS`` kept), numba's, JAX's persistent cache, ``XDG_CACHE_HOME`` (embias's
    tables and programs) and matplotlib's. Run a command with it twice: cold, then warm."""
    dirs = {name: folder / name for name in ("pytensor", "numba", "jax", "xdg", "mpl")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    flags = [f for f in os.environ.get("PYTENSOR_FLAGS", "").split(",")
             if f and not f.startswith("base_compiledir=")]
    return {**os.environ,
            "PYTENSOR_FLAGS": ",".join([*flags, f"base_compiledir={dirs['pytensor']}"]),
            "NUMBA_CACHE_DIR": str(dirs["numba"]), "JAX_COMPILATION_CACHE_DIR": str(dirs["jax"]),
            "XDG_CACHE_HOME": str(dirs["xdg"]), "MPLCONFIGDIR": str(dirs["mpl"])}


def write_json(path: Path, record: dict[str, Any]) -> Path:
    """Write ``record`` with the load average now as ``load_average_after``; return the path."""
    record = {**record, "load_average_after": list(os.getloadavg())}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return path


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|")


class Tables:
    """The tables one benchmark script prints, recorded for its results file.

    ``title`` heads the script's section on the benchmarks page; ``settings`` (seed, draws,
    sizes…) are shown above its tables. :meth:`table` prints a Markdown table and keeps it;
    :meth:`write` writes ``benchmarks/results/<script>.json`` with :func:`provenance`.
    """

    def __init__(self, script: str, *, title: str, settings: dict[str, Any] | None = None):
        self.script = Path(script).name
        self.record: dict[str, Any] = {
            "script": self.script, "title": title,
            "command": " ".join([f"benchmarks/{self.script}", *sys.argv[1:]]),
            **provenance(), "settings": dict(settings or {}), "tables": []}

    def table(self, title: str, header: Sequence[str], rows: Sequence[Sequence[Any]], *,
              note: str = "") -> None:
        """Print a Markdown table under ``title`` (and ``note`` below it) and record it."""
        rows = [[str(v) for v in row] for row in rows]
        lines = [f"\n{title}\n", "| " + " | ".join(map(_cell, header)) + " |",
                 "|" + "---|" * len(header),
                 *("| " + " | ".join(map(_cell, r)) + " |" for r in rows)]
        print("\n".join(lines) + (f"\n\n{note}" if note else ""), flush=True)
        self.record["tables"].append({"title": title, "header": [str(h) for h in header],
                                      "rows": rows, "note": note})

    def write(self, path: Path | None = None) -> Path:
        """Write the recorded tables to ``path`` (default ``results/<script stem>.json``)."""
        return write_json(path or RESULTS / f"{Path(self.script).stem}.json", self.record)
