"""Whatever the user passes as an encoder, wrapped; ``None``: the offline default.

:func:`as_encoder` turns a callable, an object with an ``encode`` method or ``None`` into
a :class:`~embias.encoders.checked.SentenceEncoder`; :func:`default_encoder` is the
offline all-MiniLM-L6-v2 (:class:`~embias.encoders.minilm.MiniLMEncoder`), loaded once per
process.
"""

from __future__ import annotations

import functools
from typing import Any

from .checked import SentenceEncoder
from .minilm import MiniLMEncoder
from .model_files import MODEL_NAME

__all__ = ["as_encoder", "default_encoder"]


def as_encoder(encoder: Any = None, *, name: str | None = None) -> SentenceEncoder:
    """Wrap any encoder in a :class:`SentenceEncoder` (checked answers, cached sentences).

    Parameters
    ----------
    encoder
        ``None`` (the default all-MiniLM-L6-v2, :func:`default_encoder`), a
        :class:`SentenceEncoder` (returned as is), an object with an ``encode(sentences)``
        method (a ``sentence_transformers.SentenceTransformer``), or a callable mapping a
        list of sentences to an ``(n, d)`` array.
    name
        Label of the encoder; default: the object's ``name`` attribute, else its function
        or class name.

    Returns
    -------
    SentenceEncoder
        The wrapped encoder.

    Raises
    ------
    ValueError
        ``encoder`` is none of these.

    Examples
    --------
    >>> import numpy as np
    >>> def count_letters(sentences):
    ...     return np.array([[len(s), s.count("a") + 1.0] for s in sentences])
    >>> encoder = as_encoder(count_letters)
    >>> encoder(["a cat", "a dog", "a cat"]).tolist()
    [[5.0, 3.0], [5.0, 2.0], [5.0, 3.0]]
    >>> encoder
    SentenceEncoder('count_letters', dimension=2, cached_sentences=2)
    >>> as_encoder(42)
    Traceback (most recent call last):
    ...
    ValueError: encoder must be None (the default all-MiniLM-L6-v2), a callable mapping a list
    of sentences to an (n, d) array, or an object with an encode(sentences) method; got 42
    """
    if encoder is None:
        base = default_encoder()
        return base if name is None else SentenceEncoder(base, name=name)
    if isinstance(encoder, SentenceEncoder):
        return encoder if name is None else SentenceEncoder(encoder, name=name)
    label = name or getattr(encoder, "name", None)
    method = getattr(encoder, "encode", None)
    if callable(method) and not isinstance(encoder, str | bytes):
        if not isinstance(label, str) or not label:
            label = type(encoder).__name__
        return SentenceEncoder(lambda sentences: method(list(sentences)), name=label)
    if callable(encoder):
        if not isinstance(label, str) or not label:
            label = getattr(encoder, "__name__", None) or type(encoder).__name__
        return SentenceEncoder(encoder, name=label)
    raise ValueError(f"encoder must be None (the default {MODEL_NAME}), a callable mapping a "
                     "list of sentences to an (n, d) array, or an object with an "
                     f"encode(sentences) method; got {encoder!r}")


@functools.cache
def default_encoder() -> SentenceEncoder:
    """Return the offline all-MiniLM-L6-v2 (:class:`MiniLMEncoder`), loaded once per process.

    Returns
    -------
    SentenceEncoder
        The model, wrapped (checked answers, remembered sentences).

    Raises
    ------
    ModuleNotFoundError, FileNotFoundError, ValueError
        As :class:`MiniLMEncoder`: the ``sentence`` extra is not installed, or the model
        files are missing or not the official release.

    Examples
    --------
    >>> encoder = default_encoder()
    >>> vectors = encoder(["This is a cat.", "That is a cat.", "The stock market fell."])
    >>> vectors.shape
    (3, 384)
    >>> bool(vectors[0] @ vectors[1] > vectors[0] @ vectors[2])
    True
    """
    return SentenceEncoder(MiniLMEncoder(), name=MODEL_NAME)
