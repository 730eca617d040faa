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

__all__ = ["JAX_HOST_DEVICES", "CompileCacheWarning", "cache_home", "ensure_compile_cache",
           "ensure_jax"]

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


#: JAX CPU devices embias asks for when it sets up JAX itself: numpyro runs one chain per
#: device (``chain_method="parallel"``); with fewer devices than chains numpyro draws the
#: chains one after another, which gives other draws (XLA compiles the loop differently).
JAX_HOST_DEVICES = 8

_JAX_READY: list[Path | None] = []


def cache_home() -> Path:
    """embias's per-user cache folder: ``$XDG_CACHE_HOME/embias`` (``~/.cache/embias``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "embias"


def ensure_jax() -> Path | None:
    """Set JAX up for numpyro, once per process: CPU devices for parallel chains and a
    persistent compilation cache.

    - Devices: unless ``XLA_FLAGS`` already sets ``--xla_force_host_platform_device_count``
      (or JAX was imported before), embias asks for :data:`JAX_HOST_DEVICES` host devices,
      so ``chains`` up to that run in parallel (on as many cores as the machine has).
    - Cache: an existing ``JAX_COMPILATION_CACHE_DIR`` (or ``jax_compilation_cache_dir``
      set by the user) is respected; otherwise compiled programs are kept in
      ``$XDG_CACHE_HOME/embias/jax`` (``~/.cache/embias/jax``). An unusable folder falls
      back to a per-user temporary folder with one :class:`CompileCacheWarning`. Either
      way every compiled program is kept, not only those taking JAX's default ≥ 1 s (a
      fit's take less), unless ``JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS`` /
      ``…_MIN_ENTRY_SIZE_BYTES`` say otherwise.

    Returns
    -------
    pathlib.Path or None
        The cache folder embias chose, or None when the user's setting was kept.
    """
    if _JAX_READY:
        return _JAX_READY[0]
    flags = os.environ.get("XLA_FLAGS", "")
    if "jax" not in sys.modules and "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = \
            f"{flags} --xla_force_host_platform_device_count={JAX_HOST_DEVICES}".strip()
    import jax

    chosen: Path | None = None
    if not (os.environ.get("JAX_COMPILATION_CACHE_DIR")
            or jax.config.jax_compilation_cache_dir):
        folder = cache_home() / "jax"
        reason = _usable(folder)
        if reason is not None:
            uid = os.getuid() if hasattr(os, "getuid") else "user"
            fallback = Path(tempfile.gettempdir()) / f"embias-jax-{uid}"
            warnings.warn(f"compile cache folder {str(folder)!r} is unusable ({reason}); "
                          f"compiling in {str(fallback)!r} instead (set "
                          "JAX_COMPILATION_CACHE_DIR=<a writable folder> to keep compiled "
                          "models)", CompileCacheWarning, stacklevel=2)
            folder = fallback
            folder.mkdir(parents=True, exist_ok=True)
        jax.config.update("jax_compilation_cache_dir", str(folder))
        chosen = folder
    # a fit's programs compile in well under JAX's default 1 s threshold: keep them all,
    # in embias's folder or the user's (unless the user set these thresholds too)
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES" not in os.environ:
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    _JAX_READY.append(chosen)
    return chosen
