"""The numbers behind WEAT: association scores s(w, A, B), the effect size, and the
permutation null of Caliskan's test statistic with its p-value.

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
    """WEAT's s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b).

    Parameters
    ----------
    sim_a, sim_b
        Cosine similarities of each target word with the words of A and of B; the last
        axis runs over the attribute words, leading axes broadcast (e.g. simulations).

    Returns
    -------
    numpy.ndarray
        ``sim_a.mean(-1) - sim_b.mean(-1)``.
    """
    sim_a = np.asarray(sim_a, dtype=float)
    sim_b = np.asarray(sim_b, dtype=float)
    if sim_a.shape[-1] == 0 or sim_b.shape[-1] == 0:
        raise ValueError("attribute sets A and B must each have at least one word")
    return sim_a.mean(axis=-1) - sim_b.mean(axis=-1)


def weat_effect_size(s_x: np.ndarray, s_y: np.ndarray, *, ddof: int = 1) -> np.ndarray | float:
    """WEAT effect size (mean_X s − mean_Y s) / sd_{X∪Y}(s), vectorised over leading axes.

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
    """Sums over the X-part of re-partitions of X ∪ Y: all of them, or a random sample
    (each partition drawn without replacement within itself)."""
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
        idx = np.argpartition(keys, n_x - 1, axis=1)[:, :n_x]
        sums[start:start + k] = s[idx].sum(axis=1)
    return sums, False


def permutation_p_value(null: np.ndarray, observed: float, center: float, alternative: str,
                        exact: bool) -> tuple[float, float]:
    """The permutation p-value of ``observed`` against the ``null`` statistics (one- or
    two-sided about ``center``, ties within 1e-9 counted), and its Monte Carlo standard
    error (0 when ``exact``: the null is every partition)."""
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
    """Caliskan's test statistic of the s values (the first ``n_x`` are X's), its
    permutation p-value over re-partitions of X ∪ Y (:func:`partition_sums`,
    :func:`permutation_p_value`; two-sided about the null's centre) and the null
    distribution of the effect size (sd with ``ddof``).

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
