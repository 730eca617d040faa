"""The sentiment lexicon of the downstream study (:mod:`embias.studies.sentiment`).

VADER (Hutto & Gilbert 2014) as shipped by the installed ``vaderSentiment`` package
(:func:`~embias.studies.vader_lexicon`), or the user's own word → rating mapping
(``lexicon_entries``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from embias._validation import check_columns

__all__ = ["lexicon_entries", "vader_lexicon"]

_INSTALL_HINT = 'pip install "embias[studies]"'


def _vader_text() -> tuple[str, str]:
    """(text, where) of ``vader_lexicon.txt`` as shipped by the installed vaderSentiment."""
    try:
        root = resources.files("vaderSentiment")
    except ModuleNotFoundError:
        raise ImportError(
            "the VADER lexicon is read from the vaderSentiment package, which is not "
            f"installed: {_INSTALL_HINT} (or pass lexicon= a mapping word → rating)"
        ) from None
    entry = root / "vader_lexicon.txt"
    if not entry.is_file():
        raise ImportError(f"vaderSentiment is installed but has no vader_lexicon.txt "
                          f"({entry}); reinstall it: {_INSTALL_HINT}")
    return entry.read_text(encoding="utf-8"), "vader_lexicon.txt"


def vader_lexicon(path: str | Path | None = None) -> pd.DataFrame:
    """Read the VADER sentiment lexicon (Hutto & Gilbert 2014) as a table.

    Each line of ``vader_lexicon.txt`` holds a token, its mean rating on −4 … +4 by ten
    human raters, their standard deviation and the raw ratings, tab-separated.

    Parameters
    ----------
    path
        A lexicon file in that format; default the ``vader_lexicon.txt`` shipped by the
        installed ``vaderSentiment`` package (MIT licence), read in place through
        :mod:`importlib.resources`.

    Returns
    -------
    pandas.DataFrame
        One row per line, in file order: ``word`` (as written, case kept), ``rating``
        (mean), ``sd``. Tokens listed twice stay twice (VADER itself keeps the last).

    Raises
    ------
    ImportError
        ``path`` is None and vaderSentiment is not installed (or lacks the file).
    ValueError
        ``path`` does not exist, or a line is malformed (the message names the line).

    Examples
    --------
    >>> from embias.studies import vader_lexicon
    >>> lexicon = vader_lexicon()
    >>> lexicon.shape
    (7520, 3)
    >>> lexicon[lexicon["word"] == "good"]
          word  rating      sd
    3330  good     1.9  0.9434
    """
    if path is None:
        text, name = _vader_text()
    else:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"lexicon file not found: {str(p)!r}")
        text, name = p.read_text(encoding="utf-8"), p.name
    words, ratings, sds = [], [], []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        try:
            rating, sd = float(parts[1]), float(parts[2])
        except (IndexError, ValueError):
            raise ValueError(f"{name} line {i}: expected 'token<TAB>mean<TAB>sd<TAB>ratings', "
                             f"got {line[:80]!r}") from None
        words.append(parts[0])
        ratings.append(rating)
        sds.append(sd)
    return pd.DataFrame({"word": words, "rating": ratings, "sd": sds})


def lexicon_entries(lexicon: Any) -> list[tuple[str, float]]:
    """Return the (word, rating) pairs of a lexicon.

    Parameters
    ----------
    lexicon
        None (VADER, :func:`vader_lexicon`), a mapping word → rating, or a DataFrame with
        ``word`` and ``rating`` columns.

    Returns
    -------
    list of (str, float)
        In the lexicon's order; words stripped of surrounding blanks.

    Raises
    ------
    ValueError
        An empty lexicon, a word that is not a non-empty string, or a rating that is not
        a finite number; the message names it.

    Examples
    --------
    >>> from embias.studies.lexicon import lexicon_entries
    >>> lexicon_entries({"good": 3, " bad": -2.5})
    [('good', 3.0), ('bad', -2.5)]
    >>> lexicon_entries({"good": "very"})
    Traceback (most recent call last):
    ...
    ValueError: lexicon rating of 'good' must be a number, got 'very'
    """
    if lexicon is None:
        lexicon = vader_lexicon()
    if isinstance(lexicon, pd.DataFrame):
        check_columns(lexicon, ("word", "rating"), name="a lexicon DataFrame")
        pairs = list(zip(lexicon["word"], lexicon["rating"], strict=True))
    elif isinstance(lexicon, Mapping):
        pairs = list(lexicon.items())
    else:
        raise ValueError(f"lexicon must be None (VADER), a mapping word → rating or a DataFrame "
                         f"with 'word' and 'rating', got {type(lexicon).__name__}")
    if not pairs:
        raise ValueError("the lexicon is empty: need words with positive and negative ratings")
    out = []
    for word, rating in pairs:
        if not isinstance(word, str) or not word.strip():
            raise ValueError(f"lexicon words must be non-empty strings, got {word!r}")
        try:
            r = float(rating)
        except (TypeError, ValueError):
            raise ValueError(f"lexicon rating of {word!r} must be a number, got {rating!r}") \
                from None
        if not math.isfinite(r):
            raise ValueError(f"lexicon rating of {word!r} must be finite, got {rating!r}")
        out.append((word.strip(), r))
    return out
