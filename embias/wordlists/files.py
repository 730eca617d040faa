"""The word-list files: where the shipped ones are, and reading a list or the associations.

A word list is a plain-text file, one word per line, ``#`` comments carrying the
provenance, read as UTF-8 (a byte-order mark is ignored); duplicates are removed with a
warning that names them (:func:`read_wordlist`, :func:`dedupe_words`).
``associations.txt`` pairs protected with attribute classes (:func:`read_associations`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["dedupe_words", "read_associations", "read_wordlist", "wordlists_dir"]


def wordlists_dir() -> Path:
    """Return the folder of the shipped word lists (inside the wheel, or the repository's).

    Returns
    -------
    pathlib.Path
        One folder per study of :data:`BUILTIN_STUDIES`, and the shared control lists
        ``neutral.txt`` and ``human.txt``.

    Raises
    ------
    FileNotFoundError
        Neither the wheel nor the repository holds the word lists (a broken
        installation).

    Examples
    --------
    >>> sorted(p.name for p in wordlists_dir().iterdir() if p.is_dir())[:4]
    ['gender', 'race', 'religion', 'weat1']
    """
    packaged = resources.files("embias") / "wordlists"
    if (packaged / "neutral.txt").is_file():  # not the folder of this package's modules
        return Path(str(packaged))
    repo = Path(__file__).resolve().parents[2] / "wordlists"
    if repo.is_dir():
        return repo
    raise FileNotFoundError(
        f"embias word lists not found (looked in {str(packaged)!r} and {str(repo)!r}); "
        "the installation is incomplete"
    )


def dedupe_words(words: Iterable[str], where: str) -> tuple[str, ...]:
    """Strip the words of a list and drop its duplicates, with a warning that names them.

    Parameters
    ----------
    words
        The words.
    where
        What the list is (a file name, ``"study 'toy' neutral"``), for the messages.

    Returns
    -------
    tuple of str
        The stripped words, each at its first place.

    Raises
    ------
    ValueError
        A word that is not a non-empty string (names it and the list).

    Warns
    -----
    UserWarning
        Duplicates were removed (names them and the list).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     dedupe_words([" he", "she", "he"], "toy list")
    ('he', 'she')
    >>> str(caught[0].message)
    "toy list: removed 1 duplicate word(s): ['he']"
    """
    seen: dict[str, None] = {}
    dups: list[str] = []
    for w in words:
        if not isinstance(w, str) or not w.strip():
            raise ValueError(f"{where}: words must be non-empty strings, got {w!r}")
        w = w.strip()
        if w in seen:
            dups.append(w)
        else:
            seen[w] = None
    if dups:
        warnings.warn(
            f"{where}: removed {len(dups)} duplicate word(s): {sorted(set(dups))}",
            UserWarning,
            stacklevel=4,
        )
    return tuple(seen)


def read_wordlist(path: str | os.PathLike[str]) -> tuple[str, ...]:
    r"""Read a word-list file: one word per line, blank lines and ``#`` comments ignored.

    The file is read as UTF-8; a byte-order mark at its start (written by some Windows
    editors) is not part of the first word. Duplicates are removed with a warning that
    names them.

    Parameters
    ----------
    path
        The file.

    Returns
    -------
    tuple of str
        The words, in the file's order.

    Raises
    ------
    FileNotFoundError
        The file does not exist.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "attributes.x.txt"
    ...     _ = path.write_text("# where the words come from\nalpha\nbeta  # a note\n\n",
    ...                         encoding="utf-8")
    ...     read_wordlist(path)
    ('alpha', 'beta')
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"word list not found: {str(path)!r}")
    words = [
        line.split("#", 1)[0].strip()
        for line in path.read_text(encoding="utf-8-sig").splitlines()
    ]
    return dedupe_words((w for w in words if w), str(path.name))


def read_associations(folder: str | os.PathLike[str], protected: Mapping[str, Any]
                      ) -> tuple[dict[str, str], dict[str, Any]]:
    r"""Read the associations of a folder of word lists, and order its protected classes.

    ``associations.txt`` holds one line ``<protected class> <attribute class>`` each (no
    associations when the file is absent); the protected classes are returned in the
    order that file names them (the others after them).

    Parameters
    ----------
    folder
        The folder.
    protected
        Protected class → words.

    Returns
    -------
    associations : dict of str to str
        Protected class → attribute class, as the file says.
    protected : dict
        ``protected`` in the file's order.

    Raises
    ------
    ValueError
        A line that is not two class names (names the file and the line).

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (pathlib.Path(folder) / "associations.txt").write_text(
    ...         "muslim muslim_stereotype\n", encoding="utf-8")
    ...     read_associations(folder, {"jewish": ("jew",), "muslim": ("islam",)})
    ({'muslim': 'muslim_stereotype'}, {'muslim': ('islam',), 'jewish': ('jew',)})
    """
    associations: dict[str, str] = {}
    assoc_file = Path(folder) / "associations.txt"
    if assoc_file.is_file():
        for line in read_wordlist(assoc_file):
            parts = line.split()
            if len(parts) != 2:
                raise ValueError(f"{str(assoc_file)!r}: expected '<protected class> "
                                 f"<attribute class>' per line, got {line!r}")
            associations[parts[0]] = parts[1]
    order = [c for c in associations if c in protected]
    rest = [c for c in protected if c not in order]
    return associations, {c: protected[c] for c in [*order, *rest]}
