"""Populations of words, and the designs of the studies drawn from them.

A study lists a few words per role; they stand for categories of words. A
:class:`WordPopulations` holds those categories themselves — hundreds of words per role:
protected words per class, attribute words per class, which attribute class is associated
with which protected class, neutral (and human) words — and a :class:`PopulationDesign`
says how many of each a study takes. :meth:`WordPopulations.draw_study` draws one study;
:func:`embias.calibrate_on_populations` draws many, fits each and counts how often the
intervals cover the answer of the whole populations ("would other words from the same
categories give an answer inside my interval?").

Populations are data: a folder in the layout of a study folder (:mod:`embias.wordlists`) —
``protected.<class>.txt``, ``attributes.<class>.txt``, ``associations.txt``,
``neutral.txt`` and optionally ``human.txt``, one word a line, ``#`` comments. Two sets are
shipped, ``sentiment`` (VADER words) and ``names`` (US Census first names); their
provenance is in :mod:`embias.populations.shipped`.

The package, one module per idea (its public names are also importable from
``embias.populations``):

- :mod:`~embias.populations.word_populations` — :class:`WordPopulations`: the populations
  checked, read from a folder, drawn from;
- :mod:`~embias.populations.design` — :class:`PopulationDesign`, ``DEFAULT_DESIGN`` and
  ``as_design``: how many words of each role a study takes;
- :mod:`~embias.populations.shipped` — the shipped sets (``BUILTIN_POPULATIONS``,
  ``populations_dir``) and :func:`load_populations`.
"""

from .design import DEFAULT_DESIGN as DEFAULT_DESIGN
from .design import PopulationDesign as PopulationDesign
from .design import as_design as as_design
from .shipped import BUILTIN_POPULATIONS as BUILTIN_POPULATIONS
from .shipped import load_populations as load_populations
from .shipped import populations_dir as populations_dir
from .word_populations import WordPopulations as WordPopulations

__all__ = [
    "BUILTIN_POPULATIONS",
    "DEFAULT_DESIGN",
    "PopulationDesign",
    "WordPopulations",
    "load_populations",
    "populations_dir",
]
