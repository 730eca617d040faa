"""Bernstein-bounded unfairness (Ethayarajh 2020).

A fairness measure is written as a *groupwise disparity*: the difference in expected cost
``c ∈ [0, C]`` between a protected group A and an unprotected group B,

    δ = E_A[c] − E_B[c].

Each annotated example contributes an *amortized disparity*
``δ̂_i = c_i f(x_i) / Pr[f = f(x_i)]`` with ``f(x) ∈ {+1 (A), −1 (B), 0 (neither)}``; their
mean over all ``n`` examples is the difference of the group means. With γ a lower bound on
both group shares, every ``δ̂_i`` lies in ``[−C/γ, C/γ]`` and Bernstein's inequality gives a
confidence interval ``δ̄ ± t`` with

    t = (B + √(B² − 8nσ² log((1−ρ)/2))) / (2n),   B = −(2C/(3γ)) log((1−ρ)/2),

and the sample size needed to call a disparity δ biased at confidence level ρ (``ci_prob``),

    n > (2σ² + 2Cδ/(3γ)) (−log((1−ρ)/2)) / δ².

Everything here is numpy/scipy only. Intervals come back as rows of the shared interval
table (:func:`embias.report.interval_table`, ``ci_kind="bernstein"`` or ``"hoeffding"``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from embias._validation import (
    check_columns,
    check_int,
    check_number,
    check_probability,
    check_seed,
)
from embias.report import CREDIBLE_DIFFERENCE, UNDECIDED, interval_table, rope_decision
from embias.settings import DEFAULT_CI_PROB

__all__ = [
    "MNLI_GENRE_COSTS",
    "bbu_coverage",
    "bbu_detectable_delta",
    "bbu_interval",
    "bbu_required_n",
    "bernstein_half_width",
    "demographic_parity",
    "equal_opportunity",
    "equalized_odds",
    "genre_population",
    "hoeffding_half_width",
    "plot_bbu_coverage",
]

Bound = Literal["bernstein", "hoeffding"]

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


# --------------------------------------------------------------------------------------
# validation helpers (shared with parity.py), built on embias._validation
# --------------------------------------------------------------------------------------


def _check_positive(name: str, value: Any) -> float:
    """Return ``value`` checked as a positive finite number (``max_cost``)."""
    return check_number(name, value, low=0.0, low_open=True)


def _check_gamma(value: Any) -> float:
    """Return γ checked: in (0, 0.5], a lower bound on the smaller group's share."""
    try:
        return check_number("gamma", value, low=0.0, high=0.5, low_open=True)
    except ValueError as exc:
        raise ValueError(f"{exc} (a lower bound on the smaller group's share)") from None


def _check_counts_array(name: str, value: Any, *, minimum: int) -> np.ndarray:
    """Return integer counts ≥ ``minimum`` (a scalar or an array of them), checked.

    Each is checked by :func:`embias._validation.check_int` as given: ``3.0`` and ``True``
    are refused and a bad value is shown as written (``0``, not ``0.0``).
    """
    items = np.asarray(value, dtype=object)
    checked = [check_int(name, v, minimum=minimum) for v in items.ravel().tolist()]
    return np.asarray(checked, dtype=np.int64).reshape(items.shape)


def _check_numbers_array(name: str, value: Any, *, low: float, low_open: bool = False,
                         high: float | None = None) -> np.ndarray:
    """Return finite numbers in a range (a scalar or an array of them) as a float array.

    Each is checked by :func:`embias._validation.check_number` as given, so a bad value is
    named as written (ValueError).
    """
    items = np.asarray(value, dtype=object)
    checked = [check_number(name, v, low=low, low_open=low_open, high=high)
               for v in items.ravel().tolist()]
    return np.asarray(checked, dtype=float).reshape(items.shape)


def _check_gamma_array(value: Any) -> np.ndarray:
    """Return γ values in (0, 0.5] (a scalar or an array of them) as a float array."""
    try:
        return _check_numbers_array("gamma", value, low=0.0, low_open=True, high=0.5)
    except ValueError as exc:
        raise ValueError(f"{exc} (a lower bound on the smaller group's share)") from None


def _log_tail(ci_prob: float) -> float:
    """L = −log((1 − ρ)/2) > 0, the quantity both bounds are written in."""
    return -math.log((1.0 - ci_prob) / 2.0)


def _variance_value(variance: Any, *, max_cost: float, gamma: float) -> float:
    """σ² from ``"max"`` (= (C/γ)², the largest possible) or a non-negative number."""
    if isinstance(variance, str):
        if variance != "max":
            raise ValueError(f"variance must be 'max' or a number ≥ 0, got {variance!r}")
        return (max_cost / gamma) ** 2
    try:
        return check_number("variance", variance, low=0.0)
    except ValueError:
        raise ValueError(f"variance must be 'max' or a number ≥ 0, got {variance!r}") from None


# --------------------------------------------------------------------------------------
# the two bounds (vectorised)
# --------------------------------------------------------------------------------------


def bernstein_half_width(
    n: Any,
    *,
    sigma2: Any,
    ci_prob: float = DEFAULT_CI_PROB,
    max_cost: float = 1.0,
    gamma: Any = 0.5,
) -> np.ndarray | float:
    """Return the half-width ``t`` of the Bernstein interval (Ethayarajh 2020, eq. 3).

    Parameters
    ----------
    n
        Number of annotated examples (scalar or array).
    sigma2
        Variance σ² of the amortized disparities (scalar or array, broadcast with ``n``).
    ci_prob
        ρ in (0, 1).
    max_cost
        C, the largest possible cost.
    gamma
        γ in (0, 0.5] (scalar or array).

    Returns
    -------
    float or numpy.ndarray
        ``t = (B + √(B² + 8nσ²L)) / (2n)`` with ``L = −log((1−ρ)/2)``, ``B = 2CL/(3γ)``.

    Raises
    ------
    ValueError
        ``ci_prob`` outside (0, 1), ``max_cost`` or an ``n`` not positive, a ``sigma2``
        below 0 or not finite, or a ``gamma`` outside (0, 0.5].

    Examples
    --------
    n = 100, σ² = 1, ρ = 0.95 (L = log 40), C = 1, γ = 0.5:

    >>> import math
    >>> from embias.classifier import bernstein_half_width
    >>> big_l = math.log(40)
    >>> b = 2 * big_l / (3 * 0.5)
    >>> round(bernstein_half_width(100, sigma2=1.0, ci_prob=0.95), 4)
    0.2973
    >>> round((b + math.sqrt(b * b + 8 * 100 * big_l)) / 200, 4)
    0.2973
    """
    rho = check_probability("ci_prob", ci_prob)
    c = _check_positive("max_cost", max_cost)
    big_l = _log_tail(rho)
    n_arr = _check_numbers_array("n", n, low=0.0, low_open=True)
    s2 = _check_numbers_array("sigma2", sigma2, low=0.0)
    g = _check_gamma_array(gamma)
    b = 2.0 * c * big_l / (3.0 * g)
    t = (b + np.sqrt(b * b + 8.0 * n_arr * s2 * big_l)) / (2.0 * n_arr)
    return float(t) if t.ndim == 0 else t


def hoeffding_half_width(
    n: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    max_cost: float = 1.0,
    gamma: Any = 0.5,
) -> np.ndarray | float:
    """Return the half-width of the Hoeffding interval for means of variables in ``[−C/γ, C/γ]``.

    ``P(|δ̄ − δ| ≥ t) ≤ 2 exp(−2nt² / (2C/γ)²)`` gives ``t = (2C/γ) √(L / (2n))`` with
    ``L = −log((1−ρ)/2)``. It ignores the variance: it equals the leading term
    √(2σ²L/n) of the Bernstein half-width at the largest variance σ² = (C/γ)², so
    Bernstein is narrower whenever the amortized disparities vary less than that.

    Parameters
    ----------
    n
        Number of annotated examples (scalar or array).
    ci_prob
        ρ in (0, 1).
    max_cost
        C, the largest possible cost.
    gamma
        γ in (0, 0.5] (scalar or array).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        ``ci_prob`` outside (0, 1), ``max_cost`` or an ``n`` not positive, or a ``gamma``
        outside (0, 0.5].

    Examples
    --------
    n = 100, ρ = 0.95, C = 1, γ = 0.5: t = 4·√(log 40 / 200):

    >>> import math
    >>> from embias.classifier import hoeffding_half_width
    >>> round(hoeffding_half_width(100, ci_prob=0.95), 4)
    0.5432
    >>> round(4 * math.sqrt(math.log(40) / 200), 4)
    0.5432
    """
    rho = check_probability("ci_prob", ci_prob)
    c = _check_positive("max_cost", max_cost)
    big_l = _log_tail(rho)
    n_arr = _check_numbers_array("n", n, low=0.0, low_open=True)
    g = _check_gamma_array(gamma)
    t = (2.0 * c / g) * np.sqrt(big_l / (2.0 * n_arr))
    return float(t) if t.ndim == 0 else t


def bbu_required_n(
    delta: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    max_cost: float = 1.0,
    gamma: float = 0.5,
    variance: float | Literal["max"] = "max",
) -> int | np.ndarray:
    """Return the smallest sample size at which a disparity ``delta`` is called biased (eq. 4).

    Parameters
    ----------
    delta
        Observed disparity magnitude |δ̄| in (0, C] (scalar or array).
    ci_prob
        ρ in (0, 1).
    max_cost
        C, the largest possible cost.
    gamma
        γ in (0, 0.5], lower bound on the smaller group's share.
    variance
        σ² of the amortized disparities, or ``"max"`` for (C/γ)² (the paper's choice).

    Returns
    -------
    int or numpy.ndarray
        The smallest integer ``n`` with ``n > (2σ² + 2Cδ/(3γ)) (−log((1−ρ)/2)) / δ²``.
        Ethayarajh's example (C=1, δ=.05, ρ=.95, γ=.5, σ²=(C/γ)²) gives 11903.

    Raises
    ------
    ValueError
        ``delta`` outside (0, C], or a bad ``ci_prob``, ``max_cost``, ``gamma`` or
        ``variance``.

    Examples
    --------
    Ethayarajh's example, and a disparity twice as large:

    >>> from embias.classifier import bbu_required_n
    >>> bbu_required_n(0.05, ci_prob=0.95)
    11903
    >>> bbu_required_n([0.05, 0.1], ci_prob=0.95).tolist()
    [11903, 3001]
    """
    rho = check_probability("ci_prob", ci_prob)
    c = _check_positive("max_cost", max_cost)
    g = _check_gamma(gamma)
    s2 = _variance_value(variance, max_cost=c, gamma=g)
    d = np.asarray(delta, dtype=float)
    bad = ~((d > 0) & (d <= c))
    if np.any(bad):
        first = d.ravel()[np.flatnonzero(bad.ravel())[0]]
        raise ValueError(f"delta must be in (0, max_cost={c}], got {float(first)!r}")
    bound = (2.0 * s2 + 2.0 * c * d / (3.0 * g)) * _log_tail(rho) / d**2
    n = np.floor(bound).astype(np.int64) + 1  # strictly greater than the bound
    return int(n) if n.ndim == 0 else n


def bbu_detectable_delta(
    n: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    max_cost: float = 1.0,
    gamma: float = 0.5,
    variance: float | Literal["max"] = "max",
) -> float | np.ndarray:
    """Return the smallest disparity that ``n`` examples can call biased.

    It is the inverse of :func:`bbu_required_n`.

    Solving eq. 4 for δ is the same quadratic as eq. 3, so the answer is the Bernstein
    half-width at ``n``: an observed |δ̄| above it gives an interval that excludes 0.
    At n = 3160 (WinoBias) with the paper's settings this is 0.0974 (the paper rounds
    to 0.0975). A value above ``max_cost`` means that no possible disparity (|δ| ≤ C) can
    be called biased with ``n`` examples.

    Parameters
    ----------
    n
        Number of annotated examples, an integer ≥ 1 (scalar or array).
    ci_prob, max_cost, gamma, variance
        As for :func:`bbu_required_n`.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        ``n`` not an integer ≥ 1, or a bad ``ci_prob``, ``max_cost``, ``gamma`` or
        ``variance``.

    Examples
    --------
    >>> from embias.classifier import bbu_detectable_delta
    >>> round(bbu_detectable_delta(3160, ci_prob=0.95), 4)
    0.0974
    """
    c = _check_positive("max_cost", max_cost)
    g = _check_gamma(gamma)
    s2 = _variance_value(variance, max_cost=c, gamma=g)
    n_arr = _check_counts_array("n", n, minimum=1).astype(float)
    half = bernstein_half_width(n_arr, sigma2=s2, ci_prob=ci_prob, max_cost=c, gamma=g)
    return half


# --------------------------------------------------------------------------------------
# annotation, costs, the interval
# --------------------------------------------------------------------------------------


def _annotation(
    group: Any, protected: Any
) -> tuple[np.ndarray, str, str]:
    """Turn ``group`` into f ∈ {+1, −1, 0} and names for A and B.

    ``group`` is either an annotation (values ⊆ {+1, −1, 0}), booleans (True = protected)
    or exactly two labels; with labels the protected one is ``protected`` (default: the
    first label in sorted order).
    """
    g = np.asarray(group)
    if g.ndim != 1:
        raise ValueError(f"group must be one-dimensional, got shape {g.shape}")
    if g.size == 0:
        raise ValueError("group is empty: need at least one protected and one unprotected example")
    if g.dtype == bool:
        if protected is not None and protected is not True:
            raise ValueError(f"boolean group: protected must be True or None, got {protected!r}")
        return np.where(g, 1, -1).astype(np.int8), "True", "False"
    if protected is None and np.issubdtype(g.dtype, np.number):
        vals = g.astype(float)
        if np.any(np.isnan(vals)):
            raise ValueError("group contains NaN; use 0 for examples in neither group")
        if set(np.unique(vals)) <= {-1.0, 0.0, 1.0}:
            return vals.astype(np.int8), "protected", "unprotected"
    labels = pd.unique(pd.Series(g, dtype=object))
    if pd.isna(labels).any():
        raise ValueError("group contains missing values; every example needs a group label")
    if len(labels) != 2:
        raise ValueError(
            "group must hold an annotation in {+1, -1, 0} or exactly two labels, "
            f"got {len(labels)} labels: {sorted(map(str, labels))[:10]}"
        )
    if protected is None:
        try:
            ordered = sorted(labels)
        except TypeError:
            ordered = list(labels)
        a, b = ordered
    else:
        if protected not in set(labels):
            raise ValueError(
                f"protected={protected!r} is not one of the group labels {sorted(map(str, labels))}"
            )
        a = protected
        b = next(lab for lab in labels if lab != protected)
    f = np.where(g == a, 1, -1).astype(np.int8)
    return f, str(a), str(b)


def _costs(cost: Any, *, max_cost: float, name: str = "cost") -> np.ndarray:
    c = np.asarray(cost, dtype=float)
    if c.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {c.shape}")
    bad = ~((c >= 0.0) & (c <= max_cost))  # NaN fails both comparisons
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} values must lie in [0, max_cost={max_cost}]; got {float(c[i])!r} at index {i}"
        )
    return c


def _amortized_moments(
    cost: np.ndarray, f: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean and sample variance (ddof=1) of the amortized disparities along the last axis.

    ``cost`` and ``f`` broadcast; returns (mean, variance, n, n_A, n_B). Pr[f = f(x_i)] is
    estimated by the sample frequency, so the mean equals mean_A(c) − mean_B(c).
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
    c_max = _check_positive("max_cost", max_cost)
    c = _costs(cost, max_cost=c_max)
    f, name_a, name_b = _annotation(group, protected)
    if c.shape != f.shape:
        raise ValueError(f"cost has {c.size} values but group has {f.size}; they must match")
    row = _bbu_row(c, f, (name_a, name_b), ci_prob=rho, max_cost=c_max, gamma=gamma,
                   variance=variance, bound=bound, estimand=estimand)
    return interval_table([row], ci_prob=rho, ci_kind=bound)


def _bbu_row(
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
    """Return the interval-table row of :func:`bbu_interval` from checked costs and f ∈ {±1, 0}."""
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
    g = min(n_a, n_b) / n if gamma is None else _check_gamma(gamma)
    mean, s2_hat, *_ = _amortized_moments(c, f)
    if isinstance(variance, str) and variance not in ("sample", "max"):
        raise ValueError(f"variance must be 'sample', 'max' or a number ≥ 0, got {variance!r}")
    if isinstance(variance, str) and variance == "sample":
        s2 = float(s2_hat)
    else:
        s2 = _variance_value(variance, max_cost=max_cost, gamma=g)
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


# --------------------------------------------------------------------------------------
# fairness measures as cost / annotation choices
# --------------------------------------------------------------------------------------


def _binary(name: str, values: Any, positive: Any) -> np.ndarray:
    v = np.asarray(values)
    if v.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {v.shape}")
    if positive is None:
        if v.dtype == bool:
            return v
        uniq = set(pd.unique(pd.Series(v, dtype=object)))
        if not uniq <= {0, 1}:
            shown = sorted(map(str, uniq))[:10]
            raise ValueError(
                f"{name} must be 0/1 (or boolean) unless positive= names the positive label; "
                f"got values {shown}"
            )
        return v.astype(float) == 1.0
    return v == positive


def demographic_parity(
    y_pred: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    gamma: float | None = None,
    protected: Any = None,
    positive: Any = None,
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
) -> pd.DataFrame:
    """Test demographic parity with a BBU interval: cost ``1 − ŷ``, every example annotated.

    The estimate is PR_B − PR_A (positive-prediction rate of B minus that of A): positive
    means the protected group receives the positive outcome less often.

    Parameters
    ----------
    y_pred
        Predicted labels: 0/1 or booleans, or any labels with ``positive``.
    group
        As for :func:`bbu_interval`.
    ci_prob, gamma, protected, variance, bound
        As for :func:`bbu_interval`.
    positive
        The positive label when ``y_pred`` is not 0/1.

    Returns
    -------
    pandas.DataFrame
        One interval-table row, as :func:`bbu_interval`'s (``decision``:
        ``"credible difference"`` / ``"undecided"``).

    Raises
    ------
    ValueError
        ``y_pred`` that is not 0/1 without ``positive``, or what :func:`bbu_interval`
        refuses.

    Examples
    --------
    Group "a" (protected: first in sorted order) gets 2 positives of 3, group "b" 1 of 3,
    so PR_b − PR_a = −1/3:

    >>> from embias.classifier import demographic_parity
    >>> row = demographic_parity([1, 1, 0, 1, 0, 0], ["a", "a", "a", "b", "b", "b"])
    >>> row[["estimand", "group", "estimate", "n", "decision"]].round(3)
                 estimand  group  estimate  n   decision
    0  demographic_parity  a − b    -0.333  6  undecided
    """
    yhat = _binary("y_pred", y_pred, positive)
    return bbu_interval(
        1.0 - yhat.astype(float), group, ci_prob=ci_prob, max_cost=1.0, gamma=gamma,
        protected=protected, variance=variance, bound=bound, estimand="demographic_parity",
    )


def _rate_gap(
    cost: np.ndarray,
    group: Any,
    keep: np.ndarray,
    *,
    estimand: str,
    ci_prob: float,
    gamma: float | None,
    protected: Any,
    variance: Any,
    bound: str,
) -> dict[str, Any]:
    """BBU row with annotation g = f · 1[keep] (examples outside ``keep`` → neither)."""
    f, name_a, name_b = _annotation(group, protected)
    if f.shape != keep.shape:
        raise ValueError(f"y_true has {keep.size} values but group has {f.size}; they must match")
    g = np.where(keep, f, 0).astype(np.int8)
    return _bbu_row(cost, g, (name_a, name_b), ci_prob=ci_prob, max_cost=1.0,
                    gamma=gamma, variance=variance, bound=bound, estimand=estimand)


def equal_opportunity(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    gamma: float | None = None,
    protected: Any = None,
    positive: Any = None,
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
) -> pd.DataFrame:
    """Test equal opportunity with a BBU interval: cost ``1 − ŷ``, annotation ``g = f · y``.

    Only qualified examples (y = positive) keep their group; the estimate is
    FNR_A − FNR_B = TPR_B − TPR_A. Unqualified examples count in ``n`` as "neither", as in
    Ethayarajh (2020, §2).

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels: 0/1 or booleans, or any labels with ``positive``.
    group
        As for :func:`bbu_interval`.
    ci_prob, gamma, protected, variance, bound
        As for :func:`bbu_interval`.
    positive
        The positive label when the labels are not 0/1.

    Returns
    -------
    pandas.DataFrame
        One interval-table row, as :func:`bbu_interval`'s.

    Raises
    ------
    ValueError
        Labels that are not 0/1 without ``positive``, arrays of different lengths, or what
        :func:`bbu_interval` refuses.

    Examples
    --------
    Of the qualified examples (y = 1), group "a" gets 2 of 3 right and group "b" 1 of 3:
    TPR_b − TPR_a = −1/3. All 12 examples count in ``n``:

    >>> from embias.classifier import equal_opportunity
    >>> y_true = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    >>> y_pred = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]
    >>> group = ["a"] * 6 + ["b"] * 6
    >>> row = equal_opportunity(y_true, y_pred, group)
    >>> row[["estimate", "n", "n_protected", "n_unprotected"]].round(3)
       estimate   n  n_protected  n_unprotected
    0    -0.333  12            3              3
    """
    y = _binary("y_true", y_true, positive)
    yhat = _binary("y_pred", y_pred, positive)
    if y.shape != yhat.shape:
        raise ValueError(f"y_true has {y.size} values but y_pred has {yhat.size}")
    rho = check_probability("ci_prob", ci_prob)
    row = _rate_gap(1.0 - yhat.astype(float), group, y, estimand="equal_opportunity",
                    ci_prob=rho, gamma=gamma, protected=protected, variance=variance,
                    bound=bound)
    return interval_table([row], ci_prob=rho, ci_kind=bound)


def equalized_odds(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    gamma: float | None = None,
    protected: Any = None,
    positive: Any = None,
    method: Literal["rates", "zero_one"] = "rates",
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
) -> pd.DataFrame:
    """Test equalized odds with BBU intervals.

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels: 0/1 or booleans, or any labels with ``positive``.
    group
        As for :func:`bbu_interval`.
    ci_prob, gamma, protected, variance, bound
        As for :func:`bbu_interval`.
    positive
        The positive label when the labels are not 0/1.
    method
        ``"rates"`` (default): two rows, the FNR gap (cost ``1 − ŷ`` on y = 1 examples,
        estimand ``equalized_odds_fnr``) and the FPR gap (cost ``ŷ`` on y = 0 examples,
        estimand ``equalized_odds_fpr``), each at confidence ``1 − (1 − ρ)/2`` so that both
        hold together with confidence ≥ ρ (Bonferroni); ``joint_decision`` is
        ``"credible difference"`` when either row is. ``"zero_one"``: the paper's single
        row with zero-one loss on every annotated example (an error-rate gap, which mixes
        the two rates by the groups' base rates and can hide opposite FPR/FNR gaps).

    Notes
    -----
    Ethayarajh (2020) suggests zero-one loss with the equal-opportunity annotation
    ``f · y``; on y = 1 examples that cost equals ``1 − ŷ``, i.e. equal opportunity again,
    so ``"rates"`` tests both rates explicitly instead.

    Returns
    -------
    pandas.DataFrame
        Interval table: two rows (``"rates"``) or one (``"zero_one"``).

    Raises
    ------
    ValueError
        An unknown ``method``, labels that are not 0/1 without ``positive``, arrays of
        different lengths, or what :func:`bbu_interval` refuses.

    Examples
    --------
    FNR_a = 1/3, FNR_b = 2/3 and FPR_a = 1/3, FPR_b = 2/3; each row is at confidence
    1 − 0.11/2 = 0.945 so that both hold together at 0.89:

    >>> from embias.classifier import equalized_odds
    >>> y_true = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    >>> y_pred = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]
    >>> group = ["a"] * 6 + ["b"] * 6
    >>> rows = equalized_odds(y_true, y_pred, group)
    >>> rows[["estimand", "estimate", "ci_prob", "joint_decision"]].round(3)
                 estimand  estimate  ci_prob joint_decision
    0  equalized_odds_fnr    -0.333    0.945      undecided
    1  equalized_odds_fpr    -0.333    0.945      undecided
    """
    y = _binary("y_true", y_true, positive)
    yhat = _binary("y_pred", y_pred, positive)
    if y.shape != yhat.shape:
        raise ValueError(f"y_true has {y.size} values but y_pred has {yhat.size}")
    if method == "zero_one":
        return bbu_interval(
            (y != yhat).astype(float), group, ci_prob=ci_prob, max_cost=1.0,
            gamma=gamma, protected=protected, variance=variance, bound=bound,
            estimand="equalized_odds_zero_one",
        )
    if method != "rates":
        raise ValueError(f"method must be 'rates' or 'zero_one', got {method!r}")
    rho = check_probability("ci_prob", ci_prob)
    each = 1.0 - (1.0 - rho) / 2.0
    rows = [
        _rate_gap(1.0 - yhat.astype(float), group, y, estimand="equalized_odds_fnr",
                  ci_prob=each, gamma=gamma, protected=protected, variance=variance,
                  bound=bound),
        _rate_gap(yhat.astype(float), group, ~y, estimand="equalized_odds_fpr",
                  ci_prob=each, gamma=gamma, protected=protected, variance=variance,
                  bound=bound),
    ]
    joint = CREDIBLE_DIFFERENCE if any(r["decision"] == CREDIBLE_DIFFERENCE for r in rows) \
        else UNDECIDED
    for r in rows:
        r["joint_confidence"] = rho
        r["joint_decision"] = joint
    return interval_table(rows, ci_prob=each, ci_kind=bound)


# --------------------------------------------------------------------------------------
# coverage simulation (Ethayarajh 2020, Figure 1)
# --------------------------------------------------------------------------------------


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
    c_max = _check_positive("max_cost", max_cost)
    seed = check_seed(random_seed)
    if bound not in ("bernstein", "hoeffding"):
        raise ValueError(f"bound must be 'bernstein' or 'hoeffding', got {bound!r}")
    n_sims = check_int("n_sims", n_sims, minimum=1)
    c = _costs(cost, max_cost=c_max)
    f, _, _ = _annotation(group, None)
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
    mean, s2, *_ = _amortized_moments(costs, f_s)
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


def plot_bbu_coverage(
    coverage: pd.DataFrame,
    *,
    x: Literal["n", "protected_share"] = "n",
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """Plot a :func:`bbu_coverage` result like Ethayarajh's Figure 1.

    Draws the mean estimate with the mean interval (estimate ± mean half-width) against
    ``x`` and the true disparity as a horizontal line; the coverage is written next to each
    point. Nothing is recomputed.

    Parameters
    ----------
    coverage
        A :func:`bbu_coverage` table.
    x
        The horizontal axis: ``"n"`` (sample size) or ``"protected_share"``.
    title
        Title, put before the interval kind.
    ax
        A matplotlib Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        A table without :func:`bbu_coverage`'s columns, or an unknown ``x``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from embias.classifier import bbu_coverage, genre_population, plot_bbu_coverage
    >>> cost, group = genre_population("government", n_in=100, n_out=900)
    >>> table = bbu_coverage(cost, group, sample_sizes=(100, 400), n_sims=100,
    ...                      random_seed=0)
    >>> fig = plot_bbu_coverage(table, title="government")
    >>> fig.axes[0].get_title(), fig.axes[0].get_xlabel()
    ('government (89% bernstein)', 'sample size')
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    check_columns(coverage, ("n", "protected_share", "true_disparity", "coverage",
                             "mean_estimate", "mean_lower", "mean_upper", "ci_prob", "bound"),
                  name="coverage", hint="pass bbu_coverage()'s result")
    if x not in ("n", "protected_share"):
        raise ValueError(f"x must be 'n' or 'protected_share', got {x!r}")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 3.5))
    else:
        fig = ax.figure
    xs = coverage[x].to_numpy(dtype=float)
    pos = np.arange(len(xs))
    est = coverage["mean_estimate"].to_numpy()
    ax.errorbar(pos, est, yerr=[est - coverage["mean_lower"], coverage["mean_upper"] - est],
                fmt="o", color="tab:blue", capsize=3, label="estimate ± mean half-width")
    ax.axhline(float(coverage["true_disparity"].iloc[0]), color="tab:red", label="true")
    for p, e, cov in zip(pos, coverage["mean_upper"], coverage["coverage"], strict=True):
        ax.annotate(f"{cov:.0%}", (p, e), xytext=(0, 3), textcoords="offset points",
                    ha="center", fontsize=7)
    ax.set_xticks(pos)
    ax.set_xticklabels([f"{v:g}" for v in xs])
    ax.set_xlabel("sample size" if x == "n" else "protected share γ")
    ax.set_ylabel("groupwise disparity")
    kind = f"{float(coverage['ci_prob'].iloc[0]):.0%} {coverage['bound'].iloc[0]}"
    ax.set_title(f"{title} ({kind})" if title else kind, fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
