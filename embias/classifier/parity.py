"""Bayesian parity tests for selection rates.

After Ambiata, "How to detect algorithmic bias in production".

Two groups, ``x_i`` positive outcomes out of ``n_i``; with a Beta(α, β) prior (uniform by
default) the rates have independent posteriors ``e_i ~ Beta(x_i + α, n_i − x_i + β)`` and
the quantity of interest is the rate difference ``d = e₂ − e₁``. Its mean and variance are
closed-form; its density, distribution function, tail probabilities and HDI are computed
by one-dimensional quadrature over ``e₁`` (never by sampling alone):

    p(d) = ∫ f₁(e) f₂(e + d) de,        P(d > T) = ∫ f₁(e) (1 − F₂(e + T)) de.

Decision rules against a fairness threshold ``T``:

* the simple rule: flag when ``μ − zσ > T`` or ``μ + zσ < −T`` (normal approximation);
* HDI + ROPE: compare the HDI of ``d`` with the region of practical equivalence [−T, T].
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from scipy import integrate, optimize, signal, special, stats

from embias._validation import (
    check_int,
    check_number,
    check_probability,
    check_seed,
)
from embias.report import CREDIBLE_DIFFERENCE, interval_table, rope_decision
from embias.settings import DEFAULT_CI_PROB

__all__ = [
    "ParityDecision",
    "ParityPosterior",
    "parity_comparisons",
    "parity_hdi_coverage",
    "parity_posterior",
    "simulate_detection",
]

Side = Literal["two-sided", "greater", "less"]
Decision = Literal["credible difference", "practically equivalent", "undecided"]

_EPS_WINDOW = 1e-13  # tail mass left out of each rate's integration window
_GRID_POINTS = 2048  # grid points across the narrower posterior (density grid for the HDI)


# --------------------------------------------------------------------------------------
# closed forms and the simple rule (vectorised: shared by posterior and simulations)
# --------------------------------------------------------------------------------------


def _beta_params(x: Any, n: Any, prior: tuple[float, float]) -> tuple[Any, Any]:
    a0, b0 = prior
    return np.asarray(x, float) + a0, np.asarray(n, float) - np.asarray(x, float) + b0


def _moments(
    x1: Any, n1: Any, x2: Any, n2: Any, prior: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior mean and variance of e₂ − e₁ (independent Beta posteriors)."""
    a1, b1 = _beta_params(x1, n1, prior)
    a2, b2 = _beta_params(x2, n2, prior)
    mean = a2 / (a2 + b2) - a1 / (a1 + b1)
    var = a1 * b1 / ((a1 + b1) ** 2 * (a1 + b1 + 1)) + a2 * b2 / ((a2 + b2) ** 2 * (a2 + b2 + 1))
    return mean, var


def _z_for(ci_prob: float) -> float:
    """Z of the simple rule: flagging μ − zσ > T ⇔ (normal approx.) P(d > T) > ci_prob."""
    return float(stats.norm.ppf(ci_prob))


def _simple_rule(mean: Any, sd: Any, threshold: float, z: float) -> np.ndarray:
    """Return the interval + ROPE decisions of the normal-approximation intervals μ ± zσ.

    The rule is :func:`embias.report.rope_decision`, against the ROPE [−T, T].
    """
    mean = np.asarray(mean, float)
    sd = np.asarray(sd, float)
    return rope_decision(mean - z * sd, mean + z * sd, threshold)


def _rope_rule(lower: float, upper: float, threshold: float) -> Decision:
    """Return Kruschke's HDI+ROPE decision against the ROPE [−T, T]."""
    return _as_decision(rope_decision(lower, upper, threshold))


def _as_decision(value: Any) -> Decision:
    """Return ``value``, one of the three decisions of :func:`embias.report.rope_decision`."""
    for decision in get_args(Decision):
        if value == decision:
            return decision
    raise ValueError(f"{value!r} is not one of the decisions {list(get_args(Decision))}")


def _check_prior(prior: Any) -> tuple[float, float]:
    """Return the Beta prior (alpha, beta), checked: two positive numbers."""
    try:
        a, b = prior
        return (check_number("alpha", a, low=0.0, low_open=True),
                check_number("beta", b, low=0.0, low_open=True))
    except (TypeError, ValueError):
        raise ValueError(f"prior must be a pair (alpha, beta) of positive numbers, got "
                         f"{prior!r}") from None


def _check_threshold(threshold: Any, name: str = "threshold") -> float:
    """Return the fairness threshold T, checked: in [0, 1)."""
    return check_number(name, threshold, low=0.0, high=1.0, high_open=True)


def _check_counts(x: Any, n: Any, which: str) -> tuple[int, int]:
    n_i = check_int(f"n{which}", n, minimum=0)
    if n_i == 0:
        raise ValueError(f"n{which}=0: group {which} is empty; it needs at least one observation")
    x_i = check_int(f"x{which}", x, minimum=0)
    if x_i > n_i:
        raise ValueError(f"x{which}={x_i} exceeds n{which}={n_i}: successes cannot exceed trials")
    return x_i, n_i


# --------------------------------------------------------------------------------------
# the posterior of the rate difference
# --------------------------------------------------------------------------------------


def _log_beta_pdf(e: np.ndarray, a: float, b: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return special.xlogy(a - 1, e) + special.xlog1py(b - 1, -e) - special.betaln(a, b)


@dataclass(frozen=True)
class ParityDecision:
    """Outcome of :meth:`ParityPosterior.decide`.

    ``simple`` and ``hdi_rope`` are ``"credible difference"`` (the rate difference lies
    outside the ROPE [−rope, rope]: flag bias), ``"practically equivalent"`` (inside it) or
    ``"undecided"`` (:func:`embias.report.rope_decision`).
    """

    rope: float
    ci_prob: float
    z: float
    mean: float
    sd: float
    simple: Decision
    hdi_lower: float
    hdi_upper: float
    hdi_rope: Decision
    prob_outside: float


@dataclass(frozen=True)
class ParityPosterior:
    """Posterior of the rate difference ``d = e₂ − e₁`` of two groups.

    Build with :func:`parity_posterior` (which validates the counts).
    """

    x1: int
    n1: int
    x2: int
    n2: int
    prior: tuple[float, float] = (1.0, 1.0)
    labels: tuple[str, str] = ("group 1", "group 2")
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # ---- parameters and closed forms ------------------------------------------------
    @property
    def params(self) -> tuple[float, float, float, float]:
        """(a₁, b₁, a₂, b₂): the two Beta posteriors."""
        a1, b1 = _beta_params(self.x1, self.n1, self.prior)
        a2, b2 = _beta_params(self.x2, self.n2, self.prior)
        return float(a1), float(b1), float(a2), float(b2)

    @property
    def mean(self) -> float:
        """Exact posterior mean of e₂ − e₁."""
        return float(_moments(self.x1, self.n1, self.x2, self.n2, self.prior)[0])

    @property
    def variance(self) -> float:
        """Exact posterior variance of e₂ − e₁ (sum of the two Beta variances)."""
        return float(_moments(self.x1, self.n1, self.x2, self.n2, self.prior)[1])

    @property
    def sd(self) -> float:
        """Exact posterior sd of e₂ − e₁."""
        return math.sqrt(self.variance)

    # ---- quadrature -----------------------------------------------------------------
    @cached_property
    def _windows(self) -> tuple[tuple[float, float], tuple[float, float]]:
        a1, b1, a2, b2 = self.params
        w1 = (float(special.betaincinv(a1, b1, _EPS_WINDOW)),
              float(special.betainccinv(a1, b1, _EPS_WINDOW)))
        w2 = (float(special.betaincinv(a2, b2, _EPS_WINDOW)),
              float(special.betainccinv(a2, b2, _EPS_WINDOW)))
        return w1, w2

    def _integrate_e1(self, g: Any, breaks: Sequence[float] = ()) -> float:
        """∫ f₁(e) g(e) de over e₁'s window by adaptive quadrature."""
        a1, b1, _, _ = self.params
        (lo, hi), _ = self._windows
        if hi <= lo:
            return 0.0
        pts = sorted({float(np.clip(p, lo, hi)) for p in breaks} - {lo, hi})

        def integrand(e: float) -> float:
            return float(np.exp(_log_beta_pdf(np.asarray(e), a1, b1)) * g(e))

        value, _ = integrate.quad(integrand, lo, hi, points=pts or None, limit=500,
                                  epsabs=0.0, epsrel=1e-10)
        return float(value)

    def _breaks(self, shift: float) -> list[float]:
        """Break points for e₁ where the integrand in e₁ + shift changes fastest."""
        a1, b1, a2, b2 = self.params
        m1 = a1 / (a1 + b1)
        m2 = a2 / (a2 + b2)
        return [m1, m2 - shift]

    def cdf(self, d: Any) -> float | np.ndarray:
        """P(e₂ − e₁ ≤ d) by quadrature."""
        _, _, a2, b2 = self.params
        vals = np.atleast_1d(np.asarray(d, float))
        out = np.array([
            self._integrate_e1(lambda e, dd=dd: special.betainc(a2, b2, np.clip(e + dd, 0, 1)),
                               self._breaks(dd))
            for dd in vals
        ])
        return float(out[0]) if np.ndim(d) == 0 else out

    def pdf(self, d: Any) -> float | np.ndarray:
        """Density of e₂ − e₁ at ``d`` by quadrature: ∫ f₁(e) f₂(e + d) de."""
        a1, b1, a2, b2 = self.params
        (lo1, hi1), (lo2, hi2) = self._windows
        vals = np.atleast_1d(np.asarray(d, float))
        out = np.zeros(vals.shape)
        for i, dd in enumerate(vals):
            lo, hi = max(lo1, lo2 - dd), min(hi1, hi2 - dd)
            if hi <= lo:
                continue

            def integrand(e: float, dd: float = dd) -> float:
                return float(np.exp(_log_beta_pdf(np.asarray(e), a1, b1)
                                    + _log_beta_pdf(np.asarray(e + dd), a2, b2)))

            mid = [p for p in self._breaks(dd) if lo < p < hi]
            out[i] = integrate.quad(integrand, lo, hi, points=mid or None, limit=500,
                                    epsabs=0.0, epsrel=1e-10)[0]
        return float(out[0]) if np.ndim(d) == 0 else out

    def prob_exceeds(self, threshold: float, *, side: Side = "two-sided") -> float:
        """Posterior probability that the difference exceeds the threshold ``T``.

        ``side="two-sided"``: P(|e₂ − e₁| > T); ``"greater"``: P(e₂ − e₁ > T);
        ``"less"``: P(e₂ − e₁ < −T). Each tail is its own quadrature (no 1 − x cancellation).
        """
        t = _check_threshold(threshold)
        if side not in ("two-sided", "greater", "less"):
            raise ValueError(f"side must be 'two-sided', 'greater' or 'less', got {side!r}")
        _, _, a2, b2 = self.params
        total = 0.0
        if side in ("two-sided", "greater"):
            total += self._integrate_e1(
                lambda e: special.betaincc(a2, b2, min(e + t, 1.0)), self._breaks(t))
        if side in ("two-sided", "less"):
            total += self._integrate_e1(
                lambda e: special.betainc(a2, b2, max(e - t, 0.0)), self._breaks(-t))
        return float(total)

    def prob_inside(self, threshold: float) -> float:
        """P(|e₂ − e₁| ≤ T), integrated directly (accurate when it is tiny)."""
        t = _check_threshold(threshold)
        _, _, a2, b2 = self.params

        def band(e: float) -> float:
            hi, lo = min(e + t, 1.0), max(e - t, 0.0)
            upper_cdf = special.betainc(a2, b2, hi)
            if upper_cdf < 0.5:
                return float(upper_cdf - special.betainc(a2, b2, lo))
            return float(special.betaincc(a2, b2, lo) - special.betaincc(a2, b2, hi))

        return self._integrate_e1(band, self._breaks(t) + self._breaks(-t))

    @cached_property
    def _grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distribution function and density of d on a uniform grid.

        F(d_k) = ∫ f₁(e) F₂(e + d_k) de by the trapezoid rule in e₁, evaluated at every grid
        point at once (an FFT correlation); the spacing ``h`` resolves the narrower
        posterior with ``_GRID_POINTS`` points. The integrand is continuous (F₂, not f₂,
        which jumps at the ends of its support), and the density is dF/dd by central
        differences.
        """
        a1, b1, a2, b2 = self.params
        (lo1, hi1), (lo2, hi2) = self._windows
        h = min(hi1 - lo1, hi2 - lo2) / _GRID_POINTS
        m1 = math.ceil((hi1 - lo1) / h)
        m2 = math.ceil((hi2 - lo2) / h)
        e1 = lo1 + h * np.arange(m1 + 1)
        w1 = np.exp(_log_beta_pdf(np.minimum(e1, 1.0), a1, b1)) * h
        w1[[0, -1]] *= 0.5
        # e₁ + d_k runs over lo2 + j h, j = −m1 … m1 + m2: F₂ is 0 left of it, 1 right of it
        e2 = lo2 + h * np.arange(-m1, m1 + m2 + 1)
        big_f2 = special.betainc(a2, b2, np.clip(e2, 0.0, 1.0))
        cdf = signal.fftconvolve(big_f2, w1[::-1], mode="valid") / w1.sum()
        cdf = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
        d = (lo2 - lo1) + h * np.arange(-m1, m2 + 1)
        dens = np.gradient(cdf, h)
        return d, dens, cdf

    def _hdi_bounds(self, ci_prob: float) -> tuple[float, float]:
        """Shortest interval with posterior mass ``ci_prob`` (d is unimodal: log-concave)."""
        p = check_probability("ci_prob", ci_prob)
        key = f"hdi:{p!r}"
        if key in self._cache:
            return self._cache[key]
        d, dens, cdf = self._grid
        keep = np.concatenate([[True], np.diff(cdf) > 0])
        fq, dq = cdf[keep], d[keep]

        def width(u: float) -> float:
            return float(np.interp(u + p, fq, dq) - np.interp(u, fq, dq))

        def level_gap(u: float) -> float:
            ends = np.interp([u, u + p], fq, dq)
            dens_ends = np.interp(ends, d, dens)
            return float(dens_ends[1] - dens_ends[0])

        # the HDI's ends have equal density: solve p(F⁻¹(u + ci)) = p(F⁻¹(u)) for u
        g0, g1 = level_gap(0.0), level_gap(1.0 - p)
        if g0 > 0 > g1:
            u = optimize.brentq(level_gap, 0.0, 1.0 - p, xtol=1e-15, rtol=1e-13)
        else:  # density monotone over the window: the shortest interval sits at an end
            us = np.linspace(0.0, 1.0 - p, 2001)
            u = float(us[int(np.argmin([width(v) for v in us]))])
        bounds = (float(np.interp(u, fq, dq)), float(np.interp(u + p, fq, dq)))
        self._cache[key] = bounds
        return bounds

    # ---- reporting ------------------------------------------------------------------
    @property
    def contrast(self) -> str:
        """The contrast's label, ``"<group 2> − <group 1>"``."""
        return f"{self.labels[1]} − {self.labels[0]}"

    def hdi(self, ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """Return the HDI of the rate difference as a one-row interval table (``ci_kind="hdi"``).

        Extra columns: ``sd``, ``prob_gt_0`` (P(e₂ − e₁ > 0)), ``x1``, ``n1``, ``x2``,
        ``n2``.
        """
        lo, hi = self._hdi_bounds(ci_prob)
        row = {
            "estimand": "rate_difference",
            "group": self.contrast,
            "estimate": self.mean,
            "lower": lo,
            "upper": hi,
            "sd": self.sd,
            "prob_gt_0": self.prob_exceeds(0.0, side="greater"),
            "x1": self.x1, "n1": self.n1, "x2": self.x2, "n2": self.n2,
        }
        return interval_table([row], ci_prob=ci_prob, ci_kind="hdi")

    def to_interval_table(self, *, ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """Return the HDI of the rate difference as a one-row interval table (:meth:`hdi`)."""
        return self.hdi(ci_prob)

    def decide(
        self, rope: float, ci_prob: float = DEFAULT_CI_PROB, *, z: float | None = None
    ) -> ParityDecision:
        """Apply the simple z·σ rule and the HDI+ROPE rule against the ROPE [−rope, rope].

        Parameters
        ----------
        rope
            T in [0, 1): the fairness threshold, the largest acceptable rate difference
            (ROPE = [−T, T]).
        ci_prob
            Probability of the HDI, and the confidence of the simple rule.
        z
            Factor of the simple rule; default ``Φ⁻¹(ci_prob)``, so that (with the normal
            approximation) ``μ − zσ > T`` means P(e₂ − e₁ > T) > ci_prob. The blog's labels
            68/95/99.7 % for z = 1/2/3 are the two-sided coverages of μ ± zσ.
        """
        t = _check_threshold(rope, "rope")
        p = check_probability("ci_prob", ci_prob)
        zz = _z_for(p) if z is None else float(z)
        if not (zz >= 0 and math.isfinite(zz)):
            raise ValueError(f"z must be a finite number ≥ 0, got {z!r}")
        lo, hi = self._hdi_bounds(p)
        return ParityDecision(
            rope=t, ci_prob=p, z=zz, mean=self.mean, sd=self.sd,
            simple=_as_decision(_simple_rule(self.mean, self.sd, t, zz)),
            hdi_lower=lo, hdi_upper=hi, hdi_rope=_rope_rule(lo, hi, t),
            prob_outside=self.prob_exceeds(t),
        )


def parity_posterior(
    x1: int,
    n1: int,
    x2: int,
    n2: int,
    *,
    prior: tuple[float, float] = (1, 1),
    labels: tuple[str, str] | None = None,
) -> ParityPosterior:
    """Posterior of the selection-rate difference e₂ − e₁ of two groups.

    Parameters
    ----------
    x1, n1, x2, n2
        Positive outcomes and group sizes (integers, 0 ≤ x ≤ n, n ≥ 1).
    prior
        Beta(α, β) prior for both rates; (1, 1) is uniform, as in the blog post.
    labels
        Names of the two groups (default ``"group 1"``, ``"group 2"``).

    Returns
    -------
    ParityPosterior
        ``.mean``, ``.variance`` (closed form), ``.prob_exceeds(T, side=)``,
        ``.prob_inside(T)``, ``.pdf``, ``.cdf``, ``.hdi(ci_prob)`` and ``.decide(T, ci_prob)``.

    Raises
    ------
    ValueError
        Counts that are not integers with 0 ≤ x ≤ n and n ≥ 1, a bad prior, or labels
        that are not two names.

    Examples
    --------
    20 of 100 against 30 of 100, uniform prior: the posterior means are 21/102 and 31/102,
    so the mean difference is 10/102 ≈ 0.098; P(|d| > 0.1) = 0.488:

    >>> from embias.classifier import parity_posterior
    >>> posterior = parity_posterior(20, 100, 30, 100)
    >>> round(posterior.mean, 4), round(posterior.prob_exceeds(0.1), 3)
    (0.098, 0.488)
    >>> posterior.hdi(0.95)[["group", "estimate", "lower", "upper"]].round(3)
                   group  estimate  lower  upper
    0  group 2 − group 1     0.098 -0.020  0.216
    >>> posterior.decide(0.05).hdi_rope
    'undecided'
    """
    x1, n1 = _check_counts(x1, n1, "1")
    x2, n2 = _check_counts(x2, n2, "2")
    names = ("group 1", "group 2") if labels is None else tuple(str(v) for v in labels)
    if len(names) != 2:
        raise ValueError(f"labels must name exactly two groups, got {labels!r}")
    return ParityPosterior(x1, n1, x2, n2, _check_prior(prior), (names[0], names[1]))


# --------------------------------------------------------------------------------------
# more than two groups
# --------------------------------------------------------------------------------------


def parity_comparisons(
    successes: Sequence[int],
    totals: Sequence[int],
    *,
    labels: Sequence[str] | None = None,
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float | None = None,
    prior: tuple[float, float] = (1, 1),
    comparisons: Sequence[Literal["pairwise", "rest"]] = ("pairwise", "rest"),
) -> pd.DataFrame:
    """Rate differences between several groups as an interval table of HDIs.

    Parameters
    ----------
    successes, totals
        Positive outcomes and sizes per group.
    labels
        Group names (default ``"group 1"``, ``"group 2"``, …).
    ci_prob
        HDI probability.
    rope
        Optional fairness threshold T (ROPE = [−T, T]): adds ``rope``, ``prob_outside``
        (P(|d| > T)), ``hdi_rope`` and ``simple`` decisions (see
        :meth:`ParityPosterior.decide`).
    prior
        Beta prior for every rate.
    comparisons
        ``"pairwise"``: e_j − e_i for every pair i < j (estimand ``pairwise_difference``);
        ``"rest"``: each group against all the others pooled (estimand
        ``difference_vs_rest``, e_group − e_rest).

    Returns
    -------
    pandas.DataFrame
        Interval table (``ci_kind="hdi"``); no multiplicity adjustment (each row is its
        own posterior statement).

    Raises
    ------
    ValueError
        Lists of different lengths, fewer than two groups, labels that are not distinct
        or do not match the groups, bad counts, an unknown comparison, or a bad
        ``ci_prob``, ``rope`` or ``prior``.

    Examples
    --------
    Three groups of 100 with 20, 30 and 25 positive outcomes: the pairwise posterior mean
    differences are (31 − 21)/102, (26 − 21)/102 and (26 − 31)/102, and group "a" against
    the other two pooled (55 of 200) is 21/102 − 56/202 ≈ −0.071:

    >>> from embias.classifier import parity_comparisons
    >>> table = parity_comparisons([20, 30, 25], [100, 100, 100], labels=["a", "b", "c"])
    >>> table[["estimand", "group", "estimate"]].round(3)
                  estimand     group  estimate
    0  pairwise_difference     b − a     0.098
    1  pairwise_difference     c − a     0.049
    2  pairwise_difference     c − b    -0.049
    3   difference_vs_rest  a − rest    -0.071
    4   difference_vs_rest  b − rest     0.076
    5   difference_vs_rest  c − rest     0.002
    """
    names, checked = _checked_groups(successes, totals, labels)
    unknown = sorted(set(comparisons) - {"pairwise", "rest"})
    if unknown or not comparisons:
        raise ValueError(f"comparisons must be a non-empty subset of ['pairwise', 'rest'], "
                         f"got {list(comparisons)!r}")
    p = check_probability("ci_prob", ci_prob)
    rows = []
    for estimand, post in _posteriors(checked, names, comparisons, prior):
        row = post.hdi(p).iloc[0].to_dict()
        row = {k: v for k, v in row.items() if k not in ("ci_prob", "ci_kind")}
        row["estimand"] = estimand
        if rope is not None:
            dec = post.decide(rope, p)
            row.update(rope=dec.rope, prob_outside=dec.prob_outside,
                       hdi_rope=dec.hdi_rope, simple=dec.simple)
        rows.append(row)
    return interval_table(rows, ci_prob=p, ci_kind="hdi")


def _checked_groups(successes: Sequence[int], totals: Sequence[int],
                    labels: Sequence[str] | None) -> tuple[list[str], list[tuple[int, int]]]:
    """Return the groups' names and checked (successes, total) counts.

    ValueError for lists of different lengths, fewer than two groups, labels that do not
    match the groups or repeat, or bad counts.
    """
    xs = list(successes)
    ns = list(totals)
    if len(xs) != len(ns):
        raise ValueError(f"successes has {len(xs)} entries but totals has {len(ns)}")
    if len(xs) < 2:
        raise ValueError(f"need at least two groups, got {len(xs)}")
    names = [f"group {i + 1}" for i in range(len(xs))] if labels is None else \
        [str(v) for v in labels]
    if len(names) != len(xs):
        raise ValueError(f"labels has {len(names)} entries but there are {len(xs)} groups")
    if len(set(names)) != len(names):
        raise ValueError(f"labels must be distinct, got {names}")
    checked = [_check_counts(x, n, f" ({name})") for x, n, name in zip(xs, ns, names,
                                                                      strict=True)]
    return names, checked


def _posteriors(checked: Sequence[tuple[int, int]], names: Sequence[str],
                comparisons: Sequence[str], prior: tuple[float, float]
                ) -> list[tuple[str, ParityPosterior]]:
    """Return (estimand, posterior) of every pair of groups and of each group vs the rest.

    Pairs come first when ``comparisons`` has ``"pairwise"`` (e_j − e_i, i < j), then
    each group against the others pooled when it has ``"rest"``.
    """
    pairs: list[tuple[str, ParityPosterior]] = []
    if "pairwise" in comparisons:
        for i, j in combinations(range(len(checked)), 2):
            (xi, ni), (xj, nj) = checked[i], checked[j]
            pairs.append(("pairwise_difference",
                          parity_posterior(xi, ni, xj, nj, prior=prior,
                                           labels=(names[i], names[j]))))
    if "rest" in comparisons:
        tot_x = sum(x for x, _ in checked)
        tot_n = sum(n for _, n in checked)
        for i, (xi, ni) in enumerate(checked):
            pairs.append(("difference_vs_rest",
                          parity_posterior(tot_x - xi, tot_n - ni, xi, ni, prior=prior,
                                           labels=("rest", names[i]))))
    return pairs


# --------------------------------------------------------------------------------------
# simulations: monitoring and coverage
# --------------------------------------------------------------------------------------


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
    t = _check_threshold(rope, "rope")
    c = check_probability("ci_prob", ci_prob)
    s = check_probability("share", share)
    pr = _check_prior(prior)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    if not (0.0 < max_bias < 1.0):
        raise ValueError(f"max_bias must be in (0, 1), got {max_bias!r}")
    if not (max_bias / 2 <= base_rate <= 1 - max_bias / 2):
        raise ValueError(f"base_rate must be in [max_bias/2, 1 − max_bias/2] = "
                         f"[{max_bias / 2}, {1 - max_bias / 2}], got {base_rate!r}")
    z = _z_for(c)
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
        mean, var = _moments(x1, n1, x2, n2, pr)
        flagged = _simple_rule(mean, np.sqrt(var), t, z) == CREDIBLE_DIFFERENCE
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
    pr = _check_prior(prior)
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
