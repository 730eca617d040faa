"""The figures of one fit: its interval table and its posterior predictive check.

:func:`plot_bias_fit` draws the interval table with the classic scores alongside,
:func:`plot_predictive_check` the observed distances against the posterior predictive
ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..report import validate_interval_table
from .forest import plot_forest
from .layout import AXIS_LABELS, figure_legend, in_order, panel_grid, shade_rope, share_x

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..bayes.diagnostics import PredictiveCheck

__all__ = ["plot_bias_fit", "plot_predictive_check"]


def plot_bias_fit(
    summary: pd.DataFrame,
    *,
    classic: pd.DataFrame | None = None,
    title: str | None = None,
) -> Figure:
    """Draw forest plots of a fit's interval table, with the classic scores alongside.

    Left column: connection means (MAC of the same table as hollow diamonds), contrasts
    (ROPE shaded, taken from the table's ``rope`` column) and the classic WEAT effect sizes
    (point estimates). Right column (word, hierarchical and crossed levels): one panel per
    protected class, each word's coefficients per connection side by side, one colour per
    connection in every panel. Every panel's x axis is labelled with its unit; the legend
    sits below the panels.

    Parameters
    ----------
    summary
        Output of :meth:`embias.BiasFit.to_interval_table` (never recomputed here).
    classic
        Output of :func:`embias.classic_scores` (``BiasFit.classic``), or None.
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        ``summary`` (or a part of it) is not an interval table.

    Examples
    --------
    A hand-made interval table: three connection means, two contrasts and the word-level
    coefficients of two protected words:

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import embias
    >>> rows = [{"estimand": "connection_mean", "group": c, "estimate": m, "lower": m - 0.02,
    ...          "upper": m + 0.02} for c, m in [("associated", 0.80), ("none", 0.86)]]
    >>> rows += [{"estimand": "contrast", "group": "associated - none", "estimate": -0.06,
    ...           "lower": -0.09, "upper": -0.03, "rope": 0.02}]
    >>> rows += [{"estimand": "word_coefficient", "group": f"{w}: {c}", "estimate": 0.8,
    ...           "lower": 0.78, "upper": 0.82, "protected_word": w, "protected_class": k,
    ...           "connection": c}
    ...          for w, k in [("jew", "jewish"), ("christian", "christian")]
    ...          for c in ("associated", "none")]
    >>> summary = embias.interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    >>> figure = plot_bias_fit(summary, title="religion")
    >>> [ax.get_title() for ax in figure.axes]
    ['connection means (◇ = classic MAC) (89% HDI)', 'contrasts (shaded: ROPE ±0.02) (89% HDI)',
     'jewish: word-level coefficients (89% HDI)', 'christian: word-level coefficients (89% HDI)']
    >>> plt.close(figure)
    """
    from ..tables import CONNECTIONS

    validate_interval_table(summary)
    words = summary[summary["estimand"] == "word_coefficient"]
    classes = list(dict.fromkeys(words["protected_class"])) if not words.empty else []
    weat = (classic[classic["estimand"] == "weat_effect_size"]
            if classic is not None and not classic.empty else None)
    left = ["connection_mean", "contrast"] + (["weat"] if weat is not None and len(weat) else [])
    fig, left_axes, right_axes = panel_grid(len(left), len(classes), wide=13.0,
                                            narrow=7.5, panel_height=2.6, min_height=7.0)
    for ax, panel in zip(left_axes, left, strict=True):
        if panel == "connection_mean":
            markers = None
            if classic is not None and not classic.empty:
                macs = classic[(classic["estimand"] == "mac")
                               & classic["group"].isin(summary["group"])]
                markers = pd.DataFrame({"estimand": "",
                                        "group": macs["group"].to_numpy(),
                                        "value": macs["estimate"].to_numpy(),
                                        "label": "classic MAC of the same table"})
            means = summary[summary["estimand"] == "connection_mean"].assign(estimand="")
            plot_forest(means, markers=markers, ax=ax, legend=False,
                        title="connection means (◇ = classic MAC)",
                        xlabel=AXIS_LABELS["connection_mean"])
        elif panel == "contrast":
            contrasts = summary[summary["estimand"] == "contrast"]
            if contrasts.empty:
                ax.set_axis_off()
                continue
            rope = float(contrasts["rope"].iloc[0])
            shade_rope(ax, rope)
            plot_forest(contrasts.assign(estimand=""), reference=0.0, ax=ax, legend=False,
                        title=f"contrasts (shaded: ROPE ±{rope:g})",
                        xlabel=AXIS_LABELS["contrast"])
        else:
            assert weat is not None
            plot_forest(weat.assign(estimand=""), reference=0.0, ax=ax, legend=False,
                        title="classic WEAT of the same table",
                        xlabel=AXIS_LABELS["weat_effect_size"])
    connections = in_order(words["connection"], CONNECTIONS) if classes else []
    for ax, cls in zip(right_axes, classes, strict=True):
        part = words[words["protected_class"] == cls].assign(estimand="")
        plot_forest(part, by="connection", by_order=connections, ax=ax, legend=False,
                    title=f"{cls or 'protected words'}: word-level coefficients",
                    xlabel=AXIS_LABELS["word_coefficient"])
    share_x(right_axes)  # one scale, so classes can be compared by eye
    figure_legend(fig, "connection" if classes else None, connections)
    if title:
        fig.suptitle(title)
    return fig



def plot_predictive_check(check: PredictiveCheck) -> Figure:
    r"""Draw observed vs posterior predictive distances per connection, with coverage.

    One panel per connection: the observed distances (filled histogram) and the posterior
    predictive ones (line); each title says how many observed rows fall inside their cell's
    predictive intervals (as the check judged them: by default each row by the fit without
    its compared word).

    Parameters
    ----------
    check
        Output of :meth:`embias.BiasFit.predictive_check` (never recomputed here).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Examples
    --------
    A hand-made check of two connections:

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import pandas as pd
    >>> from embias.bayes.diagnostics import PredictiveCheck
    >>> rng = np.random.default_rng(0)
    >>> observed = pd.DataFrame({"connection": ["associated"] * 20 + ["none"] * 20,
    ...                         "cosine_distance": rng.normal(0.85, 0.05, 40)})
    >>> predictive = pd.DataFrame({"connection": ["associated"] * 500 + ["none"] * 500,
    ...                           "cosine_distance": rng.normal(0.85, 0.05, 1000)})
    >>> coverage = pd.DataFrame({"connection": ["associated", "none", "all"],
    ...                         "ci_prob": 0.89, "inside": [0.9, 0.85, 0.875],
    ...                         "rows": [20, 20, 40]})
    >>> check = PredictiveCheck(coverage=coverage, cell_intervals=pd.DataFrame(),
    ...                         predictive=predictive, observed=observed)
    >>> figure = plot_predictive_check(check)
    >>> [ax.get_title() for ax in figure.axes]
    ['associated (n=20)\ninside 89% PI: 90%', 'none (n=20)\ninside 89% PI: 85%']
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    cons = [c for c in dict.fromkeys(check.coverage["connection"]) if c != "all"]
    fig, axes = plt.subplots(1, len(cons), figsize=(3.2 * len(cons), 3.2), squeeze=False)
    observed = check.observed["cosine_distance"].to_numpy(dtype=float)
    observed_con = check.observed["connection"].to_numpy()
    predictive = check.predictive["cosine_distance"].to_numpy(dtype=float)
    predictive_con = check.predictive["connection"].to_numpy()
    for ax, con in zip(axes[0], cons, strict=True):
        obs = observed[observed_con == con]
        pred = predictive[predictive_con == con]
        bins = np.linspace(min(obs.min(), np.quantile(pred, 0.001)),
                           max(obs.max(), np.quantile(pred, 0.999)), 30)
        # one step patch per histogram (not a bar per bin): the same picture, drawn faster
        ax.stairs(np.histogram(obs, bins=bins, density=True)[0], bins, fill=True, alpha=0.5,
                  label="observed")
        ax.stairs(np.histogram(pred, bins=bins, density=True)[0], bins, lw=1.5,
                  color="black", label="posterior predictive")
        cov = check.coverage[check.coverage["connection"] == con]
        text = ", ".join(f"{p:.0%} PI: {v:.0%}" for p, v in zip(cov["ci_prob"], cov["inside"],
                                                                 strict=True))
        ax.set_title(f"{con} (n={int(cov['rows'].iloc[0])})\ninside {text}", fontsize=9)
        ax.set_xlabel("cosine distance")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig
