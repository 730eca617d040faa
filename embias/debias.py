"""Debiasing word embeddings: hard (neutralize + equalize) and soft.

Both as in Bolukbasi et al. 2016, generalised to several classes as in Manzini et al. 2019.

Both functions return a :class:`DebiasResult` whose ``embeddings`` is a new gensim
``KeyedVectors`` (the input is never modified) plus a record of what was done.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gensim.models import KeyedVectors
from scipy.sparse import linalg as sparse_linalg

from ._validation import check_int, check_word_list
from .embeddings import is_uncased, keyed_vectors, load_embeddings
from .wordlists import Study, load_study

__all__ = ["DebiasResult", "bias_subspace", "hard_debias", "soft_debias"]

#: Manzini et al.'s code identifies the bias subspace with ``-k`` = 1 component by default,
#: and their published commands (which produced the reported MAC figures) do not change it.
DEFAULT_K = 1
#: Why a definitional set needs two words.
DEFINITIONAL_WHY = ("a definitional set is centred on its own mean, so one word gives no "
                    "direction")


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


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        bad = np.flatnonzero((norms[:, 0] == 0) | ~np.isfinite(norms[:, 0]))
        raise ValueError(f"zero or non-finite vectors at rows {bad[:10].tolist()}: cannot "
                         "normalise them")
    return vectors / norms


def _definitional(
    embeddings: KeyedVectors, study: Study, lowercase: bool | None
) -> tuple[list[list[str]], list[list[int]], list[str]]:
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
    _, rows, _ = _definitional(embeddings, study, lowercase)
    return _subspace(embeddings, rows, study.name, k)


def _subspace(
    embeddings: KeyedVectors, rows: list[list[int]], study_name: str, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Find the subspace by PCA of the centred definitional sets (given by their rows)."""
    centred = []
    for r in rows:
        v = _unit_rows(np.asarray(embeddings.vectors[r], dtype=np.float64))
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


def _project(vectors: np.ndarray, basis: np.ndarray) -> np.ndarray:
    return (vectors @ basis.T) @ basis


def hard_debias(
    embeddings: KeyedVectors | str,
    study: Study | str,
    *,
    k: int = DEFAULT_K,
    neutralize: Sequence[str] | None = None,
    lowercase: bool | None = None,
) -> DebiasResult:
    """Debias hard: neutralize and equalize (Bolukbasi et al. 2016; Manzini et al. 2019).

    1. All vectors are scaled to unit length.
    2. Bias subspace: :func:`bias_subspace` of the study's definitional sets (``k``
       components; default 1 as in Manzini et al.'s code and published runs).
    3. Neutralize: every word not in a definitional set (or only the words in
       ``neutralize``) loses its projection on the subspace and is re-normalised.
       Manzini et al.'s script neutralized only the study's attribute words; pass
       ``neutralize=`` those words to do the same.
    4. Equalize: each definitional set E with mean μ is replaced by
       ν + √(1 − ‖ν‖²)·(w_B − μ_B)/‖w_B − μ_B‖, ν = μ − μ_B, so every word of E is at the
       same distance from every neutralized word.

    Parameters
    ----------
    embeddings
        Input vectors (never modified).
    study
        Study whose ``definitional`` sets define the subspace.
    k
        Subspace dimension.
    neutralize
        Words to neutralize (default: all but the definitional-set words).
    lowercase
        Look definitional words up in lower case (default: if the vocabulary is uncased).

    Returns
    -------
    DebiasResult

    Raises
    ------
    ValueError
        ``neutralize`` not a list of words (a bare string is refused: its letters are
        words of most vocabularies), or with words not in the vocabulary or in a
        definitional set; the errors of :func:`bias_subspace`.

    Examples
    --------
    Before, ``nurse`` is far nearer ``she`` than ``he``; after, equalized ``he`` and
    ``she`` are equally near every neutralized word:

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "nurse", "pilot", "table"], np.array(
    ...     [[0.8, 0.6, 0], [-0.6, 0.8, 0], [-0.6, 0.64, 0.48], [0.6, 0, 0.8], [0, 0, 1]],
    ...     dtype=np.float32))
    >>> study = Study.from_dicts("gender", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["pilot"], "f": ["nurse"]},
    ...                          definitional=[("he", "she")])
    >>> [round(float(kv.similarity(w, "nurse")), 3) for w in ("he", "she")]
    [-0.096, 0.872]
    >>> result = hard_debias(kv, study)
    >>> [round(float(result.embeddings.similarity(w, "nurse")), 3) for w in ("he", "she")]
    [0.532, 0.532]
    >>> result.equalized, result.n_neutralized
    (('he', 'she'), 3)
    """
    if neutralize is not None:
        neutralize = check_word_list("neutralize", neutralize, why=(
            "to neutralize every word but the definitional ones, leave it None"))
    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    study = load_study(study)
    sets, rows, missing = _definitional(kv, study, lowercase)
    basis, explained = _subspace(kv, rows, study.name, k)
    vectors = _unit_rows(np.asarray(kv.vectors, dtype=np.float64))
    definitional_rows = np.unique(np.concatenate([np.asarray(r) for r in rows]))
    if neutralize is None:
        mask = np.ones(len(vectors), dtype=bool)
        mask[definitional_rows] = False
        targets = np.flatnonzero(mask)
    else:
        if lowercase is None:
            lowercase = is_uncased(kv)
        keys = [w.lower() if lowercase else w for w in neutralize]
        absent = [w for w, key in zip(neutralize, keys, strict=True) if key not in kv.key_to_index]
        if absent:
            raise ValueError(f"{len(absent)} words to neutralize are not in the vocabulary: "
                             f"{absent}")
        targets = np.array(sorted({kv.key_to_index[key] for key in keys}), dtype=np.int64)
        clash = sorted(set(targets) & set(definitional_rows))
        if clash:
            raise ValueError(f"words {[kv.index_to_key[i] for i in clash]} are in a "
                             "definitional set and cannot also be neutralized")
    chunk = 100_000
    for start in range(0, len(targets), chunk):
        idx = targets[start:start + chunk]
        v = vectors[idx]
        v = v - _project(v, basis)
        vectors[idx] = _unit_rows(v)
    equalized: list[str] = []
    for words, r in zip(sets, rows, strict=True):
        v = vectors[r]
        mu = v.mean(axis=0)
        mu_b = _project(mu[None, :], basis)[0]
        nu = mu - mu_b
        v_b = _project(v, basis)
        diff = v_b - mu_b
        norms = np.linalg.norm(diff, axis=1)
        if np.any(norms < 1e-12):
            bad = [w for w, n in zip(words, norms, strict=True) if n < 1e-12]
            raise ValueError(f"cannot equalize {words}: {bad} project onto the set's mean in "
                             "the bias subspace")
        vectors[r] = nu + np.sqrt(max(0.0, 1.0 - nu @ nu)) * diff / norms[:, None]
        equalized.extend(words)
    new = keyed_vectors(list(kv.index_to_key), vectors.astype(kv.vectors.dtype))
    return DebiasResult(
        embeddings=new, method="hard", study=study.name,
        definitional_sets=tuple(tuple(s) for s in sets), k=int(basis.shape[0]),
        subspace=basis, explained_variance_ratio=tuple(float(x) for x in explained),
        n_neutralized=len(targets), equalized=tuple(equalized),
        missing_definitional=tuple(missing),
    )


def soft_debias(
    embeddings: KeyedVectors | str,
    study: Study | str,
    *,
    lam: float = 0.2,
    k: int = DEFAULT_K,
    vocabulary: int | Sequence[str] | None = None,
    lowercase: bool | None = None,
    max_iter: int = 10_000,
    tol: float = 1e-10,
) -> DebiasResult:
    """Debias softly (Bolukbasi et al. 2016): one linear map T of every vector.

    T keeps inner products while shrinking the neutral words' projections onto the bias
    subspace.

    Minimises over T (dim × dim), with X = TᵀT,

        ‖Wᵀ X W − WᵀW‖²_F / ‖WᵀW‖²_F  +  λ ‖Nᵀ X B‖²_F / ‖Nᵀ B‖²_F

    where W holds the unit vectors of ``vocabulary`` as columns, N the neutral ones
    (``vocabulary`` minus the definitional words) and B the bias subspace basis. Both
    terms only need the dim × dim matrices C = WWᵀ and C_N = NNᵀ (for the first term,
    ‖Wᵀ(X − I)W‖²_F = tr((X − I) C (X − I) C), the d × d reduction the SVD of W gives), so
    the whole vocabulary costs one pass over the vectors. Each term is scaled by its value
    at T = I so that ``lam`` weighs them comparably. The objective is a convex quadratic
    in X, so its minimiser solves a symmetric positive-definite linear system in the
    dim × dim space, solved matrix-free by conjugate gradients from X = I; T is the
    symmetric square root of X. ``optimizer`` records the convergence (CG iterations,
    relative residual, smallest eigenvalue of X, objective before/after and the share
    of the neutral words' bias projection left). Every word's vector becomes T w / ‖T w‖.

    Manzini et al.'s released soft debiasing ran 10 SGD steps (lr 1e-6) from a *random*
    T, i.e. it returned an essentially random linear map of the embeddings; we solve
    the optimisation problem instead, so our soft figures are not comparable to theirs.

    Parameters
    ----------
    embeddings
        Input vectors (never modified).
    study
        Study whose definitional sets define the subspace.
    lam
        Weight λ > 0 of the debiasing term (0.2 as in Manzini et al.).
    k
        Subspace dimension.
    vocabulary
        Words whose inner products are preserved: all (default), the first ``n`` words,
        or a list.
    max_iter, tol
        Conjugate-gradient limits (iterations, relative residual).

    Returns
    -------
    DebiasResult

    Raises
    ------
    ValueError
        ``vocabulary`` neither a number of words in [1, vocabulary size] nor a list of
        words in the vocabulary (a bare string is refused); the errors of
        :func:`bias_subspace`.

    Examples
    --------
    The solution is exact up to the conjugate-gradient tolerance: the objective falls
    from its value at T = I (1 · 0 + λ · 1 = 0.2) and the neutral words keep 0.65 of their
    bias projection.

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "nurse", "pilot", "table"], np.array(
    ...     [[0.8, 0.6, 0], [-0.6, 0.8, 0], [-0.6, 0.64, 0.48], [0.6, 0, 0.8], [0, 0, 1]],
    ...     dtype=np.float32))
    >>> study = Study.from_dicts("gender", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["pilot"], "f": ["nurse"]},
    ...                          definitional=[("he", "she")])
    >>> result = soft_debias(kv, study, lam=0.2)
    >>> record = result.optimizer
    >>> record["converged"], round(record["objective_start"], 3)
    (True, 0.2)
    >>> bool(record["objective_end"] < record["objective_start"])
    True
    >>> round(record["projection_ratio"], 2)
    0.65
    """
    if not (isinstance(lam, int | float) and np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a positive number, got {lam!r}")
    is_count = isinstance(vocabulary, int | float | np.number)
    words = (check_word_list("vocabulary", vocabulary)
             if vocabulary is not None and not is_count else None)
    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    study = load_study(study)
    sets, rows, missing = _definitional(kv, study, lowercase)
    basis, explained = _subspace(kv, rows, study.name, k)
    n_words = len(kv.index_to_key)
    vocab_rows = _vocabulary_rows(kv, words if words is not None else vocabulary)
    dim = kv.vector_size
    c_all = np.zeros((dim, dim))
    for start in range(0, len(vocab_rows), 100_000):
        w = _unit_rows(np.asarray(kv.vectors[vocab_rows[start:start + 100_000]], np.float64))
        c_all += w.T @ w
    definitional_rows = np.intersect1d(np.concatenate([np.asarray(r) for r in rows]),
                                       vocab_rows)
    d = _unit_rows(np.asarray(kv.vectors[definitional_rows], dtype=np.float64))
    t, optimizer = _soft_map(c_all, c_all - d.T @ d, basis, lam=lam, max_iter=max_iter,
                             tol=tol)
    out = np.empty(kv.vectors.shape, dtype=kv.vectors.dtype)
    for start in range(0, n_words, 100_000):
        v = np.asarray(kv.vectors[start:start + 100_000], dtype=np.float64) @ t.T
        out[start:start + 100_000] = _unit_rows(v)
    new = keyed_vectors(list(kv.index_to_key), out)
    return DebiasResult(
        embeddings=new, method="soft", study=study.name,
        definitional_sets=tuple(tuple(s) for s in sets), k=int(basis.shape[0]),
        subspace=basis, explained_variance_ratio=tuple(float(v) for v in explained),
        n_neutralized=int(len(vocab_rows) - len(definitional_rows)),
        missing_definitional=tuple(missing), optimizer=optimizer,
    )


def _vocabulary_rows(kv: KeyedVectors, vocabulary: int | float | Sequence[str] | None
                     ) -> np.ndarray:
    """Return the rows of the words whose inner products soft debiasing keeps.

    All (``None``), the first ``vocabulary`` words (a number) or the words listed.
    """
    n_words = len(kv.index_to_key)
    if vocabulary is None:
        return np.arange(n_words)
    if isinstance(vocabulary, int | float | np.number):
        return np.arange(check_int("vocabulary", vocabulary, minimum=1, maximum=n_words,
                                   why="the number of most frequent words kept"))
    absent = [w for w in vocabulary if w not in kv.key_to_index]
    if absent:
        raise ValueError(f"{len(absent)} vocabulary words are not in the embeddings: "
                         f"{absent[:20]}")
    return np.array(sorted({kv.key_to_index[w] for w in vocabulary}))


def _soft_map(c_all: np.ndarray, c_neutral: np.ndarray, basis: np.ndarray, *, lam: float,
              max_iter: int, tol: float) -> tuple[np.ndarray, dict[str, Any]]:
    """Solve soft debiasing's objective for the map T; return T and the optimizer record.

    ``c_all`` = WWᵀ over the vocabulary, ``c_neutral`` = NNᵀ over its neutral words,
    ``basis`` the bias subspace (rows). See :func:`soft_debias` for the objective.
    """
    dim = c_all.shape[0]
    p = basis.T @ basis  # projector onto the bias subspace
    eye = np.eye(dim)
    scale1 = float(np.sum(c_all * c_all))  # ‖WᵀW‖²_F = tr(C C)
    scale2 = float(np.trace(basis @ c_neutral @ basis.T))  # ‖Nᵀ B‖²_F

    def objective(x: np.ndarray) -> float:
        m = x - eye
        return (float(np.sum(m * (c_all @ m @ c_all))) / scale1
                + lam * float(np.trace(basis @ x @ c_neutral @ x @ basis.T)) / scale2)

    # The objective is a convex quadratic in X = TᵀT; its minimiser solves the linear,
    # symmetric positive-definite system A(X) = 2 C C / s1 with
    # A(X) = 2 C X C / s1 + λ (C_N X P + P X C_N) / s2: conjugate gradients, matrix-free.
    def apply(flat: np.ndarray) -> np.ndarray:
        x = flat.reshape(dim, dim)
        out = (2 * c_all @ x @ c_all / scale1
               + lam * (c_neutral @ x @ p + p @ x @ c_neutral) / scale2)
        return out.ravel()

    operator = sparse_linalg.LinearOperator((dim * dim, dim * dim), matvec=apply,
                                            dtype=np.float64)
    rhs = (2 * c_all @ c_all / scale1).ravel()
    iterations = 0

    def count(_: np.ndarray) -> None:
        nonlocal iterations
        iterations += 1

    solution, info = sparse_linalg.cg(operator, rhs, x0=eye.ravel(), rtol=tol, maxiter=max_iter,
                                      callback=count)
    x = solution.reshape(dim, dim)
    x = (x + x.T) / 2
    residual = float(np.linalg.norm(apply(x.ravel()) - rhs) / np.linalg.norm(rhs))
    evals, evecs = np.linalg.eigh(x)
    t = (evecs * np.sqrt(np.clip(evals, 0.0, None))) @ evecs.T  # symmetric T with TᵀT = X⁺
    x = t.T @ t
    ratio = float(np.sqrt(np.trace(basis @ x @ c_neutral @ x @ basis.T) / scale2))
    return t, {"converged": info == 0, "iterations": iterations,
               "relative_residual": residual, "min_eigenvalue": float(evals.min()),
               "objective_start": objective(eye), "objective_end": objective(x),
               "lam": float(lam), "projection_ratio": ratio}
