"""Where the studies of a design analysis come from: a fitted pilot study or populations.

:func:`fitted_source` and :func:`population_source` check the sizes asked for against
their source and return a :class:`Source` with its designs, before any study is drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..populations import DEFAULT_DESIGN, PopulationDesign, WordPopulations, load_populations
from .designs import PILOT, all_designs, check_controls, check_protected_total, check_sizes
from .pilot import Pilot, read_pilot

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

    from ..bayes.fit import BiasFit

@dataclass(frozen=True)
class Source:
    """Where the studies of a design analysis come from, resolved and checked.

    A fitted pilot study (``pilot``) or populations of real words (``populations``, with
    the embeddings ``kv`` their tables are computed on and the population answers
    ``truths``: design text → contrast → answer).
    """

    designs: list[PopulationDesign]
    record: dict[str, Any]
    embedding: str
    pilot: Pilot | None = None
    populations: WordPopulations | None = None
    kv: Any = None
    truths: dict[str, dict[str, float]] = field(default_factory=dict)

    def with_embeddings(self, embeddings: KeyedVectors | str) -> Source:
        """Return the populations source with its embeddings and population answers."""
        from ..calibration import population_answers
        from ..embeddings import load_named_embeddings

        assert self.populations is not None
        kv, embedding = load_named_embeddings(embeddings)
        truths = {}
        for design in self.designs:
            answers = population_answers(self.populations, kv, design=design)
            truths[design.as_text()] = {
                r.group: float(r.truth) for r in answers.itertuples() if r.estimand == "contrast"}
        return dataclasses.replace(self, kv=kv, embedding=embedding, truths=truths)


def fitted_source(fit: BiasFit, *, protected_words: Any, attribute_words: Any,
                  neutral_words: int | None, human_words: int | None) -> Source:
    """Check the sizes against a fitted pilot study; return its designs.

    Parameters
    ----------
    fit
        The pilot study, fitted at the crossed level (:func:`~embias.design.pilot.read_pilot`).
    protected_words, attribute_words, neutral_words, human_words
        The sizes asked of :func:`embias.design_analysis` (``None``: the pilot's own).

    Returns
    -------
    Source
        The pilot and one design per combination of sizes.

    Raises
    ------
    ValueError
        A bad size, neutral or human words the pilot has none of, or a study of fewer
        than 2 protected words.
    """
    pilot = read_pilot(fit)
    protected_sizes = check_sizes("protected_words", PILOT if protected_words is None
                                  else protected_words, pilot=pilot.protected)
    attribute_sizes = check_sizes("attribute_words", attribute_words, pilot=pilot.attributes)
    neutral = check_controls("neutral_words", neutral_words, pilot.neutral)
    human = check_controls("human_words", human_words, pilot.human)
    for name, n, connection in (("neutral_words", neutral, "none"),
                                ("human_words", human, "human")):
        if n and connection not in pilot.draws["bar"]:
            raise ValueError(f"{name}={n}: the pilot study has no {connection!r} rows, so "
                             f"its posterior says nothing about such words; pass "
                             f"{name}=0")
    designs = all_designs(protected_sizes, attribute_sizes, neutral, human)
    for design in designs:
        check_protected_total(design, (sum(design.protected.values())
                                        if isinstance(design.protected, Mapping)
                                        else design.protected * len(pilot.protected)))
    return Source(designs=designs, pilot=pilot, embedding=pilot.description["embedding"],
                   record={"source": "posterior predictive", "pilot": pilot.description})


def population_source(source: Any, *, protected_words: Any, attribute_words: Any,
                      neutral_words: int | None, human_words: int | None) -> Source:
    """Check the sizes against populations of words; return their designs.

    Parameters
    ----------
    source
        :class:`~embias.populations.WordPopulations`, a shipped set's name or a folder.
    protected_words, attribute_words, neutral_words, human_words
        The sizes asked of :func:`embias.design_analysis` (``None``: the default design's).

    Returns
    -------
    Source
        The populations and one design per combination of sizes (no embeddings yet:
        :meth:`Source.with_embeddings`).

    Raises
    ------
    ValueError
        A source of another type, a bad size, or a size larger than a population.
    """
    if not isinstance(source, WordPopulations | str) and not hasattr(source, "__fspath__"):
        raise ValueError(f"source must be a fitted pilot study (BiasFit) or populations "
                         f"of words (WordPopulations, a shipped set's name or a folder), "
                         f"got {type(source).__name__}")
    populations = load_populations(source)
    protected_sizes = check_sizes("protected_words", DEFAULT_DESIGN.protected
                                  if protected_words is None else protected_words, pilot=None)
    attribute_sizes = check_sizes("attribute_words", attribute_words, pilot=None)
    neutral = check_controls("neutral_words", neutral_words, DEFAULT_DESIGN.neutral)
    human = check_controls("human_words", human_words, DEFAULT_DESIGN.human)
    designs = all_designs(protected_sizes, attribute_sizes, neutral, human)
    for design in designs:  # a size larger than a population, before any work
        check_protected_total(design, sum(design.counts(populations)[0].values()))
    return Source(designs=designs, populations=populations, embedding="",
                   record={"source": "populations", "populations": populations.name})

