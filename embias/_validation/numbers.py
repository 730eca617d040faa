"""Numbers: integers, real numbers in a range, probabilities, shares and ROPE half-widths.

A bool is never a number here, and a float such as 1.5 is never an integer; numpy's
integer and floating scalars are accepted (numpy is imported lazily).
"""

from __future__ import annotations

import math
from typing import Any


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer: a Python or numpy integer, not a bool.

    Parameters
    ----------
    value
        The value given.

    Returns
    -------
    bool
        True for ``3`` or ``numpy.int64(3)``; False for ``True``, ``3.0`` or ``"3"``.

    Examples
    --------
    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        return False
    return isinstance(value, np.integer)


def check_int(name: str, value: Any, *, minimum: int | None = None,
              maximum: int | None = None, why: str = "") -> int:
    """Check an integer within [minimum, maximum]; a bool or a float such as 1.5 is refused.

    Parameters
    ----------
    name
        The argument, named in the message.
    value
        The value given (a Python or numpy integer).
    minimum, maximum
        The bounds (``None``: none).
    why
        Why the bound (e.g. ``"WEAT needs at least 2 words per set"``), appended to the
        message.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    ValueError
        Not an integer, or out of bounds.

    Examples
    --------
    >>> check_int("draws", 500, minimum=1)
    500
    >>> check_int("draws", 1.5, minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: draws must be an integer ≥ 1, got 1.5
    """
    reason = f" ({why})" if why else ""
    if not is_int(value):
        bounds = f" ≥ {minimum}" if minimum is not None else ""
        raise ValueError(f"{name} must be an integer{bounds}, got {value!r}{reason}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}{reason}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be an integer ≤ {maximum}, got {value!r}{reason}")
    return value


def check_number(name: str, value: Any, *, low: float | None = None,
                 high: float | None = None, low_open: bool = False,
                 high_open: bool = False) -> float:
    """Check a finite real number in the given range (open or closed at either end).

    Parameters
    ----------
    name
        The argument, named in the message.
    value
        The value given.
    low, high
        The bounds (``None``: none).
    low_open, high_open
        Whether a bound itself is refused.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    ValueError
        Not a number (a bool is not one), not finite, or out of the range.

    Examples
    --------
    >>> check_number("x_share", 0.25, low=0.0, high=1.0, low_open=True, high_open=True)
    0.25
    >>> check_number("rope", float("nan"), low=0.0)
    Traceback (most recent call last):
    ...
    ValueError: rope must be a finite number ≥ 0, got nan
    """
    if isinstance(value, bool) or (not isinstance(value, int | float) and not _is_number(value)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    x = float(value)
    bad = not math.isfinite(x)
    if low is not None:
        bad |= x <= low if low_open else x < low
    if high is not None:
        bad |= x >= high if high_open else x > high
    if bad:
        raise ValueError(f"{name} must be {_range_words(low, high, low_open, high_open)}, "
                         f"got {value!r}")
    return x


def _range_words(low: float | None, high: float | None, low_open: bool,
                 high_open: bool) -> str:
    if high is None and low == 0.0:
        return "a positive finite number" if low_open else "a finite number ≥ 0"
    if high is None and low is None:
        return "a finite number"
    if high is None:
        return f"a finite number {'>' if low_open else '≥'} {low:g}"
    if low is None:
        return f"a finite number {'<' if high_open else '≤'} {high:g}"
    return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def _is_number(value: Any) -> bool:
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        return False
    return isinstance(value, np.integer | np.floating)


def check_probability(name: str, value: Any) -> float:
    """Check a probability strictly between 0 and 1 (``ci_prob``, ``target_accept`` …).

    Parameters
    ----------
    name
        The argument, named in the message.
    value
        The value given.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    ValueError
        Not a number in (0, 1).

    Examples
    --------
    >>> check_probability("ci_prob", 89)
    Traceback (most recent call last):
    ...
    ValueError: ci_prob must be in (0, 1), got 89
    """
    return check_number(name, value, low=0.0, high=1.0, low_open=True, high_open=True)


def check_share(name: str, value: Any) -> float:
    """Check a share in (0, 1] (``min_shared``).

    Parameters
    ----------
    name
        The argument, named in the message.
    value
        The value given.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    ValueError
        Not a number in (0, 1].

    Examples
    --------
    >>> check_share("min_shared", 1)
    1.0
    >>> check_share("min_shared", 0)
    Traceback (most recent call last):
    ...
    ValueError: min_shared must be a share in (0, 1], got 0
    """
    try:
        return check_number(name, value, low=0.0, high=1.0, low_open=True)
    except ValueError:
        raise ValueError(f"{name} must be a share in (0, 1], got {value!r}") from None


def check_rope(value: Any, *, name: str = "rope") -> float:
    """Check the half-width of a region of practical equivalence: a number ≥ 0.

    Parameters
    ----------
    value
        The value given.
    name
        The argument, named in the message.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    ValueError
        Not a finite number ≥ 0.

    Examples
    --------
    >>> check_rope(-0.1)
    Traceback (most recent call last):
    ...
    ValueError: rope must be a non-negative half-width, got -0.1
    """
    try:
        return check_number(name, value, low=0.0)
    except ValueError:
        raise ValueError(f"{name} must be a non-negative half-width, got {value!r}") from None
