"""An encoder's answers checked, and the sentences it has encoded remembered.

``check_embeddings`` refuses an answer that is not one finite, non-zero row per
sentence of one width (a ValueError naming the encoder and the sentences concerned);
:class:`SentenceEncoder` wraps an encoder, checks every answer and encodes each distinct
sentence once; ``sentence_list`` checks what an encoder is called with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["SentenceEncoder", "check_embeddings", "sentence_list"]


def sentence_list(sentences: Any) -> list[str]:
    """Return ``sentences`` as a list of strings, as an encoder is called with.

    Parameters
    ----------
    sentences
        An iterable of strings (not a single string).

    Returns
    -------
    list of str
        The sentences, in their order.

    Raises
    ------
    ValueError
        ``sentences`` is a single string, or holds something that is not a string.

    Examples
    --------
    >>> sentence_list(("This is a cat.", "That is a dog."))
    ['This is a cat.', 'That is a dog.']
    >>> sentence_list("This is a cat.")
    Traceback (most recent call last):
    ...
    ValueError: an encoder takes a list of sentences, got the single string 'This is a cat.';
    wrap it in a list
    """
    if isinstance(sentences, str):
        raise ValueError(f"an encoder takes a list of sentences, got the single string "
                         f"{sentences!r}; wrap it in a list")
    out = list(sentences)
    bad = [s for s in out if not isinstance(s, str)]
    if bad:
        raise ValueError(f"sentences must be strings, got {bad[0]!r} "
                         f"({type(bad[0]).__name__})")
    return out


def _describe(sentences: Sequence[str], rows: np.ndarray) -> str:
    shown = ", ".join(repr(sentences[i]) for i in rows[:3])
    return shown + (f" and {rows.size - 3} more" if rows.size > 3 else "")


def check_embeddings(vectors: Any, sentences: Sequence[str], *, name: str,
                     width: int | None = None) -> np.ndarray:
    """Check an encoder's answer for ``sentences``; return it as a float64 array.

    Raises
    ------
    ValueError
        Not a numeric array, not of shape ``(len(sentences), d)`` with ``d ≥ 1`` (or not
        ``width`` wide when given), NaN/infinite values or zero vectors (their cosine is
        undefined); the message names the encoder and the sentences concerned.
    """
    n = len(sentences)
    try:
        arr = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"encoder {name!r} returned {type(vectors).__name__}, not a numeric "
                         f"array; an encoder must return an array of shape ({n}, d) for "
                         f"{n} sentences") from None
    if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] == 0:
        raise ValueError(f"encoder {name!r} returned an array of shape {arr.shape} for {n} "
                         f"sentences; an encoder must return one row per sentence: shape "
                         f"({n}, d) with d ≥ 1")
    if width is not None and arr.shape[1] != width:
        raise ValueError(f"encoder {name!r} returned vectors of width {arr.shape[1]}, but "
                         f"earlier ones had width {width}; an encoder must return vectors "
                         "of one width")
    bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
    if bad.size:
        raise ValueError(f"encoder {name!r} returned NaN or infinite values for "
                         f"{bad.size} of {n} sentences: {_describe(sentences, bad)}")
    zero = np.flatnonzero(~(np.abs(arr) > 0).any(axis=1))
    if zero.size:
        raise ValueError(f"encoder {name!r} returned zero vectors (cosine undefined) for "
                         f"{zero.size} of {n} sentences: {_describe(sentences, zero)}")
    return arr


class SentenceEncoder:
    """An encoder with checked answers and a memory of the sentences it has encoded.

    Calling it with a list of sentences returns their vectors, an ``(n, d)`` float64
    array; each distinct sentence is sent to the wrapped encoder once in the object's
    lifetime (the encoder is assumed deterministic). Build one with :func:`as_encoder`.

    Attributes
    ----------
    name
        Label of the encoder (the ``embedding`` column of sentence tables).
    encode
        The wrapped function: list of sentences → array.
    """

    def __init__(self, encode: Callable[[list[str]], Any], *, name: str) -> None:
        if not callable(encode):
            raise ValueError(f"encode must be callable, got {encode!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"an encoder needs a non-empty name, got {name!r}")
        self.encode = encode
        self.name = name
        self._cache: dict[str, np.ndarray] = {}
        self._width: int | None = None

    def __repr__(self) -> str:
        """Show the name, the width and how many sentences are remembered."""
        return (f"SentenceEncoder({self.name!r}, dimension={self._width}, "
                f"cached_sentences={len(self._cache)})")

    @property
    def dimension(self) -> int | None:
        """Width of the vectors (None until the first sentence is encoded)."""
        return self._width

    @property
    def cached_sentences(self) -> int:
        """How many distinct sentences have been encoded so far."""
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forget the vectors encoded so far."""
        self._cache.clear()

    def __call__(self, sentences: Sequence[str]) -> np.ndarray:
        """Return the vectors of ``sentences``: shape ``(len(sentences), d)``, float64."""
        sentences = sentence_list(sentences)
        todo = list(dict.fromkeys(s for s in sentences if s not in self._cache))
        if todo:
            vectors = check_embeddings(self.encode(todo), todo, name=self.name,
                                       width=self._width)
            self._width = vectors.shape[1]
            self._cache.update(zip(todo, vectors, strict=True))
        if not sentences:
            return np.empty((0, self._width or 0))
        return np.vstack([self._cache[s] for s in sentences])
