"""The checks of the parity tests' arguments: counts, Beta prior and fairness threshold.

Each returns the checked value or raises a :class:`ValueError` that names the bad value
and what is allowed.
"""

from __future__ import annotations

from typing import Any

from embias._validation import check_int, check_number


def check_prior(prior: Any) -> tuple[float, float]:
    """Return the Beta prior (alpha, beta), checked: two positive numbers."""
    try:
        a, b = prior
        return (check_number("alpha", a, low=0.0, low_open=True),
                check_number("beta", b, low=0.0, low_open=True))
    except (TypeError, ValueError):
        raise ValueError(f"prior must be a pair (alpha, beta) of positive numbers, got "
                         f"{prior!r}") from None


def check_threshold(threshold: Any, name: str = "threshold") -> float:
    """Return the fairness threshold T, checked: in [0, 1)."""
    return check_number(name, threshold, low=0.0, high=1.0, high_open=True)


def check_counts(x: Any, n: Any, which: str) -> tuple[int, int]:
    """Return group ``which``'s counts (x, n), checked: integers with 0 ≤ x ≤ n and n ≥ 1."""
    n_i = check_int(f"n{which}", n, minimum=0)
    if n_i == 0:
        raise ValueError(f"n{which}=0: group {which} is empty; it needs at least one observation")
    x_i = check_int(f"x{which}", x, minimum=0)
    if x_i > n_i:
        raise ValueError(f"x{which}={x_i} exceeds n{which}={n_i}: successes cannot exceed trials")
    return x_i, n_i
