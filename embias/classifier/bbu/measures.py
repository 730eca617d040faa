"""Fairness measures as BBU cost and annotation choices.

Demographic parity, equal opportunity and equalized odds of binary predictions, each an
interval of :func:`~embias.classifier.bbu.interval.bbu_interval`'s kind.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from embias._validation import check_probability
from embias.classifier.bbu._common import Bound, annotation
from embias.classifier.bbu.interval import bbu_interval, bbu_row
from embias.report import CREDIBLE_DIFFERENCE, UNDECIDED, interval_table
from embias.settings import DEFAULT_CI_PROB

__all__ = ["demographic_parity", "equal_opportunity", "equalized_odds"]


def _binary(name: str, values: Any, positive: Any) -> np.ndarray:
    v = np.asarray(values)
    if v.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {v.shape}")
    if positive is None:
        if v.dtype == bool:
            return v
        uniq = set(pd.unique(pd.Series(v, dtype=object)))
        if not uniq <= {0, 1}:
            shown = sorted(map(str, uniq))[:10]
            raise ValueError(
                f"{name} must be 0/1 (or boolean) unless positive= names the positive label; "
                f"got values {shown}"
            )
        return v.astype(float) == 1.0
    return v == positive


def demographic_parity(
    y_pred: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    gamma: float | None = None,
    protected: Any = None,
    positive: Any = None,
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
) -> pd.DataFrame:
    """Test demographic parity with a BBU interval: cost ``1 − ŷ``, every example annotated.

    The estimate is PR_B − PR_A (positive-prediction rate of B minus that of A): positive
    means the protected group receives the positive outcome less often.

    Parameters
    ----------
    y_pred
        Predicted labels: 0/1 or booleans, or any labels with ``positive``.
    group
        As for :func:`bbu_interval`.
    ci_prob, gamma, protected, variance, bound
        As for :func:`bbu_interval`.
    positive
        The positive label when ``y_pred`` is not 0/1.

    Returns
    -------
    pandas.DataFrame
        One interval-table row, as :func:`bbu_interval`'s (``decision``:
        ``"credible difference"`` / ``"undecided"``).

    Raises
    ------
    ValueError
        ``y_pred`` that is not 0/1 without ``positive``, or what :func:`bbu_interval`
        refuses.

    Examples
    --------
    Group "a" (protected: first in sorted order) gets 2 positives of 3, group "b" 1 of 3,
    so PR_b − PR_a = −1/3:

    >>> from embias.classifier import demographic_parity
    >>> row = demographic_parity([1, 1, 0, 1, 0, 0], ["a", "a", "a", "b", "b", "b"])
    >>> row[["estimand", "group", "estimate", "n", "decision"]].round(3)
                 estimand  group  estimate  n   decision
    0  demographic_parity  a − b    -0.333  6  undecided
    """
    yhat = _binary("y_pred", y_pred, positive)
    return bbu_interval(
        1.0 - yhat.astype(float), group, ci_prob=ci_prob, max_cost=1.0, gamma=gamma,
        protected=protected, variance=variance, bound=bound, estimand="demographic_parity",
    )


def _rate_gap(
    cost: np.ndarray,
    group: Any,
    keep: np.ndarray,
    *,
    estimand: str,
    ci_prob: float,
    gamma: float | None,
    protected: Any,
    variance: Any,
    bound: str,
) -> dict[str, Any]:
    """BBU row with annotation g = f · 1[keep] (examples outside ``keep`` → neither)."""
    f, name_a, name_b = annotation(group, protected)
    if f.shape != keep.shape:
        raise ValueError(f"y_true has {keep.size} values but group has {f.size}; they must match")
    g = np.where(keep, f, 0).astype(np.int8)
    return bbu_row(cost, g, (name_a, name_b), ci_prob=ci_prob, max_cost=1.0,
                    gamma=gamma, variance=variance, bound=bound, estimand=estimand)


def equal_opportunity(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    gamma: float | None = None,
    protected: Any = None,
    positive: Any = None,
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
) -> pd.DataFrame:
    """Test equal opportunity with a BBU interval: cost ``1 − ŷ``, annotation ``g = f · y``.

    Only qualified examples (y = positive) keep their group; the estimate is
    FNR_A − FNR_B = TPR_B − TPR_A. Unqualified examples count in ``n`` as "neither", as in
    Ethayarajh (2020, §2).

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels: 0/1 or booleans, or any labels with ``positive``.
    group
        As for :func:`bbu_interval`.
    ci_prob, gamma, protected, variance, bound
        As for :func:`bbu_interval`.
    positive
        The positive label when the labels are not 0/1.

    Returns
    -------
    pandas.DataFrame
        One interval-table row, as :func:`bbu_interval`'s.

    Raises
    ------
    ValueError
        Labels that are not 0/1 without ``positive``, arrays of different lengths, or what
        :func:`bbu_interval` refuses.

    Examples
    --------
    Of the qualified examples (y = 1), group "a" gets 2 of 3 right and group "b" 1 of 3:
    TPR_b − TPR_a = −1/3. All 12 examples count in ``n``:

    >>> from embias.classifier import equal_opportunity
    >>> y_true = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    >>> y_pred = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]
    >>> group = ["a"] * 6 + ["b"] * 6
    >>> row = equal_opportunity(y_true, y_pred, group)
    >>> row[["estimate", "n", "n_protected", "n_unprotected"]].round(3)
       estimate   n  n_protected  n_unprotected
    0    -0.333  12            3              3
    """
    y = _binary("y_true", y_true, positive)
    yhat = _binary("y_pred", y_pred, positive)
    if y.shape != yhat.shape:
        raise ValueError(f"y_true has {y.size} values but y_pred has {yhat.size}")
    rho = check_probability("ci_prob", ci_prob)
    row = _rate_gap(1.0 - yhat.astype(float), group, y, estimand="equal_opportunity",
                    ci_prob=rho, gamma=gamma, protected=protected, variance=variance,
                    bound=bound)
    return interval_table([row], ci_prob=rho, ci_kind=bound)


def equalized_odds(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    gamma: float | None = None,
    protected: Any = None,
    positive: Any = None,
    method: Literal["rates", "zero_one"] = "rates",
    variance: float | Literal["sample", "max"] = "sample",
    bound: Bound = "bernstein",
) -> pd.DataFrame:
    """Test equalized odds with BBU intervals.

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels: 0/1 or booleans, or any labels with ``positive``.
    group
        As for :func:`bbu_interval`.
    ci_prob, gamma, protected, variance, bound
        As for :func:`bbu_interval`.
    positive
        The positive label when the labels are not 0/1.
    method
        ``"rates"`` (default): two rows, the FNR gap (cost ``1 − ŷ`` on y = 1 examples,
        estimand ``equalized_odds_fnr``) and the FPR gap (cost ``ŷ`` on y = 0 examples,
        estimand ``equalized_odds_fpr``), each at confidence ``1 − (1 − ρ)/2`` so that both
        hold together with confidence ≥ ρ (Bonferroni); ``joint_decision`` is
        ``"credible difference"`` when either row is. ``"zero_one"``: the paper's single
        row with zero-one loss on every annotated example (an error-rate gap, which mixes
        the two rates by the groups' base rates and can hide opposite FPR/FNR gaps).

    Notes
    -----
    Ethayarajh (2020) suggests zero-one loss with the equal-opportunity annotation
    ``f · y``; on y = 1 examples that cost equals ``1 − ŷ``, i.e. equal opportunity again,
    so ``"rates"`` tests both rates explicitly instead.

    Returns
    -------
    pandas.DataFrame
        Interval table: two rows (``"rates"``) or one (``"zero_one"``).

    Raises
    ------
    ValueError
        An unknown ``method``, labels that are not 0/1 without ``positive``, arrays of
        different lengths, or what :func:`bbu_interval` refuses.

    Examples
    --------
    FNR_a = 1/3, FNR_b = 2/3 and FPR_a = 1/3, FPR_b = 2/3; each row is at confidence
    1 − 0.11/2 = 0.945 so that both hold together at 0.89:

    >>> from embias.classifier import equalized_odds
    >>> y_true = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    >>> y_pred = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]
    >>> group = ["a"] * 6 + ["b"] * 6
    >>> rows = equalized_odds(y_true, y_pred, group)
    >>> rows[["estimand", "estimate", "ci_prob", "joint_decision"]].round(3)
                 estimand  estimate  ci_prob joint_decision
    0  equalized_odds_fnr    -0.333    0.945      undecided
    1  equalized_odds_fpr    -0.333    0.945      undecided
    """
    y = _binary("y_true", y_true, positive)
    yhat = _binary("y_pred", y_pred, positive)
    if y.shape != yhat.shape:
        raise ValueError(f"y_true has {y.size} values but y_pred has {yhat.size}")
    if method == "zero_one":
        return bbu_interval(
            (y != yhat).astype(float), group, ci_prob=ci_prob, max_cost=1.0,
            gamma=gamma, protected=protected, variance=variance, bound=bound,
            estimand="equalized_odds_zero_one",
        )
    if method != "rates":
        raise ValueError(f"method must be 'rates' or 'zero_one', got {method!r}")
    rho = check_probability("ci_prob", ci_prob)
    each = 1.0 - (1.0 - rho) / 2.0
    rows = [
        _rate_gap(1.0 - yhat.astype(float), group, y, estimand="equalized_odds_fnr",
                  ci_prob=each, gamma=gamma, protected=protected, variance=variance,
                  bound=bound),
        _rate_gap(yhat.astype(float), group, ~y, estimand="equalized_odds_fpr",
                  ci_prob=each, gamma=gamma, protected=protected, variance=variance,
                  bound=bound),
    ]
    joint = CREDIBLE_DIFFERENCE if any(r["decision"] == CREDIBLE_DIFFERENCE for r in rows) \
        else UNDECIDED
    for r in rows:
        r["joint_confidence"] = rho
        r["joint_decision"] = joint
    return interval_table(rows, ci_prob=each, ci_kind=bound)

