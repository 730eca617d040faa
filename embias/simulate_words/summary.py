"""The simulation's rates over its tables (coverage, false claims), with Monte Carlo errors."""

from __future__ import annotations

import math

import pandas as pd

from .._validation import check_columns
from .parameters import WORD_SAMPLING_LEVELS

#: Columns of :func:`summarize_word_sampling`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "level", "estimand", "group", "n_tables", "truth", "mean_estimate", "coverage",
    "coverage_se", "excludes_zero", "excludes_zero_se", "credible_difference",
    "credible_difference_se", "mean_width", "null", "failed_fits")


def summarize_word_sampling(results: pd.DataFrame, *, converged_only: bool = False
                            ) -> pd.DataFrame:
    """Summarize the rates over the simulated tables, with binomial Monte Carlo errors.

    Parameters
    ----------
    results
        :attr:`WordSamplingSimulation.results` (or the same frame read back from a CSV).
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        One row per model × estimand × group: ``n_tables``, ``truth``, ``mean_estimate``,
        ``coverage`` and ``coverage_se`` (share of intervals containing the truth),
        ``excludes_zero`` and ``excludes_zero_se`` (for a contrast whose truth is 0 — see
        ``null`` — the rate of false claims of bias; nominal 1 − ci_prob),
        ``credible_difference`` and its se (contrasts: the ROPE decision), ``mean_width``,
        ``null`` (the truth is 0) and ``failed_fits`` (fits with a convergence problem
        among those counted).

    Raises
    ------
    ValueError
        ``results`` lacks a column the summary reads.

    Examples
    --------
    Four null tables: the interval of associated − none excludes 0 in one of them, a
    false-claim rate of 0.25 with se √(0.25 · 0.75 / 4) = 0.217:

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "table": [0, 1, 2, 3], "level": "crossed", "estimand": "contrast",
    ...     "group": "associated - none", "truth": 0.0,
    ...     "estimate": [0.01, -0.02, 0.05, 0.0], "lower": [-0.03, -0.06, 0.01, -0.04],
    ...     "upper": [0.05, 0.02, 0.09, 0.04], "covered": [True, True, False, True],
    ...     "excludes_zero": [False, False, True, False],
    ...     "rope_decision": ["undecided", "undecided", "credible difference", "undecided"],
    ...     "problems": ""})
    >>> summary = summarize_word_sampling(results)
    >>> summary[["group", "excludes_zero", "excludes_zero_se", "coverage", "null"]]
                   group  excludes_zero  excludes_zero_se  coverage  null
    0  associated - none           0.25          0.216506      0.75  True
    """
    from ..calibration import interval_rates

    check_columns(results, ("table", "level", "estimand", "group", "truth", "estimate",
                            "lower", "upper", "covered", "excludes_zero", "rope_decision",
                            "problems"),
                  name="results", hint="pass WordSamplingSimulation.results")
    credible = results["rope_decision"].fillna("").astype(str) == "credible difference"
    rates = interval_rates(
        results.assign(credible_difference=credible), unit="table",
        shares={"coverage": "covered", "excludes_zero": "excludes_zero",
                "credible_difference": "credible_difference"},
        sort_by=("estimand", "group", "level"), levels=WORD_SAMPLING_LEVELS,
        converged_only=converged_only)
    if rates.empty:
        return pd.DataFrame(columns=list(SUMMARY_COLUMNS))
    # a connection mean has no ROPE decision
    rates.loc[rates["estimand"] != "contrast",
              ["credible_difference", "credible_difference_se"]] = math.nan
    rates["null"] = rates["truth"].abs() < 1e-12
    return rates.rename(columns={"n": "n_tables"})[list(SUMMARY_COLUMNS)]
