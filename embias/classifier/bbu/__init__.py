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

The package holds one idea per module:

* :mod:`~embias.classifier.bbu.bounds` — the Bernstein and Hoeffding half-widths, the
  sample size needed to call a disparity biased and the smallest detectable disparity.
* :mod:`~embias.classifier.bbu.interval` — the interval of a groupwise disparity from costs
  and a group annotation (:func:`bbu_interval`).
* :mod:`~embias.classifier.bbu.measures` — demographic parity, equal opportunity and
  equalized odds as BBU intervals.
* :mod:`~embias.classifier.bbu.coverage` — the MNLI genre costs, their synthetic population
  and the coverage simulation of the interval.
* :mod:`~embias.classifier.bbu.figures` — the coverage figure's old import path
  (deprecated): the figure of a coverage simulation is in :mod:`embias.plots.bbu`.
* ``embias.classifier.bbu._common`` — the checks of options, costs and annotations that
  the modules share.
"""

from typing import Any

from embias._deprecation import moved_names
from embias.classifier.bbu._common import Bound as Bound
from embias.classifier.bbu.bounds import (
    bbu_detectable_delta,
    bbu_required_n,
    bernstein_half_width,
    hoeffding_half_width,
)
from embias.classifier.bbu.coverage import MNLI_GENRE_COSTS, bbu_coverage, genre_population
from embias.classifier.bbu.interval import bbu_interval
from embias.classifier.bbu.measures import demographic_parity, equal_opportunity, equalized_odds

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
]

__getattr__: Any = moved_names(__name__, {"plot_bbu_coverage": "embias.plots.bbu"})
