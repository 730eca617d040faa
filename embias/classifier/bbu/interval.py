"""The BBU interval of a groupwise disparity, from costs and a group annotation.

The amortized disparities' mean and variance, and the interval-table row built from them.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from embias._validation import check_probability
from embias.classifier.bbu._common import (
    Bound,
    annotation,
    check_costs,
    check_gamma,
    check_positive,
    variance_value,
)
from embias.classifier.bbu.bounds import bernstein_half_width, hoeffding_half_width
from embias.report import interval_table, rope_decision
from embias.settings import DEFAULT_CI_PROB

__all__ = ["amortized_moments", "bbu_interval", "bbu_row"]


def amortized_moments(
    cost: np.ndarray, f: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean and sample variance (ddof=1) of the amortized disparities along the last axis.

    Pr[f = f(x_i)] is estimated by the sample frequency, so the mean equals
    mean_A(c) − mean_B(c). The inputs are taken as checked (no ValueError).

    Parameters
    ----------
    cost
        Costs of the examples along the last axis (e.g. one sample per row).
    f
        Annotation in {+1, −1, 0} along the last axis; broadcasts with ``cost``.

    Returns
    -------
    mean, variance, n, n_a, n_b : numpy.ndarray
        Mean and sample variance of the amortized disparities, the number of examples (as
        floats) and the numbers annotated +1 and −1.

    Examples
    --------
    Costs (1, 0, 1) in A and (1, 0, 0) in B: the amortized disparities are
    (2, 0, 2, −2, 0, 0), of mean 1/3 and sample variance 34/15:

    >>> import numpy as np
    >>> from embias.classifier.bbu.interval import amortized_moments
    >>> mean, var, *_ = amortized_moments(np.array([1, 0, 1, 1, 0, 0.]),
    ...                                   np.array([1, 1, 1, -1, -1, -1]))
    >>> round(float(mean), 4), round(float(var), 4), round(34 / 15, 4)
    (0.3333, 2.2667, 2.2667)
    """
    n = f.shape[-1]
    is_a = f == 1
    is_b = f == -1
    n_a = is_a.sum(axis=-1)
    n_b = is_b.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(is_a, n / n_a[..., None], 0.0) - np.where(is_b, n / n_b[..., None], 0.0)
    amort = cost * weight
    mean = amort.mean(axis=-1)
    var = amort.var(axis=-1, ddof=1) if n > 1 else np.zeros_like(mean)
    return mean, var, np.full_like(mean, n, dtype=float), n_a, n_b


def _decision(lower: float, upper: float) -> str:
    """Return the interval + ROPE decision with ROPE = {0}.

    "credible difference" when the interval excludes 0, else "undecided"
    (:func:`embias.report.rope_decision`).
    """
    return str(rope_decision(lower, upper, 0.0))


def bbu_interval(
    cost: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    max_cost: float = 1.0,
    gamma: float | None = None,
    protected: Any = None,
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
    estimand: str = "groupwise_disparity",
) -> pd.DataFrame:
    """Groupwise disparity with its Bernstein (or Hoeffding) confidence interval.

    Parameters
    ----------
    cost
        Cost of each annotated example, in ``[0, max_cost]``.
    group
        Annotation per example: +1 (protected, A), −1 (unprotected, B), 0 (neither); or
        booleans (True = protected); or exactly two labels (see ``protected``).
    ci_prob
        ρ in (0, 1).
    max_cost
        C, the largest possible cost.
    gamma
        γ in (0, 0.5]: the known lower bound on both group shares. Default: the observed
        share of the smaller group, min(n_A, n_B) / n.
    protected
        With two labels, the label of the protected group (default: the first label in
        sorted order; the ``group`` column of the result names both).
    variance
        σ² of the amortized disparities: ``"sample"`` (their sample variance, as in the
        paper), ``"max"`` ((C/γ)², a bound that does not rely on estimating σ²) or a number.
    bound
        ``"bernstein"`` (default) or ``"hoeffding"`` (for comparison; ignores σ²).
    estimand
        Name written in the ``estimand`` column.

    Returns
    -------
    pandas.DataFrame
        One interval-table row: ``estimate`` = mean cost of A − mean cost of B, ``lower``
        and ``upper`` = estimate ∓ t (not clipped to [−C, C]), ``ci_kind`` = ``bound``;
        extra columns ``n``, ``n_protected``, ``n_unprotected``, ``gamma``, ``sigma2``,
        ``half_width``, ``max_cost`` and ``decision`` (``"credible difference"`` when the
        interval excludes 0, else ``"undecided"``). Examples annotated 0 count in ``n`` (their
        amortized disparity is 0), as in the paper.

    Raises
    ------
    ValueError
        Bad ``ci_prob``/``gamma``/``max_cost``, costs outside [0, C] or NaN, lengths that
        differ, or an empty group.

    Examples
    --------
    Three protected examples with costs (1, 0, 1), three unprotected with (1, 0, 0): the
    disparity is 2/3 − 1/3. The amortized disparities are c·(±6/3) = (2, 0, 2, −2, 0, 0),
    whose sample variance is 34/15 ≈ 2.267; six examples cannot call that biased:

    >>> from embias.classifier import bbu_interval
    >>> row = bbu_interval([1, 0, 1, 1, 0, 0], [1, 1, 1, -1, -1, -1], ci_prob=0.95)
    >>> row[["estimate", "sigma2", "n", "gamma", "decision"]].round(3)
       estimate  sigma2  n  gamma   decision
    0     0.333   2.267  6    0.5  undecided
    >>> bbu_interval([1, 0, 1.5], [1, -1, -1])
    Traceback (most recent call last):
    ...
    ValueError: cost values must lie in [0, max_cost=1.0]; got 1.5 at index 2
    """
    rho = check_probability("ci_prob", ci_prob)
    c_max = check_positive("max_cost", max_cost)
    c = check_costs(cost, max_cost=c_max)
    f, name_a, name_b = annotation(group, protected)
    if c.shape != f.shape:
        raise ValueError(f"cost has {c.size} values but group has {f.size}; they must match")
    row = bbu_row(c, f, (name_a, name_b), ci_prob=rho, max_cost=c_max, gamma=gamma,
                   variance=variance, bound=bound, estimand=estimand)
    return interval_table([row], ci_prob=rho, ci_kind=bound)


def bbu_row(
    c: np.ndarray,
    f: np.ndarray,
    names: tuple[str, str],
    *,
    ci_prob: float,
    max_cost: float,
    gamma: float | None,
    variance: Any,
    bound: str,
    estimand: str,
) -> dict[str, Any]:
    """Return the interval-table row of :func:`bbu_interval` from checked costs and f ∈ {±1, 0}.

    Parameters
    ----------
    c
        Costs, checked to lie in [0, ``max_cost``].
    f
        Annotation in {+1, −1, 0}, as long as ``c``.
    names
        Names of the protected and the unprotected group.
    ci_prob
        ρ in (0, 1), checked.
    max_cost
        C, checked.
    gamma, variance, bound, estimand
        As for :func:`bbu_interval` (checked here).

    Returns
    -------
    dict
        The row's columns, as :func:`bbu_interval` describes them.

    Raises
    ------
    ValueError
        An unknown ``bound`` or ``variance``, a bad ``gamma``, or an empty group.
    """
    if bound not in ("bernstein", "hoeffding"):
        raise ValueError(f"bound must be 'bernstein' or 'hoeffding', got {bound!r}")
    name_a, name_b = names
    n_a, n_b = int(np.sum(f == 1)), int(np.sum(f == -1))
    for label, count, side in ((name_a, n_a, "protected, +1"), (name_b, n_b, "unprotected, -1")):
        if count == 0:
            raise ValueError(
                f"group {label!r} ({side}) is empty: BBU needs at least one example in each "
                f"group (got n_protected={n_a}, n_unprotected={n_b})"
            )
    n = f.size
    g = min(n_a, n_b) / n if gamma is None else check_gamma(gamma)
    mean, s2_hat, *_ = amortized_moments(c, f)
    if isinstance(variance, str) and variance not in ("sample", "max"):
        raise ValueError(f"variance must be 'sample', 'max' or a number ≥ 0, got {variance!r}")
    if isinstance(variance, str) and variance == "sample":
        s2 = float(s2_hat)
    else:
        s2 = variance_value(variance, max_cost=max_cost, gamma=g)
    if bound == "bernstein":
        t = bernstein_half_width(n, sigma2=s2, ci_prob=ci_prob, max_cost=max_cost, gamma=g)
    else:
        t = hoeffding_half_width(n, ci_prob=ci_prob, max_cost=max_cost, gamma=g)
    est = float(mean)
    lo, hi = est - float(t), est + float(t)
    return {
        "estimand": estimand,
        "group": f"{name_a} − {name_b}",
        "estimate": est,
        "lower": lo,
        "upper": hi,
        "n": n,
        "n_protected": n_a,
        "n_unprotected": n_b,
        "gamma": g,
        "sigma2": s2,
        "half_width": float(t),
        "max_cost": max_cost,
        "decision": _decision(lo, hi),
    }

