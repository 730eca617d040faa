"""Deprecated import path of the word-sampling figures.

:func:`~embias.plot_word_sampling` and :func:`~embias.plot_published_refits` are in
:mod:`embias.plots.word_sampling` (the plotting layer); each imports from here with a
``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from typing import Any

from .._deprecation import moved_names

__all__: list[str] = []

__getattr__: Any = moved_names(__name__, {
    "plot_published_refits": "embias.plots.word_sampling",
    "plot_word_sampling": "embias.plots.word_sampling",
})
