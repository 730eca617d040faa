"""The closed forms of the rate difference and the decision rules against a threshold.

The Beta posteriors of two groups' rates and the exact mean and variance of their
difference ``e₂ − e₁`` (vectorised, so that one posterior and thousands of simulated data
sets share them), the simple rule's normal-approximation intervals ``μ ± zσ`` and the
HDI + ROPE rule, both decided by :func:`embias.report.rope_decision`.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from scipy import stats

from embias.report import rope_decision

#: The tail of :meth:`~embias.classifier.ParityPosterior.prob_exceeds`.
Side = Literal["two-sided", "greater", "less"]
#: The three decisions of :func:`embias.report.rope_decision`.
Decision = Literal["credible difference", "practically equivalent", "undecided"]


def beta_params(x: Any, n: Any, prior: tuple[float, float]) -> tuple[Any, Any]:
    """Return the parameters (a, b) of a rate's Beta posterior, ``Beta(x + α, n − x + β)``.

    Parameters
    ----------
    x, n
        Positive outcomes and group sizes (numbers or arrays of them).
    prior
        The Beta prior (α, β).

    Returns
    -------
    tuple
        ``(a, b)``, float arrays shaped like ``x`` and ``n``.
    """
    a0, b0 = prior
    return np.asarray(x, float) + a0, np.asarray(n, float) - np.asarray(x, float) + b0


def moments(
    x1: Any, n1: Any, x2: Any, n2: Any, prior: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """Return the exact posterior mean and variance of e₂ − e₁ (independent Beta posteriors).

    Parameters
    ----------
    x1, n1, x2, n2
        Positive outcomes and sizes of the two groups (numbers or arrays of them).
    prior
        The Beta prior (α, β) of both rates.

    Returns
    -------
    tuple of numpy.ndarray
        ``(mean, variance)``, shaped like the counts.
    """
    a1, b1 = beta_params(x1, n1, prior)
    a2, b2 = beta_params(x2, n2, prior)
    mean = a2 / (a2 + b2) - a1 / (a1 + b1)
    var = a1 * b1 / ((a1 + b1) ** 2 * (a1 + b1 + 1)) + a2 * b2 / ((a2 + b2) ** 2 * (a2 + b2 + 1))
    return mean, var


def z_for(ci_prob: float) -> float:
    """Return z of the simple rule: flagging μ − zσ > T ⇔ (normal approx.) P(d > T) > ci_prob.

    Parameters
    ----------
    ci_prob
        The confidence of the simple rule.

    Returns
    -------
    float
        ``Φ⁻¹(ci_prob)``.
    """
    return float(stats.norm.ppf(ci_prob))


def simple_rule(mean: Any, sd: Any, threshold: float, z: float) -> np.ndarray:
    """Return the interval + ROPE decisions of the normal-approximation intervals μ ± zσ.

    The rule is :func:`embias.report.rope_decision`, against the ROPE [−T, T].

    Parameters
    ----------
    mean, sd
        Posterior means and sds of the rate difference (numbers or arrays).
    threshold
        T: the ROPE is [−T, T].
    z
        Factor of the intervals.

    Returns
    -------
    numpy.ndarray
        One decision per interval.
    """
    mean = np.asarray(mean, float)
    sd = np.asarray(sd, float)
    return rope_decision(mean - z * sd, mean + z * sd, threshold)


def rope_rule(lower: float, upper: float, threshold: float) -> Decision:
    """Return Kruschke's HDI+ROPE decision against the ROPE [−T, T].

    Parameters
    ----------
    lower, upper
        The HDI of the rate difference.
    threshold
        T: the ROPE is [−T, T].

    Returns
    -------
    str
        ``"credible difference"``, ``"practically equivalent"`` or ``"undecided"``.
    """
    return as_decision(rope_decision(lower, upper, threshold))


def as_decision(value: Any) -> Decision:
    """Return ``value``, one of the three decisions of :func:`embias.report.rope_decision`.

    Parameters
    ----------
    value
        A decision (a string or a numpy string scalar).

    Returns
    -------
    str
        The decision, typed as :data:`Decision`.

    Raises
    ------
    ValueError
        ``value`` is not one of the three decisions.
    """
    for decision in get_args(Decision):
        if value == decision:
            return decision
    raise ValueError(f"{value!r} is not one of the decisions {list(get_args(Decision))}")
