"""Refits of a fit on its table with some rows left out.

Word influence (:mod:`embias.bayes.influence`) and exact leave-one-out
(:mod:`embias.bayes.exact_loo`) both refit a model on the table without some words. The
steps they share are here: the settings of the refits (``refit_settings``: the fit's
own, seed included, run as one batch), the check that a table without some rows is one
the model can still fit (``check_left_out``, before any refit starts), the batch of
refits itself (``run_refits``, through :func:`embias.fit_many`, so on any executor)
and the refusal of fits whose leave-one-out log-likelihoods are not written yet
(``refuse_templates``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._validation import check_seed
from .crossed import crossed_design
from .data import cell_statistics

if TYPE_CHECKING:  # pragma: no cover
    import concurrent.futures as cf

    import pandas as pd

    from ..settings import FitSettings
    from .fit import BiasFit

__all__ = ["check_left_out", "has_template_effects", "refit_settings", "refuse_templates",
           "run_refits"]


def has_template_effects(fit: BiasFit) -> bool:
    """Return whether the fit has template effects (a crossed model of a sentence table).

    Their terms are not in the per-word leave-one-out log-likelihood.
    """
    return "template_kind_effect" in fit.posterior["posterior"]


def refuse_templates(fit: BiasFit, what: str) -> None:
    """Refuse a fit with template effects (a crossed fit of a sentence table).

    Template effects are not in the leave-one-out log-likelihoods.

    Parameters
    ----------
    fit
        The fit words would be left out of.
    what
        The caller, for the message (``"word_influence()"``).

    Raises
    ------
    ValueError
        The fit has template effects.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import xarray as xr
    >>> from embias.bayes.refits import refuse_templates
    >>> post = xr.Dataset({"template_kind_effect": (("chain", "draw"), [[0.01]])})
    >>> fit = SimpleNamespace(posterior=xr.DataTree.from_dict({"posterior": post}))
    >>> try:
    ...     refuse_templates(fit, "word_influence()")
    ... except ValueError as error:
    ...     print(error)
    word_influence(): the fit has template effects (a crossed model of a sentence table);
    leaving words out of it is not supported yet — use a cosine table of the word vectors,
    or level='hierarchical'
    """
    if has_template_effects(fit):
        raise ValueError(f"{what}: the fit has template effects (a crossed model of a sentence "
                         "table); leaving words out of it is not supported yet — use a cosine "
                         "table of the word vectors, or level='hierarchical'")


def refit_settings(fit: BiasFit, settings: FitSettings | None) -> FitSettings:
    """Return the settings of the refits of ``fit``: ``settings``, or the fit's own.

    The fit's own keep its seed, and its single-fit sampler becomes ``"auto"``: the
    refits are one batch of the same model on other data.

    Parameters
    ----------
    fit
        The fit being refitted.
    settings
        Settings asked for (None: the fit's own).

    Returns
    -------
    FitSettings
        The refits' settings, with a seed.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import embias
    >>> from embias.bayes.refits import refit_settings
    >>> fit = SimpleNamespace(fit_settings=embias.FitSettings(sampler="numpyro", random_seed=4),
    ...                       settings={"random_seed": 4})
    >>> run = refit_settings(fit, None)
    >>> run.sampler, run.random_seed
    ('auto', 4)
    """
    from ..settings import FitSettings

    run = fit.fit_settings if settings is None else FitSettings.build(settings)
    if settings is None:
        # the refits are a batch: "auto" runs them together, one compiled program (a fit
        # sampled with numpyro gets the same model, other draws)
        run = dataclasses.replace(run, sampler="auto")
    if run.random_seed is None:
        run = dataclasses.replace(run, random_seed=check_seed(fit.settings.get("random_seed")))
    return run


def check_left_out(fit: BiasFit, remaining: pd.DataFrame, what: str) -> None:
    """Refuse a table without some rows that the fit's model cannot fit.

    No rows left, an empty cell, a compared word with a single row at the crossed level.
    Called before any refit starts.

    Parameters
    ----------
    fit
        The fit whose model would be refitted.
    remaining
        The table without the rows left out.
    what
        What is left out, for the message (``"attribute word 'good'"``).

    Raises
    ------
    ValueError
        The model cannot fit ``remaining``; the message names ``what`` and why.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import pandas as pd
    >>> from embias.bayes.refits import check_left_out
    >>> remaining = pd.DataFrame({"protected_word": ["he", "she"],
    ...                           "word_to_compare": ["good", "good"],
    ...                           "connection": ["none", "none"],
    ...                           "cosine_distance": [0.9, 1.1]})
    >>> try:
    ...     check_left_out(SimpleNamespace(level="crossed"), remaining, "the word 'table'")
    ... except ValueError as error:
    ...     print(error)
    leaving out the word 'table' leaves a table the crossed model cannot fit: table given to
    fit_bias_model() has a single connection ['none']; the models need at least 2 of
    ['associated', 'different', 'human', 'none'] to compare
    """
    if remaining.empty:
        raise ValueError(f"leaving out {what} leaves no rows")
    try:
        cells = cell_statistics(remaining)
        if fit.level == "crossed":
            crossed_design(remaining, cells)
    except ValueError as exc:
        raise ValueError(f"leaving out {what} leaves a table the {fit.level} model cannot "
                         f"fit: {exc}") from None


def run_refits(fit: BiasFit, tables: Sequence[tuple[str, pd.DataFrame]],
               settings: FitSettings | None, *, executor: cf.Executor | None,
               max_workers: int | None, progress: bool) -> tuple[list[BiasFit], float]:
    """Fit every ``(label, table)`` with :func:`refit_settings` in one batch.

    The batch runs through :func:`embias.fit_many`.

    Parameters
    ----------
    fit
        The fit being refitted.
    tables
        ``(label, table)`` of every refit.
    settings
        Settings of the refits (None: the fit's own).
    executor, max_workers, progress
        As :func:`embias.fit_many`.

    Returns
    -------
    tuple
        The refits, in the order of ``tables``, and their wall seconds.

    Examples
    --------
    >>> from embias.bayes.refits import run_refits
    >>> run_refits(None, [], None, executor=None, max_workers=None, progress=False)
    ([], 0.0)
    """
    from .batch import FitJob, fit_many

    if not tables:
        return [], 0.0
    run = refit_settings(fit, settings)
    jobs = [FitJob(table, run, label=label) for label, table in tables]
    start = time.perf_counter()
    fits = fit_many(jobs, executor=executor, max_workers=max_workers, progress=progress)
    return fits, time.perf_counter() - start
