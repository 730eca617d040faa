"""Simulations of the parity tests: detection rates when monitoring, and HDI coverage.

:func:`simulate_detection` draws systems with a known bias and reports how often the
simple rule flags them; :func:`parity_hdi_coverage` draws data sets at known rates and
reports how often the HDI of the rate difference contains the truth.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from embias._validation import check_int, check_probability, check_seed
from embias.classifier.parity._checks import check_prior, check_threshold
from embias.classifier.parity.posterior import ParityPosterior
from embias.classifier.parity.rules import moments, simple_rule, z_for
from embias.report import CREDIBLE_DIFFERENCE
from embias.settings import DEFAULT_CI_PROB


def simulate_detection(
    n: int | Sequence[int],
    *,
    rope: float = 0.1,
    ci_prob: float = DEFAULT_CI_PROB,
    max_bias: float = 0.2,
    base_rate: float = 0.5,
    share: float = 0.5,
    n_sims: int = 20000,
    prior: tuple[float, float] = (1, 1),
    random_seed: int | None = None,
) -> pd.DataFrame:
    """Simulate the true and false positive rates of the simple rule when monitoring for bias.

    Reproduces the blog's experiment: each simulated system has a true bias b drawn
    uniformly from [0, ``max_bias``]; its two groups have rates ``base_rate ∓ b/2`` and
    split ``n`` decisions in proportion ``share`` : ``1 − share``. The simple rule
    (:meth:`ParityPosterior.decide`, z = Φ⁻¹(``ci_prob``)) flags a system when it finds
    more than ``rope`` bias. TPR = flagged share of systems with b > T, FPR = flagged
    share of systems with b ≤ T.

    Parameters
    ----------
    n
        Decisions per system (≥ 2), one value or several.
    rope
        T in [0, 1): the fairness threshold.
    ci_prob
        Confidence of the simple rule (z = Φ⁻¹(``ci_prob``)).
    max_bias
        Largest true bias, in (0, 1).
    base_rate
        Mean rate of the two groups, in [max_bias/2, 1 − max_bias/2].
    share
        Share of the decisions made for group 1, in (0, 1).
    n_sims
        Simulated systems per ``n``.
    prior
        Beta prior of both rates.
    random_seed
        A non-negative integer; ``None`` (the default) draws one from the OS entropy. The
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``:
        passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per ``n``: ``n``, ``n1``, ``n2``, ``tpr``, ``fpr``, ``tpr_se``, ``fpr_se``
        (binomial Monte Carlo errors), ``n_biased``, ``n_unbiased``, ``z``, ``rope``,
        ``ci_prob``, ``random_seed``, ``seconds``.

    Raises
    ------
    ValueError
        A bad option, or a ``share`` that leaves a group empty at some ``n``.

    Examples
    --------
    Every simulated system is either biased (b > T) or not, and more decisions make the
    rule find more of the biased ones:

    >>> from embias.classifier import simulate_detection
    >>> table = simulate_detection([100, 1000], n_sims=2000, random_seed=0)
    >>> (table["n_biased"] + table["n_unbiased"]).tolist()
    [2000, 2000]
    >>> bool(table["tpr"].iloc[1] > table["tpr"].iloc[0])
    True
    """
    t = check_threshold(rope, "rope")
    c = check_probability("ci_prob", ci_prob)
    s = check_probability("share", share)
    pr = check_prior(prior)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    if not (0.0 < max_bias < 1.0):
        raise ValueError(f"max_bias must be in (0, 1), got {max_bias!r}")
    if not (max_bias / 2 <= base_rate <= 1 - max_bias / 2):
        raise ValueError(f"base_rate must be in [max_bias/2, 1 − max_bias/2] = "
                         f"[{max_bias / 2}, {1 - max_bias / 2}], got {base_rate!r}")
    z = z_for(c)
    seed = check_seed(random_seed)
    rng = np.random.default_rng(seed)
    rows = []
    for total in np.atleast_1d(n):
        total = check_int("n", total, minimum=2)
        start = time.perf_counter()
        n1 = round(total * s)
        n2 = total - n1
        if n1 < 1 or n2 < 1:
            raise ValueError(f"share={share} leaves a group empty at n={total}")
        bias = rng.uniform(0.0, max_bias, n_sims)
        x1 = rng.binomial(n1, base_rate - bias / 2)
        x2 = rng.binomial(n2, base_rate + bias / 2)
        mean, var = moments(x1, n1, x2, n2, pr)
        flagged = simple_rule(mean, np.sqrt(var), t, z) == CREDIBLE_DIFFERENCE
        biased = bias > t
        tpr = float(flagged[biased].mean())
        fpr = float(flagged[~biased].mean())
        rows.append({
            "n": total, "n1": n1, "n2": n2, "tpr": tpr, "fpr": fpr,
            "tpr_se": math.sqrt(tpr * (1 - tpr) / max(int(biased.sum()), 1)),
            "fpr_se": math.sqrt(fpr * (1 - fpr) / max(int((~biased).sum()), 1)),
            "n_biased": int(biased.sum()), "n_unbiased": int((~biased).sum()),
            "z": z, "rope": t, "ci_prob": c, "random_seed": seed,
            "seconds": time.perf_counter() - start,
        })
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table


def parity_hdi_coverage(
    rate1: float,
    n1: int,
    *,
    rate2: float | None = None,
    n2: int | None = None,
    ci_prob: float = DEFAULT_CI_PROB,
    n_sims: int = 1000,
    prior: tuple[float, float] = (1, 1),
    random_seed: int | None = None,
) -> pd.DataFrame:
    """Frequentist coverage of the HDI of e₂ − e₁ over simulated data sets.

    Each data set draws ``x1 ~ Binomial(n1, rate1)`` and ``x2 ~ Binomial(n2, rate2)``
    (defaults: the same rate and size, i.e. the null of equal rates) and computes the
    ``ci_prob`` HDI by quadrature; coverage is the share of HDIs containing
    ``rate2 − rate1``. Identical (x1, x2) pairs are computed once.

    Parameters
    ----------
    rate1, n1
        Rate and size of group 1 (rate in [0, 1], n ≥ 1).
    rate2, n2
        Rate and size of group 2 (default: those of group 1).
    ci_prob
        Probability of the HDIs.
    n_sims
        Simulated data sets.
    prior
        Beta prior of both rates.
    random_seed
        A non-negative integer; ``None`` (the default) draws one from the OS entropy. The
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``:
        passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row: ``true_difference``, ``coverage``, ``coverage_se``, ``mean_width``,
        ``n_sims``, ``n_distinct``, ``n1``, ``n2``, ``ci_prob``, ``random_seed``,
        ``seconds``.

    Raises
    ------
    ValueError
        A rate outside [0, 1], or a bad size, ``ci_prob``, ``n_sims``, prior or seed.

    Examples
    --------
    Under the null of equal rates (0.3, 30 per group) the true difference is 0; with 30
    per group there are at most 31² distinct (x1, x2) pairs to compute:

    >>> from embias.classifier import parity_hdi_coverage
    >>> table = parity_hdi_coverage(0.3, 30, n_sims=200, random_seed=0)
    >>> float(table["true_difference"].iloc[0]), int(table["n_distinct"].iloc[0]) <= 200
    (0.0, True)
    >>> bool(0 <= table["coverage"].iloc[0] <= 1)
    True
    """
    r1 = float(rate1)
    r2 = r1 if rate2 is None else float(rate2)
    for name, r in (("rate1", r1), ("rate2", r2)):
        if not (0.0 <= r <= 1.0):
            raise ValueError(f"{name} must be in [0, 1], got {r!r}")
    n1 = check_int("n1", n1, minimum=1)
    n2 = n1 if n2 is None else check_int("n2", n2, minimum=1)
    p = check_probability("ci_prob", ci_prob)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    pr = check_prior(prior)
    seed = check_seed(random_seed)
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    x1 = rng.binomial(n1, r1, n_sims)
    x2 = rng.binomial(n2, r2, n_sims)
    pairs, inverse = np.unique(np.stack([x1, x2], axis=1), axis=0, return_inverse=True)
    bounds = np.array([
        ParityPosterior(int(a), n1, int(b), n2, pr)._hdi_bounds(p) for a, b in pairs
    ])
    lo, hi = bounds[inverse.ravel(), 0], bounds[inverse.ravel(), 1]
    truth = r2 - r1
    cov = float(np.mean((lo <= truth) & (truth <= hi)))
    table = pd.DataFrame([{
        "true_difference": truth, "coverage": cov,
        "coverage_se": math.sqrt(max(cov * (1 - cov), 1e-12) / n_sims),
        "mean_width": float(np.mean(hi - lo)), "n_sims": n_sims, "n_distinct": len(pairs),
        "n1": n1, "n2": n2, "ci_prob": p, "random_seed": seed,
        "seconds": time.perf_counter() - start,
    }])
    table.attrs["random_seed"] = seed
    return table
