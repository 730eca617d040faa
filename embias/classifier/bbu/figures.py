"""Deprecated import path of the BBU coverage figure.

:func:`~embias.plots.plot_bbu_coverage` is in :mod:`embias.plots.bbu` (the plotting
layer); it imports from here with a ``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from typing import Any

from embias._deprecation import moved_names

__all__: list[str] = []

__getattr__: Any = moved_names(__name__, {"plot_bbu_coverage": "embias.plots.bbu"})
