"""Names: a value that must be one of the known ones, and the hint for a near miss.

:class:`UnknownNameError` (a ``ValueError``) is what every refused name raises;
:func:`close_match_hint` words the "did you mean" hint; :func:`check_choice` is the check.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any


class UnknownNameError(ValueError):
    """A name (study, test, embedding, option value) that is not one of the known ones.

    Examples
    --------
    >>> isinstance(UnknownNameError("level='pooled' is not one of [...]"), ValueError)
    True
    """


# Shown (in tracebacks, doctests, pickles) by the import path users know.
UnknownNameError.__module__ = "embias._validation"


def close_match_hint(value: Any, allowed: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest allowed name, or ``""``.

    Parameters
    ----------
    value
        The name given.
    allowed
        The known names.

    Returns
    -------
    str
        The hint, to append to a message (empty when no name is close).

    Examples
    --------
    >>> close_match_hint("religon", ["religion", "race"])
    " (did you mean 'religion'?)"
    >>> close_match_hint("xyz", ["religion", "race"])
    ''
    """
    if not isinstance(value, str):
        return ""
    hint = difflib.get_close_matches(value.lower(), [str(a) for a in allowed], n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """Return ``value`` if it is one of ``allowed``; else refuse it, naming both.

    Parameters
    ----------
    name
        The argument, named in the message.
    value
        The value given.
    allowed
        The values allowed.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    UnknownNameError
        ``value`` is not allowed (a ``ValueError``, with a close-match hint).

    Examples
    --------
    >>> check_choice("level", "crosed", ["word", "crossed"])
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: level='crosed' is not one of ['word', 'crossed'] (did
    you mean 'crossed'?)
    """
    try:
        ok = value in allowed
    except TypeError:  # unhashable value against a set
        ok = False
    if not ok:
        raise UnknownNameError(f"{name}={value!r} is not one of {list(allowed)}"
                               f"{close_match_hint(value, allowed)}")
    return value
