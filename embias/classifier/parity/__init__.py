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

The package, one module per idea (every name is also importable from
``embias.classifier.parity``):

- :mod:`~embias.classifier.parity.rules` — the closed forms of the rate difference and the
  two decision rules;
- :mod:`~embias.classifier.parity.posterior` — the posterior of two groups' rate difference
  (:func:`parity_posterior`, :class:`ParityPosterior`, :class:`ParityDecision`);
- :mod:`~embias.classifier.parity.groups` — several groups: every pair and each group
  against the rest (:func:`parity_comparisons`);
- :mod:`~embias.classifier.parity.simulations` — detection rates when monitoring
  (:func:`simulate_detection`) and HDI coverage (:func:`parity_hdi_coverage`);
- ``embias.classifier.parity._checks`` — the checks of counts, prior and threshold.
"""

from embias.classifier.parity.groups import parity_comparisons
from embias.classifier.parity.posterior import ParityDecision, ParityPosterior, parity_posterior
from embias.classifier.parity.rules import Decision as Decision
from embias.classifier.parity.rules import Side as Side
from embias.classifier.parity.simulations import parity_hdi_coverage, simulate_detection

__all__ = [
    "ParityDecision",
    "ParityPosterior",
    "parity_comparisons",
    "parity_hdi_coverage",
    "parity_posterior",
    "simulate_detection",
]
