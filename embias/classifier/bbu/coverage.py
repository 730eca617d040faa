"""Coverage simulation of the BBU interval (Ethayarajh 2020, Figure 1).

The published MNLI genre costs, a synthetic population with those means, and the
simulated coverage of the interval on a population with a known disparity.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from embias._validation import check_int, check_probability, check_seed
from embias.classifier.bbu._common import Bound, annotation, check_costs, check_positive
from embias.classifier.bbu.bounds import bernstein_half_width, hoeffding_half_width
from embias.classifier.bbu.interval import amortized_moments
from embias.settings import DEFAULT_CI_PROB

__all__ = ["MNLI_GENRE_COSTS", "bbu_coverage", "genre_population"]

#: Ethayarajh (2020), Table 1: mean in-genre and out-genre cost (rate of annotator
#: disagreement with the gold label) for each MNLI dev-set genre, as published.
MNLI_GENRE_COSTS: Mapping[str, tuple[float, float]] = {
    "facetoface": (0.116, 0.128),
    "fiction": (0.122, 0.128),
    "government": (0.154, 0.124),
    "letters": (0.105, 0.130),
    "nineeleven": (0.115, 0.129),
    "oup": (0.132, 0.127),
    "slate": (0.147, 0.125),
    "telephone": (0.125, 0.127),
    "travel": (0.111, 0.129),
    "verbatim": (0.146, 0.125),
}



def genre_population(
    genre: str = "government",
    *,
    n_in: int = 2000,
    n_out: int = 18000,
) -> tuple[np.ndarray, np.ndarray]:
    """Build a synthetic population with the in-/out-genre mean costs of Ethayarajh's Table 1.

    MNLI costs are the share of 5 annotators who disagree with the (majority) gold label,
    so they take the values 0, 0.2 and 0.4. Each group gets k examples of cost 0.4, 2k of
    cost 0.2 and the rest 0, with k = round(N·m/0.8), so its mean is the published m up to
    1/N. This is a stand-in with the published means, not MNLI itself.

    Parameters
    ----------
    genre
        One of :data:`MNLI_GENRE_COSTS`.
    n_in, n_out
        Numbers of in-genre and out-genre examples (≥ 1).

    Returns
    -------
    cost, group : numpy.ndarray
        Costs and annotation (+1 in-genre, −1 out-genre) of ``n_in + n_out`` examples.

    Raises
    ------
    ValueError
        An unknown genre, a bad count, or a mean that the counts cannot hold.

    Examples
    --------
    "government" has in-genre mean 0.154: with 100 examples k = round(100·0.154/0.8) = 19,
    so the mean is (19·0.4 + 38·0.2)/100 = 0.152:

    >>> from embias.classifier import genre_population
    >>> cost, group = genre_population("government", n_in=100, n_out=900)
    >>> len(cost), round(float(cost[group == 1].mean()), 3)
    (1000, 0.152)
    """
    if genre not in MNLI_GENRE_COSTS:
        raise ValueError(f"genre={genre!r} is not one of {sorted(MNLI_GENRE_COSTS)}")
    m_in, m_out = MNLI_GENRE_COSTS[genre]
    n_in = check_int("n_in", n_in, minimum=1)
    n_out = check_int("n_out", n_out, minimum=1)

    def block(size: int, mean: float) -> np.ndarray:
        k = round(size * mean / 0.8)
        if 3 * k > size:
            raise ValueError(f"cannot build mean {mean} from {size} examples on {{0, .2, .4}}")
        return np.concatenate([np.full(k, 0.4), np.full(2 * k, 0.2), np.zeros(size - 3 * k)])

    cost = np.concatenate([block(n_in, m_in), block(n_out, m_out)])
    group = np.concatenate([np.ones(n_in, np.int8), -np.ones(n_out, np.int8)])
    return cost, group


def bbu_coverage(
    cost: Any,
    group: Any,
    *,
    sample_sizes: Sequence[int] = (100, 200, 500, 1000, 2000),
    protected_share: float | Sequence[float] = 0.5,
    n_sims: int = 1000,
    ci_prob: float = DEFAULT_CI_PROB,
    max_cost: float = 1.0,
    bound: Bound = "bernstein",
    random_seed: int | None = None,
) -> pd.DataFrame:
    """Simulate the coverage of the BBU interval on a population with a known disparity.

    The population is ``(cost, group)`` with ``group`` +1 (protected) / −1 (unprotected)
    (examples annotated 0 are ignored); its true disparity is the difference of the two
    population means. For each sample size ``n`` and protected share γ, ``n_sims`` samples
    are drawn with ``round(γ n)`` protected and the rest unprotected examples, each drawn
    i.i.d. (with replacement) from its group, as the bound assumes; the interval uses the
    observed γ (as :func:`bbu_interval` does by default). This is Ethayarajh's (2020)
    Figure 1.

    Parameters
    ----------
    cost, group
        The population: costs in [0, ``max_cost``] and annotation +1/−1 (0: ignored),
        e.g. from :func:`genre_population`.
    sample_sizes
        Sample sizes n (≥ 2 each).
    protected_share
        γ, the protected share of each sample, in (0, 1) (one value or several).
    n_sims
        Samples per (n, γ).
    ci_prob, max_cost, bound
        As for :func:`bbu_interval`.
    random_seed
        A non-negative integer; ``None`` (the default) draws one from the OS entropy. The
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``:
        passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per (n, γ): ``n``, ``protected_share``, ``true_disparity``, ``coverage``
        (share of intervals containing it), ``coverage_se`` (binomial Monte Carlo standard
        error), ``mean_estimate``, ``mean_half_width``, ``mean_lower``, ``mean_upper``,
        ``share_biased`` (intervals excluding 0), ``n_sims``, ``bound``, ``ci_prob``,
        ``random_seed``, ``seconds``.

    Raises
    ------
    ValueError
        A bad option, a population without both groups, lengths that differ, or a
        protected share that leaves a group empty at some sample size.

    Examples
    --------
    The "government" stand-in population (in-genre mean 0.152, out-genre 0.1236):

    >>> from embias.classifier import bbu_coverage, genre_population
    >>> cost, group = genre_population("government", n_in=100, n_out=900)
    >>> table = bbu_coverage(cost, group, sample_sizes=(200,), n_sims=200, random_seed=0)
    >>> round(float(table["true_disparity"].iloc[0]), 4), int(table["n_sims"].iloc[0])
    (0.0284, 200)
    >>> bool(0 <= table["coverage"].iloc[0] <= 1)
    True
    """
    rho = check_probability("ci_prob", ci_prob)
    c_max = check_positive("max_cost", max_cost)
    seed = check_seed(random_seed)
    if bound not in ("bernstein", "hoeffding"):
        raise ValueError(f"bound must be 'bernstein' or 'hoeffding', got {bound!r}")
    n_sims = check_int("n_sims", n_sims, minimum=1)
    c = check_costs(cost, max_cost=c_max)
    f, _, _ = annotation(group, None)
    if c.shape != f.shape:
        raise ValueError(f"cost has {c.size} values but group has {f.size}; they must match")
    pop_a, pop_b = c[f == 1], c[f == -1]
    if pop_a.size == 0 or pop_b.size == 0:
        raise ValueError("the population needs examples in both groups (+1 and -1)")
    truth = float(pop_a.mean() - pop_b.mean())
    shares = np.atleast_1d(np.asarray(protected_share, dtype=float))
    for s in shares:
        if not (0.0 < s < 1.0):
            raise ValueError(f"protected_share must be in (0, 1), got {s!r}")
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for n in sample_sizes:
        n = check_int("sample size", n, minimum=2)
        for share in shares:
            start = time.perf_counter()
            samples = _coverage_samples(rng, pop_a, pop_b, n, float(share), n_sims=n_sims,
                                ci_prob=rho, max_cost=c_max, bound=bound)
            rows.append({"n": n, "protected_share": float(share), "true_disparity": truth,
                         **_coverage_columns(samples, truth), "n_sims": n_sims, "bound": bound,
                         "ci_prob": rho, "random_seed": seed,
                         "seconds": time.perf_counter() - start})
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table


def _coverage_samples(rng: np.random.Generator, pop_a: np.ndarray, pop_b: np.ndarray, n: int,
                  share: float, *, n_sims: int, ci_prob: float, max_cost: float,
                  bound: str) -> tuple[np.ndarray, np.ndarray]:
    """Return the estimates and half-widths of ``n_sims`` samples of size ``n``.

    Each sample draws ``round(share · n)`` protected examples from ``pop_a`` and the rest
    from ``pop_b``, with replacement; the interval uses the sample's γ. ValueError when a
    group would be empty.
    """
    n_a = round(share * n)
    if not (1 <= n_a <= n - 1):
        raise ValueError(f"protected_share={share} leaves a group empty at sample size n={n}")
    costs = np.concatenate(
        [rng.choice(pop_a, size=(n_sims, n_a)), rng.choice(pop_b, size=(n_sims, n - n_a))],
        axis=1,
    )
    f_s = np.concatenate([np.ones(n_a, np.int8), -np.ones(n - n_a, np.int8)])
    mean, s2, *_ = amortized_moments(costs, f_s)
    g = min(n_a, n - n_a) / n
    if bound == "bernstein":
        t = bernstein_half_width(n, sigma2=s2, ci_prob=ci_prob, max_cost=max_cost, gamma=g)
    else:
        t = np.full(n_sims, hoeffding_half_width(n, ci_prob=ci_prob, max_cost=max_cost,
                                                 gamma=g))
    return mean, np.asarray(t)


def _coverage_columns(samples: tuple[np.ndarray, np.ndarray], truth: float) -> dict[str, float]:
    """Return the coverage columns of :func:`bbu_coverage` from estimates and half-widths."""
    mean, t = samples
    lo, hi = mean - t, mean + t
    cov = float(((lo <= truth) & (truth <= hi)).mean())
    return {
        "coverage": cov,
        "coverage_se": math.sqrt(max(cov * (1 - cov), 1e-12) / mean.size),
        "mean_estimate": float(mean.mean()),
        "mean_half_width": float(np.mean(t)),
        "mean_lower": float(lo.mean()),
        "mean_upper": float(hi.mean()),
        "share_biased": float(np.mean((lo > 0) | (hi < 0))),
    }

