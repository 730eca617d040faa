"""How many words of each role a study drawn from populations takes.

:class:`PopulationDesign` holds the numbers (one per role, or one per class), checks them
and checks that populations can supply them (:meth:`PopulationDesign.counts`);
:data:`DEFAULT_DESIGN` is about the size of the shipped religion study; :func:`as_design`
reads a design from a mapping, its text or ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .._validation import check_int, close_match_hint

if TYPE_CHECKING:  # pragma: no cover
    from .word_populations import WordPopulations

__all__ = ["DEFAULT_DESIGN", "PopulationDesign", "as_design"]

_DESIGN_FIELDS = ("protected", "attributes", "neutral", "human")


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
