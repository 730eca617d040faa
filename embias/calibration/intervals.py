"""The intervals of repeated studies: one fit's, and their rates over the studies.

Shared by the real-word calibration (:mod:`embias.calibration`) and the simulated tables
of :mod:`embias.simulate_words`, which ask the same questions:
:func:`interval_rates` (shares of intervals with their Monte Carlo standard errors, per
level and quantity) and :func:`fit_intervals` (one fit's intervals and convergence
record). They are the package's, not part of the public API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..report import share_with_mc_se
from ..settings import DEFAULT_ROPE
from ..tables import CONNECTIONS

#: Estimands of a repeated-study summary, in the order its rows are sorted.
ESTIMANDS: tuple[str, ...] = ("connection_mean", "contrast")
#: Quantities of a repeated-study summary, in the order its rows are sorted: the
#: connections, then the contrasts (those of :data:`embias.bayes.summary.CONTRASTS`).
QUANTITIES: tuple[str, ...] = (*CONNECTIONS, "associated - none", "associated - different",
                               "different - none", "human - none")


def interval_rates(
    results: pd.DataFrame,
    *,
    unit: str,
    shares: Mapping[str, str],
    first: Sequence[str] = ("truth",),
    sort_by: Sequence[str] = ("level", "estimand", "group"),
    levels: Sequence[str] | None = None,
    converged_only: bool = False,
) -> pd.DataFrame:
    """Summarize the intervals of repeated studies per model level, estimand and group.

    The one summary behind :func:`summarize_calibration` and
    :func:`embias.simulate_words.summarize_word_sampling`: per (``level``, ``estimand``,
    ``group``) of ``results`` (one row per study × level × quantity), the number of
    studies, the mean estimate, each share asked for with its binomial Monte Carlo
    standard error √(p(1 − p)/n) (:func:`embias.report.share_with_mc_se`), the mean
    interval width and the number of fits with a convergence problem.

    Parameters
    ----------
    results
        Columns ``level``, ``estimand``, ``group``, ``estimate``, ``lower``, ``upper``,
        ``problems`` (empty or NaN when a fit passed every check), ``unit`` and those
        named by ``shares`` and ``first``.
    unit
        Column identifying a study (``"study"``, ``"table"``): ``n`` counts its distinct
        values.
    shares
        Output name → boolean column: ``name`` is its share of ``True``, ``name_se`` the
        share's Monte Carlo standard error.
    first
        Columns whose first value in a group is kept (constant within a group, such as
        ``truth``).
    sort_by
        Columns the rows are sorted by, in turn: ``level`` in the order of ``levels``,
        ``estimand`` in the order of :data:`ESTIMANDS`, ``group`` in the order of
        :data:`QUANTITIES`; values not listed come last, in the order of the groups.
    levels
        The order of the model levels; ``None`` (default): the order in which they
        first appear in ``results``.
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        Columns ``level``, ``estimand``, ``group``, ``n``, the ``first`` columns,
        ``mean_estimate``, per share ``name`` and ``name_se``, ``mean_width`` and
        ``failed_fits``.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "study": [0, 1, 2, 3], "level": "crossed", "estimand": "contrast",
    ...     "group": "associated - none", "estimate": [0.1, 0.2, 0.3, 0.4],
    ...     "lower": [0.0, 0.1, 0.2, 0.3], "upper": [0.2, 0.3, 0.4, 0.5], "truth": 0.25,
    ...     "covered": [False, True, True, False], "problems": ["", "", "r_hat 1.02", ""]})
    >>> rates = interval_rates(results, unit="study", shares={"coverage": "covered"})
    >>> rates[["n", "mean_estimate", "coverage", "coverage_se", "mean_width", "failed_fits"]]
       n  mean_estimate  coverage  coverage_se  mean_width  failed_fits
    0  4           0.25       0.5         0.25         0.2            1
    """
    frame = results.copy()
    frame["problems"] = frame["problems"].fillna("").astype(str)
    if converged_only:
        frame = frame[frame["problems"] == ""]
    out = []
    for (level, estimand, group), rows in frame.groupby(["level", "estimand", "group"],
                                                        sort=False):
        row = {"level": level, "estimand": estimand, "group": group,
               "n": int(rows[unit].nunique()),
               **{column: float(rows[column].iloc[0]) for column in first},
               "mean_estimate": float(rows["estimate"].mean())}
        for name, column in shares.items():
            row[name], row[f"{name}_se"] = share_with_mc_se(rows[column].astype(bool))
        row["mean_width"] = float((rows["upper"] - rows["lower"]).mean())
        row["failed_fits"] = int((rows["problems"] != "").sum())
        out.append(row)
    columns = ["level", "estimand", "group", "n", *first, "mean_estimate",
               *(c for name in shares for c in (name, f"{name}_se")), "mean_width",
               "failed_fits"]
    order = {"level": list(dict.fromkeys(frame["level"]) if levels is None else levels),
             "estimand": list(ESTIMANDS), "group": list(QUANTITIES)}
    summary = pd.DataFrame(out, columns=columns).sort_values(
        list(sort_by), key=lambda s: s.map({v: i for i, v in enumerate(order[str(s.name)])}
                                           ).fillna(len(order[str(s.name)])))
    return summary.reset_index(drop=True)


#: Posterior variables left out of a repeated-study fit's convergence check: the crossed
#: level's compared-word effects are drawn after sampling from their exact conditional
#: given each draw (:func:`embias.bayes.crossed.draw_word_effects`), so they mix as the
#: sampled parameters do; checking hundreds more scalars per fit would double its cost.
UNCHECKED_VARIABLES = ("word_effect",)


def fit_intervals(fit: Any, *, ci_prob: float, rope: float = DEFAULT_ROPE
                  ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Summarize one fit of a repeated-study run: its intervals and its convergence.

    The intervals are those of the connection means and their contrasts only (the shared
    reporting layer, :func:`embias.bayes.summary.summarize_posterior`, without per-word
    rows); the convergence record covers every sampled parameter and deterministic but
    :data:`UNCHECKED_VARIABLES`.

    Parameters
    ----------
    fit
        A :class:`~embias.BiasFit`.
    ci_prob
        HDI probability.
    rope
        ROPE half-width of the contrasts' decisions.

    Returns
    -------
    summary : pandas.DataFrame
        The interval table (``estimand``, ``group``, ``estimate``, ``lower``,
        ``upper``, ``rope_decision`` …).
    record : dict
        ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail``, ``divergences`` and
        ``problems`` (the convergence problems joined by ``"; "``; empty when none).
    """
    import xarray as xr

    from ..bayes.diagnostics import (
        convergence_diagnostics,
        convergence_problems,
        diagnostics_overview,
    )
    from ..bayes.summary import summarize_posterior

    post = fit.sampled["posterior"].to_dataset()
    checked = post.drop_vars([v for v in UNCHECKED_VARIABLES if v in post])
    diagnostics = convergence_diagnostics(xr.DataTree.from_dict({"posterior": checked}))
    record: dict[str, Any] = dict(diagnostics_overview(diagnostics, fit.divergences))
    record["problems"] = "; ".join(convergence_problems(diagnostics, fit.divergences))
    summary = summarize_posterior(
        xr.DataTree.from_dict({"posterior": post[["connection_mean"]]}), fit.cells,
        ci_prob=ci_prob, ci_kind="hdi", rope=rope, word_contrasts=False)
    return summary, record
