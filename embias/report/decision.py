"""The one decision rule of embias: Kruschke's interval + ROPE, and its three words.

:func:`rope_decision` decides every contrast, change, parity test and BBU interval that
embias prints; ``DECISIONS`` are its words (:data:`CREDIBLE_DIFFERENCE`,
:data:`PRACTICALLY_EQUIVALENT`, :data:`UNDECIDED`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["CREDIBLE_DIFFERENCE", "DECISIONS", "PRACTICALLY_EQUIVALENT", "UNDECIDED",
           "rope_decision"]


#: The one decision vocabulary of embias (Kruschke's interval + ROPE rule), used by the
#: Bayesian fits, the comparisons and the classifier side. The words cannot be read as a
#: connection name (``different``, ``none`` …) or as a verdict on a person or group.
CREDIBLE_DIFFERENCE = "credible difference"
PRACTICALLY_EQUIVALENT = "practically equivalent"
UNDECIDED = "undecided"
DECISIONS: tuple[str, ...] = (CREDIBLE_DIFFERENCE, PRACTICALLY_EQUIVALENT, UNDECIDED)


def rope_decision(lower: Any, upper: Any, rope: float) -> np.ndarray:
    """Return Kruschke's interval + ROPE decision for a difference (ROPE = [−rope, rope]).

    The one rule for every decision embias prints: a Bayesian contrast (HDI), a change
    between embeddings, a parity test's HDI or simple z-interval, a BBU confidence interval
    (``rope=0``: does the interval exclude 0?).

    Parameters
    ----------
    lower, upper
        Interval ends (scalars or arrays of the same shape).
    rope
        Half-width of the region of practical equivalence, ≥ 0.

    Returns
    -------
    numpy.ndarray of str
        Element-wise :data:`CREDIBLE_DIFFERENCE` when the interval lies entirely outside
        the ROPE, :data:`PRACTICALLY_EQUIVALENT` when it lies entirely inside it (never
        with ``rope=0`` unless the interval is the single point 0), else
        :data:`UNDECIDED`.

    Raises
    ------
    ValueError
        A negative or non-numeric ``rope``.

    Examples
    --------
    >>> rope_decision([-0.07, -0.01, -0.03], [-0.03, 0.01, 0.05], 0.02).tolist()
    ['credible difference', 'practically equivalent', 'undecided']
    >>> rope_decision(0.01, 0.05, 0).tolist()  # rope=0: does the interval exclude 0?
    'credible difference'
    """
    from .._validation import check_rope

    rope = check_rope(rope)
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    outside = (lower > rope) | (upper < -rope)
    inside = (lower >= -rope) & (upper <= rope)
    return np.where(outside, CREDIBLE_DIFFERENCE,
                    np.where(inside, PRACTICALLY_EQUIVALENT, UNDECIDED))
