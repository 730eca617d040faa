"""Fitting the studies of a design analysis in blocks, one result row per contrast.

:func:`fit_in_blocks` fits ``block`` studies per :func:`embias.fit_many` call and keeps
each fit's contrasts (estimate, HDI, ROPE decision) and convergence problems.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

_CREDIBLE = "credible difference"


def fit_in_blocks(jobs: Iterator[tuple[dict[str, Any], Any]], *, total: int, block: int,
                  ci_prob: float, rope: float, progress: bool) -> list[dict[str, Any]]:
    """Fit the studies ``block`` at a time; return one result row per study × contrast.

    Only the rows of a block are kept, not its fits, which bounds the memory of a long
    analysis.

    Parameters
    ----------
    jobs
        (row fields, fit job) of every study (:func:`embias.design.draws.study_jobs`).
    total
        Number of studies, for the progress bar.
    block
        Fits per :func:`embias.fit_many` call.
    ci_prob, rope
        HDI probability and ROPE half-width of every contrast's decision.
    progress
        Show a progress bar over the studies.

    Returns
    -------
    list of dict
        One row per study × contrast: the row fields, the contrast's estimate, HDI, width,
        ROPE decision, truth and the fit's seed and problems.
    """
    from tqdm import tqdm

    from .._progress import progress_wanted
    from ..bayes import fit_many

    results: list[dict[str, Any]] = []
    bar = tqdm(total=total, desc="studies", unit="study",
               disable=not progress_wanted(progress))
    try:
        while chunk := list(itertools.islice(jobs, block)):
            fits = fit_many([job for _, job in chunk], progress=False, warn=False)
            for (info, _), fit in zip(chunk, fits, strict=True):
                rows, problems = _fit_rows(fit, ci_prob=ci_prob, rope=rope)
                truth = info["truth"]
                for row in rows:
                    results.append({**info, **row, "truth": truth.get(row["contrast"],
                                                                      math.nan),
                                    "problems": problems})
            bar.update(len(chunk))
            del fits, chunk
    finally:
        bar.close()
    return results


def _fit_rows(fit: Any, *, ci_prob: float, rope: float) -> tuple[list[dict[str, Any]], str]:
    """Return the contrasts of one fit (estimate, HDI, ROPE decision) and its problems."""
    import xarray as xr

    from ..bayes.summary import summarize_posterior

    post = fit.sampled["posterior"].to_dataset()
    summary = summarize_posterior(
        xr.DataTree.from_dict({"posterior": post[["connection_mean"]]}), fit.cells,
        ci_prob=ci_prob, ci_kind="hdi", rope=rope, word_contrasts=False)
    summary = summary[summary["estimand"] == "contrast"]
    rows = [{"contrast": str(r.group), "estimate": float(r.estimate), "lower": float(r.lower),
             "upper": float(r.upper), "width": float(r.upper - r.lower),
             "rope_decision": str(r.rope_decision),
             "credible": str(r.rope_decision) == _CREDIBLE,
             "random_seed": int(fit.settings["random_seed"])}
            for r in summary.itertuples(index=False)]
    return rows, "; ".join(fit.problems())

