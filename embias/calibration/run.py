"""The calibration run: draw the studies, fit them in batches, compare with the answers.

:func:`calibrate_on_populations` draws the studies (:mod:`~embias.calibration.draws`),
fits each at every level through :func:`embias.fit_many`, in blocks of
:data:`STUDIES_PER_BATCH`, and compares every interval with the population answer
(:mod:`~embias.calibration.answers`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._progress import progress_wanted
from .._validation import check_choice, check_int, check_probability, check_seed
from ..embeddings import load_named_embeddings
from ..populations import PopulationDesign, WordPopulations, as_design, load_populations
from ..settings import DEFAULT_CI_PROB, LEVELS, FitSettings
from .answers import population_answers
from .draws import draw_population_studies
from .intervals import fit_intervals
from .result import RESULT_COLUMNS, PopulationCalibration

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

    from ..wordlists import Study

__all__ = ["STUDIES_PER_BATCH", "calibrate_on_populations"]


#: Studies whose fits run together in one :func:`embias.fit_many` call (the rest of a run
#: waits its turn, so memory holds one block's draws).
STUDIES_PER_BATCH = 128


def _fit_rows(fit: Any, *, study: int, level: str, truths: Mapping[tuple[str, str], float],
              ci_prob: float) -> list[dict[str, Any]]:
    """Compare one fit's connection means and contrasts with the population answers."""
    summary, record = fit_intervals(fit, ci_prob=ci_prob)
    rows = []
    for r in summary.itertuples(index=False):
        key = (str(r.estimand), str(r.group))
        if key not in truths:
            raise ValueError(f"study {study} ({level}): the fit reports {key[1]!r}, which "
                             "has no population answer")
        truth = truths[key]
        rows.append({
            "study": study, "level": level, "estimand": key[0], "group": key[1],
            "estimate": float(r.estimate), "lower": float(r.lower), "upper": float(r.upper),
            "truth": truth, "covered": bool(r.lower <= truth <= r.upper),
            "width": float(r.upper - r.lower), "ci_prob": ci_prob,
            "random_seed": int(fit.settings["random_seed"]), **record,
        })
    return rows


def _base_settings(settings: FitSettings | Mapping[str, Any] | None) -> FitSettings:
    if settings is None:
        return FitSettings.for_batch()
    if isinstance(settings, Mapping):
        settings = FitSettings.build(**settings)
    elif not isinstance(settings, FitSettings):
        raise ValueError(f"settings must be a FitSettings or a mapping of its fields, got "
                         f"{type(settings).__name__}")
    if settings.random_seed is not None:
        raise ValueError(f"settings.random_seed={settings.random_seed!r}: every fit's seed is "
                         "derived from the run's seed (study, level); pass random_seed= to "
                         "calibrate_on_populations() instead")
    return settings


def calibrate_on_populations(
    populations: WordPopulations | str,
    embeddings: KeyedVectors | str = "glove-6b-50d",
    *,
    design: PopulationDesign | Mapping[str, Any] | str | None = None,
    n_studies: int = 200,
    levels: Sequence[str] | str = ("crossed",),
    settings: FitSettings | Mapping[str, Any] | None = None,
    ci_prob: float = DEFAULT_CI_PROB,
    first_study: int = 0,
    random_seed: int | None = None,
    progress: bool = True,
) -> PopulationCalibration:
    """Count how often the intervals of studies of real words cover the populations' answer.

    Draws ``n_studies`` studies from ``populations`` with ``design``
    (:func:`draw_population_studies`), builds each study's cosine table
    (:func:`embias.cosine_table`), fits it at every level of ``levels`` through
    :func:`embias.fit_many`, and compares every connection mean's and contrast's
    ``ci_prob`` HDI with the population answer (:func:`population_answers`).

    Parameters
    ----------
    populations
        :class:`~embias.populations.WordPopulations`, a shipped set's name
        (``"sentiment"``, ``"names"``) or a folder of population files.
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings` (default GloVe 6B
        50d); every population word must be in it.
    design
        Words per role of every study (:class:`~embias.populations.PopulationDesign`, a
        mapping of its fields or its text ``"protected=5,attributes=4,neutral=100"``;
        default :data:`~embias.populations.DEFAULT_DESIGN`).
    n_studies
        Studies drawn (≥ 1). The Monte Carlo se of a coverage near 0.89 is about
        0.31/√n_studies (0.022 at 200).
    levels
        Model levels to fit each study at (default the crossed level).
    settings
        Sampler settings every fit shares (:class:`~embias.FitSettings` or a mapping of
        its fields; default the library's); its ``level`` is replaced by each of
        ``levels``, and its ``random_seed`` must be unset (the fits' seeds derive from
        ``random_seed``).
    ci_prob
        Interval probability (default 0.89): the nominal coverage.
    first_study
        Index of the first study: study i is drawn from seed ``(random_seed, i)`` and
        fitted with seeds derived from (``random_seed``, i, level), so any slice of a run
        can be recomputed alone or run elsewhere and the rows concatenated.
    random_seed
        Non-negative integer seed of everything; ``None`` (default) draws one from the OS
        entropy. The seed used is ``settings["random_seed"]`` of the result, shown in its
        repr.
    progress
        Show a progress bar over the studies.

    Returns
    -------
    PopulationCalibration
        Per-study rows (:attr:`~PopulationCalibration.results`), the population answers,
        the drawn studies, and :meth:`~PopulationCalibration.summary` for the coverage
        with its Monte Carlo se.

    Raises
    ------
    ValueError
        A design the populations cannot supply (a class with fewer words than the design
        asks, a design without attribute words), an unknown level, a bad ``n_studies``,
        ``ci_prob`` or seed, ``settings`` with a seed.
    MissingWordsError
        A population word missing from the embeddings.

    Examples
    --------
    A run fits ``n_studies`` × ``levels`` models; what it is asked is checked before any
    of them:

    >>> calibrate_on_populations("sentiment", design="protected=300")
    Traceback (most recent call last):
    ...
    ValueError: populations 'sentiment': protected['positive'] has 200 words, fewer than the
    design's protected=300; ...
    >>> calibrate_on_populations("sentiment", levels="pooled")
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: levels='pooled' is not one of ['dataset', 'word',
    'hierarchical', 'crossed']
    """
    populations = load_populations(populations)
    design = as_design(design)
    n_studies = check_int("n_studies", n_studies, minimum=1)
    first_study = check_int("first_study", first_study, minimum=0)
    ci_prob = check_probability("ci_prob", ci_prob)
    if isinstance(levels, str):
        levels = (levels,)
    levels = tuple(dict.fromkeys(check_choice("levels", lv, LEVELS) for lv in levels))
    if not levels:
        raise ValueError(f"levels must name at least one model level of {list(LEVELS)}, "
                         "got none")
    design.counts(populations)  # a design the populations cannot supply, before any work
    base = _base_settings(settings)
    seed = check_seed(random_seed)
    kv, embedding = load_named_embeddings(embeddings)
    start = time.perf_counter()
    truths_frame = population_answers(populations, kv, design=design)
    studies = draw_population_studies(populations, design=design, n_studies=n_studies,
                                      first_study=first_study, random_seed=seed)
    rows = _fit_studies(
        list(enumerate(studies, start=first_study)), kv, embedding=embedding, levels=levels,
        base=base, seed=seed, ci_prob=ci_prob, progress=progress,
        truths={(r.estimand, r.group): float(r.truth) for r in truths_frame.itertuples()})
    fit_record = base.to_dict()
    fit_record.pop("level")
    fit_record.pop("random_seed")
    return PopulationCalibration(
        results=pd.DataFrame(rows, columns=list(RESULT_COLUMNS)), truths=truths_frame,
        studies=tuple(studies), populations=populations, design=design,
        settings={"levels": list(levels), "n_studies": n_studies, "first_study": first_study,
                  "ci_prob": ci_prob, "ci_kind": "hdi", "random_seed": seed,
                  "embedding": embedding, "fit": fit_record},
        seconds=time.perf_counter() - start)


def _fit_studies(numbered: list[tuple[int, Study]], kv: KeyedVectors, *, embedding: str,
                 levels: tuple[str, ...], base: FitSettings, seed: int, ci_prob: float,
                 truths: Mapping[tuple[str, str], float],
                 progress: bool) -> list[dict[str, Any]]:
    """Fit every study at every level; return their rows against the population answers.

    Study i at level ``lv`` is fitted with the seed derived from (seed, i, lv). The studies
    go in blocks of :data:`STUDIES_PER_BATCH`: a block's fits run together (one compiled
    program per level and shape), and only their rows are kept.
    """
    from tqdm import tqdm

    from ..bayes import FitJob, derived_seed, fit_many
    from ..tables import cosine_table

    rows: list[dict[str, Any]] = []
    with tqdm(total=len(numbered), desc="studies", unit="study",
              disable=not progress_wanted(progress)) as bar:
        for block in range(0, len(numbered), STUDIES_PER_BATCH):
            part = numbered[block:block + STUDIES_PER_BATCH]
            jobs = [FitJob(cosine_table(kv, study, missing="raise", embedding_name=embedding),
                           FitSettings.build(base, level=lv, random_seed=derived_seed(
                               seed, str(i), lv)), label=f"{study.name} {lv}")
                    for i, study in part for lv in levels]
            fits = iter(fit_many(jobs, progress=False, warn=False))
            for i, _ in part:
                for lv in levels:
                    rows += _fit_rows(next(fits), study=i, level=lv, truths=truths,
                                      ci_prob=ci_prob)
            del fits, jobs
            bar.update(len(part))
    return rows
