"""Section 7 of the audit page: how to reproduce it.

The installed versions of :data:`VERSIONED_PACKAGES` and those recorded with each fit,
the settings and seeds of every fit, and the commands that rebuild the page
(``package_versions``, ``reproduce_section``).
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..settings import FitSettings
from .render import frame_table, number
from .sources import FitEntry, saved_versions

#: Packages whose versions the reproducibility block lists.
VERSIONED_PACKAGES: tuple[str, ...] = (
    "embias", "numpy", "scipy", "pandas", "xarray", "pymc", "pytensor", "arviz", "nutpie",
    "matplotlib", "jinja2", "gensim", "pyarrow", "h5netcdf", "h5py",
)


def package_versions() -> dict[str, str]:
    """Return the versions of Python, the platform and :data:`VERSIONED_PACKAGES` installed."""
    from .. import __version__

    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for name in VERSIONED_PACKAGES:
        module = sys.modules.get(name)
        version = __version__ if name == "embias" else getattr(module, "__version__", None)
        if not isinstance(version, str):  # not imported: ask the installed metadata
            try:
                version = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
        versions[name] = version
    return versions


def reproduce_section(
    entries: Sequence[FitEntry],
    *,
    comparison: Any,
    commands: Sequence[tuple[str, str]],
    python: str,
    random_seed: int,
    classic_seeds: Sequence[str],
) -> dict[str, Any]:
    """Return how to reproduce the page.

    The installed versions and those recorded with each fit, the settings and seeds of every
    fit, the saved-fit keys and folders, and the commands that rebuild the page.
    """
    now = package_versions()
    rows = []
    recorded = {e.anchor: saved_versions(e.fit) for e in entries}
    for name, version in now.items():
        row = {"package": name, "this page": version}
        for e in entries:
            row[f"fit {e.label}/{e.level}"] = recorded[e.anchor].get(name, "")
        rows.append(row)
    versions = pd.DataFrame(rows)
    versions = versions.loc[:, [c for c in versions.columns
                                if c in ("package", "this page") or versions[c].astype(bool).any()]]
    fields = FitSettings.field_names()
    columns: dict[str, list[str]] = {}
    for e in entries:
        s = e.fit.settings
        record = {"source": e.source, **{f: s.get(f, "") for f in fields},
                  "rows": s.get("rows", ""), "cells": s.get("cells", ""),
                  "fit key": s.get("fit_key", ""), "saved fit": e.fit.path or "not saved",
                  "sampling seconds": e.fit.timings.get("sample_seconds", np.nan)}
        columns[f"{e.label} / {e.level}"] = [
            ", ".join(map(str, v)) if isinstance(v, list | tuple) else number(v, 1)
            if isinstance(v, float) else str(v) for v in record.values()]
    settings = pd.DataFrame({"setting": list(record), **columns})
    seeds = [f"sampler seed of {e.label}/{e.level}: {e.fit.settings.get('random_seed')}"
             for e in entries]
    seeds.append(f"posterior predictive draws: random_seed={random_seed}")
    seeds += classic_seeds
    if comparison is not None and comparison.settings.get("seeds"):
        seeds += [f"comparison {k}: {v}" for k, v in comparison.settings["seeds"].items()]
    return {"versions": frame_table(versions, id="versions", caption="Versions"),
            "settings": frame_table(settings, id="settings", caption="Settings of every fit"),
            "seeds": seeds, "commands": list(commands), "python": python,
            "unsaved": [f"{e.label}/{e.level}" for e in entries if not e.fit.path]}
