"""The result of a calibration and its coverage summary.

:class:`PopulationCalibration` holds one row per study × level × quantity
(:data:`RESULT_COLUMNS`); :func:`summarize_calibration` turns them into the coverage per
level and quantity with its binomial Monte Carlo standard error (:data:`SUMMARY_COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._validation import check_columns
from ..populations import PopulationDesign, WordPopulations
from .intervals import interval_rates

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..wordlists import Study

__all__ = ["RESULT_COLUMNS", "SUMMARY_COLUMNS", "PopulationCalibration", "summarize_calibration"]

#: Columns of :attr:`PopulationCalibration.results` (one row per study × level × quantity).
RESULT_COLUMNS: tuple[str, ...] = (
    "study", "level", "estimand", "group", "estimate", "lower", "upper", "truth", "covered",
    "width", "ci_prob", "random_seed", "max_r_hat", "min_ess_bulk", "min_ess_tail",
    "divergences", "problems")
#: Columns of :meth:`PopulationCalibration.summary`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "level", "estimand", "quantity", "truth", "mean_estimate", "bias", "coverage", "mc_se",
    "mean_width", "n_studies", "ci_prob", "failed_fits")


@dataclass(frozen=True)
class PopulationCalibration:
    """Result of :func:`calibrate_on_populations`.

    Attributes
    ----------
    results
        One row per study × level × quantity (columns :data:`RESULT_COLUMNS`): ``study``
        (its index), ``level``, ``estimand`` (``connection_mean`` or ``contrast``),
        ``group`` (connection or ``"a - b"``), ``estimate`` (posterior mean), ``lower``
        and ``upper`` (the ``ci_prob`` HDI), ``truth`` (the population answer),
        ``covered``, ``width`` (upper − lower), ``ci_prob``, ``random_seed`` (the fit's
        seed), the fit's diagnostics ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail``,
        ``divergences`` and ``problems`` (empty when it passed every check).
    truths
        :func:`population_answers` of the populations under the design.
    studies
        The drawn studies, in order (``first_study`` … ).
    populations
        The populations the studies were drawn from.
    design
        The design of every study.
    settings
        ``levels``, ``n_studies``, ``first_study``, ``ci_prob``, ``ci_kind``,
        ``random_seed`` (the run's seed: passing it back draws the same studies and gives
        the fits the same seeds), ``embedding`` and ``fit`` (the
        :class:`~embias.FitSettings` fields every fit shares).
    seconds
        Wall-clock seconds of the run.
    """

    results: pd.DataFrame = field(repr=False)
    truths: pd.DataFrame = field(repr=False)
    studies: tuple[Study, ...] = field(repr=False)
    populations: WordPopulations = field(repr=False)
    design: PopulationDesign
    settings: Mapping[str, Any]
    seconds: float

    def summary(self, *, converged_only: bool = False) -> pd.DataFrame:
        """Return the coverage per level and quantity.

        :func:`summarize_calibration` of :attr:`results`.
        """
        return summarize_calibration(self.results, converged_only=converged_only)

    def failures(self) -> pd.DataFrame:
        """Return the fits that failed a convergence check: ``study``, ``level``, ``problems``."""
        fits = self.results.drop_duplicates(["study", "level"])
        return fits.loc[fits["problems"] != "", ["study", "level", "problems"]].reset_index(
            drop=True)

    def plot(self, **kwargs: Any) -> Figure:
        """Draw :func:`plot_calibration` of this result."""
        from ..plots.calibration import plot_calibration

        return plot_calibration(self, **kwargs)

    def __repr__(self) -> str:
        """Show the populations, the design, the run's settings and its seed."""
        s = self.settings
        return (f"PopulationCalibration({self.populations.name!r}, design={self.design!r}, "
                f"levels={list(s['levels'])}, n_studies={s['n_studies']}, "
                f"ci_prob={s['ci_prob']}, embedding={s['embedding']!r}, "
                f"random_seed={s['random_seed']}, seconds={self.seconds:.0f})")


def summarize_calibration(results: pd.DataFrame, *, converged_only: bool = False
                          ) -> pd.DataFrame:
    """Summarize how often the intervals cover the population answers, per level and quantity.

    Parameters
    ----------
    results
        :attr:`PopulationCalibration.results` (or the same rows read back from a CSV).
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: ``level``, ``estimand``, ``quantity`` (connection
        or contrast), ``truth`` (population answer), ``mean_estimate`` and ``bias``
        (mean estimate − truth), ``coverage`` (share of intervals covering the truth) and
        ``mc_se`` (its binomial Monte Carlo standard error √(p(1 − p)/n)), ``mean_width``,
        ``n_studies``, ``ci_prob`` (nominal coverage) and ``failed_fits`` (fits with a
        convergence problem among those counted).

    Raises
    ------
    ValueError
        ``results`` lacks a column the summary reads.

    Examples
    --------
    Four studies, three of whose intervals cover the answer 0.05: coverage 0.75 with
    se √(0.75 · 0.25 / 4) = 0.217.

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "study": [0, 1, 2, 3], "level": "crossed", "estimand": "contrast",
    ...     "group": "associated - none", "estimate": [0.04, 0.06, 0.05, 0.12],
    ...     "lower": [0.0, 0.02, 0.01, 0.08], "upper": [0.08, 0.1, 0.09, 0.16],
    ...     "truth": 0.05, "covered": [True, True, True, False], "ci_prob": 0.89,
    ...     "problems": ""})
    >>> summarize_calibration(results)[["quantity", "bias", "coverage", "mc_se",
    ...                                 "mean_width"]]
                quantity    bias  coverage     mc_se  mean_width
    0  associated - none  0.0175      0.75  0.216506        0.08
    """
    check_columns(results, ("study", "level", "estimand", "group", "estimate", "lower",
                            "upper", "truth", "covered", "ci_prob", "problems"),
                  name="results", hint="pass PopulationCalibration.results")
    rates = interval_rates(results, unit="study", shares={"coverage": "covered"},
                           first=("truth", "ci_prob"), converged_only=converged_only)
    summary = rates.rename(columns={"group": "quantity", "coverage_se": "mc_se",
                                    "n": "n_studies"})
    summary["bias"] = summary["mean_estimate"] - summary["truth"]
    return summary[list(SUMMARY_COLUMNS)]
