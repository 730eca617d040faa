"""How far to trust a fit: r̂, ESS, divergences and the posterior predictive check.

The package, one module per idea (every name is also importable from
``embias.bayes.diagnostics``):

- :mod:`~embias.bayes.diagnostics.rhat_ess` — r̂, bulk and tail ESS of every scalar, equal
  to ArviZ's and computed for all scalars at once (``convergence_diagnostics``,
  ``rank_normalized_diagnostics``);
- :mod:`~embias.bayes.diagnostics.checks` — the thresholds, :class:`ConvergenceWarning`,
  divergences counted, the problems in words and the overview record;
- :mod:`~embias.bayes.diagnostics.cell_draws` — the posterior draws of every cell's mean
  and residual sd (``cell_location_scale``);
- :mod:`~embias.bayes.diagnostics.predictive` — the posterior predictive check
  (``posterior_predictive_check``, :class:`PredictiveCheck`).
"""

# Names imported ``X as X`` are importable from here, as from the module
# embias.bayes.diagnostics was, but not in __all__.
from .cell_draws import cell_location_scale
from .checks import (
    ESS_MIN,
    RHAT_MAX,
    ConvergenceWarning,
    convergence_problems,
    count_divergences,
    diagnostics_overview,
)
from .predictive import DEFAULT_CHECK_PROBS as DEFAULT_CHECK_PROBS
from .predictive import PredictiveCheck, observed_distances, posterior_predictive_check
from .rhat_ess import convergence_diagnostics, rank_normalized_diagnostics

__all__ = [
    "ESS_MIN",
    "RHAT_MAX",
    "ConvergenceWarning",
    "PredictiveCheck",
    "cell_location_scale",
    "convergence_diagnostics",
    "convergence_problems",
    "count_divergences",
    "diagnostics_overview",
    "observed_distances",
    "posterior_predictive_check",
    "rank_normalized_diagnostics",
]
