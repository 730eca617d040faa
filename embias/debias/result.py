"""The result of a debiasing method: :class:`DebiasResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gensim.models import KeyedVectors

__all__ = ["DebiasResult"]


@dataclass(frozen=True)
class DebiasResult:
    """What a debiasing method produced and how.

    Attributes
    ----------
    embeddings
        The debiased vectors (a new ``KeyedVectors``; every vector has unit length).
    method
        ``"hard"`` or ``"soft"``.
    study
        Name of the study whose definitional sets defined the bias subspace.
    definitional_sets
        The definitional sets used (words missing from the vocabulary removed).
    k
        Dimension of the bias subspace.
    subspace
        Orthonormal basis of the bias subspace, shape ``(k, dim)``.
    explained_variance_ratio
        Share of the definitional sets' variance in each principal component.
    n_neutralized
        Number of words neutralized (hard) or treated as neutral (soft).
    equalized
        Words equalized (hard).
    missing_definitional
        Definitional words not in the vocabulary (as looked up).
    optimizer
        Soft debiasing only: convergence record (``converged``, ``iterations``,
        ``objective_start``, ``objective_end``, ``message``, ``projection_ratio``).
    """

    embeddings: KeyedVectors = field(repr=False)
    method: str
    study: str
    definitional_sets: tuple[tuple[str, ...], ...]
    k: int
    subspace: np.ndarray = field(repr=False)
    explained_variance_ratio: tuple[float, ...]
    n_neutralized: int
    equalized: tuple[str, ...] = ()
    missing_definitional: tuple[str, ...] = ()
    optimizer: dict[str, Any] = field(default_factory=dict)

