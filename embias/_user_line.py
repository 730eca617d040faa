"""Warnings at the user's line, however deep inside embias they are raised.

A warning raised deep inside embias points at the first line outside the package (the
user's call), however many embias functions are in between.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable

__all__ = ["at_user_line", "user_stacklevel", "warn_at_user_line"]

#: embias's own folder: frames inside it are skipped.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_user_line(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the user's line that called into embias.

    Parameters
    ----------
    message
        The warning's text.
    category
        The warning's class.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_at_user_line("the study has no human words")
    >>> caught[0].filename.endswith("_user_line.py"), str(caught[0].message)
    (False, 'the study has no human words')
    """
    warnings.warn(message, category, skip_file_prefixes=(PACKAGE_DIR,))


def at_user_line[T](make: Callable[[], T]) -> T:
    """Return ``make()``, its warnings given again at the user's line.

    The warnings are given by :func:`warn_at_user_line`, also when ``make`` raises.

    Parameters
    ----------
    make
        What to run.

    Returns
    -------
    object
        What ``make`` returns.

    Examples
    --------
    >>> import warnings
    >>> def noisy():
    ...     warnings.warn("deep inside")
    ...     return 7
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     at_user_line(noisy)
    7
    >>> [str(w.message) for w in caught]
    ['deep inside']
    """
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return make()
    finally:
        for w in caught:
            warn_at_user_line(str(w.message), w.category)


def user_stacklevel() -> int:
    """Return the ``stacklevel`` that points a warning at the first frame outside embias.

    For a ``warnings.warn`` in the caller of this function.

    Returns
    -------
    int
        The stack level.

    Examples
    --------
    Called from outside embias, the caller's own line is the user's:

    >>> user_stacklevel()
    1
    """
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
