"""A share of simulated outcomes with its binomial Monte Carlo standard error.

``share_with_mc_se`` is the one place a coverage or a rate of claims over simulated
studies gets its standard error (calibration, design analysis).
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["share_with_mc_se"]


def share_with_mc_se(hits: pd.Series) -> tuple[float, float]:
    """Return the share of ``True`` in ``hits`` and its binomial Monte Carlo standard error.

    Parameters
    ----------
    hits
        One boolean per simulated study or table (an interval covered, a claim made).

    Returns
    -------
    tuple of (float, float)
        The share p and √(p(1 − p)/n); the standard error is NaN for fewer than two hits.

    Examples
    --------
    >>> import pandas as pd
    >>> share_with_mc_se(pd.Series([True, True, False, True]))  # √(0.75 · 0.25 / 4)
    (0.75, 0.217)
    """
    n = len(hits)
    p = float(hits.mean())
    return p, math.sqrt(p * (1 - p) / n) if n > 1 else math.nan
