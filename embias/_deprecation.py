"""Old spellings of renamed keywords and old homes of moved names, for one release.

embias keeps one name per idea in its public signatures (``progress``, ``random_seed``,
``ci_prob``, ``rope``). When a name changes, the old spelling still works for one release: the
call goes through with the new name and a :class:`FutureWarning` (shown by default, as pandas
and scikit-learn do for user-facing deprecations) points at the caller's line.

When a name moves to another module, importing it from its old module still works for one
release (:func:`moved_names`), with a :class:`DeprecationWarning` that names its new home.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["REMOVED_IN", "moved_names", "renamed_keywords"]

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
    >>> caught[0].category.__name__, str(caught[0].message).split("; ")[1]
    ('FutureWarning', 'progressbar still works but will be removed in embias 0.5')
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


def moved_names(module: str, moved: Mapping[str, str | tuple[str, str]]
                ) -> Callable[[str], Any]:
    """Return a module ``__getattr__`` that serves names which moved out of ``module``.

    ``module.name`` (and ``from module import name``) returns the object from its new home,
    imported when it is first asked for, with a :class:`DeprecationWarning` at the caller's
    line that names the new home and the release that drops the old one. Any other missing
    name is an ``AttributeError``, as usual.

    Parameters
    ----------
    module
        The old module's ``__name__``.
    moved
        ``old name → new module`` (the name is the same there), or
        ``old name → (new module, new name)``.

    Returns
    -------
    callable
        The ``__getattr__`` to assign in the old module.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = moved_names("embias.old", {"rope": ("embias.settings", "DEFAULT_ROPE")})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     getattr_("rope")
    0.02
    >>> str(caught[0].message)
    'embias.old.rope has moved to embias.settings.DEFAULT_ROPE; import it from there (the old
    path will be removed in embias 0.5)'
    >>> getattr_("other")
    Traceback (most recent call last):
    ...
    AttributeError: module 'embias.old' has no attribute 'other'
    """

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        target = moved[name]
        home, new_name = (target, name) if isinstance(target, str) else target
        warnings.warn(f"{module}.{name} has moved to {home}.{new_name}; import it from there "
                      f"(the old path will be removed in embias {REMOVED_IN})",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(home), new_name)

    return __getattr__
