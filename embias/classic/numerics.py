"""The numbers behind WEAT: association scores, the effect size and the permutation null.

The association scores are s(w, A, B); the permutation null is that of Caliskan's test
statistic, with its p-value.

Every function here takes arrays (cosine similarities, s values); :func:`embias.weat`
(:mod:`embias.classic.permutation_test`) reads them from embeddings, and the item
bootstrap (:mod:`embias.classic.item_bootstrap`) and the simulations
(:mod:`embias.simulate`) reuse them.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "ATTRIBUTE_WHY",
    "DEFAULT_MC_PERMUTATIONS",
    "MAX_EXACT_PARTITIONS",
    "ONE_WORD_WHY",
    "PermutationTest",
    "association_scores",
    "partition_sums",
    "permutation_p_value",
    "weat_effect_size",
    "weat_permutation_test",
]

#: Largest number of equal-size partitions enumerated exactly by ``permutations="auto"``.
MAX_EXACT_PARTITIONS = 1_000_000
#: Monte Carlo permutations used by ``permutations="auto"`` when exact is infeasible.
DEFAULT_MC_PERMUTATIONS = 100_000
#: Why WEAT refuses a target set of one word.
ONE_WORD_WHY = ("WEAT compares two samples of target words, and one word is no sample: with "
                "one word in each set the effect size is always ±√2 — the sample sd of two "
                "values is |difference|/√2 — whatever the embeddings")
#: Why WEAT needs at least one word in each attribute list.
ATTRIBUTE_WHY = "s(w, A, B) is the mean cosine of w with the words of A minus that with B's"



def association_scores(sim_a: np.ndarray, sim_b: np.ndarray) -> np.ndarray:
    """Return WEAT's s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b).

    Parameters
    ----------
    sim_a, sim_b
        Cosine similarities of each target word with the words of A and of B; the last
        axis runs over the attribute words, leading axes broadcast (e.g. simulations).

    Returns
    -------
    numpy.ndarray
        ``sim_a.mean(-1) - sim_b.mean(-1)``.

    Raises
    ------
    ValueError
        A or B without words (an empty last axis).

    Examples
    --------
    Two target words (rows), two words in A and in B (columns): s = (0.5 + 0.3)/2 −
    (0.1 + 0.1)/2 = 0.3 for the first word and 0.1 − 0.2 = −0.1 for the second.

    >>> import numpy as np
    >>> from embias.classic import association_scores
    >>> association_scores(np.array([[0.5, 0.3], [0.2, 0.0]]),
    ...                    np.array([[0.1, 0.1], [0.3, 0.1]]))
    array([ 0.3, -0.1])
    """
    sim_a = np.asarray(sim_a, dtype=float)
    sim_b = np.asarray(sim_b, dtype=float)
    if sim_a.shape[-1] == 0 or sim_b.shape[-1] == 0:
        raise ValueError("attribute sets A and B must each have at least one word")
    return sim_a.mean(axis=-1) - sim_b.mean(axis=-1)


def weat_effect_size(s_x: np.ndarray, s_y: np.ndarray, *, ddof: int = 1) -> np.ndarray | float:
    """Return the WEAT effect size (mean_X s − mean_Y s) / sd_{X∪Y}(s).

    Vectorised over leading axes.

    Parameters
    ----------
    s_x, s_y
        Association scores of the X and Y target words (last axis = words).
    ddof
        Delta degrees of freedom of the sd: 1 (sample sd) is Caliskan et al.'s definition
        as their published values imply; 0 matches some other toolkits.

    Returns
    -------
    float or numpy.ndarray
        The effect size(s).

    Raises
    ------
    ValueError
        Empty X or Y, fewer than ``ddof + 1`` words in total, or zero spread of s
        (effect size undefined).

    Examples
    --------
    s = (1, 2) for X and (−1, −2) for Y: the means differ by 3 and the sample sd of
    (1, 2, −1, −2) is √(10/3), so d = 3/√(10/3) ≈ 1.643.

    >>> from embias.classic import weat_effect_size
    >>> round(weat_effect_size([1.0, 2.0], [-1.0, -2.0]), 3)
    1.643
    >>> weat_effect_size([1.0, 1.0], [1.0, 1.0])
    Traceback (most recent call last):
    ...
    ValueError: the association scores s(w, A, B) have zero spread over X ∪ Y: ... undefined
    """
    s_x = np.asarray(s_x, dtype=float)
    s_y = np.asarray(s_y, dtype=float)
    if s_x.shape[-1] == 0 or s_y.shape[-1] == 0:
        raise ValueError(f"X and Y need at least one word each, got {s_x.shape[-1]} and "
                         f"{s_y.shape[-1]}")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    both = np.concatenate([s_x, s_y], axis=-1)
    if both.shape[-1] <= ddof:
        raise ValueError(f"the sd with ddof={ddof} needs more than {ddof} words in X ∪ Y, "
                         f"got {both.shape[-1]}")
    sd = both.std(axis=-1, ddof=ddof)
    if np.any(sd == 0):
        raise ValueError("the association scores s(w, A, B) have zero spread over X ∪ Y: "
                         "the WEAT effect size is undefined")
    out = (s_x.mean(axis=-1) - s_y.mean(axis=-1)) / sd
    return float(out) if np.ndim(out) == 0 else out


def partition_sums(
    s: np.ndarray, n_x: int, permutations: int | str, rng: np.random.Generator
) -> tuple[np.ndarray, bool]:
    """Return the sums over the X-part of re-partitions of X ∪ Y.

    All C(|X ∪ Y|, n_x) partitions, or a random sample of them (each partition drawn
    without replacement within itself).

    Parameters
    ----------
    s
        Association scores of X ∪ Y (one-dimensional).
    n_x
        Size of the X-part.
    permutations
        ``"exact"`` (every partition), ``"auto"`` (every partition when there are at most
        :data:`MAX_EXACT_PARTITIONS`, else :data:`DEFAULT_MC_PERMUTATIONS` random ones) or
        a number of random partitions.
    rng
        The Generator of the random partitions (not drawn from when exact).

    Returns
    -------
    sums : numpy.ndarray
        Σ s over the X-part of every partition used.
    exact : bool
        Whether every partition was enumerated.

    Raises
    ------
    ValueError
        ``permutations="exact"`` with more than 50 × :data:`MAX_EXACT_PARTITIONS`
        partitions.

    Examples
    --------
    The C(4, 2) = 6 pairs of (1, 2, 3, 4) sum to 3, 4, 5, 5, 6 and 7:

    >>> import numpy as np
    >>> from embias.classic import partition_sums
    >>> partition_sums(np.array([1.0, 2.0, 3.0, 4.0]), 2, "exact", np.random.default_rng(0))
    (array([3., 4., 5., 5., 6., 7.]), True)
    """
    n = s.size
    total = math.comb(n, n_x)
    exact = permutations == "exact" or (permutations == "auto" and total <= MAX_EXACT_PARTITIONS)
    if exact:
        if total > 50 * MAX_EXACT_PARTITIONS:
            raise ValueError(f"exact enumeration of C({n}, {n_x}) = {total:,} partitions is "
                             "infeasible; use permutations='auto' or an integer")
        idx = np.fromiter(
            itertools.chain.from_iterable(itertools.combinations(range(n), n_x)),
            dtype=np.int32,
            count=total * n_x,
        ).reshape(total, n_x)
        return s[idx].sum(axis=1), True
    m = DEFAULT_MC_PERMUTATIONS if permutations == "auto" else int(permutations)
    sums = np.empty(m)
    chunk = max(1, 2_000_000 // n)
    for start in range(0, m, chunk):
        k = min(chunk, m - start)
        keys = rng.random((k, n))
        picked = np.argpartition(keys, n_x - 1, axis=1)[:, :n_x]
        sums[start:start + k] = s[picked].sum(axis=1)
    return sums, False


def permutation_p_value(null: np.ndarray, observed: float, center: float, alternative: str,
                        exact: bool) -> tuple[float, float]:
    """Return the permutation p-value of ``observed`` and its Monte Carlo standard error.

    Parameters
    ----------
    null
        The test statistic of every partition used.
    observed
        The observed statistic.
    center
        The centre of the null (two-sided p-values count distances from it).
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    exact
        Whether ``null`` holds every partition: then p = #hits/N with standard error 0;
        else p = (#hits + 1)/(m + 1) with standard error √(p(1 − p)/m).

    Returns
    -------
    p_value, p_value_se : float
        Ties within 1e-9 of ``observed`` count as hits.

    Examples
    --------
    One of six null statistics is at most −4, two are at least 4 away from the centre 0:

    >>> import numpy as np
    >>> from embias.classic import permutation_p_value
    >>> null = np.array([-4.0, -2.0, 0.0, 0.0, 2.0, 4.0])
    >>> permutation_p_value(null, -4.0, 0.0, "less", True)
    (0.16666666666666666, 0.0)
    >>> permutation_p_value(null, -4.0, 0.0, "two-sided", True)
    (0.3333333333333333, 0.0)
    """
    tol = 1e-9 * max(1.0, abs(observed))
    if alternative == "greater":
        hits = np.count_nonzero(null >= observed - tol)
    elif alternative == "less":
        hits = np.count_nonzero(null <= observed + tol)
    else:
        hits = np.count_nonzero(np.abs(null - center) >= abs(observed - center) - tol)
    m = null.size
    if exact:
        return float(hits / m), 0.0
    p = float((hits + 1) / (m + 1))
    return p, math.sqrt(p * (1 - p) / m)


@dataclass(frozen=True)
class PermutationTest:
    """Caliskan's permutation test of the s values of X ∪ Y (:func:`weat_permutation_test`).

    Attributes
    ----------
    statistic
        Σ_X s − Σ_Y s.
    p_value, p_value_se
        The permutation p-value and its Monte Carlo standard error (0 when exact).
    exact
        Whether every equal-size partition was enumerated.
    n_permutations
        Partitions used.
    null_effect_sizes
        The effect size of every partition used (the permutation null distribution).
    """

    statistic: float
    p_value: float
    p_value_se: float
    exact: bool
    n_permutations: int
    null_effect_sizes: np.ndarray = field(repr=False)


def weat_permutation_test(s: np.ndarray, n_x: int, *, permutations: int | str = "auto",
                     alternative: str = "two-sided", ddof: int = 1,
                     rng: np.random.Generator) -> PermutationTest:
    """Run Caliskan's permutation test on the s values (the first ``n_x`` are X's).

    Computes the test statistic, its permutation p-value over re-partitions of X ∪ Y
    (:func:`partition_sums`, :func:`permutation_p_value`; two-sided about the null's
    centre) and the null distribution of the effect size (sd with ``ddof``).

    Parameters
    ----------
    s
        Association scores of X's words, then Y's.
    n_x
        Number of X words.
    permutations, alternative
        As for :func:`embias.weat`.
    ddof
        Delta degrees of freedom of the effect size's sd.
    rng
        The Generator of the Monte Carlo partitions (not drawn from when exact).

    Returns
    -------
    PermutationTest

    Raises
    ------
    ValueError
        ``permutations="exact"`` with too many partitions to enumerate.

    Examples
    --------
    X's s values (4, 3), Y's (2, 1): Σ_X s − Σ_Y s = 4, and of the 6 re-partitions two
    ({4, 3} and {2, 1} as X) are that far from the null's centre:

    >>> import numpy as np
    >>> from embias.classic import weat_permutation_test
    >>> test = weat_permutation_test(np.array([4.0, 3.0, 2.0, 1.0]), 2,
    ...                              rng=np.random.default_rng(0))
    >>> test.statistic, test.p_value, test.exact, test.n_permutations
    (4.0, 0.3333333333333333, True, 6)
    """
    s = np.asarray(s, dtype=float)
    statistic = float(s[:n_x].sum() - s[n_x:].sum())
    sums, exact = partition_sums(s, n_x, permutations, rng)
    total = float(s.sum())
    null_stats = 2 * sums - total
    center = (n_x - (s.size - n_x)) * total / s.size
    p, se = permutation_p_value(null_stats, statistic, center, alternative, exact)
    sd = float(np.std(s, ddof=ddof))
    null_effects = (sums / n_x - (total - sums) / (s.size - n_x)) / sd
    return PermutationTest(statistic=statistic, p_value=p, p_value_se=se, exact=exact,
                           n_permutations=int(null_stats.size), null_effect_sizes=null_effects)
