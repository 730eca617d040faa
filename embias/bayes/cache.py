"""What a fit needs of JAX's and PyTensor's set-up: nothing that changes the process.

A fit leaves ``XLA_FLAGS``, ``PYTENSOR_FLAGS`` and JAX's configuration as they are. JAX's
CPU devices (parallel chains) and its persistent compilation cache are set up only when
asked: :func:`embias.configure_jax` in a script or notebook, and the ``embias`` command
line for its own process (:mod:`embias._process_setup`).

The names ``cache_home``, ``ensure_compile_cache``, ``CompileCacheWarning`` and
``JAX_HOST_DEVICES`` import from here with a ``DeprecationWarning`` that names their home.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._deprecation import moved_names

__all__ = ["ensure_jax"]


def ensure_jax() -> Path | None:
    """Return ``None``: a fit uses JAX as the process has set it up.

    JAX's set-up (CPU devices for parallel chains, the persistent compile cache) is the
    caller's: :func:`embias.configure_jax` in a script or notebook, or the command line
    for its own process.

    Returns
    -------
    None
        Always.

    Examples
    --------
    >>> from embias.bayes.cache import ensure_jax
    >>> ensure_jax() is None
    True
    """
    return None


__getattr__: Any = moved_names(__name__, {
    "cache_home": "embias.settings",
    "ensure_compile_cache": ("embias._process_setup", "use_writable_compile_folder"),
    "CompileCacheWarning": "embias._process_setup",
    "JAX_HOST_DEVICES": "embias._process_setup",
})
