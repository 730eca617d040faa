"""Deprecated import path of the design-analysis figure.

:func:`~embias.plot_design_analysis` is in :mod:`embias.plots.design` (the plotting
layer); it imports from here with a ``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from typing import Any

from .._deprecation import moved_names

__all__: list[str] = []

__getattr__: Any = moved_names(__name__, {"plot_design_analysis": "embias.plots.design"})
