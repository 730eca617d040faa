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
from typing import TYPE_CHECKING, Any, cast

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
    """A name (study, test, embedding, option value) that is not one of the known ones.

    Examples
    --------
    >>> isinstance(UnknownNameError("level='pooled' is not one of [...]"), ValueError)
    True
    """


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

    Examples
    --------
    >>> import pandas as pd
    >>> check_columns(pd.DataFrame({"a": [1]}), ["a", "b"], name="markers")
    Traceback (most recent call last):
    ...
    ValueError: markers lacks columns ['b']; it needs ['a', 'b'] (it has ['a'])
    """
    needed = list(columns)
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(f"{name} lacks columns {absent}; {hint or f'it needs {needed}'} "
                         f"(it has {list(frame.columns)})")


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

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     out = check_output("--out", pathlib.Path(root) / "new" / "table.csv")
    ...     out.name, (pathlib.Path(root) / "new").exists()
    ('table.csv', False)
    >>> check_output("--out", ".")
    Traceback (most recent call last):
    ...
    ValueError: --out '.' is a folder; give a file name
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
    """Create the missing parent folders of an output just before it is written.

    The output policy (:func:`check_output` checks it before any work): for a folder
    output, the folder itself is created.

    Parameters
    ----------
    path
        The file to write (``folder=False``) or the folder to write into.
    folder
        Whether ``path`` is a folder.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     path = writable(pathlib.Path(root) / "runs" / "1" / "table.csv")
    ...     path.parent.is_dir(), path.exists()
    (True, False)
    """
    path = Path(path)
    (path if folder else path.parent).mkdir(parents=True, exist_ok=True)
    return path


def check_seed(random_seed: Any, *, name: str = "random_seed") -> int:
    """Apply the seed policy of results that record their seed.

    A non-negative integer, or ``None`` for a fresh seed from the OS entropy (returned, so
    it can be recorded).

    Parameters
    ----------
    random_seed
        The seed given.
    name
        The argument, named in the message.

    Returns
    -------
    int
        The seed, in [0, :data:`SEED_BOUND`) when drawn.

    Raises
    ------
    ValueError
        Not a non-negative integer or None.

    Examples
    --------
    >>> check_seed(3)
    3
    >>> 0 <= check_seed(None) < SEED_BOUND
    True
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: random_seed must be a non-negative integer or None, got -1
    """
    if random_seed is None:
        import numpy as np

        # a SeedSequence made without entropy draws an integer from the OS
        entropy = cast(int, np.random.SeedSequence().entropy)
        return int(entropy % SEED_BOUND)
    if not _is_int(random_seed) or int(random_seed) < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, got "
                         f"{random_seed!r}")
    return int(random_seed)


def resolve_rng(random_seed: Any, *, name: str = "random_seed"
                ) -> tuple[np.random.Generator, int | None]:
    """Return a numpy Generator and the integer seed it came from.

    Accepts what :func:`check_seed` accepts, or a ``numpy.random.Generator`` (used as is;
    its seed is then None).

    Parameters
    ----------
    random_seed
        A seed, None or a Generator.
    name
        The argument, named in the message.

    Returns
    -------
    generator : numpy.random.Generator
        The generator.
    seed : int or None
        Its seed (drawn when ``random_seed`` is None; None for a given Generator).

    Raises
    ------
    ValueError
        Neither a seed, None nor a Generator.

    Examples
    --------
    >>> rng, seed = resolve_rng(3)
    >>> seed, bool(rng.integers(10) == resolve_rng(3)[0].integers(10))
    (3, True)
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
