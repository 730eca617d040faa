"""The population sets shipped with embias, and populations loaded by name.

A shipped set (:data:`BUILTIN_POPULATIONS`, ``embias/data/populations/``, provenance and
licences in the README there) is a folder in the layout of a study folder
(:mod:`embias.wordlists`) — ``protected.<class>.txt``, ``attributes.<class>.txt``,
``associations.txt``, ``neutral.txt`` and optionally ``human.txt``, one word a line, ``#``
comments:

``sentiment``
    The 400 most positive and the 400 most negative words of the VADER lexicon (Hutto &
    Gilbert 2014), each split once at random into 200 protected and 200 attribute words;
    protected class ``positive`` is associated with attribute class ``positive``, likewise
    ``negative``; 1,000 frequent GloVe words not in the lexicon as neutral words.
``names``
    The 400 most frequent clearly female and clearly male US first names of the 1990 US
    Census, split the same way (``female`` ↔ ``female``, ``male`` ↔ ``male``); 1,000
    frequent GloVe words that are no first name as neutral words.

:func:`load_populations` takes a shipped set's name, a folder of population files or
populations already built.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from .._validation import close_match_hint
from .word_populations import WordPopulations

__all__ = ["BUILTIN_POPULATIONS", "load_populations", "populations_dir"]

#: The population sets shipped in ``embias/data/populations/``.
BUILTIN_POPULATIONS: tuple[str, ...] = ("sentiment", "names")


def populations_dir() -> Path:
    """Return the folder of the shipped population sets.

    Returns
    -------
    pathlib.Path
        ``embias/data/populations`` in the installed package: one folder per set of
        :data:`BUILTIN_POPULATIONS`.

    Examples
    --------
    >>> sorted(p.name for p in populations_dir().iterdir() if p.is_dir())
    ['names', 'sentiment']
    """
    return Path(str(resources.files("embias") / "data" / "populations"))


def load_populations(name: str | os.PathLike[str] | WordPopulations) -> WordPopulations:
    """Load populations of words: a shipped set, a folder, or populations given.

    Parameters
    ----------
    name
        A shipped population set (:data:`BUILTIN_POPULATIONS`: ``"sentiment"``,
        ``"names"``), a folder of population files (:meth:`WordPopulations.from_folder`),
        or a :class:`WordPopulations` (returned as is).

    Returns
    -------
    WordPopulations
        The populations.

    Raises
    ------
    ValueError
        An unknown name that is no folder (the message lists the shipped sets), or
        population files the constructor refuses.

    Examples
    --------
    >>> load_populations("sentiment")
    WordPopulations('sentiment', protected={positive: 200, negative: 200},
                    attributes={negative: 200, positive: 200}, neutral=1000, human=0)
    >>> load_populations("sentimnet")
    Traceback (most recent call last):
    ...
    ValueError: unknown populations 'sentimnet' (did you mean 'sentiment'?); shipped:
    ['sentiment', 'names'], or a folder of population files (...)
    """
    if isinstance(name, WordPopulations):
        return name
    text = str(name)
    if text in BUILTIN_POPULATIONS:
        return WordPopulations.from_folder(populations_dir() / text)
    if Path(text).is_dir():
        return WordPopulations.from_folder(text)
    raise ValueError(f"unknown populations {text!r}{close_match_hint(text, BUILTIN_POPULATIONS)}"
                     f"; shipped: {list(BUILTIN_POPULATIONS)}, or a folder of population "
                     "files (protected.<class>.txt, attributes.<class>.txt, "
                     "associations.txt, neutral.txt)")
