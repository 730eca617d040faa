"""What embias sets up in a Python process, and only when asked.

JAX's CPU devices and compilation cache, PyTensor's compile folder.

A library does not change the state of the process it is imported into. Fitting with
embias leaves ``XLA_FLAGS``, ``PYTENSOR_FLAGS`` and JAX's configuration as they were; these
functions change them, for the process that calls them:

- :func:`configure_jax` — a user's explicit call (``embias.configure_jax()``) before the
  first fit: CPU devices for parallel chains and a persistent compilation cache that keeps
  every compiled program; the ``embias`` console script calls it for its own process (the
  cache only);
- :func:`use_writable_compile_folder` — the console script's own process only: PyTensor
  refuses to compile when its compile folder cannot be written, so the command line
  compiles in a per-user temporary folder instead, with one :class:`CompileCacheWarning`.

Both set environment variables when JAX (or PyTensor) is not imported yet, which is what
lets the command line configure itself without importing JAX (``embias --help`` imports
neither); JAX reads them when it is imported, and worker processes started from this one
inherit them.

This module imports only the standard library.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from ._validation import check_int
from .settings import cache_home

__all__ = ["JAX_HOST_DEVICES", "CompileCacheWarning", "configure_jax", "usable_folder",
           "use_writable_compile_folder"]

#: CPU devices :func:`configure_jax` asks JAX for by default: numpyro runs one chain per
#: device (``chain_method="parallel"``), so up to this many chains run at the same time (on
#: as many cores as the machine has). With fewer devices than chains numpyro draws the
#: chains one after another, which gives other draws for the same seed (XLA compiles the
#: loop differently).
JAX_HOST_DEVICES = 8

#: JAX's persistent-cache thresholds :func:`configure_jax` lowers so that every compiled
#: program is kept (most of a fit's programs compile in under JAX's default 1 s): the
#: environment variable JAX reads at import, its configuration name, embias's value and
#: JAX's default (a value other than the default was set by the user, and is kept).
_KEEP_EVERY_PROGRAM = (
    ("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "jax_persistent_cache_min_compile_time_secs",
     0.0, 1.0),
    ("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "jax_persistent_cache_min_entry_size_bytes",
     -1, 0),
)

#: The XLA flag that sets the number of CPU devices (a user's setting is kept).
_XLA_DEVICE_FLAG = "xla_force_host_platform_device_count"

#: ``PYTENSOR_FLAGS`` keys that name PyTensor's compile folder.
_PYTENSOR_FOLDER_KEYS = ("base_compiledir", "compiledir")


class CompileCacheWarning(UserWarning):
    """The compile cache folder is unusable; a temporary one is used instead.

    Examples
    --------
    >>> issubclass(CompileCacheWarning, UserWarning)
    True
    """


def usable_folder(folder: Path) -> str | None:
    """Tell why ``folder`` cannot be created and written to (None when it can).

    Parameters
    ----------
    folder
        The folder (created, with its parents, when missing).

    Returns
    -------
    str or None
        The reason, or None.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     print(usable_folder(pathlib.Path(root) / "cache"))
    ...     blocker = pathlib.Path(root) / "file"
    ...     _ = blocker.write_text("")
    ...     usable_folder(blocker / "cache")
    None
    '...Error: ...'
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".embias-write-test-"):
            pass
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return None


def _temporary_folder(name: str) -> Path:
    """Return a per-user folder in the temporary directory (``embias-<name>-<uid>``)."""
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"embias-{name}-{uid}"


def _jax_backend_started() -> bool:
    """Tell whether JAX has started its backends in this process (devices are fixed then)."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    return bridge is not None and bool(bridge.backends_are_initialized())


def _jax_cache_folder(cache_dir: str | os.PathLike[str] | None) -> Path:
    """Return the folder JAX's compiled programs go to.

    ``cache_dir`` (which must be usable), or ``$XDG_CACHE_HOME/embias/jax`` (an unusable
    one falls back to a per-user temporary folder, with a :class:`CompileCacheWarning`).
    """
    if cache_dir is not None:
        folder = Path(cache_dir).expanduser()
        reason = usable_folder(folder)
        if reason is not None:
            raise ValueError(f"cache_dir {str(folder)!r} cannot be used as JAX's compilation "
                             f"cache ({reason}); give a folder that can be created and "
                             "written to")
        return folder
    folder = cache_home() / "jax"
    reason = usable_folder(folder)
    if reason is None:
        return folder
    fallback = _temporary_folder("jax")
    warnings.warn(f"compile cache folder {str(folder)!r} is unusable ({reason}); compiling in "
                  f"{str(fallback)!r} instead (set JAX_COMPILATION_CACHE_DIR=<a writable "
                  "folder> to keep compiled models)", CompileCacheWarning, stacklevel=3)
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback


def configure_jax(
    *,
    host_devices: int | None = JAX_HOST_DEVICES,
    cache_dir: str | os.PathLike[str] | None = None,
    keep_every_program: bool = True,
) -> Path | None:
    """Set JAX up in this process for embias's fits: CPU devices and a compilation cache.

    CPU devices for parallel chains, and a persistent compilation cache.

    embias never does this by itself: a fit leaves JAX's configuration and ``XLA_FLAGS``
    as they are. Call this once, before the first fit; the ``embias`` command line sets up
    its own process with it (the cache; the device count it leaves to PyMC, which asks JAX
    for enough devices when its JAX sampler is imported before JAX starts). It changes
    JAX's configuration for the whole process (and for the worker processes it starts).
    Settings already made — the environment variables ``XLA_FLAGS``
    (``--xla_force_host_platform_device_count``), ``JAX_NUM_CPU_DEVICES``,
    ``JAX_COMPILATION_CACHE_DIR``, ``JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS``,
    ``JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES``, or the same settings made through
    ``jax.config`` — are kept.

    Parameters
    ----------
    host_devices
        JAX CPU devices (default :data:`JAX_HOST_DEVICES`): numpyro, the sampler of a fit
        run alone, runs one chain per device, so up to this many chains run in parallel;
        with fewer devices than chains it draws them one after another (other draws for the
        same seed). ``None`` leaves JAX's device count as it is. Devices can be set only
        before JAX runs its first computation.
    cache_dir
        Folder of JAX's persistent compilation cache, so a later process reuses the
        programs compiled here. Default: ``$XDG_CACHE_HOME/embias/jax``
        (``~/.cache/embias/jax``; an unusable one falls back to a per-user temporary
        folder, with a :class:`CompileCacheWarning`).
    keep_every_program
        Keep every compiled program in the cache. JAX keeps only programs that took at
        least 1 s to compile; most of a fit's take less, so which of them would be kept
        depends on how fast the machine compiles.

    Returns
    -------
    pathlib.Path or None
        The cache folder set, or None when a cache folder set before was kept.

    Raises
    ------
    ValueError
        ``host_devices`` is not an integer ≥ 1; JAX has already run a computation with
        another device count; ``cache_dir`` cannot be created or written to.

    Examples
    --------
    Called once, before the first fit (here in a fresh process, without JAX settings of
    its own, so that this one is left as it is):

    >>> import os
    >>> import subprocess
    >>> import sys
    >>> import tempfile
    >>> code = ("import os, embias; embias.configure_jax(cache_dir={!r}); "
    ...         "print(os.environ['JAX_NUM_CPU_DEVICES'])")
    >>> env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    >>> with tempfile.TemporaryDirectory() as cache:
    ...     subprocess.run([sys.executable, "-c", code.format(cache)], env=env,
    ...                    capture_output=True, text=True, check=True).stdout.strip()
    '8'
    >>> configure_jax(host_devices=0)
    Traceback (most recent call last):
    ...
    ValueError: host_devices must be an integer ≥ 1, got 0
    """
    if host_devices is not None:
        host_devices = check_int("host_devices", host_devices, minimum=1)
    jax = sys.modules.get("jax")
    # what is set: (environment variable, JAX configuration name) → value; a setting the
    # user made (in the environment, or in jax.config: not JAX's default) is kept
    settings: dict[tuple[str, str], Any] = {}
    user_devices = (_XLA_DEVICE_FLAG in os.environ.get("XLA_FLAGS", "")
                    or "JAX_NUM_CPU_DEVICES" in os.environ
                    or (jax is not None and jax.config.jax_num_cpu_devices != -1))
    if host_devices is not None and not user_devices:
        if jax is not None and _jax_backend_started() and \
                jax.local_device_count() != host_devices:
            raise ValueError(f"host_devices={host_devices}: JAX has already run a computation "
                             f"in this process, with {jax.local_device_count()} CPU "
                             "device(s); call configure_jax() before the first fit, or pass "
                             "host_devices=None")
        settings["JAX_NUM_CPU_DEVICES", "jax_num_cpu_devices"] = host_devices
    chosen: Path | None = None
    user_cache = bool(os.environ.get("JAX_COMPILATION_CACHE_DIR")
                      or (jax is not None and jax.config.jax_compilation_cache_dir))
    if not user_cache:
        chosen = _jax_cache_folder(cache_dir)
        settings["JAX_COMPILATION_CACHE_DIR", "jax_compilation_cache_dir"] = str(chosen)
    if keep_every_program:
        for variable, name, value, default in _KEEP_EVERY_PROGRAM:
            if variable not in os.environ and (jax is None
                                               or getattr(jax.config, name) == default):
                settings[variable, name] = value
    # everything checked: now set (read by JAX when it is imported, or in its configuration)
    for (variable, name), value in settings.items():
        if jax is None:
            os.environ[variable] = str(value)
        elif not (name == "jax_num_cpu_devices" and _jax_backend_started()):
            jax.config.update(name, value)
    return chosen


def use_writable_compile_folder() -> Path | None:
    """Point PyTensor at a temporary compile folder when its own cannot be written; warn.

    PyTensor refuses to compile anything when its compile folder cannot be created or
    written to; the folder used instead is per-user, in the temporary directory.

    PyTensor's folder is the one an existing ``PYTENSOR_FLAGS`` names, else
    ``~/.pytensor``. This rewrites ``PYTENSOR_FLAGS`` in this process's environment, so
    only the ``embias`` command line calls it, for its own process, before PyTensor is
    imported.

    Returns
    -------
    pathlib.Path or None
        The temporary folder when one was set, else None.

    Examples
    --------
    In a fresh process whose ``PYTENSOR_FLAGS`` name a folder below a file:

    >>> import os
    >>> import subprocess
    >>> import sys
    >>> import tempfile
    >>> code = ("import os; from embias._process_setup import use_writable_compile_folder; "
    ...         "use_writable_compile_folder(); print(os.environ['PYTENSOR_FLAGS'])")
    >>> with tempfile.NamedTemporaryFile() as blocker:
    ...     env = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={blocker.name}/sub"}
    ...     subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env,
    ...                    capture_output=True, text=True, check=True).stdout.strip()
    'base_compiledir=...embias-pytensor-...'
    """
    if "pytensor" in sys.modules:  # imported already: too late to change its folder
        return None
    flags = [f for f in os.environ.get("PYTENSOR_FLAGS", "").split(",") if f.strip()]
    configured = [(i, f.partition("=")[2].strip()) for i, f in enumerate(flags)
                  if f.partition("=")[0].strip() in _PYTENSOR_FOLDER_KEYS]
    folder = Path(configured[-1][1]).expanduser() if configured else \
        Path.home() / ".pytensor"
    reason = usable_folder(folder)
    if reason is None:
        return None
    fallback = _temporary_folder("pytensor")
    kept = [f for i, f in enumerate(flags) if i not in {j for j, _ in configured}]
    os.environ["PYTENSOR_FLAGS"] = ",".join([*kept, f"base_compiledir={fallback}"])
    warnings.warn(f"compile cache folder {str(folder)!r} is unusable ({reason}); compiling "
                  f"in {str(fallback)!r} instead for this session (set PYTENSOR_FLAGS="
                  "base_compiledir=<a writable folder> to keep compiled models)",
                  CompileCacheWarning, stacklevel=2)
    return fallback
