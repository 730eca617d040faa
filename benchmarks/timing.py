"""Shared timing helper of the benchmark scripts (run them as scripts: this folder is on
``sys.path`` then)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of[T](fn: Callable[[], T], repeat: int = 5) -> tuple[float, T]:
    """Run ``fn`` ``repeat`` times; return the fastest wall time (s) and the last result."""
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out  # type: ignore[return-value]
