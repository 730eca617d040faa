"""Old spellings of renamed keyword arguments, accepted for one release.

embias keeps one name per idea in its public signatures (``progress``, ``random_seed``,
``ci_prob``, ``rope``). When a name changes, the old spelling still works for one release: the
call goes through with the new name and a :class:`FutureWarning` (shown by default, as pandas
and scikit-learn do for user-facing deprecations) points at the caller's line.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["REMOVED_IN", "renamed_keywords"]

#: The release in which the old spellings stop working.
REMOVED_IN = "0.5"

F = TypeVar("F", bound=Callable[..., Any])


def renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Decorate a function so that ``old=value`` is passed on as ``new=value``.

    Parameters
    ----------
    **renames
        ``old="new"`` for each renamed keyword.

    Returns
    -------
    callable
        The decorator.

    Raises
    ------
    ValueError
        (from the decorated function) when a call gives both the old and the new spelling.

    Examples
    --------
    >>> @renamed_keywords(progressbar="progress")
    ... def fit(table, *, progress=True):
    ...     return progress
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit(None, progressbar=False)
    False
    >>> caught[0].category.__name__, str(caught[0].message)[:47]
    ('FutureWarning', 'fit(progressbar=...) is now fit(progress=...); ')
    """

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                name = function.__name__
                if new in kwargs:
                    raise ValueError(f"{name}() got both {old}= and {new}=; {old} is the old "
                                     f"spelling of {new}: give {new}= only")
                warnings.warn(f"{name}({old}=...) is now {name}({new}=...); {old} still works "
                              f"but will be removed in embias {REMOVED_IN}", FutureWarning,
                              stacklevel=2)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
