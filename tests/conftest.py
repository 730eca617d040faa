"""Shared fixtures: the real GloVe 6B 50d vectors and small hand-made KeyedVectors."""

from __future__ import annotations

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np
import pytest
from gensim.models import KeyedVectors

import embias


@pytest.fixture(scope="session")
def glove() -> KeyedVectors:
    """The default embeddings (loaded once per test session; memory-mapped)."""
    return embias.load_embeddings()


def build_kv(vectors: dict[str, list[float]], dtype=np.float32) -> KeyedVectors:
    """A real gensim KeyedVectors holding exactly these word vectors."""
    words = list(vectors)
    arr = np.asarray([vectors[w] for w in words], dtype=dtype)
    kv = KeyedVectors(vector_size=arr.shape[1], count=0, dtype=dtype)
    kv.add_vectors(words, arr)
    return kv


@pytest.fixture(scope="session")
def make_kv():
    """Factory fixture: ``make_kv({"word": [x, y], ...})`` → real KeyedVectors."""
    return build_kv
