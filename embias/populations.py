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
``neutral.txt`` and optionally ``human.txt``, one word a line, ``#`` comments. The shipped
sets (:data:`BUILTIN_POPULATIONS`, ``embias/data/populations/``, provenance and licences in
the README there):

``sentiment``
    The 400 most positive and the 400 most negative words of the VADER lexicon (Hutto &
    Gilbert 2014), each split once at random into 200 protected and 200 attribute words;
    protected class ``positive`` is associated with attribute class ``positive``, likewise
    ``negative``; 1,000 frequent GloVe words not in the lexicon as neutral words.
``names``
    The 400 most frequent clearly female and clearly male US first names of the 1990 US
    Census, split the same way (``female`` ↔ ``female``, ``male`` ↔ ``male``); 1,000
    frequent GloVe words that are no first name as neutral words.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from ._validation import check_distinct_lists, check_int, check_word_list, close_match_hint
from .wordlists import (
    FOLDER_FILES,
    Study,
    read_associations,
    read_wordlist,
    with_default_associations,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = [
    "BUILTIN_POPULATIONS",
    "DEFAULT_DESIGN",
    "PopulationDesign",
    "WordPopulations",
    "load_populations",
    "populations_dir",
]

#: The population sets shipped in ``embias/data/populations/``.
BUILTIN_POPULATIONS: tuple[str, ...] = ("sentiment", "names")
#: Files of a population folder besides ``protected.<class>.txt`` and
#: ``attributes.<class>.txt``.
_POPULATION_FILES = ("associations.txt", "neutral.txt", "human.txt")
_DESIGN_FIELDS = ("protected", "attributes", "neutral", "human")


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


# =========================================================================== design
@dataclass(frozen=True)
class PopulationDesign:
    """How many words of each role a study drawn from populations takes.

    Parameters
    ----------
    protected
        Protected words per protected class: one number for every class, or a mapping
        class → number (≥ 1). The population answers weight the protected classes as the
        design does (by their numbers of words).
    attributes
        Attribute words per attribute class: one number or a mapping class → number
        (≥ 1; a design without attribute words has no ``associated`` or ``different``
        rows and is refused).
    neutral, human
        Neutral and human words per study (≥ 0; 0 leaves the connection out).

    The default, ``PopulationDesign()``, is about the size of the shipped religion study:
    5 protected words per class, 4 attribute words per class, 100 neutral words, no human
    words. :meth:`parse` reads the command line's ``protected=5,attributes=4,neutral=100``.

    Raises
    ------
    ValueError
        A number that is not an integer (≥ 1 for the protected and attribute words, ≥ 0
        for the controls), or an empty mapping.

    Examples
    --------
    >>> PopulationDesign.parse("protected=2,attributes=3")
    PopulationDesign(protected=2,attributes=3,neutral=100,human=0)
    >>> PopulationDesign(attributes=0)
    Traceback (most recent call last):
    ...
    ValueError: design attributes=0: a design needs at least one attribute word per attribute
    class (...)
    """

    protected: int | Mapping[str, int] = 5
    attributes: int | Mapping[str, int] = 4
    neutral: int = 100
    human: int = 0

    def __post_init__(self) -> None:
        """Check the numbers; keep a mapping as a read-only view."""
        for label in ("protected", "attributes"):
            value = getattr(self, label)
            if isinstance(value, Mapping):
                if not value:
                    raise ValueError(f"design {label}= is an empty mapping; give a number of "
                                     "words per class, or a mapping class → number")
                counts = {str(c): _count(f"design {label}[{c!r}]", n, minimum=1, role=label)
                          for c, n in value.items()}
                object.__setattr__(self, label, MappingProxyType(counts))
            else:
                object.__setattr__(self, label, _count(f"design {label}", value, minimum=1,
                                                       role=label))
        for label in ("neutral", "human"):
            object.__setattr__(self, label, check_int(f"design {label}", getattr(self, label),
                                                      minimum=0))

    @classmethod
    def parse(cls, text: str) -> PopulationDesign:
        """Read a design from ``"protected=5,attributes=4,neutral=100,human=0"``.

        Any subset of the four roles, the rest as the default; one number per role.
        """
        if not isinstance(text, str):
            raise ValueError(f"a design must be text such as 'protected=5,attributes=4,"
                             f"neutral=100', got {text!r}")
        values: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, number = part.partition("=")
            key = key.strip()
            if not sep or key not in _DESIGN_FIELDS:
                raise ValueError(f"design {text!r}: {part!r} is not ROLE=N with ROLE one of "
                                 f"{list(_DESIGN_FIELDS)}{close_match_hint(key, _DESIGN_FIELDS)}")
            try:
                values[key] = int(number)
            except ValueError:
                raise ValueError(f"design {text!r}: {key} must be a whole number, got "
                                 f"{number.strip()!r}") from None
        return cls(**values)

    def counts(self, populations: WordPopulations) -> tuple[dict[str, int], dict[str, int]]:
        """Return the words per protected class and per attribute class for ``populations``.

        Raises
        ------
        ValueError
            A mapping that does not name exactly the populations' classes, or a role or
            class with fewer words in the populations than the design asks (naming it).
        """
        resolved = []
        for label in ("protected", "attributes"):
            groups: Mapping[str, tuple[str, ...]] = getattr(populations, label)
            value = getattr(self, label)
            if isinstance(value, Mapping):
                unknown = [c for c in value if c not in groups]
                absent = [c for c in groups if c not in value]
                if unknown or absent:
                    raise ValueError(
                        f"design {label}={dict(value)} does not fit populations "
                        f"{populations.name!r}: its {label} classes are {list(groups)}"
                        + (f"; unknown: {unknown}" if unknown else "")
                        + (f"; without a number: {absent}" if absent else ""))
                wanted = dict(value)
            else:
                wanted = dict.fromkeys(groups, value)
            resolved.append(wanted)
            for cls, n in wanted.items():
                _enough(populations, f"{label}[{cls!r}]", len(groups[cls]), n, label)
        for label in ("neutral", "human"):
            n = getattr(self, label)
            if n:
                _enough(populations, label, len(getattr(populations, label)), n, label)
        return resolved[0], resolved[1]

    def as_text(self) -> str:
        """Return the design as :meth:`parse` reads it (mappings as ``{class: n}``)."""
        def shown(value: Any) -> str:
            if isinstance(value, Mapping):
                return "{" + ", ".join(f"{c}: {n}" for c, n in value.items()) + "}"
            return str(value)

        return ",".join(f"{label}={shown(getattr(self, label))}" for label in _DESIGN_FIELDS)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready record of the design."""
        return {label: dict(v) if isinstance(v := getattr(self, label), Mapping) else v
                for label in _DESIGN_FIELDS}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle as plain numbers and dicts (rebuilt and checked by the constructor)."""
        d = self.to_dict()
        return (type(self), tuple(d[label] for label in _DESIGN_FIELDS))

    def __repr__(self) -> str:
        """Show the design as its text."""
        return f"PopulationDesign({self.as_text()})"


def _count(name: str, value: Any, *, minimum: int, role: str) -> int:
    try:
        return check_int(name, value, minimum=minimum)
    except ValueError as exc:
        if role == "attributes" and isinstance(value, int) and value < 1:
            raise ValueError(f"{name}={value!r}: a design needs at least one attribute word "
                             "per attribute class (without attribute words a study has no "
                             "'associated' or 'different' rows, the connections a bias "
                             "study is about)") from None
        raise ValueError(str(exc)) from None


def _enough(populations: WordPopulations, what: str, have: int, want: int, role: str) -> None:
    if have < want:
        raise ValueError(f"populations {populations.name!r}: {what} has {have} words, fewer "
                         f"than the design's {role}={want}; a study draws its words without "
                         "replacement (give a smaller design or more words)")


#: The default design (see :class:`PopulationDesign`).
DEFAULT_DESIGN = PopulationDesign()


# =========================================================================== populations
@dataclass(frozen=True)
class WordPopulations:
    """Populations of words per role, from which studies are drawn.

    Build one from dicts (:meth:`from_dicts`), from a folder (:meth:`from_folder`) or
    take a shipped set with :func:`load_populations`.

    Attributes
    ----------
    name
        Name of the set (``"sentiment"``).
    protected
        Protected class → its population of protected words.
    attributes
        Attribute class → its population of attribute words.
    associations
        Protected class → its associated attribute class; every protected class needs
        one. Defaults, as for a :class:`~embias.Study`, to the attribute class named
        ``"<class>_stereotype"`` or ``"<class>"``.
    neutral, human
        Populations of control words (may be empty).

    Raises
    ------
    ValueError
        A bare string or a non-word entry where a list of words belongs, an empty class, a
        word listed twice in one list, a word in two lists (two classes or two roles: the
        message names the word and both lists), a protected class without an associated
        attribute class, or an association naming an unknown class.

    Examples
    --------
    >>> import numpy as np
    >>> populations = WordPopulations.from_dicts(
    ...     "toy", protected={"f": ["she", "her", "woman"], "m": ["he", "him", "man"]},
    ...     attributes={"f": ["nurse", "nanny"], "m": ["pilot", "plumber"]},
    ...     neutral=["table", "door", "tree"])
    >>> populations
    WordPopulations('toy', protected={f: 3, m: 3}, attributes={f: 2, m: 2}, neutral=3,
                    human=0)
    >>> populations.draw_study("protected=2,attributes=1,neutral=2",
    ...                        rng=np.random.default_rng(0))
    Study('toy', protected={f: 2, m: 2}, attributes={f: 1, m: 1}, neutral=2, human=0)
    """

    name: str
    protected: Mapping[str, tuple[str, ...]]
    attributes: Mapping[str, tuple[str, ...]]
    associations: Mapping[str, str] = field(default_factory=dict)
    neutral: tuple[str, ...] = ()
    human: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Check every list and association; keep them as read-only views."""
        set_ = object.__setattr__
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"populations need a non-empty name, got {self.name!r}")
        where = f"populations {self.name!r}: "
        for label in ("protected", "attributes"):
            groups = getattr(self, label)
            if not isinstance(groups, Mapping) or not groups:
                raise ValueError(f"{where}{label} must be a non-empty mapping class → words, "
                                 f"got {groups!r}")
            clean = {str(c): _words(f"{where}{label}[{c!r}]", words, minimum=1)
                     for c, words in groups.items()}
            set_(self, label, MappingProxyType(clean))
        for label in ("neutral", "human"):
            set_(self, label, _words(f"{where}{label}", getattr(self, label), minimum=0))
        lists = {**{f"protected[{c!r}]": w for c, w in self.protected.items()},
                 **{f"attributes[{c!r}]": w for c, w in self.attributes.items()},
                 "neutral": self.neutral, "human": self.human}
        check_distinct_lists(lists, context=where)
        if not isinstance(self.associations, Mapping):
            raise ValueError(f"{where}associations must be a mapping protected class → "
                             f"attribute class, got {self.associations!r}")
        assoc = {str(p): str(a) for p, a in self.associations.items()}
        unknown_p = [c for c in assoc if c not in self.protected]
        if unknown_p:
            raise ValueError(f"{where}associations name protected classes {unknown_p} that "
                             f"are not in {list(self.protected)}")
        unknown_a = [a for a in assoc.values() if a not in self.attributes]
        if unknown_a:
            raise ValueError(f"{where}associations name attribute classes {unknown_a} that "
                             f"are not in {list(self.attributes)}")
        assoc = with_default_associations(assoc, self.protected, self.attributes)
        missing = [c for c in self.protected if c not in assoc]
        if missing:
            raise ValueError(
                f"{where}protected class(es) {missing} have no associated attribute class; "
                "give associations={protected class: attribute class, ...} (in a folder, "
                "associations.txt with lines '<protected class> <attribute class>'); "
                f"attribute classes: {list(self.attributes)}")
        set_(self, "associations", MappingProxyType(
            {c: assoc[c] for c in self.protected}))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_dicts(
        cls,
        name: str,
        protected: Mapping[str, Sequence[str]],
        attributes: Mapping[str, Sequence[str]],
        *,
        associations: Mapping[str, str] | None = None,
        neutral: Sequence[str] = (),
        human: Sequence[str] = (),
    ) -> WordPopulations:
        """Build populations from plain dicts and lists (the constructor's checks)."""
        # the constructor checks the lists and turns them into tuples
        return cls(name=name, protected=cast("Mapping[str, tuple[str, ...]]", protected),
                   attributes=cast("Mapping[str, tuple[str, ...]]", attributes),
                   associations=dict(associations or {}),
                   neutral=cast("tuple[str, ...]", neutral),
                   human=cast("tuple[str, ...]", human))

    @classmethod
    def from_folder(cls, path: str | os.PathLike[str], *,
                    name: str | None = None) -> WordPopulations:
        """Read populations from a folder in the layout of a study folder.

        ``protected.<class>.txt`` and ``attributes.<class>.txt`` per class,
        ``associations.txt`` (lines ``<protected class> <attribute class>``; its order is
        the order of the protected classes), ``neutral.txt`` and ``human.txt`` (either may
        be absent: no words of that role). Files are read by
        :func:`embias.wordlists.read_wordlist` (UTF-8, ``#`` comments). Other files may
        sit in the folder (a README, a LICENSE), but a ``.txt`` file with any other name is
        an error naming it.

        Raises
        ------
        FileNotFoundError
            The folder does not exist.
        ValueError
            An unrecognised ``.txt`` file, no protected or attribute lists, a bad line of
            ``associations.txt``, or what the constructor refuses.
        """
        folder = Path(path)
        if not folder.is_dir():
            raise FileNotFoundError(f"populations folder not found: {str(folder)!r}")
        lists: dict[str, dict[str, Path]] = {"protected": {}, "attributes": {}}
        unknown = []
        for p in sorted(folder.iterdir()):
            if not p.is_file() or p.name.startswith(".") or not p.name.endswith(".txt"):
                continue
            kind, _, rest = p.name.partition(".")
            label = rest.removesuffix(".txt")
            if kind in lists and label and "." not in label:
                lists[kind][label] = p
            elif p.name not in _POPULATION_FILES:
                unknown.append(f"{p.name!r}{close_match_hint(p.name, FOLDER_FILES)}")
        if unknown:
            raise ValueError(
                f"populations folder {str(folder)!r}: file(s) not recognised: "
                f"{', '.join(unknown)}; a populations folder holds protected.<class>.txt, "
                "attributes.<class>.txt, associations.txt and optionally neutral.txt, "
                "human.txt")
        if not lists["protected"] or not lists["attributes"]:
            raise ValueError(f"populations folder {str(folder)!r} needs protected.<class>.txt "
                             f"and attributes.<class>.txt files (found "
                             f"{len(lists['protected'])} protected and "
                             f"{len(lists['attributes'])} attribute lists)")
        protected = {c: read_wordlist(f) for c, f in lists["protected"].items()}
        attributes = {c: read_wordlist(f) for c, f in lists["attributes"].items()}
        associations, protected = read_associations(folder, protected)
        controls = {label: read_wordlist(folder / f"{label}.txt")
                    for label in ("neutral", "human") if (folder / f"{label}.txt").is_file()}
        return cls(name=name or folder.name, protected=protected, attributes=attributes,
                   associations=associations, **controls)

    # ------------------------------------------------------------------ studies
    def draw_study(self, design: PopulationDesign | Mapping[str, Any] | str | None = None, *,
                   rng: np.random.Generator, name: str | None = None) -> Study:
        """Draw one study from the populations.

        The design's numbers of words per role and class, without replacement, each list
        in the populations' order.

        Parameters
        ----------
        design
            A :class:`PopulationDesign`, its fields as a mapping, its text
            (:meth:`PopulationDesign.parse`) or ``None`` (:data:`DEFAULT_DESIGN`).
        rng
            The numpy ``Generator`` the words are drawn with.
        name
            Name of the study (default the populations' name).

        Returns
        -------
        Study
            The drawn study, with the populations' associations.

        Raises
        ------
        ValueError
            A design the populations cannot supply (naming the class).
        """
        design = as_design(design)
        n_protected, n_attributes = design.counts(self)

        def draw(words: tuple[str, ...], n: int) -> tuple[str, ...]:
            if n == 0:
                return ()
            chosen = rng.choice(len(words), size=n, replace=False)
            return tuple(words[i] for i in sorted(chosen))

        return Study.from_dicts(
            name or self.name,
            protected={c: draw(self.protected[c], n) for c, n in n_protected.items()},
            attributes={c: draw(self.attributes[c], n) for c, n in n_attributes.items()},
            neutral=draw(self.neutral, design.neutral),
            human=draw(self.human, design.human),
            associations=dict(self.associations),
        )

    # ------------------------------------------------------------------ misc
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle as plain dicts and tuples (rebuilt and checked by the constructor)."""
        return (type(self), (self.name, dict(self.protected), dict(self.attributes),
                             dict(self.associations), self.neutral, self.human))

    def __repr__(self) -> str:
        """Show the numbers of words per list, not the words."""
        def counts(groups: Mapping[str, tuple[str, ...]]) -> str:
            return "{" + ", ".join(f"{c}: {len(w)}" for c, w in groups.items()) + "}"

        return (f"WordPopulations({self.name!r}, protected={counts(self.protected)}, "
                f"attributes={counts(self.attributes)}, neutral={len(self.neutral)}, "
                f"human={len(self.human)})")


def _words(where: str, value: Any, *, minimum: int) -> tuple[str, ...]:
    """Check a population list: words (stripped), none twice."""
    words = tuple(w.strip() for w in check_word_list(
        where, value, minimum=minimum, why="a population needs words to draw from"))
    twice = sorted(w for w, n in Counter(words).items() if n > 1)
    if twice:
        raise ValueError(f"{where} lists {twice} more than once; a population lists each "
                         "word once")
    return words


def as_design(design: PopulationDesign | Mapping[str, Any] | str | None) -> PopulationDesign:
    """Return a :class:`PopulationDesign` from a design, a mapping, its text or ``None``.

    A mapping gives the design's fields, ``None`` is the default design.
    """
    if design is None:
        return DEFAULT_DESIGN
    if isinstance(design, PopulationDesign):
        return design
    if isinstance(design, str):
        return PopulationDesign.parse(design)
    if isinstance(design, Mapping):
        unknown = [k for k in design if k not in _DESIGN_FIELDS]
        if unknown:
            raise ValueError(f"design {dict(design)}: unknown role(s) {unknown}; roles: "
                             f"{list(_DESIGN_FIELDS)}")
        return PopulationDesign(**design)
    raise ValueError(f"design must be a PopulationDesign, a mapping role → number or text "
                     f"such as 'protected=5,attributes=4,neutral=100', got {design!r}")


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
