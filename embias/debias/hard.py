"""Hard debiasing: neutralize and equalize (Bolukbasi et al. 2016; Manzini et al. 2019)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gensim.models import KeyedVectors

from .._validation import check_word_list
from ..embeddings import is_uncased, keyed_vectors, load_embeddings
from ..wordlists import Study, load_study
from .result import DebiasResult
from .subspace import DEFAULT_K, definitional_sets, definitional_subspace, unit_rows

__all__ = ["hard_debias"]


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
    sets, rows, missing = definitional_sets(kv, study, lowercase)
    basis, explained = definitional_subspace(kv, rows, study.name, k)
    vectors = unit_rows(np.asarray(kv.vectors, dtype=np.float64))
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
        vectors[idx] = unit_rows(v)
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

