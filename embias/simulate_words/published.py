"""The authors' published tables refitted with each model, and which conclusions survive."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._validation import check_choice, check_columns, check_probability, check_rope, check_seed
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE
from .parameters import WORD_SAMPLING_LEVELS

#: The authors' released tables refitted by :func:`refit_published_tables` by default.
PUBLISHED_REFIT_STUDIES: tuple[str, ...] = ("religion", "race", "gender")
PUBLISHED_REFIT_EMBEDDINGS: tuple[str, ...] = ("reddit", "google", "glove")


def refit_published_tables(
    studies: Sequence[str] = PUBLISHED_REFIT_STUDIES,
    embeddings: Sequence[str] = PUBLISHED_REFIT_EMBEDDINGS,
    *,
    levels: Sequence[str] = WORD_SAMPLING_LEVELS,
    settings: Any = None,
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = DEFAULT_ROPE,
    progress: bool = True,
) -> pd.DataFrame:
    """Fit the authors' published tables with each model; report their intervals side by side.

    The connection means and contrasts of every model, one row each.

    Parameters
    ----------
    studies, embeddings
        Which of :func:`embias.load_published_table`'s tables (every pair is fitted); the
        tables are loaded as published (duplicate rows kept, rows coded missing dropped;
        the counts are in the result).
    levels
        Models (default hierarchical — the published one — and crossed).
    settings
        :class:`~embias.FitSettings` of every fit (level replaced per model); default
        ``FitSettings()`` (the library's sampler and draws). Without a ``random_seed``
        one is drawn from the OS entropy and shared by every fit; the seed used is the
        result's ``random_seed`` column (and ``attrs["random_seed"]``): passing it back
        (``FitSettings(random_seed=…)``) repeats the fits on the same machine.
    ci_prob, rope
        HDI probability and ROPE half-width of the decisions.
    progress
        Progress bar over the fits.

    Returns
    -------
    pandas.DataFrame
        One row per study × embedding × model × estimand (``connection_mean``,
        ``contrast``) × group: ``estimate``, ``lower``, ``upper``, ``prob_gt_0``,
        ``rope_decision``, ``excludes_zero``, the fit's ``max_r_hat``, ``min_ess_bulk``,
        ``min_ess_tail``, ``divergences`` and ``problems`` (:meth:`embias.BiasFit.problems`),
        the table's ``rows``, ``duplicate_rows`` and ``missing_rows``, and the
        sampler settings (``random_seed`` included).

    Raises
    ------
    ValueError
        A bad ``ci_prob``, ``rope`` or settings, an unknown level, or no table.

    Examples
    --------
    Every pair of study and embedding is fitted with every model (nine tables and two
    models by default); the options are checked first:

    >>> refit_published_tables(levels=["pooled"])
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: levels='pooled' is not one of ['hierarchical',
    'crossed', 'word', 'dataset']
    """
    import warnings

    from ..bayes import FitJob, fit_many
    from ..settings import FitSettings
    from ..tables import load_published_table

    ci_prob = check_probability("ci_prob", ci_prob)
    rope = check_rope(rope)
    if isinstance(levels, str):
        levels = (levels,)
    levels = tuple(check_choice("levels", lv, ("hierarchical", "crossed", "word", "dataset"))
                   for lv in levels)
    settings = FitSettings.build(settings) if settings is not None else FitSettings()
    if settings.random_seed is None:  # the seed policy: draw one, record it in every row
        settings = FitSettings.build(settings, random_seed=check_seed(None))
    if isinstance(studies, str):
        studies = (studies,)
    if isinstance(embeddings, str):
        embeddings = (embeddings,)
    tables, jobs = {}, []
    for study in studies:
        for embedding in embeddings:
            with warnings.catch_warnings():
                # duplicates and rows coded missing: counted in the result instead
                warnings.simplefilter("ignore", UserWarning)
                table = load_published_table(study, embedding)
            tables[study, embedding] = table
            jobs += [FitJob(table, FitSettings.build(settings, level=lv),
                            label=f"{study}/{embedding} {lv}") for lv in levels]
    if not jobs:
        raise ValueError("studies and embeddings must name at least one published table")
    fits = iter(fit_many(jobs, progress=progress, warn=False))
    rows = []
    for (study, embedding), table in tables.items():
        missing = sum(v["coded_missing"] for v in table.attrs.get("missing", {}).values())
        about = {"rows": len(table), "duplicate_rows": int(table.attrs.get("duplicates", 0)),
                 "missing_rows": int(missing), "sampler": settings.sampler,
                 "draws": settings.draws, "tune": settings.tune, "chains": settings.chains}
        for level in levels:
            rows += _refit_rows(next(fits), study=study, embedding=embedding, level=level,
                                about=about, ci_prob=ci_prob, rope=rope)
    result = pd.DataFrame(rows)
    result.attrs["random_seed"] = settings.random_seed
    return result


def _refit_rows(fit: Any, *, study: str, embedding: str, level: str, about: Mapping[str, Any],
                ci_prob: float, rope: float) -> list[dict[str, Any]]:
    """Return one refit's connection means and contrasts, with its diagnostics and ``about``.

    ``about`` describes the table and the sampler settings (the same for every row).
    """
    summary = fit.to_interval_table(ci_prob=ci_prob, ci_kind="hdi", rope=rope)
    summary = summary[summary["estimand"].isin(["connection_mean", "contrast"])]
    overview = fit.diagnostics_overview().iloc[0]
    problems = "; ".join(fit.problems())
    rows = []
    for r in summary.itertuples(index=False):
        contrast = r.estimand == "contrast"
        rows.append({
            "study": study, "embedding": embedding, "level": level,
            "estimand": str(r.estimand), "group": str(r.group),
            "estimate": float(r.estimate), "lower": float(r.lower), "upper": float(r.upper),
            "prob_gt_0": float(r.prob_gt_0) if contrast else math.nan,
            "rope_decision": str(r.rope_decision) if contrast else "",
            "excludes_zero": bool(r.lower > 0 or r.upper < 0),
            "max_r_hat": float(overview["max_r_hat"]),
            "min_ess_bulk": float(overview["min_ess_bulk"]),
            "min_ess_tail": float(overview["min_ess_tail"]),
            "divergences": int(overview["divergences"]), "problems": problems, **about,
            "random_seed": fit.settings["random_seed"], "ci_prob": ci_prob, "rope": rope,
        })
    return rows


def published_conclusions(refits: pd.DataFrame, *, reference: str = "hierarchical",
                          other: str = "crossed") -> pd.DataFrame:
    """Tell which conclusions of the published model survive the other model.

    One row per study × embedding × contrast of :func:`refit_published_tables`.

    Parameters
    ----------
    refits
        :func:`refit_published_tables`'s result (or the same rows read back from a CSV).
    reference, other
        The two models compared (levels of ``refits``).

    Returns
    -------
    pandas.DataFrame
        Columns ``study``, ``embedding``, ``contrast``; per model ``<level>`` (posterior
        mean and HDI as text), ``<level>_excludes_zero`` and ``<level>_decision`` (ROPE
        decision); ``same_decision`` (the two ROPE decisions agree); and ``verdict``:
        ``"survives"`` (the reference model's HDI excludes 0 and the other's excludes it
        on the same side), ``"lost"`` (the reference claims a difference, the other does
        not), ``"no claim"`` (neither claims one) or ``"new claim"`` (only the other).

    Raises
    ------
    ValueError
        ``refits`` lacks a column read, or ``reference`` or ``other`` is not one of its
        models.

    Examples
    --------
    Both intervals lie below 0, so the claim survives, though only the published model's
    lies outside the ROPE:

    >>> import pandas as pd
    >>> refits = pd.DataFrame({
    ...     "study": "religion", "embedding": "glove", "level": ["hierarchical", "crossed"],
    ...     "estimand": "contrast", "group": "associated - none", "estimate": -0.16,
    ...     "lower": [-0.2, -0.26], "upper": [-0.12, -0.06],
    ...     "rope_decision": ["credible difference", "undecided"], "excludes_zero": True})
    >>> conclusions = published_conclusions(refits)
    >>> conclusions[["crossed", "same_decision", "verdict"]]
                       crossed  same_decision   verdict
    0  -0.160 [-0.260, -0.060]          False  survives
    """
    check_columns(refits, ("study", "embedding", "level", "estimand", "group", "estimate",
                           "lower", "upper", "rope_decision", "excludes_zero"),
                  name="refits", hint="pass refit_published_tables()'s result")
    present = set(refits["level"])
    for name, level in (("reference", reference), ("other", other)):
        if level not in present:
            raise ValueError(f"{name}={level!r} is not a model of the refits "
                             f"({sorted(present)})")
    contrasts = refits[refits["estimand"] == "contrast"]
    out = []
    for (study, embedding, group), rows in contrasts.groupby(
            ["study", "embedding", "group"], sort=False):
        by = rows.set_index("level")
        row: dict[str, Any] = {"study": study, "embedding": embedding, "contrast": group}
        for level in (reference, other):
            r = by.loc[level]
            row[level] = f"{r['estimate']:+.3f} [{r['lower']:+.3f}, {r['upper']:+.3f}]"
            row[f"{level}_excludes_zero"] = bool(r["excludes_zero"])
            row[f"{level}_decision"] = str(r["rope_decision"])
        ref, oth = by.loc[reference], by.loc[other]
        row["same_decision"] = ref["rope_decision"] == oth["rope_decision"]
        if ref["excludes_zero"]:
            same_side = oth["excludes_zero"] and (oth["lower"] > 0) == (ref["lower"] > 0)
            row["verdict"] = "survives" if same_side else "lost"
        else:
            row["verdict"] = "new claim" if oth["excludes_zero"] else "no claim"
        out.append(row)
    return pd.DataFrame(out)
