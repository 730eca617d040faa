"""The WEAT designs simulated: numerators, checks of a design's values, the ceiling of |WEAT|.

The two numerators, the checks of a design's values, and the ceiling of |WEAT| any data
of a design can reach (:func:`max_abs_weat`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from .._validation import check_choice, check_int, check_number

__all__ = [
    "CALISKAN_LARGEST_EFFECT",
    "NUMERATORS",
    "Numerator",
    "as_tuple",
    "check_design",
    "max_abs_weat",
]

Numerator = Literal["mean", "first-word"]
#: The two WEAT numerators: the correct one and the one behind the published figures.
NUMERATORS: tuple[str, ...] = ("mean", "first-word")
#: The largest WEAT effect size Caliskan et al. (2017) report (test 6, GloVe 840B).
CALISKAN_LARGEST_EFFECT = 1.81


# --------------------------------------------------------------------------- validation
def check_design(n_protected_per_group: Any, n_attributes: Any, sd: Any, association: Any,
                 numerator: Any, ddof: Any) -> tuple[int, int, float, float]:
    """Return the checked design values ``(n, m, sd, association)``.

    ``numerator`` and ``ddof`` are checked too.

    Parameters
    ----------
    n_protected_per_group, n_attributes, sd, association, numerator, ddof
        As for :func:`embias.simulate.simulate_weat`.

    Returns
    -------
    tuple of (int, int, float, float)
        ``n_protected_per_group``, ``n_attributes``, ``sd`` and ``association``.

    Raises
    ------
    ValueError
        A bad value; the message names it.

    Examples
    --------
    >>> from embias.simulate.design import check_design
    >>> check_design(8, 8, 0.08, 0.0, "mean", 1)
    (8, 8, 0.08, 0.0)
    >>> check_design(8, 8, 0.0, 0.0, "mean", 1)
    Traceback (most recent call last):
    ...
    ValueError: sd must be a positive finite number, got 0.0
    """
    n = check_int("n_protected_per_group", n_protected_per_group, minimum=1)
    m = check_int("n_attributes", n_attributes, minimum=1)
    sd = check_number("sd", sd, low=0.0, low_open=True)
    association = check_number("association", association)
    check_choice("numerator", numerator, NUMERATORS)
    if isinstance(ddof, bool) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    return n, m, sd, association


def max_abs_weat(n_protected_per_group: int, *, numerator: Numerator = "mean",
                 ddof: int = 1) -> float:
    """Return the largest |WEAT| any data can give, ‖v‖·√(2n − ddof).

    v is the numerator's contrast over the 2n s values (‖v‖ = √(2/n) for ``"mean"``, √2
    for ``"first-word"``). With the sample sd (``ddof=1``) and the correct numerator: √2
    for one word per group, √3 ≈ 1.732 for two, ≈ 1.936 for eight, → 2 as n grows.

    Parameters
    ----------
    n_protected_per_group
        Protected words per group, n ≥ 1.
    numerator
        ``"mean"`` or ``"first-word"`` (see :func:`embias.simulate.simulate_weat`).
    ddof
        Delta degrees of freedom of the sd, 0 or 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        n < 1, an unknown ``numerator`` or ``ddof`` not 0/1.

    Examples
    --------
    >>> from embias.simulate import max_abs_weat
    >>> max_abs_weat(2), max_abs_weat(8)
    (1.7320508075688772, 1.9364916731037085)
    >>> max_abs_weat(8, numerator="first-word")  # √2·√15
    5.477225575051662
    """
    n = check_int("n_protected_per_group", n_protected_per_group, minimum=1)
    if numerator not in NUMERATORS:
        raise ValueError(f"numerator={numerator!r} is not one of {list(NUMERATORS)}")
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    norm = math.sqrt(2 / n) if numerator == "mean" else math.sqrt(2)
    return norm * math.sqrt(2 * n - ddof)


def as_tuple(value: Any) -> tuple:
    """Return a design value, or a sequence of them, as a tuple (a string is one value).

    Parameters
    ----------
    value
        One value or a sequence (list, tuple, array) of values.

    Returns
    -------
    tuple

    Examples
    --------
    >>> from embias.simulate.design import as_tuple
    >>> as_tuple(3), as_tuple("mean"), as_tuple([1, 2])
    ((3,), ('mean',), (1, 2))
    """
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray):
        return (value,)
    return tuple(value)
