"""WEAT's inputs checked: its options, its four word lists and a word in two of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._validation import check_distinct_lists, check_word_list
from ..numerics import ATTRIBUTE_WHY, ONE_WORD_WHY


def check_test_options(permutations: Any, alternative: Any) -> None:
    """Refuse an unknown ``alternative`` or a bad ``permutations``.

    ``permutations`` must be ``"auto"``, ``"exact"`` or a positive integer.

    Parameters
    ----------
    permutations
        The ``permutations`` option of :func:`embias.classic.weat`.
    alternative
        The ``alternative`` option of :func:`embias.classic.weat`.

    Raises
    ------
    ValueError
        Naming the bad value and what is allowed.

    Examples
    --------
    >>> check_test_options(0, "greater")
    Traceback (most recent call last):
    ...
    ValueError: permutations must be 'auto', 'exact' or a positive integer, got 0
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative={alternative!r} is not one of "
                         "['two-sided', 'greater', 'less']")
    if not (permutations in ("auto", "exact") or (
            isinstance(permutations, int | np.integer) and not isinstance(permutations, bool)
            and permutations >= 1)):
        raise ValueError(f"permutations must be 'auto', 'exact' or a positive integer, got "
                         f"{permutations!r}")


def _list_labels(set_names: Sequence[str]) -> list[str]:
    """``X``, ``Y``, ``A``, ``B``, each with its set name when it has another one."""
    if isinstance(set_names, str) or len(set_names) != 4 or len(set(set_names)) != 4:
        raise ValueError(f"set_names must be 4 distinct names, got {set_names!r}")
    return [k if n == k else f"{k} ({n!r})" for k, n in zip("XYAB", set_names, strict=True)]


def weat_lists(X: Any, Y: Any, A: Any, B: Any, *,
               set_names: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Return WEAT's four word lists, checked (:func:`embias._validation.check_word_list`).

    X and Y need two words each, A and B one.

    Parameters
    ----------
    X, Y, A, B
        The word lists given.
    set_names
        Their names in the message (4 distinct names).

    Returns
    -------
    tuple of tuple of str
        X, Y, A and B, each a tuple of words in the order given.

    Raises
    ------
    ValueError
        A list that is not a list of words or is too short, or bad ``set_names``.

    Examples
    --------
    >>> weat_lists(["rose", "tulip"], ["ant"], ["love"], ["hate"],
    ...            set_names=("X", "Y", "A", "B"))
    Traceback (most recent call last):
    ...
    ValueError: Y has 1 word; it needs at least 2 (...)
    """
    return tuple(
        check_word_list(label, words, minimum=minimum, why=why)
        for label, words, minimum, why in zip(
            _list_labels(set_names), (X, Y, A, B), (2, 2, 1, 1),
            (ONE_WORD_WHY, ONE_WORD_WHY, ATTRIBUTE_WHY, ATTRIBUTE_WHY), strict=True))


def check_weat_roles(lists: Sequence[Sequence[str]], *,
                     set_names: Sequence[str] = ("X", "Y", "A", "B"),
                     lowercase: bool = False, name: str = "weat") -> None:
    """Refuse a word in two of WEAT's lists X, Y, A, B.

    X = Y, X and Y sharing a word, a target word in A or B, a word in both A and B: each
    is refused after the case handling of the lookup
    (:func:`embias._validation.check_distinct_lists`).

    Parameters
    ----------
    lists
        The word lists X, Y, A and B.
    set_names
        Their names in the message.
    lowercase
        Compare the words in lower case (as the lookup in an uncased vocabulary does).
    name
        Name of the test in the message.

    Raises
    ------
    ValueError
        A word in two of the lists; the message names the word and both lists.

    Examples
    --------
    >>> from embias.classic import check_weat_roles
    >>> check_weat_roles([["rose", "tulip"], ["ant", "wasp"], ["love"], ["Rose"]])
    >>> check_weat_roles([["rose", "tulip"], ["ant", "wasp"], ["love"], ["Rose"]],
    ...                  lowercase=True)
    Traceback (most recent call last):
    ...
    ValueError: WEAT 'weat': the word 'rose' (as 'Rose' in B) is in both X and B: ...
    """
    check_distinct_lists(dict(zip(_list_labels(set_names), lists, strict=True)),
                         key=str.lower if lowercase else None, context=f"WEAT {name!r}: ")
