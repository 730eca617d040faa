"""Soft debiasing (Bolukbasi et al. 2016): one linear map of every vector, solved exactly.

:func:`soft_debias` finds the map that keeps inner products while shrinking the neutral
words' projections onto the bias subspace: a convex quadratic problem in the d × d space,
solved by conjugate gradients.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gensim.models import KeyedVectors
from scipy.sparse import linalg as sparse_linalg

from .._validation import check_int, check_word_list
from ..embeddings import keyed_vectors, load_embeddings
from ..wordlists import Study, load_study
from .result import DebiasResult
from .subspace import DEFAULT_K, definitional_sets, definitional_subspace, unit_rows

__all__ = ["soft_debias"]


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
    sets, rows, missing = definitional_sets(kv, study, lowercase)
    basis, explained = definitional_subspace(kv, rows, study.name, k)
    n_words = len(kv.index_to_key)
    vocab_rows = _vocabulary_rows(kv, words if words is not None else vocabulary)
    dim = kv.vector_size
    c_all = np.zeros((dim, dim))
    for start in range(0, len(vocab_rows), 100_000):
        w = unit_rows(np.asarray(kv.vectors[vocab_rows[start:start + 100_000]], np.float64))
        c_all += w.T @ w
    definitional_rows = np.intersect1d(np.concatenate([np.asarray(r) for r in rows]),
                                       vocab_rows)
    d = unit_rows(np.asarray(kv.vectors[definitional_rows], dtype=np.float64))
    t, optimizer = _soft_map(c_all, c_all - d.T @ d, basis, lam=lam, max_iter=max_iter,
                             tol=tol)
    out = np.empty(kv.vectors.shape, dtype=kv.vectors.dtype)
    for start in range(0, n_words, 100_000):
        v = np.asarray(kv.vectors[start:start + 100_000], dtype=np.float64) @ t.T
        out[start:start + 100_000] = unit_rows(v)
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
