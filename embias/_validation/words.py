"""Word lists: the check of one list of words, and of a word that plays two roles."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any


def check_word_list(name: str, value: Any, *, minimum: int = 1,
                    why: str = "") -> tuple[str, ...]:
    """Check a list of words; return it as a tuple of str.

    The one check of every word-list argument.

    A bare string is refused (iterating it would give its letters: ``"he"`` as the words
    ``h`` and ``e``), and so is a mapping, anything not iterable, an entry that is not a
    non-empty string (named with its position) and a list of fewer than ``minimum``
    words.

    Parameters
    ----------
    name
        What the list is called in the message (``"X"``, ``"neutralize"``).
    value
        The list given.
    minimum
        Fewest words allowed (0 allows an empty list).
    why
        Why that many are needed, appended to the message.

    Returns
    -------
    tuple of str
        The words, in the order given.

    Raises
    ------
    ValueError
        ``"X must be a list of words, got the string 'he' (one word? wrap it in a list:
        ['he'])"``, ``"X[2] must be a word (a non-empty string), got 3"``, ``"X has no
        words; it needs at least 2 (…)"``.

    Examples
    --------
    >>> check_word_list("X", ["he", "him"])
    ('he', 'him')
    >>> check_word_list("X", "he")
    Traceback (most recent call last):
    ...
    ValueError: X must be a list of words, got the string 'he' (one word? wrap it in a list:
    ['he'])
    """
    if isinstance(value, str | bytes):
        hint = (f"one word? wrap it in a list: [{value!r}]" if len(value.split()) <= 1
                else f"several words? give them as a list: {value.split()!r}")
        raise ValueError(f"{name} must be a list of words, got the string {value!r} ({hint})")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a list of words, got {value!r}")
    words = tuple(value)
    for i, word in enumerate(words):
        if not isinstance(word, str) or not word.strip():
            raise ValueError(f"{name}[{i}] must be a word (a non-empty string), got {word!r}")
    if len(words) < minimum:
        count = "no words" if not words else f"{len(words)} word{'s' * (len(words) > 1)}"
        reason = f" ({why})" if why else ""
        raise ValueError(f"{name} has {count}; it needs at least {minimum}{reason}")
    return words


def check_distinct_lists(lists: Mapping[str, Sequence[str]], *,
                         pairs: Iterable[tuple[str, str]] | None = None,
                         key: Callable[[str], str] | None = None, context: str = "") -> None:
    """Refuse a word that plays two roles: one that is in two of the named lists.

    Parameters
    ----------
    lists
        List name (as the message shows it, e.g. ``"X ('male')"``) → words.
    pairs
        The pairs of list names that must not share a word (default: every pair).
    key
        How a word is looked up (e.g. ``str.lower`` for an uncased vocabulary): words
        with the same key are one word.
    context
        Prefix of the message (e.g. ``"WEAT 'weat': "``).

    Raises
    ------
    ValueError
        Naming every shared word and both lists, e.g. ``"the word 'man' is in both X and
        Y: a word can play one role only (remove it from one of the lists)"``.

    Examples
    --------
    >>> check_distinct_lists({"X": ["man", "king"], "Y": ["woman", "Man"]}, key=str.lower)
    Traceback (most recent call last):
    ...
    ValueError: the word 'man' (as 'Man' in Y) is in both X and Y: a word can play one role
    only (remove it from one of the lists)
    """
    fold = key or (lambda w: w)
    # list → key → first spelling
    spelled: dict[str, dict[str, str]] = {name: {} for name in lists}
    for name, words in lists.items():
        for w in words:
            spelled[name].setdefault(fold(w), w)
    problems = []
    for a, b in (pairs if pairs is not None else itertools.combinations(lists, 2)):
        shared = [k for k in spelled[a] if k in spelled[b]]
        if not shared:
            continue
        shown = [repr(spelled[a][k]) if spelled[a][k] == spelled[b][k]
                 else f"{spelled[a][k]!r} (as {spelled[b][k]!r} in {b})" for k in shared]
        if set(spelled[a]) == set(spelled[b]):
            problems.append(f"{a} and {b} are the same list ({', '.join(shown)})")
        elif len(shown) == 1:
            problems.append(f"the word {shown[0]} is in both {a} and {b}")
        else:
            problems.append(f"the words {', '.join(shown)} are in both {a} and {b}")
    if problems:
        raise ValueError(f"{context}{'; '.join(problems)}: a word can play one role only "
                         "(remove it from one of the lists)")
