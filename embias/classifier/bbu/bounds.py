"""The two bounds of BBU and their sample sizes.

The Bernstein and Hoeffding half-widths (Ethayarajh 2020, eq. 3), the sample size needed to
call a disparity biased (eq. 4) and its inverse, the smallest detectable disparity.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from embias._validation import check_probability
from embias.classifier.bbu._common import (
    check_counts_array,
    check_gamma,
    check_gamma_array,
    check_numbers_array,
    check_positive,
    log_tail,
    variance_value,
)
from embias.settings import DEFAULT_CI_PROB

__all__ = [
    "bbu_detectable_delta",
    "bbu_required_n",
    "bernstein_half_width",
    "hoeffding_half_width",
]


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
    c = check_positive("max_cost", max_cost)
    big_l = log_tail(rho)
    n_arr = check_numbers_array("n", n, low=0.0, low_open=True)
    s2 = check_numbers_array("sigma2", sigma2, low=0.0)
    g = check_gamma_array(gamma)
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
    c = check_positive("max_cost", max_cost)
    big_l = log_tail(rho)
    n_arr = check_numbers_array("n", n, low=0.0, low_open=True)
    g = check_gamma_array(gamma)
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
    c = check_positive("max_cost", max_cost)
    g = check_gamma(gamma)
    s2 = variance_value(variance, max_cost=c, gamma=g)
    d = np.asarray(delta, dtype=float)
    bad = ~((d > 0) & (d <= c))
    if np.any(bad):
        first = d.ravel()[np.flatnonzero(bad.ravel())[0]]
        raise ValueError(f"delta must be in (0, max_cost={c}], got {float(first)!r}")
    bound = (2.0 * s2 + 2.0 * c * d / (3.0 * g)) * log_tail(rho) / d**2
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
    c = check_positive("max_cost", max_cost)
    g = check_gamma(gamma)
    s2 = variance_value(variance, max_cost=c, gamma=g)
    n_arr = check_counts_array("n", n, minimum=1).astype(float)
    half = bernstein_half_width(n_arr, sigma2=s2, ci_prob=ci_prob, max_cost=c, gamma=g)
    return half

