"""Drawing the studies of a design analysis, each with its truth and its fit job.

From the posterior predictive of a pilot study (:func:`embias.simulate_word_table`) or
from populations of real words (:func:`embias.cosine_table` of a drawn study);
:func:`study_jobs` yields them one by one, so only a block of tables is held at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..populations import PopulationDesign
from ..settings import FitSettings
from .designs import design_table, per_class
from .pilot import Pilot
from .sources import Source


def study_jobs(drawn: Source, *, n_studies: int, seed: int, base: FitSettings, level: str
               ) -> Iterator[tuple[dict[str, Any], Any]]:
    """Yield (row fields, fit job) of every study, design by design, drawn when needed.

    Parameters
    ----------
    drawn
        The source and its designs (:mod:`embias.design.sources`).
    n_studies
        Studies per design.
    seed
        The analysis's seed; a study's table and fit seed depend on (seed, design, study).
    base
        Settings every fit shares.
    level
        Model level of the fits.

    Yields
    ------
    tuple of (dict, FitJob)
        The study's design fields, index and truth, and its fit job.
    """
    from ..bayes import FitJob, derived_seed

    for design in drawn.designs:
        text = design.as_text()
        info = {"design": text, "protected_words": per_class(design.protected),
                "attribute_words": per_class(design.attributes),
                "neutral_words": design.neutral, "human_words": design.human}
        rows = None if drawn.pilot is None else _pilot_design_table(drawn.pilot, design)
        for i in range(n_studies):
            if drawn.pilot is not None:
                table, truth = _posterior_predictive_table(drawn.pilot, rows, seed=seed,
                                                           design=text, study=i)
            else:
                table, truth = _population_table(drawn, design, seed=seed, study=i)
            job = FitJob(table, FitSettings.build(base, random_seed=derived_seed(
                seed, text, str(i), level)), label=f"{text} study {i}")
            yield {**info, "study": i, "truth": truth}, job


def _pilot_design_table(pilot: Pilot, design: PopulationDesign) -> pd.DataFrame:
    """Return the rows of a design with the pilot study's classes and associations."""
    return design_table(
        design.protected if isinstance(design.protected, Mapping)
        else dict.fromkeys(pilot.protected, design.protected),
        design.attributes if isinstance(design.attributes, Mapping)
        else dict.fromkeys(pilot.attributes, design.attributes),
        pilot.associations, neutral=design.neutral, human=design.human)


def _posterior_predictive_table(pilot: Pilot, rows: Any, *, seed: int, design: str,
                                study: int) -> tuple[pd.DataFrame, dict[str, float]]:
    """Draw study ``study``'s table from the pilot's posterior predictive; with its truth.

    The posterior draw depends on (seed, study) only, so every design uses the same draws.
    """
    from ..bayes import derived_seed
    from ..simulate_words import simulate_word_table

    k = int(np.random.default_rng([seed, study]).integers(pilot.n_draws))
    parameters = pilot.parameters(k)
    table = simulate_word_table(
        rows, parameters, random_seed=derived_seed(seed, "table", design, str(study)))
    truth = {f"{a} - {b}": parameters.bar[a] - parameters.bar[b]
             for a in parameters.bar for b in parameters.bar}
    return table, truth


def _population_table(drawn: Source, design: PopulationDesign, *, seed: int, study: int
                      ) -> tuple[pd.DataFrame, dict[str, float]]:
    """Draw study ``study`` of ``design`` from the populations; its cosine table, truth."""
    from ..bayes import derived_seed
    from ..tables import cosine_table

    assert drawn.populations is not None
    text = design.as_text()
    words = drawn.populations.draw_study(
        design, rng=np.random.default_rng(derived_seed(seed, "study", text, str(study))),
        name=f"{drawn.populations.name} {text} study {study}")
    table = cosine_table(drawn.kv, words, missing="raise", embedding_name=drawn.embedding)
    return table, drawn.truths[text]

