"""The result of a design analysis and its summary per design and contrast.

:class:`DesignAnalysis` holds one row per design × study × contrast;
:func:`summarize_design_analysis` turns them into the probability of a credible
difference and the expected HDI width, each with its Monte Carlo se.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._validation import check_columns
from ..populations import PopulationDesign
from ..report import share_with_mc_se

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

#: Columns of :attr:`DesignAnalysis.results` (one row per design × study × contrast).
RESULT_COLUMNS: tuple[str, ...] = (
    "design", "protected_words", "attribute_words", "neutral_words", "human_words",
    "study", "contrast", "truth", "estimate", "lower", "upper", "width", "rope_decision",
    "credible", "random_seed", "problems")
#: Columns of :meth:`DesignAnalysis.summary`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "design", "protected_words", "attribute_words", "neutral_words", "human_words",
    "contrast", "truth", "p_credible", "p_se", "width_mean", "width_se", "n_studies",
    "n_failed_fits")


@dataclass(frozen=True)
class DesignAnalysis:
    """Result of :func:`design_analysis`.

    Attributes
    ----------
    results
        One row per design × study × contrast (columns :data:`RESULT_COLUMNS`):
        ``design`` (its text, :meth:`PopulationDesign.as_text`), words per class of the
        protected and attribute roles (a mean when the classes differ), neutral and
        human words, ``study`` (index), ``contrast``, ``truth`` (the drawn posterior
        draw's bar[a] − bar[b], or the population answer), the fit's ``estimate``
        (posterior mean), ``lower``/``upper`` (``ci_prob`` HDI), ``width``,
        ``rope_decision``, ``credible`` (the decision is ``"credible difference"``), the
        fit's ``random_seed`` and ``problems`` (:meth:`embias.BiasFit.problems`,
        ``"; "``-joined; empty when the fit passed every convergence check).
    designs
        The designs analysed, in order.
    settings
        ``source`` (``"posterior predictive"`` or ``"populations"``), ``pilot`` or
        ``populations`` (what the studies were drawn from), ``embedding``, ``level``,
        ``n_studies``, ``ci_prob``, ``rope``, ``random_seed`` (passing it back repeats
        the analysis) and ``fit`` (the :class:`~embias.FitSettings` fields every fit
        shares).
    seconds
        Wall-clock seconds of the run.
    """

    results: pd.DataFrame = field(repr=False)
    designs: tuple[PopulationDesign, ...]
    settings: Mapping[str, Any]
    seconds: float

    def summary(self, *, converged_only: bool = False) -> pd.DataFrame:
        """Return the probability of a credible difference and the expected HDI width.

        Per design and contrast: :func:`summarize_design_analysis` of :attr:`results`.
        """
        return summarize_design_analysis(self.results, converged_only=converged_only)

    def failures(self) -> pd.DataFrame:
        """Return the fits that failed a convergence check: ``design``, ``study``, ``problems``."""
        fits = self.results.drop_duplicates(["design", "study"])
        return fits.loc[fits["problems"] != "", ["design", "study", "problems"]].reset_index(
            drop=True)

    def plot(self, **kwargs: Any) -> Figure:
        """Draw :func:`plot_design_analysis` of this result."""
        from ..plots.design import plot_design_analysis

        return plot_design_analysis(self, **kwargs)

    def __repr__(self) -> str:
        """Show the source, the sizes of the run and its seed."""
        s = self.settings
        return (f"DesignAnalysis({s['source']}, designs={len(self.designs)}, "
                f"n_studies={s['n_studies']}, level={s['level']!r}, ci_prob={s['ci_prob']}, "
                f"rope={s['rope']}, random_seed={s['random_seed']}, "
                f"seconds={self.seconds:.0f})")


def summarize_design_analysis(results: pd.DataFrame, *, converged_only: bool = False
                              ) -> pd.DataFrame:
    """Summarize the rates and widths over the simulated studies, per design and contrast.

    Parameters
    ----------
    results
        :attr:`DesignAnalysis.results` (or the same rows read back from a CSV).
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: the design (text and words per role), the
        ``contrast``, ``truth`` (mean over the studies of the drawn truth), ``p_credible``
        (share of studies whose HDI lies outside the ROPE) and ``p_se`` (√(p(1 − p)/n)),
        ``width_mean`` (mean HDI width) and ``width_se`` (sd/√n), ``n_studies`` (studies
        counted) and ``n_failed_fits`` (those with a convergence problem).

    Raises
    ------
    ValueError
        ``results`` lacks a column the summary reads.

    Examples
    --------
    Four studies of one design, three of which find a credible difference: p = 0.75 with
    se √(0.75 · 0.25 / 4) = 0.217; widths 0.1, 0.2, 0.3, 0.2 have mean 0.2 and se
    sd/√4 = 0.0816/2 = 0.041.

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "design": "protected=5,attributes=4,neutral=100,human=0",
    ...     "protected_words": 5.0, "attribute_words": 4.0, "neutral_words": 100,
    ...     "human_words": 0, "study": [0, 1, 2, 3], "contrast": "associated - none",
    ...     "truth": 0.05, "width": [0.1, 0.2, 0.3, 0.2],
    ...     "credible": [True, True, False, True], "problems": ""})
    >>> summary = summarize_design_analysis(results)
    >>> summary[["contrast", "p_credible", "p_se", "width_mean", "width_se"]]
                contrast  p_credible      p_se  width_mean  width_se
    0  associated - none        0.75  0.216506         0.2  0.040825
    """
    from ..bayes.summary import CONTRASTS

    check_columns(results, ("design", "protected_words", "attribute_words", "neutral_words",
                            "human_words", "study", "contrast", "truth", "width", "credible",
                            "problems"),
                  name="results", hint="pass DesignAnalysis.results")
    frame = results.copy()
    frame["problems"] = frame["problems"].fillna("").astype(str)
    if converged_only:
        frame = frame[frame["problems"] == ""]
    order = {f"{a} - {b}": i for i, (a, b) in enumerate(CONTRASTS)}
    out = []
    for (design, contrast), rows in frame.groupby(["design", "contrast"], sort=False):
        p, p_se = share_with_mc_se(rows["credible"].astype(bool))
        width = rows["width"].to_numpy(float)
        n = len(rows)
        first = rows.iloc[0]
        out.append({
            "design": design, "protected_words": float(first["protected_words"]),
            "attribute_words": float(first["attribute_words"]),
            "neutral_words": int(first["neutral_words"]),
            "human_words": int(first["human_words"]), "contrast": contrast,
            "truth": float(rows["truth"].mean()), "p_credible": p, "p_se": p_se,
            "width_mean": float(width.mean()),
            "width_se": float(width.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan,
            "n_studies": int(rows["study"].nunique()),
            "n_failed_fits": int((rows["problems"] != "").sum())})
    summary = pd.DataFrame(out, columns=list(SUMMARY_COLUMNS))
    designs = {d: i for i, d in enumerate(dict.fromkeys(frame["design"]))}
    summary = summary.sort_values(
        ["design", "contrast"],
        key=lambda s: s.map(designs if s.name == "design" else order).fillna(len(order)),
        kind="stable")
    return summary.reset_index(drop=True)

