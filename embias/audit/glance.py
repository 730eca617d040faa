"""The top of the audit page: "At a glance" and the caveats.

Every contrast of every fit in words, in :data:`GLANCE_ORDER` with what each asks
(:data:`CONTRAST_QUESTION`), then the paired change of every contrast when embeddings
are compared (``glance``); and what a reader must know before trusting the numbers
(``caveats``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..report import CREDIBLE_DIFFERENCE
from ..settings import DEFAULT_CI_PROB
from .optional import OptionalSection
from .options import CiKind
from .sources import FitEntry
from .wording import CONNECTION_MEANING, change_sentence, contrast_name, contrast_sentence

#: The order in which the page's "At a glance" lists the contrasts: the within-attribute
#: contrast (associated − different) first — both sides are attribute words, so what they
#: share as a topic cancels and what is left is the tie of each class to its own
#: attributes — then those against the neutral words, which also count topic relatedness.
GLANCE_ORDER: tuple[str, ...] = ("associated - different", "associated - none",
                                 "different - none", "human - none")


#: What each contrast asks, in a colleague's words (the "At a glance" lines).
CONTRAST_QUESTION: Mapping[str, str] = {
    "associated - different":
        "Own class's attributes against the other classes' (associated − different): does "
        "the embedding tie each protected class more closely to its own attribute words "
        "than to the other classes' attribute words? Both sides are attribute words, so "
        "what they share as a topic cancels: this is the contrast that measures the "
        "stereotype.",
    "associated - none":
        "Own class's attributes against neutral words (associated − none): are a class's "
        "attribute words closer to its protected words than random neutral words are? This "
        "also catches topic relatedness: attribute words about people (jobs, traits) are "
        "closer to any word for a person than random words are, whatever the class — read "
        "it together with associated − different.",
    "different - none":
        "Other classes' attributes against neutral words (different − none): are the other "
        "classes' attribute words closer than random neutral words are? There is no class "
        "tie here: this is topic relatedness alone (associated − none = associated − "
        "different + different − none).",
    "human - none":
        "Human words against neutral words (human − none): how much closer any word for a "
        "person is than a random word — the baseline of topic relatedness for words about "
        "people.",
}


@dataclass(frozen=True)
class GlanceLine:
    """One line of "At a glance".

    Which contrast (``"associated - different"`` …) and the sentence the page prints.
    """

    contrast: str
    text: str


@dataclass(frozen=True)
class GlanceGroup:
    """The lines of "At a glance" under one heading.

    The lines of one fit (``kind="contrast"``) or of one paired change between embeddings
    (``kind="change"``).
    """

    kind: str
    title: str
    lines: list[GlanceLine]


def _glance_order(rows: pd.DataFrame) -> pd.DataFrame:
    """Contrast rows in :data:`GLANCE_ORDER` (others after them, as they came)."""
    names = [contrast_name(r) for _, r in rows.iterrows()]
    rank = [GLANCE_ORDER.index(n) if n in GLANCE_ORDER else len(GLANCE_ORDER) for n in names]
    return rows.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")


def glance(
    entries: Sequence[FitEntry],
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
    comparison: Any = None,
) -> list[GlanceGroup]:
    """Return the headline: every contrast of every fit in words.

    The within-attribute contrast (associated − different) first (:data:`GLANCE_ORDER`),
    each with what it asks; then, when embeddings are compared, the paired change of every
    contrast (``comparison``: a :class:`~embias.audit.sources.ComparisonInput`, its
    ``change_contrast`` rows).
    """
    groups = []
    for e in entries:
        table = e.fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        rows = _glance_order(table[table["estimand"] == "contrast"])
        lines = [GlanceLine(contrast_name(r), contrast_glance(r))
                 for _, r in rows.iterrows()]
        if lines:
            groups.append(GlanceGroup("contrast", f"{e.label}, {e.level} model", lines))
    if comparison is not None:
        table = comparison.table
        changes = table[table["estimand"] == "change_contrast"]
        for (embedding, reference), part in changes.groupby(["embedding", "reference"],
                                                            sort=False):
            lines = [GlanceLine(contrast_name(r), change_glance(r))
                     for _, r in _glance_order(part).iterrows()]
            groups.append(GlanceGroup(
                "change", f"Change from {reference} to {embedding} (paired change model: "
                          f"{embedding} − {reference})", lines))
    return groups


def contrast_glance(row: pd.Series) -> str:
    """Return a contrast of a fit for "At a glance".

    What it asks, then its numbers and ROPE decision in words (:func:`contrast_sentence`).
    """
    question = CONTRAST_QUESTION.get(contrast_name(row))
    return f"{question} {contrast_sentence(row)}" if question else contrast_sentence(row)


def change_glance(row: pd.Series) -> str:
    """Return the paired change of a contrast for "At a glance".

    Its numbers and decision (:func:`change_sentence`) and, for a credible change, which way
    the protected words moved.
    """
    sentence = change_sentence(row)
    a, _, b = contrast_name(row).partition(" - ")
    if row["rope_decision"] == CREDIBLE_DIFFERENCE and b:
        what_a = CONNECTION_MEANING.get(a, f"{a} words")
        what_b = CONNECTION_MEANING.get(b, f"{b} words")
        way = "farther from" if float(row["estimate"]) > 0 else "closer to"
        sentence += (f" In {row['embedding']} the protected words sit {way} {what_a}, "
                     f"relative to {what_b}, than in {row['reference']}.")
    return sentence


def caveats(entries: Sequence[FitEntry], *, sections: Mapping[str, OptionalSection],
            comparison: Any, ci_prob: float) -> list[str]:
    """Return what a reader must know before trusting the numbers."""
    notes = []
    for e in entries:
        problems = e.fit.problems()
        if problems:
            notes.append(f"{e.label}, {e.level} model, convergence: {'; '.join(problems)} "
                         "(section 4).")
    for e in {x.label: x for x in entries}.values():
        report = e.fit.table.attrs.get("missing") or {}
        missing = sum(len(v.get("missing") or []) for v in report.values()
                      if isinstance(v, Mapping))
        coded = sum(int(v.get("coded_missing") or 0) for v in report.values()
                    if isinstance(v, Mapping))
        if missing:
            notes.append(f"{e.label}: {missing} word(s) of the study are missing from the "
                         "embeddings and were left out (listed in section 1).")
        if coded:
            notes.append(f"{e.label}: {coded} row(s) were coded missing (-100) in the "
                         "authors' table and were left out.")
    if ci_prob != DEFAULT_CI_PROB:
        notes.append(f"Intervals are {ci_prob:.0%}, not the default {DEFAULT_CI_PROB:.0%}.")
    notes.append("Classic MAC intervals treat the S values as independent although they share "
                 "words: they are the classic, optimistic ones.")
    if comparison is not None and comparison.unmatched:
        notes.append(f"{comparison.unmatched} word pairs are not in every embedding and are "
                     "left out of the comparison.")
    absent = [name for name, section in sections.items() if not section.computed]
    if absent:
        notes.append(f"Not computed for this page: {'; '.join(absent)} (each section says "
                     "how to compute it).")
    return notes
