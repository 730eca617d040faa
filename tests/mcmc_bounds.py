"""Bounds for checks of sampler diagnostics that hold on any machine.

Seeded MCMC is reproducible on one machine, not across processors: another CPU or XLA
build takes another floating-point path and the chains part ways. A test of a sampled
number therefore compares it with what its Monte Carlo error allows, not with the value
one machine once printed.

r̂ of well-mixed chains. ArviZ's r̂ splits each of m chains in two halves; with the
variance of the 2m half-chain means B/n ≈ σ² χ²_{2m−1} / ((2m − 1) ESS/(2m)) and the
within-chain variance W ≈ σ², r̂² = (n − 1)/n + (B/n)/W gives

    r̂ − 1 ≈ m χ²_{2m−1} / ((2m − 1) ESS)        (2 chains: (2/3) χ²₃ / ESS).

Checked on AR(1) chains of known ESS (2000 replicates each, ESS 222, 333, 1500): the
observed 50/90/99/99.9% quantiles of (r̂ − 1) × ESS were 1.1–1.6 / 3.4–4.0 / 6.6–7.1 /
8.4–9.8 against the formula's 1.6 / 4.2 / 7.6 / 10.8, so the formula errs on the safe
side. The largest r̂ of P parameters stays below the 1 − α/P quantile (union bound) with
probability ≥ 1 − α; ESS is the smallest ESS of the fit, a lower bound for every
parameter's.

Divergences. A divergent transition is a rare event whose count follows no fixed value
across machines; a share above 0.5% of the draws is the mark of a real problem with the
geometry (the bar tests/test_crossed.py and tests/test_seat_model.py set from 60 seeds).
"""

from __future__ import annotations

import math

from scipy.stats import chi2

#: Divergent transitions allowed, as a share of all draws.
DIVERGENCE_SHARE = 0.005


def max_rhat_bound(min_ess: float, n_parameters: int, *, chains: int = 2,
                   false_alarm: float = 1e-3) -> float:
    """Upper bound for the largest r̂ of ``n_parameters`` parameters of well-mixed chains
    whose smallest ESS is ``min_ess``, exceeded with probability ≤ ``false_alarm``."""
    k = 2 * chains - 1
    quantile = chi2.ppf(1 - false_alarm / max(n_parameters, 1), k)
    return 1 + chains * quantile / (k * min_ess)


def max_divergences(draws: int, chains: int) -> int:
    """Divergent transitions allowed in ``chains`` × ``draws`` draws (0.5% of them)."""
    return math.floor(DIVERGENCE_SHARE * draws * chains)
