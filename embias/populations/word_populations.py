"""Populations of words per role, checked, read from a folder, and drawn from.

:class:`WordPopulations` holds the categories a study's words stand for — hundreds of words
per role: protected words per class, attribute words per class, which attribute class is
associated with which protected class, neutral (and human) words. It is built from dicts
or from a folder in the layout of a study folder (:mod:`embias.wordlists`), checks every
list (no word twice, no word in two lists, an association for every protected class) and
draws studies (:meth:`WordPopulations.draw_study`).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from .._validation import check_distinct_lists, check_word_list, close_match_hint
from ..wordlists import (
    FOLDER_FILES,
    Study,
    read_associations,
    read_wordlist,
    with_default_associations,
)
from .design import PopulationDesign, as_design

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["WordPopulations"]

#: Files of a population folder besides ``protected.<class>.txt`` and
#: ``attributes.<class>.txt``.
_POPULATION_FILES = ("associations.txt", "neutral.txt", "human.txt")


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
    def weat_sets(self) -> tuple[tuple[str, ...], ...]:
        """Return ``(X, Y, A, B)`` of two protected classes.

        The populations of the two protected classes and of their associated attribute
        classes, as :meth:`embias.Study.weat_sets` gives a study's lists.

        Raises
        ------
        ValueError
            Not exactly two protected classes.

        Examples
        --------
        >>> populations = WordPopulations.from_dicts(
        ...     "toy", protected={"f": ["she", "her"], "m": ["he", "him"]},
        ...     attributes={"f": ["nurse", "nanny"], "m": ["pilot", "plumber"]})
        >>> populations.weat_sets()
        (('she', 'her'), ('he', 'him'), ('nurse', 'nanny'), ('pilot', 'plumber'))
        """
        if len(self.protected) != 2:
            raise ValueError(f"populations {self.name!r} have {len(self.protected)} protected "
                             f"classes {list(self.protected)}; WEAT needs exactly 2")
        (cx, x), (cy, y) = self.protected.items()
        return x, y, self.attributes[self.associations[cx]], self.attributes[self.associations[cy]]

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
