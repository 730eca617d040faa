"""One set of checks for every argument a user gives embias, and one seed policy.

Every public function and every CLI command validates its options through these helpers,
so every error has the same shape: it names the argument, the bad value and what is
allowed, and it is a :class:`ValueError` (a :class:`UnknownNameError` — also a
``ValueError`` — for a name that is not one of the known ones, with a close-match hint).

The module imports only the standard library (numpy lazily), so the command line can use
it to check options before anything heavy is imported.

Seed policy
-----------
``random_seed`` is the one name for seeds everywhere. It accepts a non-negative integer
(reproducible), ``None`` (a fresh seed is drawn from the OS entropy, and *recorded*
wherever the result keeps its settings, so every result can be reproduced) and, where a
function draws from a generator directly (permutation tests, simulations), a
``numpy.random.Generator``.
"""

from __future__ import annotations

import difflib
import itertools
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = [
    "UnknownNameError",
    "check_choice",
    "check_columns",
    "check_distinct_lists",
    "check_int",
    "check_number",
    "check_output",
    "check_probability",
    "check_rope",
    "check_seed",
    "check_share",
    "check_word_list",
    "close_match_hint",
    "resolve_rng",
    "writable",
]

#: Largest seed drawn when ``random_seed=None`` (fits into a C int for every sampler).
SEED_BOUND = 2**31


class UnknownNameError(ValueError):
    """A name (study, test, embedding, option value) that is not one of the known ones."""


def close_match_hint(value: Any, allowed: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest allowed name, or ``""``."""
    if not isinstance(value, str):
        return ""
    hint = difflib.get_close_matches(value.lower(), [str(a) for a in allowed], n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""


def check_columns(frame: Any, columns: Iterable[str], *, name: str,
                  hint: str | None = None) -> None:
    """Refuse a table without the columns a function reads.

    Parameters
    ----------
    frame
        A pandas DataFrame.
    columns
        The columns read, in the order the message lists them.
    name
        What the table is called in the message (``"markers"``, ``"a cosine table"``).
    hint
        What to do instead (default: ``"it needs [...]"``).

    Raises
    ------
    ValueError
        ``"<name> lacks columns [...]; <hint> (it has [...])"``.
    """
    needed = list(columns)
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(f"{name} lacks columns {absent}; {hint or f'it needs {needed}'} "
                         f"(it has {list(frame.columns)})")


def check_word_list(name: str, value: Any, *, minimum: int = 1,
                    why: str = "") -> tuple[str, ...]:
    """A list of words as a tuple of str: the one check of every word-list argument.

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
    """
    fold = key or (lambda w: w)
    spelled = {name: {} for name in lists}  # list → key → first spelling
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


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """``value`` if it is one of ``allowed``; else :class:`UnknownNameError` naming both."""
    try:
        ok = value in allowed
    except TypeError:  # unhashable value against a set
        ok = False
    if not ok:
        raise UnknownNameError(f"{name}={value!r} is not one of {list(allowed)}"
                               f"{close_match_hint(value, allowed)}")
    return value


def _is_int(value: Any) -> bool:
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
    """An integer within [minimum, maximum]; a bool or a float such as 1.5 is refused.

    ``why`` (e.g. ``"WEAT needs at least 2 words per set"``) is appended to the message.
    """
    reason = f" ({why})" if why else ""
    if not _is_int(value):
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
    """A finite real number in the given range (open or closed at either end)."""
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
    """A probability strictly between 0 and 1 (``ci_prob``, ``target_accept`` …)."""
    return check_number(name, value, low=0.0, high=1.0, low_open=True, high_open=True)


def check_share(name: str, value: Any) -> float:
    """A share in (0, 1] (``min_shared``)."""
    try:
        return check_number(name, value, low=0.0, high=1.0, low_open=True)
    except ValueError:
        raise ValueError(f"{name} must be a share in (0, 1], got {value!r}") from None


def check_rope(value: Any, *, name: str = "rope") -> float:
    """The half-width of a region of practical equivalence: a number ≥ 0."""
    try:
        return check_number(name, value, low=0.0)
    except ValueError:
        raise ValueError(f"{name} must be a non-negative half-width, got {value!r}") from None


def check_output(name: str, path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """Check, before any work starts, that an output can be written at ``path``.

    The output policy is the same for every output: missing parent folders are created
    when the output is written (a folder output is created itself). This check does that
    once — creates the missing folders and a temporary file in the output's folder — and
    removes what it created, so a bad path fails before anything is computed and a good
    one leaves no trace.

    Parameters
    ----------
    name
        The argument or option, named in the error (``"--out"``, ``"models_dir"``).
    path
        A file to write (``folder=False``) or a folder to write into (``folder=True``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        ``path`` is a folder where a file is wanted (or a file where a folder is), or a
        folder it needs cannot be created or written to (names the folder and why).
    """
    path = Path(path)
    shown = f"{name} {str(path)!r}"
    if folder and path.exists() and not path.is_dir():
        raise ValueError(f"{shown} is a file, not a folder")
    if not folder and path.is_dir():
        raise ValueError(f"{shown} is a folder; give a file name")
    target = path if folder else path.parent
    missing = []
    parent = target
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    if not parent.is_dir():
        if parent == target:
            raise ValueError(f"{shown}: {str(target)!r} is a file, not a folder")
        raise ValueError(f"{shown}: cannot create the folder {str(target)!r} "
                         f"({str(parent)!r} is a file)")
    created: list[Path] = []
    try:
        for step in reversed(missing):
            try:
                step.mkdir()
            except OSError as exc:
                raise ValueError(f"{shown}: cannot create the folder {str(target)!r} "
                                 f"({exc.strerror or exc})") from None
            created.append(step)
        try:
            with tempfile.TemporaryFile(dir=target):
                pass
        except OSError as exc:
            raise ValueError(f"{shown}: cannot write in the folder {str(target)!r} "
                             f"({exc.strerror or exc})") from None
    finally:
        for step in reversed(created):
            try:
                step.rmdir()
            except OSError:  # pragma: no cover - filled meanwhile by someone else
                pass
    return path


def writable(path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """The output policy when an output is written (:func:`check_output` checks it before
    any work): create the missing parent folders of ``path`` (for a folder output, the
    folder itself) just before writing; returns the path."""
    path = Path(path)
    (path if folder else path.parent).mkdir(parents=True, exist_ok=True)
    return path


def check_seed(random_seed: Any, *, name: str = "random_seed") -> int:
    """The seed policy for results that record their seed: a non-negative integer, or
    ``None`` for a fresh seed from the OS entropy (returned, so it can be recorded)."""
    if random_seed is None:
        import numpy as np

        return int(np.random.SeedSequence().entropy % SEED_BOUND)
    if not _is_int(random_seed) or int(random_seed) < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, got "
                         f"{random_seed!r}")
    return int(random_seed)


def resolve_rng(random_seed: Any, *, name: str = "random_seed"
                ) -> tuple[np.random.Generator, int | None]:
    """A numpy Generator and the integer seed it came from (None for a given Generator).

    Accepts what :func:`check_seed` accepts, or a ``numpy.random.Generator`` (used as is).
    """
    import numpy as np

    if isinstance(random_seed, np.random.Generator):
        return random_seed, None
    try:
        seed = check_seed(random_seed, name=name)
    except ValueError:
        raise ValueError(f"{name} must be a non-negative integer, a numpy Generator or None, "
                         f"got {random_seed!r}") from None
    return np.random.default_rng(seed), seed
