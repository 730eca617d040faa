"""A study: protected classes, their attribute lists and the controls, checked on building.

:class:`Study` refuses a list that would make a wrong table (a word in two roles, an
association naming no class) and reads a study folder laid out as the
``embias.wordlists`` docstring says (:meth:`Study.from_folder`, which names a
misspelt file rather than ignoring it); :func:`with_default_associations` is the rule that
associates a protected class with an attribute class when none is given.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._validation import check_distinct_lists, close_match_hint
from .files import dedupe_words, read_associations, read_wordlist, wordlists_dir

__all__ = ["FOLDER_FILES", "Study", "with_default_associations"]


#: The files of a study folder with fixed names (see ``embias.wordlists``).
FOLDER_FILES: tuple[str, ...] = ("associations.txt", "neutral.txt", "human.txt",
                                 "definitional.txt")
_CLASS_LISTS: tuple[str, ...] = ("protected", "attributes")


def _folder_entry(name: str) -> tuple[str | None, str]:
    """Tell what a file of a study folder is.

    ``("protected", class)``, ``("attributes", class)``, ``(file name, "")`` for the fixed
    names, or ``(None, "")``.
    """
    if name in FOLDER_FILES:
        return name, ""
    for kind in _CLASS_LISTS:
        cls = name.removeprefix(f"{kind}.").removesuffix(".txt")
        if name == f"{kind}.{cls}.txt" and cls:
            return kind, cls
    return None, ""


def _names_like(name: str) -> list[str]:
    """Return the names a misspelt study-folder file may have meant."""
    parts = name.split(".")
    middle = ".".join(parts[1:-1]) if len(parts) >= 3 else ""
    return [*FOLDER_FILES, *(f"{kind}.{middle}.txt" for kind in _CLASS_LISTS if middle)]


def _looks_like_word_list(name: str) -> bool:
    """Tell whether a study folder would read this file if it were named right.

    A ``.txt`` file, or a name close to a word list's (``protected.cats.csv``). Other files
    (``README.md``) may sit in the folder.
    """
    return name.lower().endswith(".txt") or bool(close_match_hint(name, _names_like(name)))



def with_default_associations(associations: Mapping[str, str], protected: Iterable[str],
                              attributes: Iterable[str]) -> dict[str, str]:
    """Complete ``associations`` by the default rule.

    A protected class ``<class>`` given none is associated with the attribute class
    ``<class>_stereotype``, else ``<class>``, when the study has one (otherwise it stays
    without).

    Parameters
    ----------
    associations
        Protected class → attribute class, as given.
    protected, attributes
        The study's protected and attribute classes.

    Returns
    -------
    dict of str to str
        The associations given, and the defaults found.

    Examples
    --------
    >>> with_default_associations({}, ["jewish", "muslim", "other"],
    ...                           ["jewish_stereotype", "muslim"])
    {'jewish': 'jewish_stereotype', 'muslim': 'muslim'}
    """
    attributes = set(attributes)
    assoc = dict(associations)
    for cls in protected:
        if cls not in assoc:
            for candidate in (f"{cls}_stereotype", cls):
                if candidate in attributes:
                    assoc[cls] = candidate
                    break
    return assoc



@dataclass(frozen=True)
class Study:
    """A bias study: protected classes, attribute classes and control lists.

    Build one from dicts (``Study(name=..., protected={...}, attributes={...})``), from a
    folder (:meth:`from_folder`) or take a shipped one with :func:`load_study`. The
    dataclass is frozen; :meth:`replace` derives a modified copy.

    Attributes
    ----------
    name
        Name of the study (``"religion"``).
    protected
        Protected class → protected words (e.g. ``"jewish"`` → ``("judaism", "jew", …)``).
    attributes
        Attribute class → attribute words (``"jewish_stereotype"`` → ``("greedy", …)``).
    associations
        Protected class → its associated attribute class. Defaults to
        ``"<class>_stereotype"`` when such an attribute class exists, else the attribute
        class of the same name. A class left without one is listed by
        :attr:`unassociated`; the cosine table of such a study is refused
        (:meth:`require_associations`) unless asked for.
    neutral, human
        Control words (``none`` and ``human`` connections); may be empty.
    definitional
        Definitional sets for debiasing (one word per protected class each), may be empty.

    Raises
    ------
    ValueError
        An empty or bare-string list, a protected word in two classes, or a word in two
        lists whose rows would contradict each other (:meth:`role_lists`: an attribute
        word that is also a control word or another class's attribute word, a neutral
        word that is also a human word, a protected word that is also an attribute word);
        the message names the word and both lists.

    Examples
    --------
    >>> study = Study.from_dicts("toy", protected={"f": ["she", "woman"], "m": ["he", "man"]},
    ...                          attributes={"f": ["nurse"], "m": ["pilot"]})
    >>> study
    Study('toy', protected={f: 2, m: 2}, attributes={f: 1, m: 1}, neutral=0, human=0)
    >>> dict(study.associations)
    {'f': 'f', 'm': 'm'}
    >>> Study.from_dicts("toy", protected={"f": ["she"], "m": ["she"]},
    ...                  attributes={"f": ["nurse"]})
    Traceback (most recent call last):
    ...
    ValueError: study 'toy': the protected word 'she' is in two protected classes, 'f' and
    'm'; a word can belong to one class only
    """

    name: str
    protected: Mapping[str, tuple[str, ...]]
    attributes: Mapping[str, tuple[str, ...]]
    neutral: tuple[str, ...] = ()
    human: tuple[str, ...] = ()
    associations: Mapping[str, str] = field(default_factory=dict)
    definitional: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        """Check every list, role and association; keep them as read-only views."""
        set_ = object.__setattr__
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a study needs a non-empty name, got {self.name!r}")
        for label in ("protected", "attributes"):
            groups = getattr(self, label)
            if not isinstance(groups, Mapping) or not groups:
                raise ValueError(f"study {self.name!r}: {label} must be a non-empty mapping "
                                 f"class → words, got {groups!r}")
            clean = {}
            for cls, words in groups.items():
                if isinstance(words, str):
                    raise ValueError(f"study {self.name!r}: {label}[{cls!r}] must be a list of "
                                     f"words, got the string {words!r}")
                clean[str(cls)] = dedupe_words(words, f"study {self.name!r} {label}[{cls!r}]")
                if not clean[str(cls)]:
                    raise ValueError(f"study {self.name!r}: {label}[{cls!r}] is empty")
            set_(self, label, MappingProxyType(clean))
        class_of: dict[str, str] = {}
        for cls, words in self.protected.items():
            for w in words:
                if w in class_of:  # its rows would be counted under two classes
                    raise ValueError(f"study {self.name!r}: the protected word {w!r} is in two "
                                     f"protected classes, {class_of[w]!r} and {cls!r}; a word "
                                     "can belong to one class only")
                class_of[w] = cls
        for label in ("neutral", "human"):
            words = getattr(self, label)
            if isinstance(words, str):
                raise ValueError(f"study {self.name!r}: {label} must be a list of words, got "
                                 f"the string {words!r}")
            set_(self, label, dedupe_words(words, f"study {self.name!r} {label}"))
        self._check_roles()
        assoc = with_default_associations(self.associations, self.protected, self.attributes)
        unknown_p = sorted(set(assoc) - set(self.protected))
        if unknown_p:
            raise ValueError(f"study {self.name!r}: associations name protected classes "
                             f"{unknown_p} that are not in {sorted(self.protected)}")
        unknown_a = sorted({a for a in assoc.values()} - set(self.attributes))
        if unknown_a:
            raise ValueError(f"study {self.name!r}: associations name attribute classes "
                             f"{unknown_a} that are not in {sorted(self.attributes)}")
        set_(self, "associations", MappingProxyType(assoc))
        for i, words in enumerate(self.definitional):
            if isinstance(words, str):
                raise ValueError(f"study {self.name!r}: definitional[{i}] must be a list of "
                                 f"words, got the string {words!r}")
        set_(self, "definitional", tuple(tuple(s) for s in self.definitional))

    def role_lists(self) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, str]]]:
        """Return the study's lists by role and the pairs of them that must not share a word.

        Returns
        -------
        lists
            ``"protected['c']"``, ``"attributes['c']"``, ``"neutral"``, ``"human"`` →
            words.
        pairs
            A protected list with an attribute list (a target compared with itself, on
            both sides); two attribute lists, an attribute list with a control list, or
            the two control lists (the word's rows would be counted under two
            connections). A protected word that is also a control word is allowed: its
            row compared with itself is dropped by :func:`embias.cosine_table`, with a
            warning.
        """
        protected = {f"protected[{c!r}]": w for c, w in self.protected.items()}
        compared = {f"attributes[{c!r}]": w for c, w in self.attributes.items()}
        compared.update(neutral=self.neutral, human=self.human)
        attributes = [name for name in compared if name.startswith("attributes[")]
        pairs = [(p, a) for p in protected for a in attributes]
        pairs += list(itertools.combinations(compared, 2))
        return {**protected, **compared}, pairs

    def _check_roles(self) -> None:
        """Refuse a word in two lists whose rows would contradict each other.

        See :meth:`role_lists`; the message names the word and both lists.
        """
        lists, pairs = self.role_lists()
        check_distinct_lists(lists, pairs=pairs, context=f"study {self.name!r}: ")

    @property
    def unassociated(self) -> tuple[str, ...]:
        """Protected classes without an associated attribute class (in order)."""
        return tuple(c for c in self.protected if c not in self.associations)

    def require_associations(self) -> None:
        """Refuse a study in which a protected class has no associated attribute class.

        Without one, every attribute row of its words is labelled ``different`` and none
        ``associated``: ``different − none`` would be reported as if nothing were missing.

        Raises
        ------
        ValueError
            Names the protected classes without one and how to give the associations.
        """
        missing = self.unassociated
        if not missing:
            return
        example_p, example_a = missing[0], next(iter(self.attributes))
        raise ValueError(
            f"study {self.name!r}: protected class(es) {list(missing)} have no associated "
            "attribute class, so every attribute row of their words would be labelled "
            "'different' and none 'associated'. Say which attribute class belongs to which "
            "protected class: in the study folder, a file associations.txt with one line "
            f"'<protected class> <attribute class>' per protected class (e.g. "
            f"'{example_p} {example_a}'), or Study.from_dicts(..., associations="
            f"{{{example_p!r}: {example_a!r}, ...}}); attribute classes: "
            f"{list(self.attributes)} (an attribute class named '<class>_stereotype' or "
            "'<class>' is associated with protected class <class> by default)")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle as plain dicts and tuples (rebuilt and checked by the constructor)."""
        # the read-only views (MappingProxyType) cannot be pickled: a Study travels to a
        # process pool, a Dask worker or joblib's cache as plain dicts and is rebuilt
        # (and re-validated) by the constructor
        return (type(self), (self.name, dict(self.protected), dict(self.attributes),
                             self.neutral, self.human, dict(self.associations),
                             self.definitional))

    def __repr__(self) -> str:
        """Show the numbers of words per list, not the words."""
        # counts per list, not the 6,000 characters of every word
        def counts(groups: Mapping[str, tuple[str, ...]]) -> str:
            return "{" + ", ".join(f"{c}: {len(w)}" for c, w in groups.items()) + "}"

        extra = f", definitional={len(self.definitional)}" if self.definitional else ""
        return (f"Study({self.name!r}, protected={counts(self.protected)}, "
                f"attributes={counts(self.attributes)}, neutral={len(self.neutral)}, "
                f"human={len(self.human)}{extra})")

    # ------------------------------------------------------------------ derived views
    @property
    def protected_classes(self) -> tuple[str, ...]:
        """Protected classes in order."""
        return tuple(self.protected)

    def protected_class_of(self) -> dict[str, str]:
        """Return protected word → its class (a word sits in one class only)."""
        out: dict[str, str] = {}
        for cls, words in self.protected.items():
            for w in words:
                out.setdefault(w, cls)
        return out

    def replace(self, **changes: Any) -> Study:
        """Return a modified copy: ``study.replace(neutral=(), name="no-controls")``."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise TypeError(f"Study has no fields {unknown}")
        return dataclasses.replace(self, **changes)

    def weat_sets(self) -> tuple[tuple[str, ...], ...]:
        """Return ``(X, Y, A, B)`` of a two-class study.

        The targets X, Y and their associated attribute sets A (of X) and B (of Y).
        """
        if len(self.protected) != 2:
            raise ValueError(
                f"study {self.name!r} has {len(self.protected)} protected classes "
                f"{list(self.protected)}; WEAT needs exactly 2 (use weat_pairs() for more)"
            )
        (cx, x), (cy, y) = self.protected.items()
        for c in (cx, cy):
            if c not in self.associations:
                raise ValueError(f"study {self.name!r}: protected class {c!r} has no "
                                 "associated attribute class")
        return x, y, self.attributes[self.associations[cx]], self.attributes[self.associations[cy]]

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_folder(cls, path: str | os.PathLike[str], *, name: str | None = None) -> Study:
        """Read a study from a folder of word-list files (layout: ``embias.wordlists``).

        Missing ``neutral.txt``/``human.txt`` fall back to the shipped control lists
        only for shipped studies; for user folders they default to empty. Without
        ``associations.txt`` a protected class is associated with the attribute class named
        ``<class>_stereotype`` or ``<class>``, if there is one (a table of a study with a
        protected class left without one is refused, see :meth:`require_associations`).

        Raises
        ------
        FileNotFoundError
            The folder does not exist.
        ValueError
            A ``.txt`` file (or a file named nearly like a word list) whose name is none of
            the layout's — ``atributes.extra.txt``, ``Protected.other.txt`` — is named with
            the close match, rather than ignored; no protected or attribute list; a bad
            ``associations.txt`` line; a word in two roles.
        """
        folder = Path(path)
        if not folder.is_dir():
            raise FileNotFoundError(f"study folder not found: {str(folder)!r}")
        lists: dict[str, dict[str, Path]] = {"protected": {}, "attributes": {}}
        unknown = []
        for p in sorted(folder.iterdir()):
            if not p.is_file() or p.name.startswith("."):
                continue
            kind, label = _folder_entry(p.name)
            if kind in lists:
                lists[kind][label] = p
            elif kind is None and _looks_like_word_list(p.name):
                unknown.append(f"{p.name!r}{close_match_hint(p.name, _names_like(p.name))}")
        if unknown:
            raise ValueError(
                f"study folder {str(folder)!r}: file(s) not recognised: {', '.join(unknown)}; a "
                "study folder holds protected.<class>.txt, attributes.<class>.txt, "
                "associations.txt and optionally neutral.txt, human.txt, definitional.txt "
                "(names are case-sensitive) — rename the file(s) or move them out of the "
                "folder")
        protected = {c: read_wordlist(f) for c, f in lists["protected"].items()}
        attributes = {c: read_wordlist(f) for c, f in lists["attributes"].items()}
        if not protected or not attributes:
            raise ValueError(
                f"{str(folder)!r} needs protected.<class>.txt and attributes.<class>.txt files"
                f" (found {len(protected)} protected and {len(attributes)} attribute lists)"
            )
        associations, protected = read_associations(folder, protected)
        controls = {}
        shared = wordlists_dir()
        builtin = folder.resolve().parent == shared.resolve()
        for label in ("neutral", "human"):
            f = folder / f"{label}.txt"
            if f.is_file():
                controls[label] = read_wordlist(f)
            elif builtin:
                controls[label] = read_wordlist(shared / f"{label}.txt")
            else:
                controls[label] = ()
        definitional: tuple[tuple[str, ...], ...] = ()
        def_file = folder / "definitional.txt"
        if def_file.is_file():
            definitional = tuple(tuple(line.split()) for line in read_wordlist(def_file))
        return cls(
            name=name or folder.name,
            protected=protected,
            attributes=attributes,
            associations=associations,
            definitional=definitional,
            **controls,
        )

    @classmethod
    def from_dicts(
        cls,
        name: str,
        protected: Mapping[str, Sequence[str]],
        attributes: Mapping[str, Sequence[str]],
        *,
        neutral: Sequence[str] = (),
        human: Sequence[str] = (),
        associations: Mapping[str, str] | None = None,
        definitional: Sequence[Sequence[str]] = (),
    ) -> Study:
        """Build a study from plain dicts and lists (same checks as the constructor)."""

        def words(value: Any) -> Any:
            # a bare string stays a string, so the constructor refuses it (tuple() would
            # split it into letters)
            return value if isinstance(value, str) else tuple(value)

        def groups(value: Any) -> Any:
            if not isinstance(value, Mapping):
                return value  # the constructor names what is wrong with it
            return {k: words(v) for k, v in value.items()}

        return cls(
            name=name,
            protected=groups(protected),
            attributes=groups(attributes),
            neutral=words(neutral),
            human=words(human),
            associations=dict(associations or {}),
            definitional=tuple(words(s) for s in definitional),
        )
