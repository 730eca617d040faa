"""What the audit page shows and how: :class:`AuditOptions`.

One frozen object for the content choices of :func:`embias.audit.audit_report` and
:func:`embias.audit.audit_html`.

Intervals and ROPE, the figure format, the page's seed, its title and command, and the
results computed elsewhere (WEAT rows, SEAT, a model comparison, a word-influence ranking,
or the sentence encoder that computes SEAT here) are checked when the object is made, so
a bad choice fails before any fit is read. Which fits the page shows (``fits``,
``embeddings``, ``levels`` …) is not part of it: those are the page's inputs.

Standard library (and :mod:`embias._validation`) only at import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from .._validation import check_choice, check_probability, check_rope, check_seed
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ENCODER_NAMES", "FIGURE_FORMATS", "FROM_OPTIONS", "AuditOptions",
           "options_from_keywords"]

#: How figures are inlined: SVG (vector, default) or PNG, both as ``data:`` URIs.
FIGURE_FORMATS: tuple[str, ...] = ("svg", "png")

#: Names ``encoder=`` / ``--encoder`` accept for the offline all-MiniLM-L6-v2
#: (:func:`embias.encoders.default_encoder`).
ENCODER_NAMES: frozenset[str] = frozenset({"minilm", "all-minilm-l6-v2"})

#: Interval kinds of the page's Bayesian tables.
CiKind = Literal["hdi", "eti"]


class _FromOptions:
    """The default of a content keyword of :func:`embias.audit.audit_report`: not given."""

    def __repr__(self) -> str:
        """Return how the default shows in a signature."""
        return "<from options>"


#: Default of the content keywords of :func:`embias.audit.audit_report`: the keyword was
#: not given, and the value of ``options`` (or the :class:`AuditOptions` default) is used.
FROM_OPTIONS: Any = _FromOptions()


@dataclass(frozen=True)
class AuditOptions:
    """The content choices of an audit page, checked when made.

    Parameters
    ----------
    ci_prob
        Probability of the Bayesian intervals, in (0, 1) (default 0.89).
    ci_kind
        ``"hdi"`` (default) or ``"eti"``.
    rope
        Half-width of the region of practical equivalence, ≥ 0 (default 0.02).
    figures
        ``"svg"`` (default) or ``"png"``: how figures are inlined.
    random_seed
        Seed of the posterior predictive draws and of the Monte Carlo permutations
        (default 0; ``None`` draws a fresh one, recorded on the page).
    title
        Page title (default ``"Audit report: <study>"``).
    command
        The command that made the page, shown in the reproducibility block.
    weat
        WEAT rows (an interval table like :func:`embias.weat_pairs`'s, or its CSV/parquet
        file) replacing those computed from the fitted tables.
    seat, model_comparison, word_influence
        Results computed elsewhere: a DataFrame, a matplotlib figure, a list of them, or
        a CSV/parquet file; absent, the page says "not computed" and how to compute them.
    encoder
        Compute SEAT with this sentence encoder: ``"minilm"`` (the offline
        all-MiniLM-L6-v2; needs the ``sentence`` extra) or an encoder object
        (:func:`embias.encoders.as_encoder`). Not together with ``seat``.

    Raises
    ------
    ValueError
        A value outside its range or choices, an unknown encoder name, or both ``encoder``
        and ``seat``; the message names it.

    Examples
    --------
    >>> from embias.audit import AuditOptions
    >>> options = AuditOptions(ci_prob=0.95, ci_kind="eti", rope=0.05)
    >>> options.ci_prob, options.ci_kind, options.rope, options.figures
    (0.95, 'eti', 0.05, 'svg')
    >>> AuditOptions(ci_kind="hpd")
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: ci_kind='hpd' is not one of ['hdi', 'eti']...
    """

    ci_prob: float = DEFAULT_CI_PROB
    ci_kind: CiKind = "hdi"
    rope: float = DEFAULT_ROPE
    figures: str = "svg"
    random_seed: int | None = 0
    title: str | None = None
    command: str | None = None
    weat: pd.DataFrame | str | os.PathLike[str] | None = None
    seat: Any = None
    model_comparison: Any = None
    word_influence: Any = None
    encoder: Any = None

    def __post_init__(self) -> None:
        """Check every choice (and draw the seed when ``random_seed`` is None)."""
        set_ = object.__setattr__
        set_(self, "ci_prob", check_probability("ci_prob", self.ci_prob))
        check_choice("ci_kind", self.ci_kind, ("hdi", "eti"))
        set_(self, "rope", check_rope(self.rope))
        check_choice("figures", self.figures, FIGURE_FORMATS)
        set_(self, "random_seed", check_seed(self.random_seed))
        for name in ("title", "command"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} must be a string or None, got "
                                 f"{type(value).__name__}")
        if self.encoder is not None and self.seat is not None:
            raise ValueError("give either encoder= (SEAT computed here) or seat= (SEAT "
                             "results), not both")
        if isinstance(self.encoder, str) and self.encoder.lower() not in ENCODER_NAMES:
            raise ValueError(f"encoder={self.encoder!r} is not a known sentence encoder; "
                             f"known: {sorted(ENCODER_NAMES)} (or pass an encoder object "
                             "from Python)")

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Return the names of the options, in order.

        Returns
        -------
        tuple of str
            The field names.

        Examples
        --------
        >>> AuditOptions.field_names()[:4]
        ('ci_prob', 'ci_kind', 'rope', 'figures')
        """
        return tuple(f.name for f in fields(cls))

    @property
    def seed(self) -> int:
        """The page's seed (``random_seed``, drawn when the options were made if None)."""
        return int(self.random_seed) if self.random_seed is not None else 0

    @property
    def encoder_name(self) -> str | None:
        """The encoder's name when it was given by name (``"minilm"``), else None."""
        return self.encoder if isinstance(self.encoder, str) else None


def _same(a: Any, b: Any) -> bool:
    """Whether a keyword's value agrees with the options' value (tables: the same object)."""
    if a is b:
        return True
    scalar = (str, int, float, bool, type(None))
    if isinstance(a, scalar) and isinstance(b, scalar):
        return bool(a == b)
    if isinstance(a, os.PathLike | str) and isinstance(b, os.PathLike | str):
        return os.fspath(a) == os.fspath(b)
    return False


def options_from_keywords(options: AuditOptions | None, keywords: Mapping[str, Any], *,
                          function: str = "audit_report") -> AuditOptions:
    """Return the options of a call that may give them as an object, as keywords, or both.

    Parameters
    ----------
    options
        The options object given (``None``: the defaults).
    keywords
        Content keyword → value as given; :data:`FROM_OPTIONS` marks one not given, and so
        does ``None`` for every keyword but ``random_seed`` (whose ``None`` asks for a fresh
        seed).
    function
        The function's name, for the messages.

    Returns
    -------
    AuditOptions
        ``options`` with the keywords given filled in.

    Raises
    ------
    ValueError
        ``options`` is not an :class:`AuditOptions`, or a keyword given disagrees with the
        value of ``options`` (the message names both); or a keyword's value is bad.

    Examples
    --------
    >>> options_from_keywords(None, {"rope": 0.05}).rope
    0.05
    >>> options_from_keywords(AuditOptions(rope=0.05), {"rope": 0.02})
    Traceback (most recent call last):
    ...
    ValueError: audit_report() got options= and rope=0.02, which disagrees with ...; give rope in
    one place
    """
    given = {name: value for name, value in keywords.items() if value is not FROM_OPTIONS
             and (value is not None or name == "random_seed")}
    unknown = sorted(set(given) - set(AuditOptions.field_names()))
    if unknown:
        raise ValueError(f"{function}() has no content option(s) {unknown}; the options are "
                         f"{list(AuditOptions.field_names())}")
    if options is None:
        return AuditOptions(**given)
    if not isinstance(options, AuditOptions):
        raise ValueError(f"options must be an AuditOptions, got {type(options).__name__}")
    for name, value in given.items():
        current = getattr(options, name)
        if not _same(value, current):
            shown = value if isinstance(value, str | int | float | type(None)) else (
                type(value).__name__)
            now = current if isinstance(current, str | int | float | type(None)) else (
                type(current).__name__)
            raise ValueError(f"{function}() got options= and {name}={shown!r}, which "
                             f"disagrees with options.{name}={now!r}; give {name} in one "
                             "place")
    return options
