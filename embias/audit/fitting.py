"""The fits a page makes itself when none are given.

Without ``fits=``, :func:`embias.audit_report` fits the study on every embedding at
every level asked for (reusing identical saved fits) and, for several embeddings, compares
them and saves the comparison's interval table next to the fits.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .._validation import writable
from .options import AuditOptions

if TYPE_CHECKING:  # pragma: no cover
    from ..pipeline.compare import EmbeddingComparison
    from ..settings import FitSettings
    from ..wordlists import Study
    from .sources import FitEntry

__all__ = ["compare_here", "fit_here"]


def fit_here(
    study: Study | str,
    *,
    embeddings: Mapping[str, str] | None,
    levels: Sequence[str] | None,
    settings: FitSettings | None,
    models_dir: str | os.PathLike[str],
    progress: bool,
) -> tuple[list[FitEntry], FitSettings, dict[str, str]]:
    """Fit (or reuse the saved fits of) the study on every embedding at every level.

    Returns the entries, the settings they were fitted with and the embeddings.

    Parameters
    ----------
    study
        The study (:func:`embias.fit_study_model`'s ``study``).
    embeddings
        Label → embedding source; None: GloVe 6B 50d.
    levels
        The levels to fit; None: the level of ``settings``.
    settings
        Model and sampler settings (:class:`~embias.FitSettings`).
    models_dir
        Where the fits are saved (and identical saved fits reused).
    progress
        Show the fits' progress.

    Returns
    -------
    tuple
        The fits as :class:`~embias.audit.sources.FitEntry` (every embedding at every
        level), the settings they were fitted with, and label → source.
    """
    from ..pipeline.study_fits import fit_study_model
    from ..settings import FitSettings, sampler_available
    from .sources import FitEntry

    run = FitSettings.build(settings)
    sampler_available(run.sampler)
    sources = embeddings or {"glove-6b-50d": "glove-6b-50d"}
    entries = []
    for label, source in sources.items():
        for level in levels or [run.level]:
            fit = fit_study_model(study, source, settings=run, level=level,
                                  models_dir=models_dir, progress=progress)
            entries.append(FitEntry(label=label, fit=fit))
    return entries, run, dict(sources)


def compare_here(
    study: Study | str,
    study_name: str,
    sources: Mapping[str, str],
    *,
    run: FitSettings,
    level: str,
    models_dir: str | os.PathLike[str],
    options: AuditOptions,
    progress: bool,
) -> tuple[EmbeddingComparison, str]:
    """Compare the embeddings fitted here and save the comparison's interval table.

    Returns the comparison and the CSV it was saved to (in the fits' folder).

    Parameters
    ----------
    study
        The study (:func:`embias.compare_embeddings`'s ``study``).
    study_name
        Its name, for the CSV's file name.
    sources
        Label → embedding source of the embeddings compared.
    run
        The settings the embeddings were fitted with.
    level
        The level compared.
    models_dir
        The fits' folder, where the CSV is written.
    options
        The page's options (intervals and ROPE of the saved table).
    progress
        Show the comparison's progress.

    Returns
    -------
    tuple
        The :class:`~embias.EmbeddingComparison` and the path of its saved CSV.
    """
    from ..pipeline.compare import compare_embeddings

    comparison = compare_embeddings(dict(sources), study, settings=run, level=level,
                                    progress=progress)
    stem = "_".join(["compare", *(_slug(x) for x in (study_name, *sources))])
    saved = writable(Path(models_dir) / f"{stem}.csv")
    comparison.to_interval_table(ci_prob=options.ci_prob, ci_kind=options.ci_kind,
                                 rope=options.rope).to_csv(saved, index=False)
    return comparison, str(saved)


def _slug(text: str) -> str:
    """Return ``text`` as a file-name part (letters, digits, dots and hyphens)."""
    import re

    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()
