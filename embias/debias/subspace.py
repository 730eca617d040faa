"""The bias subspace: PCA of the study's definitional sets, looked up in the vocabulary.

:func:`bias_subspace` (Bolukbasi et al. 2016; Manzini et al. 2019) and the steps hard and
soft debiasing share: the definitional sets found in the vocabulary
(``definitional_sets``), their subspace (``definitional_subspace``) and vectors scaled to
unit length (``unit_rows``).
"""

from __future__ import annotations

import warnings

import numpy as np
from gensim.models import KeyedVectors

from .._validation import check_word_list
from ..embeddings import is_uncased
from ..wordlists import Study, load_study

__all__ = [
    "DEFAULT_K",
    "DEFINITIONAL_WHY",
    "bias_subspace",
    "definitional_sets",
    "definitional_subspace",
    "unit_rows",
]

#: Manzini et al.'s code identifies the bias subspace with ``-k`` = 1 component by default,
#: and their published commands (which produced the reported MAC figures) do not change it.
DEFAULT_K = 1
#: Why a definitional set needs two words.
DEFINITIONAL_WHY = ("a definitional set is centred on its own mean, so one word gives no "
                    "direction")



def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Return the rows of ``vectors`` scaled to unit length.

    Parameters
    ----------
    vectors
        One vector per row.

    Returns
    -------
    numpy.ndarray
        The rows divided by their norms.

    Raises
    ------
    ValueError
        A row of norm zero or not finite (the first ten such rows are named).
    """
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        bad = np.flatnonzero((norms[:, 0] == 0) | ~np.isfinite(norms[:, 0]))
        raise ValueError(f"zero or non-finite vectors at rows {bad[:10].tolist()}: cannot "
                         "normalise them")
    return vectors / norms


def definitional_sets(
    embeddings: KeyedVectors, study: Study, lowercase: bool | None
) -> tuple[list[list[str]], list[list[int]], list[str]]:
    """Return the study's definitional sets as found in the vocabulary.

    Parameters
    ----------
    embeddings
        The vectors.
    study
        The study whose ``definitional`` sets are looked up.
    lowercase
        Look the words up in lower case (``None``: if the vocabulary is uncased).

    Returns
    -------
    sets : list of list of str
        The sets with at least two words in the vocabulary (their words as looked up).
    rows : list of list of int
        The rows of those words in ``embeddings``.
    missing : list of str
        The definitional words not in the vocabulary.

    Raises
    ------
    ValueError
        The study has no definitional sets, one is not a list of at least two words, or
        none has two words in the vocabulary.

    Warns
    -----
    UserWarning
        Definitional sets with one word in the vocabulary (not used; the word is named).
    """
    if not study.definitional:
        raise ValueError(f"study {study.name!r} has no definitional sets; give it some with "
                         "study.replace(definitional=[('he', 'she'), ...])")
    if lowercase is None:
        lowercase = is_uncased(embeddings)
    index = embeddings.key_to_index
    sets: list[list[str]] = []
    rows: list[list[int]] = []
    missing: list[str] = []
    unused: list[str] = []
    for i, s in enumerate(study.definitional):
        s = check_word_list(f"study {study.name!r}: definitional[{i}]", s, minimum=2,
                            why=DEFINITIONAL_WHY)
        keys = [w.lower() if lowercase else w for w in s]
        kept = [k for k in keys if k in index]
        missing.extend(k for k in keys if k not in index)
        if len(kept) >= 2:
            sets.append(kept)
            rows.append([index[k] for k in kept])
        elif kept:
            unused.append(f"definitional[{i}] {tuple(s)} ({kept[0]!r} found)")
    if sets and unused:  # the word found in such a set would be dropped without a word
        warnings.warn(f"study {study.name!r}: {len(unused)} definitional set(s) have one word "
                      f"in the vocabulary and are not used: {'; '.join(unused)} "
                      f"({DEFINITIONAL_WHY})", UserWarning, stacklevel=3)
    if not sets:
        raise ValueError(f"none of the definitional sets of study {study.name!r} has two words "
                         f"in the vocabulary (missing: {missing}); cannot find a bias subspace")
    return sets, rows, missing


def bias_subspace(
    embeddings: KeyedVectors,
    study: Study | str,
    *,
    k: int = DEFAULT_K,
    lowercase: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bias subspace by PCA of the definitional sets' centred (unit) vectors.

    Each definitional set (e.g. ``judaism christianity islam``) is centred on its own
    mean; the top ``k`` principal directions of all centred vectors span the subspace
    (Bolukbasi et al. 2016; Manzini et al. 2019).

    Returns
    -------
    basis : numpy.ndarray
        ``(k, dim)`` orthonormal rows.
    explained : numpy.ndarray
        Explained-variance ratio of each of the ``k`` components.

    Raises
    ------
    ValueError
        ``k`` < 1 or larger than the number of directions the sets span; a definitional
        set that is not a list of at least two words.

    Warns
    -----
    UserWarning
        Definitional sets with one word in the vocabulary (not used; the word is named).

    Examples
    --------
    One definitional pair: the subspace is the direction of he − she, (1.4, −0.2, 0)
    normalised, and it explains all of the pair's variance.

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "nurse", "pilot", "table"], np.array(
    ...     [[0.8, 0.6, 0], [-0.6, 0.8, 0], [-0.6, 0.64, 0.48], [0.6, 0, 0.8], [0, 0, 1]],
    ...     dtype=np.float32))
    >>> study = Study.from_dicts("gender", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["pilot"], "f": ["nurse"]},
    ...                          definitional=[("he", "she")])
    >>> basis, explained = bias_subspace(kv, study)
    >>> np.round(np.abs(basis), 3).tolist(), explained.tolist()
    ([[0.99, 0.141, 0.0]], [1.0])
    """
    study = load_study(study)
    _, rows, _ = definitional_sets(embeddings, study, lowercase)
    return definitional_subspace(embeddings, rows, study.name, k)


def definitional_subspace(
    embeddings: KeyedVectors, rows: list[list[int]], study_name: str, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Find the subspace by PCA of the centred definitional sets (given by their rows).

    Parameters
    ----------
    embeddings
        The vectors.
    rows
        The rows of each definitional set (of ``definitional_sets``).
    study_name
        The study's name, for the error message.
    k
        Dimension of the subspace.

    Returns
    -------
    basis : numpy.ndarray
        ``(k, dim)`` orthonormal rows.
    explained : numpy.ndarray
        Explained-variance ratio of each of the ``k`` components.

    Raises
    ------
    ValueError
        ``k`` < 1 or larger than the number of directions the sets span.
    """
    centred = []
    for r in rows:
        v = unit_rows(np.asarray(embeddings.vectors[r], dtype=np.float64))
        centred.append(v - v.mean(axis=0))
    matrix = np.vstack(centred)
    rank = int(np.linalg.matrix_rank(matrix))
    if not isinstance(k, int | np.integer) or k < 1 or k > rank:
        raise ValueError(
            f"k={k!r} is not allowed: the {len(rows)} definitional sets of study "
            f"{study_name!r} span {rank} directions ({matrix.shape[0]} centred vectors); "
            f"choose 1 ≤ k ≤ {rank}"
        )
    _, s, vt = np.linalg.svd(matrix, full_matrices=False)
    explained = s**2 / np.sum(s**2)
    return vt[:k], explained[:k]


