"""Warnings at the user's line: a warning raised deep inside embias points at the first line
outside the package (the user's call), however many embias functions are in between."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable

__all__ = ["at_user_line", "user_stacklevel", "warn_at_user_line"]

#: embias's own folder: frames inside it are skipped.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_user_line(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` at the user's line that called into embias."""
    warnings.warn(message, category, skip_file_prefixes=(PACKAGE_DIR,))


def at_user_line[T](make: Callable[[], T]) -> T:
    """``make()``, its warnings given again at the user's line (:func:`warn_at_user_line`),
    also when it raises."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return make()
    finally:
        for w in caught:
            warn_at_user_line(str(w.message), w.category)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` in the caller of this function
    point at the first frame outside embias."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
