"""Where compiled models are cached, and what happens when that folder is unusable.

PyTensor (which PyMC and nutpie compile through) caches compiled code in
``base_compiledir``: the folder an existing ``PYTENSOR_FLAGS`` names, else its per-user
default (``~/.pytensor``). embias respects both. When the folder cannot be created or
written (a read-only home, a typo in ``PYTENSOR_FLAGS``), PyTensor refuses to import at all;
embias then points it at a per-user folder in the temporary directory, warns once, and
fits as usual (the first fit compiles from scratch there).
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from pathlib import Path

__all__ = ["CompileCacheWarning", "ensure_compile_cache"]

_KEYS = ("base_compiledir", "compiledir")


class CompileCacheWarning(UserWarning):
    """The compile cache folder is unusable; a temporary one is used instead."""


def _usable(folder: Path) -> str | None:
    """None when ``folder`` can be created and written, else the reason."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".embias-write-test-"):
            pass
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return None


def ensure_compile_cache() -> Path | None:
    """Check PyTensor's compile cache folder before PyTensor is imported; fall back to a
    per-user temporary folder (and warn once) when it is unusable.

    Returns
    -------
    pathlib.Path or None
        The fallback folder when one was set, else None.
    """
    if "pytensor" in sys.modules:  # already imported: its folder worked
        return None
    flags = [f for f in os.environ.get("PYTENSOR_FLAGS", "").split(",") if f.strip()]
    configured = [(i, f.partition("=")[2].strip()) for i, f in enumerate(flags)
                  if f.partition("=")[0].strip() in _KEYS]
    folder = Path(configured[-1][1]).expanduser() if configured else \
        Path.home() / ".pytensor"
    reason = _usable(folder)
    if reason is None:
        return None
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    fallback = Path(tempfile.gettempdir()) / f"embias-pytensor-{uid}"
    kept = [f for i, f in enumerate(flags) if i not in {j for j, _ in configured}]
    os.environ["PYTENSOR_FLAGS"] = ",".join([*kept, f"base_compiledir={fallback}"])
    warnings.warn(f"compile cache folder {str(folder)!r} is unusable ({reason}); compiling "
                  f"in {str(fallback)!r} instead for this session (set PYTENSOR_FLAGS="
                  "base_compiledir=<a writable folder> to keep compiled models)",
                  CompileCacheWarning, stacklevel=2)
    return fallback
