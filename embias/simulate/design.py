"""The WEAT designs simulated: the two numerators, the checks of a design's values, and
the ceiling of |WEAT| any data of a design can reach (:func:`max_abs_weat`).
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
    """The checked design values ``(n, m, sd, association)`` (ValueError naming a bad
    one), with ``numerator`` and ``ddof`` checked too."""
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
    """The largest |WEAT| any data can give: ‖v‖·√(2n − ddof), with v the numerator's
    contrast over the 2n s values (‖v‖ = √(2/n) for ``"mean"``, √2 for ``"first-word"``).

    With the sample sd (``ddof=1``) and the correct numerator: √2 for one word per group,
    √3 ≈ 1.732 for two, ≈ 1.936 for eight, → 2 as n grows.
    """
    n = check_int("n_protected_per_group", n_protected_per_group, minimum=1)
    if numerator not in NUMERATORS:
        raise ValueError(f"numerator={numerator!r} is not one of {list(NUMERATORS)}")
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    norm = math.sqrt(2 / n) if numerator == "mean" else math.sqrt(2)
    return norm * math.sqrt(2 * n - ddof)


def as_tuple(value: Any) -> tuple:
    """A design value, or a sequence of them, as a tuple (a string is one value)."""
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray):
        return (value,)
    return tuple(value)
