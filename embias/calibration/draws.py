"""The studies of a calibration, drawn from populations of real words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_int, check_seed
from ..populations import PopulationDesign, WordPopulations, as_design, load_populations

if TYPE_CHECKING:  # pragma: no cover
    from ..wordlists import Study

__all__ = ["draw_population_studies"]


def draw_population_studies(
    populations: WordPopulations | str,
    *,
    design: PopulationDesign | Mapping[str, Any] | str | None = None,
    n_studies: int = 200,
    first_study: int = 0,
    random_seed: int,
) -> list[Study]:
    """Draw the studies :func:`calibrate_on_populations` fits.

    Study ``i`` is :meth:`WordPopulations.draw_study` with
    ``numpy.random.default_rng([random_seed, i])``, for i = ``first_study`` …
    ``first_study + n_studies − 1``, named ``"<populations> study <i>"``.

    Parameters
    ----------
    populations
        :class:`~embias.populations.WordPopulations` or a name/folder for
        :func:`~embias.populations.load_populations`.
    design
        Words per role of every study (default
        :data:`~embias.populations.DEFAULT_DESIGN`).
    n_studies
        Studies drawn (≥ 1).
    first_study
        Index of the first study (≥ 0).
    random_seed
        Non-negative integer seed (required: the studies are a function of it).

    Returns
    -------
    list of Study
        The studies, in order.

    Raises
    ------
    ValueError
        A design the populations cannot supply (naming the class), a bad ``n_studies``
        or ``first_study``, or a missing or bad seed.

    Examples
    --------
    >>> studies = draw_population_studies(
    ...     "sentiment", design="protected=2,attributes=3,neutral=10", n_studies=3,
    ...     random_seed=1)
    >>> [study.name for study in studies]
    ['sentiment study 0', 'sentiment study 1', 'sentiment study 2']
    >>> studies[0]
    Study('sentiment study 0', protected={positive: 2, negative: 2},
          attributes={negative: 3, positive: 3}, neutral=10, human=0)
    """
    populations = load_populations(populations)
    design = as_design(design)
    design.counts(populations)  # refuse a design the populations cannot supply, once
    n_studies = check_int("n_studies", n_studies, minimum=1)
    first_study = check_int("first_study", first_study, minimum=0)
    if random_seed is None:
        raise ValueError("draw_population_studies() needs random_seed= (a non-negative "
                         "integer), got None")
    seed = check_seed(random_seed)
    return [populations.draw_study(design, rng=np.random.default_rng([seed, i]),
                                   name=f"{populations.name} study {i}")
            for i in range(first_study, first_study + n_studies)]
