"""Checked inputs of the BBU functions: options, costs and the group annotation.

The checks are built on :mod:`embias._validation`; every module of
:mod:`embias.classifier.bbu` uses them, so they live here under names without an underscore.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd

from embias._validation import check_int, check_number

#: The two interval kinds: Bernstein's (uses σ²) or Hoeffding's (ignores it).
Bound = Literal["bernstein", "hoeffding"]


def check_positive(name: str, value: Any) -> float:
    """Return ``value`` checked as a positive finite number (``max_cost``)."""
    return check_number(name, value, low=0.0, low_open=True)


def check_gamma(value: Any) -> float:
    """Return γ checked: in (0, 0.5], a lower bound on the smaller group's share."""
    try:
        return check_number("gamma", value, low=0.0, high=0.5, low_open=True)
    except ValueError as exc:
        raise ValueError(f"{exc} (a lower bound on the smaller group's share)") from None


def check_counts_array(name: str, value: Any, *, minimum: int) -> np.ndarray:
    """Return integer counts ≥ ``minimum`` (a scalar or an array of them), checked.

    Each is checked by :func:`embias._validation.check_int` as given: ``3.0`` and ``True``
    are refused and a bad value is shown as written (``0``, not ``0.0``).
    """
    items = np.asarray(value, dtype=object)
    checked = [check_int(name, v, minimum=minimum) for v in items.ravel().tolist()]
    return np.asarray(checked, dtype=np.int64).reshape(items.shape)


def check_numbers_array(name: str, value: Any, *, low: float, low_open: bool = False,
                         high: float | None = None) -> np.ndarray:
    """Return finite numbers in a range (a scalar or an array of them) as a float array.

    Each is checked by :func:`embias._validation.check_number` as given, so a bad value is
    named as written (ValueError).
    """
    items = np.asarray(value, dtype=object)
    checked = [check_number(name, v, low=low, low_open=low_open, high=high)
               for v in items.ravel().tolist()]
    return np.asarray(checked, dtype=float).reshape(items.shape)


def check_gamma_array(value: Any) -> np.ndarray:
    """Return γ values in (0, 0.5] (a scalar or an array of them) as a float array."""
    try:
        return check_numbers_array("gamma", value, low=0.0, low_open=True, high=0.5)
    except ValueError as exc:
        raise ValueError(f"{exc} (a lower bound on the smaller group's share)") from None


def log_tail(ci_prob: float) -> float:
    """L = −log((1 − ρ)/2) > 0, the quantity both bounds are written in."""
    return -math.log((1.0 - ci_prob) / 2.0)


def variance_value(variance: Any, *, max_cost: float, gamma: float) -> float:
    """σ² from ``"max"`` (= (C/γ)², the largest possible) or a non-negative number."""
    if isinstance(variance, str):
        if variance != "max":
            raise ValueError(f"variance must be 'max' or a number ≥ 0, got {variance!r}")
        return (max_cost / gamma) ** 2
    try:
        return check_number("variance", variance, low=0.0)
    except ValueError:
        raise ValueError(f"variance must be 'max' or a number ≥ 0, got {variance!r}") from None



def annotation(
    group: Any, protected: Any
) -> tuple[np.ndarray, str, str]:
    """Turn ``group`` into f ∈ {+1, −1, 0} and names for A and B.

    ``group`` is either an annotation (values ⊆ {+1, −1, 0}), booleans (True = protected)
    or exactly two labels; with labels the protected one is ``protected`` (default: the
    first label in sorted order).
    """
    g = np.asarray(group)
    if g.ndim != 1:
        raise ValueError(f"group must be one-dimensional, got shape {g.shape}")
    if g.size == 0:
        raise ValueError("group is empty: need at least one protected and one unprotected example")
    if g.dtype == bool:
        if protected is not None and protected is not True:
            raise ValueError(f"boolean group: protected must be True or None, got {protected!r}")
        return np.where(g, 1, -1).astype(np.int8), "True", "False"
    if protected is None and np.issubdtype(g.dtype, np.number):
        vals = g.astype(float)
        if np.any(np.isnan(vals)):
            raise ValueError("group contains NaN; use 0 for examples in neither group")
        if set(np.unique(vals)) <= {-1.0, 0.0, 1.0}:
            return vals.astype(np.int8), "protected", "unprotected"
    labels = pd.unique(pd.Series(g, dtype=object))
    if pd.isna(labels).any():
        raise ValueError("group contains missing values; every example needs a group label")
    if len(labels) != 2:
        raise ValueError(
            "group must hold an annotation in {+1, -1, 0} or exactly two labels, "
            f"got {len(labels)} labels: {sorted(map(str, labels))[:10]}"
        )
    if protected is None:
        try:
            ordered = sorted(labels)
        except TypeError:
            ordered = list(labels)
        a, b = ordered
    else:
        if protected not in set(labels):
            raise ValueError(
                f"protected={protected!r} is not one of the group labels {sorted(map(str, labels))}"
            )
        a = protected
        b = next(lab for lab in labels if lab != protected)
    f = np.where(g == a, 1, -1).astype(np.int8)
    return f, str(a), str(b)


def check_costs(cost: Any, *, max_cost: float, name: str = "cost") -> np.ndarray:
    """Return ``cost`` as a one-dimensional float array of values in [0, ``max_cost``].

    ValueError for another shape, or for a value outside the range or NaN (named with its
    index).
    """
    c = np.asarray(cost, dtype=float)
    if c.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {c.shape}")
    bad = ~((c >= 0.0) & (c <= max_cost))  # NaN fails both comparisons
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} values must lie in [0, max_cost={max_cost}]; got {float(c[i])!r} at index {i}"
        )
    return c

