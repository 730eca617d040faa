"""The exact sampling distribution of the WEAT effect size in the simulations' model.

The model is the pure-noise one of :func:`embias.simulate.simulate_weat`
(:func:`exact_weat_distribution`, :class:`WeatDistribution`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import optimize, stats

from ..settings import DEFAULT_CI_PROB
from .design import CALISKAN_LARGEST_EFFECT, Numerator, check_design, max_abs_weat

__all__ = ["WeatDistribution", "exact_weat_distribution"]

#: Gauss–Legendre nodes of the exact distribution's one-dimensional integral (λ > 0).
_QUADRATURE_NODES = 1024


@dataclass(frozen=True)
class WeatDistribution:
    """Exact sampling distribution of the WEAT effect size under :func:`simulate_weat`'s model.

    Build it with :func:`exact_weat_distribution`.

    The 2n s values are i.i.d. normal around ±``association`` with sd τ = sd·√(2/m).
    Write the numerator as v·s (v: the contrast of ``numerator``), e = v/‖v‖, Z = e·s/τ
    and Q = ‖s_⊥‖²/τ², s_⊥ the part of the centred s orthogonal to e. Then Z ~ N(μ_Z, 1)
    and Q ~ χ'²(2n − 2, λ) are independent and

        WEAT = c·Z / √(Z² + Q),   c = ‖v‖·√(2n − ddof) (the bound),

    so P(WEAT ≤ w) = E_Q[Φ(w·√(Q/(c² − w²)) − μ_Z)]. For the ``"mean"`` numerator
    (any association) and for both numerators under the null, λ = 0 and WEAT is a
    monotone transform of a (non-central) Student t with 2n − 2 degrees of freedom:
    T = Z/√(Q/(2n − 2)), WEAT = c·T/√(2n − 2 + T²). Otherwise (``"first-word"`` with an
    association) the expectation is a one-dimensional integral over R = √Q, done by
    Gauss–Legendre quadrature over R's central 1 − 2·10⁻¹⁵ range.

    Attributes
    ----------
    n_protected_per_group, n_attributes, sd, association, numerator, ddof
        The design (see :func:`simulate_weat`).
    """

    n_protected_per_group: int
    n_attributes: int
    sd: float
    association: float
    numerator: Numerator
    ddof: int

    @property
    def df(self) -> int:
        """Degrees of freedom 2n − 2 of Q."""
        return 2 * self.n_protected_per_group - 2

    @property
    def bound(self) -> float:
        """The ceiling c of |WEAT|."""
        return max_abs_weat(self.n_protected_per_group, numerator=self.numerator,
                            ddof=self.ddof)

    @property
    def _tau(self) -> float:
        return self.sd * math.sqrt(2 / self.n_attributes)

    @property
    def noncentrality(self) -> float:
        """Mean μ_Z of Z (in units of τ)."""
        n, a = self.n_protected_per_group, self.association
        norm = math.sqrt(2 / n) if self.numerator == "mean" else math.sqrt(2)
        return 2 * a / (norm * self._tau)

    @property
    def residual_noncentrality(self) -> float:
        """Non-centrality λ of Q: 0 for ``"mean"``, (2n − 2)·a²/τ² for ``"first-word"``.

        For ``"first-word"`` it is the group difference carried by the words the numerator
        ignores.
        """
        if self.numerator == "mean":
            return 0.0
        return self.df * (self.association / self._tau) ** 2

    @cached_property
    def _quadrature(self) -> tuple[np.ndarray, np.ndarray]:
        """Return Gauss–Legendre nodes r and weights × density of R = √Q (used when λ > 0).

        The nodes cover R's central 1 − 2·10⁻¹⁵ range.
        """
        k, lam = self.df, self.residual_noncentrality
        r_lo = math.sqrt(float(stats.ncx2.ppf(1e-15, k, lam)))
        r_hi = math.sqrt(float(stats.ncx2.isf(1e-15, k, lam)))
        x, wts = np.polynomial.legendre.leggauss(_QUADRATURE_NODES)
        r = r_lo + (x + 1) * (r_hi - r_lo) / 2
        weights = wts * (r_hi - r_lo) / 2 * 2 * r * stats.ncx2.pdf(r * r, k, lam)
        return r, weights

    def _cdf_one(self, w: float) -> float:
        c = self.bound
        if w <= -c:
            return 0.0
        if w >= c:
            return 1.0
        k, mu = self.df, self.noncentrality
        slope = w / math.sqrt(c * c - w * w)
        if self.residual_noncentrality == 0.0:
            # WEAT ≤ w  ⟺  T ≤ slope·√k, T ~ t'(k, μ); the lower tail through the upper
            # tail of t'(k, −μ), where scipy's nct stays finite.
            x = slope * math.sqrt(k)
            return float(stats.nct.cdf(x, k, mu) if x >= 0 else stats.nct.sf(-x, k, -mu))
        r, weights = self._quadrature
        value = float(np.sum(weights * stats.norm.cdf(slope * r - mu)))
        return min(1.0, max(0.0, value))

    def cdf(self, w: float | np.ndarray) -> float | np.ndarray:
        """Return P(WEAT ≤ w)."""
        out = np.vectorize(self._cdf_one, otypes=[float])(np.asarray(w, dtype=float))
        return float(out) if out.ndim == 0 else out

    def _ppf_one(self, q: float) -> float:
        if not 0 < q < 1:
            raise ValueError(f"quantile probabilities must be in (0, 1), got {q!r}")
        c, k, mu = self.bound, self.df, self.noncentrality
        if self.residual_noncentrality == 0.0:
            t = float(stats.nct.ppf(q, k, mu))
            return c * t / math.sqrt(k + t * t)
        edge = c * (1 - 1e-12)
        return float(optimize.brentq(lambda w: self._cdf_one(w) - q, -edge, edge,
                                     xtol=1e-10, rtol=1e-12))

    def ppf(self, q: float | np.ndarray) -> float | np.ndarray:
        """Return the quantiles of ``q`` (the inverse of :meth:`cdf`)."""
        out = np.vectorize(self._ppf_one, otypes=[float])(np.asarray(q, dtype=float))
        return float(out) if out.ndim == 0 else out

    def interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Return the central ``ci_prob`` range."""
        a = (1 - ci_prob) / 2
        return float(self.ppf(a)), float(self.ppf(1 - a))

    def share_above(self, threshold: float = CALISKAN_LARGEST_EFFECT) -> float:
        """Return P(|WEAT| ≥ threshold)."""
        if threshold <= 0:
            raise ValueError(f"threshold must be positive, got {threshold!r}")
        if threshold >= self.bound:
            return 0.0
        return float(self._cdf_one(-threshold) + 1 - self._cdf_one(threshold))


def exact_weat_distribution(
    *,
    n_protected_per_group: int = 8,
    n_attributes: int = 8,
    sd: float = 0.08,
    association: float = 0.0,
    numerator: Numerator = "mean",
    ddof: int = 1,
) -> WeatDistribution:
    """Return the exact distribution of the WEAT effect size in :func:`simulate_weat`'s model.

    Under the null (``association=0``) it depends only on ``n_protected_per_group`` and
    the numerator — not on ``sd`` or ``n_attributes`` — because the s values are i.i.d.
    normal and WEAT is scale-free.

    Parameters
    ----------
    n_protected_per_group, n_attributes, sd, association, numerator, ddof
        The design, as for :func:`simulate_weat`.

    Returns
    -------
    WeatDistribution
        With ``cdf``, ``ppf``, ``interval`` and ``share_above``.

    Raises
    ------
    ValueError
        Invalid design values, or fewer than 2 words per group: the distribution is
        built on the within-group sd of the s values (2n − 2 degrees of freedom). With one
        word per group WEAT is ±√2 whatever the data (Ethayarajh et al. 2019).

    Examples
    --------
    With two words per group, WEAT = √3·T/√(2 + T²) for T Student's t with 2 degrees of
    freedom, and P(|WEAT| ≥ 1.5) = P(|T| ≥ √6) = 1 − √3/2 ≈ 0.134:

    >>> from embias.simulate import exact_weat_distribution
    >>> dist = exact_weat_distribution(n_protected_per_group=2)
    >>> round(dist.share_above(1.5), 4), round(1 - 3 ** 0.5 / 2, 4)
    (0.134, 0.134)

    The null's central 95% range for 8 + 8 words, and the refusal of one word per group:

    >>> exact_weat_distribution(n_protected_per_group=8).interval(0.95)
    (-0.963, 0.963)
    >>> exact_weat_distribution(n_protected_per_group=1)
    Traceback (most recent call last):
    ...
    ValueError: the exact WEAT distribution needs at least 2 protected words per group ...
    """
    n, m, sd, association = check_design(n_protected_per_group, n_attributes, sd,
                                          association, numerator, ddof)
    if n < 2:
        raise ValueError(
            f"the exact WEAT distribution needs at least 2 protected words per group (its "
            f"within-group sd has 2n − 2 degrees of freedom), got n_protected_per_group={n}; "
            "with one word per group WEAT is ±√2 whatever the data")
    return WeatDistribution(n_protected_per_group=n, n_attributes=m, sd=sd,
                            association=association, numerator=numerator, ddof=ddof)
