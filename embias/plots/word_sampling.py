"""Figures of the word-sampling simulation and of the published refits.

:func:`plot_word_sampling` draws :func:`~embias.summarize_word_sampling`'s rates,
:func:`plot_published_refits` :func:`~embias.refit_published_tables`'s intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validation import check_probability
from ..report import interval_table
from ..settings import DEFAULT_CI_PROB, WORD_SAMPLING_LEVELS
from .forest import plot_forest

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_published_refits", "plot_word_sampling"]

def plot_word_sampling(
    summary: pd.DataFrame,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    ax: Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Plot the rate of false claims of bias and the coverage of the connection means.

    Two panels from :func:`summarize_word_sampling`: the share of intervals of null
    contrasts that exclude 0 and the coverage of the connection means, per model, with ±2
    Monte Carlo standard errors and the nominal rates dashed.

    Parameters
    ----------
    summary
        :func:`summarize_word_sampling`'s result.
    ci_prob
        The intervals' probability: nominal coverage ``ci_prob``, nominal false-claim
        rate 1 − ``ci_prob``.
    ax
        Two matplotlib Axes to draw on (default a new figure).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the two panels.

    Raises
    ------
    ValueError
        A ``ci_prob`` outside (0, 1), or ``ax`` that is not two Axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> from embias.simulate_words import summarize_word_sampling
    >>> results = pd.DataFrame({
    ...     "table": [0, 1, 0, 1], "level": "crossed",
    ...     "estimand": ["contrast", "contrast", "connection_mean", "connection_mean"],
    ...     "group": ["associated - none", "associated - none", "none", "none"],
    ...     "truth": [0.0, 0.0, 0.9, 0.9], "estimate": [0.01, -0.02, 0.9, 0.91],
    ...     "lower": [-0.03, -0.06, 0.85, 0.86], "upper": [0.05, 0.02, 0.95, 0.96],
    ...     "covered": True, "excludes_zero": [False, False, True, True],
    ...     "rope_decision": ["undecided", "undecided", "", ""], "problems": ""})
    >>> fig = plot_word_sampling(summarize_word_sampling(results))
    >>> [axis.get_ylabel() for axis in fig.axes]
    ['HDI excludes 0 (false claim of bias)', 'HDI covers the population mean']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    ci_prob = check_probability("ci_prob", ci_prob)
    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    else:
        axes = list(ax)
        if len(axes) != 2:
            raise ValueError(f"ax must be two matplotlib Axes, got {len(axes)}")
        fig = axes[0].figure
    levels = [lv for lv in WORD_SAMPLING_LEVELS if lv in set(summary["level"])]
    levels += sorted(set(summary["level"]) - set(levels))
    panels = [
        (summary[(summary["estimand"] == "contrast") & summary["null"]], "excludes_zero",
         1 - ci_prob, "HDI excludes 0 (false claim of bias)"),
        (summary[summary["estimand"] == "connection_mean"], "coverage", ci_prob,
         "HDI covers the population mean"),
    ]
    width = 0.8 / max(len(levels), 1)
    for axis, (rows, column, nominal, label) in zip(axes, panels, strict=True):
        groups = list(dict.fromkeys(rows["group"]))
        for j, level in enumerate(levels):
            sub = rows[rows["level"] == level].set_index("group").reindex(groups)
            x = np.arange(len(groups)) + (j - (len(levels) - 1) / 2) * width
            axis.bar(x, sub[column], width=width * 0.9, label=level,
                     yerr=2 * sub[f"{column}_se"], capsize=3)
        axis.axhline(nominal, color="0.3", linestyle="--", linewidth=1)
        axis.set_xticks(np.arange(len(groups)), groups, rotation=15)
        axis.set_ylim(0, 1)
        axis.set_ylabel(label)
    axes[0].legend(title="model", frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_published_refits(
    refits: pd.DataFrame,
    *,
    contrasts: Sequence[str] = ("associated - none", "associated - different"),
    title: str | None = None,
) -> Figure:
    """Draw a forest plot of :func:`refit_published_tables`, one panel per contrast.

    One row per published table, the models' HDIs side by side
    (:func:`embias.plot_forest`; the grey line is 0).

    Parameters
    ----------
    refits
        :func:`refit_published_tables`'s result.
    contrasts
        The contrasts drawn, one panel each.
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the panels.

    Raises
    ------
    ValueError
        A contrast that is not in ``refits``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> refits = pd.DataFrame({
    ...     "study": "religion", "embedding": "glove", "level": ["hierarchical", "crossed"],
    ...     "estimand": "contrast", "group": "associated - none", "estimate": -0.16,
    ...     "lower": [-0.2, -0.26], "upper": [-0.12, -0.06], "ci_prob": 0.89})
    >>> fig = plot_published_refits(refits, contrasts=["associated - none"])
    >>> [axis.get_title() for axis in fig.axes]
    ['associated - none (89% HDI)']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    if isinstance(contrasts, str):
        contrasts = (contrasts,)
    rows = refits[(refits["estimand"] == "contrast") & refits["group"].isin(contrasts)]
    unknown = sorted(set(contrasts) - set(rows["group"]))
    if unknown:
        raise ValueError(f"contrast(s) {unknown} are not in the refits; they have "
                         f"{sorted(set(refits.loc[refits['estimand'] == 'contrast', 'group']))}")
    ci_prob = float(rows["ci_prob"].iloc[0]) if "ci_prob" in rows else DEFAULT_CI_PROB
    levels = list(dict.fromkeys(rows["level"]))
    fig, axes = plt.subplots(1, len(contrasts), figsize=(5.5 * len(contrasts), 4.8),
                             squeeze=False, sharey=True)
    for axis, contrast in zip(axes[0], contrasts, strict=True):
        sub = rows[rows["group"] == contrast]
        table = interval_table(
            [{"estimand": "contrast", "group": f"{r.study} / {r.embedding}",
              "estimate": r.estimate, "lower": r.lower, "upper": r.upper, "level": r.level}
             for r in sub.itertuples()], ci_prob=ci_prob, ci_kind="hdi")
        plot_forest(table, by="level", by_order=levels, reference=0.0, ax=axis,
                    title=contrast, legend=axis is axes[0][0])
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
