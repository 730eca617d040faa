"""Embedding files: their formats, detected from the file, and their readers.

word2vec binary, word2vec text (with a ``count dim`` header), GloVe text (no header) and
gensim native ``.kv`` files (loaded with ``mmap="r"``). A file that does not fit its
format is refused with a message naming the line that does not fit, and a file that
gives a word more than one vector with the word and its line (record) numbers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

import numpy as np

from .keyed import first_words, is_keyed_vectors, keyed_vectors

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

EmbeddingFormat = Literal["word2vec-binary", "word2vec-text", "glove-text", "kv"]
FORMATS: tuple[str, ...] = ("word2vec-binary", "word2vec-text", "glove-text", "kv")
#: Repeated words named in full in the message of a file with repeated words.
_SHOWN_REPEATS = 5


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


def read_file(path: Path, fmt: str, limit: int | None) -> KeyedVectors:
    r"""Read an embedding file in a known format, refusing a file that does not fit it.

    Parameters
    ----------
    path
        The embedding file (``.gz``/``.bz2`` decompressed as gensim does).
    fmt
        One of :data:`FORMATS`.
    limit
        Read only the first ``limit`` vectors; ``None`` reads all.

    Returns
    -------
    gensim.models.KeyedVectors
        The vectors (a ``.kv`` file is memory-mapped).

    Raises
    ------
    ValueError
        The file cannot be read as ``fmt`` (names the line that does not fit, for text
        files), holds no KeyedVectors (``kv``), gives a word more than one vector (names
        the word and its line or record numbers), or has more vector lines than its
        word2vec header says.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "tiny.txt"
    ...     _ = path.write_text("cat 1 0\ndog 0.6 0.8\ncat 0 1\n", encoding="utf-8")
    ...     read_file(path, "glove-text", None)
    Traceback (most recent call last):
    ...
    ValueError: '...tiny.txt': 1 word(s) of this GloVe text file have more than one vector:
    'cat' (lines 1 and 3). A word must have one vector (...) — remove the repeated lines or
    fix the file
    """
    from gensim.models import KeyedVectors

    repeats: dict[str, list[int]] = {}
    try:
        if fmt == "kv":
            kv = KeyedVectors.load(str(path), mmap="r")
            if not is_keyed_vectors(kv):
                raise ValueError(f"the file holds a {type(kv).__name__}, not KeyedVectors")
            return first_words(kv, limit)
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
