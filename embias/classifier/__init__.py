"""Classifier fairness with honest uncertainty.

* :mod:`~embias.classifier.bbu` — Bernstein-bounded unfairness (Ethayarajh 2020):
  confidence intervals for groupwise disparities, sample sizes, coverage simulations.
* :mod:`~embias.classifier.parity` — Bayesian parity tests of selection rates.
* :mod:`~embias.classifier.generalized` — generalized fairness metrics PCM/BCM/MCM
  (Czarnowska et al. 2021), with :mod:`~embias.classifier.metric_terms` (their scores and
  comparisons) and :mod:`~embias.classifier.metric_data` (their checked examples);
  :mod:`~embias.classifier.presets` — their named presets;
  :mod:`~embias.classifier.significance` — paired tests on templated data.

The figure of a BBU coverage simulation is in the plotting layer,
:func:`embias.plot_bbu_coverage` (:mod:`embias.plots.bbu`).
"""

from typing import Any

from embias._deprecation import moved_names
from embias.classifier.bbu import (
    MNLI_GENRE_COSTS,
    bbu_coverage,
    bbu_detectable_delta,
    bbu_interval,
    bbu_required_n,
    bernstein_half_width,
    demographic_parity,
    equal_opportunity,
    equalized_odds,
    genre_population,
    hoeffding_half_width,
)
from embias.classifier.generalized import (
    COMPARISONS,
    SCORES,
    FairnessResult,
    bcm,
    mcm,
    pcm,
    vbcm,
)
from embias.classifier.parity import (
    ParityDecision,
    ParityPosterior,
    parity_comparisons,
    parity_hdi_coverage,
    parity_posterior,
    simulate_detection,
)
from embias.classifier.presets import PRESETS, MetricSpec, fairness_metric
from embias.classifier.significance import SignificanceResult, template_significance

__all__ = [
    "COMPARISONS",
    "MNLI_GENRE_COSTS",
    "PRESETS",
    "SCORES",
    "FairnessResult",
    "MetricSpec",
    "ParityDecision",
    "ParityPosterior",
    "SignificanceResult",
    "bbu_coverage",
    "bbu_detectable_delta",
    "bbu_interval",
    "bbu_required_n",
    "bcm",
    "bernstein_half_width",
    "demographic_parity",
    "equal_opportunity",
    "equalized_odds",
    "fairness_metric",
    "genre_population",
    "hoeffding_half_width",
    "mcm",
    "parity_comparisons",
    "parity_hdi_coverage",
    "parity_posterior",
    "pcm",
    "simulate_detection",
    "template_significance",
    "vbcm",
]

__getattr__: Any = moved_names(__name__, {"plot_bbu_coverage": "embias.plots.bbu"})
