"""The posterior of two groups' rate difference and its decisions.

:func:`parity_posterior` checks two groups' counts and returns a :class:`ParityPosterior`:
closed-form mean and variance, density, distribution function and tail probabilities by
one-dimensional quadrature over ``e₁``, the HDI from a grid of the distribution function,
and :meth:`ParityPosterior.decide` (the simple rule and HDI + ROPE, a
:class:`ParityDecision`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate, optimize, signal, special

from embias._validation import check_probability
from embias.classifier.parity._checks import check_counts, check_prior, check_threshold
from embias.classifier.parity.rules import (
    Decision,
    Side,
    as_decision,
    beta_params,
    moments,
    rope_rule,
    simple_rule,
    z_for,
)
from embias.report import interval_table
from embias.settings import DEFAULT_CI_PROB

_EPS_WINDOW = 1e-13  # tail mass left out of each rate's integration window
_GRID_POINTS = 2048  # grid points across the narrower posterior (density grid for the HDI)


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
        a1, b1 = beta_params(self.x1, self.n1, self.prior)
        a2, b2 = beta_params(self.x2, self.n2, self.prior)
        return float(a1), float(b1), float(a2), float(b2)

    @property
    def mean(self) -> float:
        """Exact posterior mean of e₂ − e₁."""
        return float(moments(self.x1, self.n1, self.x2, self.n2, self.prior)[0])

    @property
    def variance(self) -> float:
        """Exact posterior variance of e₂ − e₁ (sum of the two Beta variances)."""
        return float(moments(self.x1, self.n1, self.x2, self.n2, self.prior)[1])

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
        t = check_threshold(threshold)
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
        t = check_threshold(threshold)
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
        t = check_threshold(rope, "rope")
        p = check_probability("ci_prob", ci_prob)
        zz = z_for(p) if z is None else float(z)
        if not (zz >= 0 and math.isfinite(zz)):
            raise ValueError(f"z must be a finite number ≥ 0, got {z!r}")
        lo, hi = self._hdi_bounds(p)
        return ParityDecision(
            rope=t, ci_prob=p, z=zz, mean=self.mean, sd=self.sd,
            simple=as_decision(simple_rule(self.mean, self.sd, t, zz)),
            hdi_lower=lo, hdi_upper=hi, hdi_rope=rope_rule(lo, hi, t),
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
    x1, n1 = check_counts(x1, n1, "1")
    x2, n2 = check_counts(x2, n2, "2")
    names = ("group 1", "group 2") if labels is None else tuple(str(v) for v in labels)
    if len(names) != 2:
        raise ValueError(f"labels must name exactly two groups, got {labels!r}")
    return ParityPosterior(x1, n1, x2, n2, check_prior(prior), (names[0], names[1]))
