"""What a fit needs of JAX's and PyTensor's set-up: nothing that changes the process.

A fit leaves ``XLA_FLAGS``, ``PYTENSOR_FLAGS`` and JAX's configuration as they are. JAX's
CPU devices (parallel chains) and its persistent compilation cache are set up only when
asked: :func:`embias.configure_jax` in a script or notebook, and the ``embias`` command
line for its own process (:mod:`embias._process_setup`).

The names this module held before (``cache_home``, ``ensure_compile_cache``,
``CompileCacheWarning``, ``JAX_HOST_DEVICES``) still import from here for one release,
with a ``DeprecationWarning`` naming their new home.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._deprecation import moved_names

__all__ = ["ensure_jax"]


def ensure_jax() -> Path | None:
    """Nothing: a fit uses JAX as the process has set it up.

    Kept for the samplers that called it to set JAX up; that set-up is now the user's call
    (:func:`embias.configure_jax`) or the command line's.

    Returns
    -------
    None
    """
    return None


__getattr__: Any = moved_names(__name__, {
    "cache_home": "embias.settings",
    "ensure_compile_cache": ("embias._process_setup", "use_writable_compile_folder"),
    "CompileCacheWarning": "embias._process_setup",
    "JAX_HOST_DEVICES": "embias._process_setup",
})
