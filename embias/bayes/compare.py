"""Deprecated import path of the comparison of embeddings and of the paired change model.

The comparison of embeddings is in :mod:`embias.pipeline.compare` (it loads embeddings) and
the paired change model in :mod:`embias.bayes.change` (it takes tables). Each name below
imports from here with a ``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from typing import Any

from .._deprecation import moved_names

__all__: list[str] = []

__getattr__: Any = moved_names(__name__, {
    "CHANGE_ESTIMANDS": "embias.bayes.change",
    "ChangeFit": "embias.bayes.change",
    "fit_change_model": "embias.bayes.change",
    "CLASSIC_CHANGE_ESTIMANDS": "embias.pipeline.compare",
    "EmbeddingComparison": "embias.pipeline.compare",
    "compare_embeddings": "embias.pipeline.compare",
    "resolve_tables": "embias.pipeline.sources",
    "source_table": "embias.pipeline.sources",
    "study_jobs": "embias.pipeline.sources",
})
