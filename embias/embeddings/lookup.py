"""Words looked up in embeddings: the one lookup of the tables, WEAT and MAC.

:func:`lookup_words` finds the words of several named lists (in lower case on an uncased
vocabulary, :func:`is_uncased`) and reports the missing ones (:class:`MissingWords`,
:class:`MissingWordsError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors


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
    >>> from embias.embeddings import keyed_vectors
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
    >>> from embias.embeddings import keyed_vectors
    >>> kv = keyed_vectors(["muslim", "jew", "cat"],
    ...                    np.array([[1, 0], [0.6, 0.8], [0, 1]], dtype=np.float32))
    >>> words, vectors, report = lookup_words(kv, {"a": ["Muslim", "jew"], "b": ["cat"]})
    >>> words, vectors["a"].shape, report.n_missing
    ({'a': ['Muslim', 'jew'], 'b': ['cat']}, (2, 2), 0)
    >>> lookup_words(kv, {"a": ["jew"], "b": ["cat", "dog"]}, missing="raise",
    ...              context="for study 'toy'")
    Traceback (most recent call last):
    ...
    embias.embeddings.lookup.MissingWordsError: 1 words missing from the embeddings for study 'toy':
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
