"""The figure of a comparison of embeddings (:func:`plot_comparison`).

Every embedding's results side by side, with the change model's changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..report import validate_interval_table
from .forest import plot_forest
from .layout import AXIS_LABELS, figure_legend, panel_grid, shade_rope, share_x

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_comparison"]

#: Short row labels of the change panel of :func:`plot_comparison`.
_CHANGE_ROWS = {"change_connection_mean": "mean", "change_contrast": "contrast"}


def plot_comparison(summary: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Draw forest plots of a comparison's interval table, embeddings side by side.

    Left column: connection means and contrasts of every embedding (side by side), the
    change model's connection changes and contrast changes (ROPE shaded; classic MAC
    changes as hollow diamonds). Right column: one panel per protected class, every word's
    coefficient per connection with the embeddings side by side. One colour per embedding
    in every panel, every x axis labelled with its unit, the legend below the panels.

    Parameters
    ----------
    summary
        Output of :meth:`embias.EmbeddingComparison.to_interval_table` (never recomputed
        here).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        Not an interval table, or one without an ``embedding`` column.

    Examples
    --------
    A hand-made comparison: one contrast of two embeddings and its paired change:

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import embias
    >>> rows = [{"estimand": "contrast", "group": "associated - none", "estimate": e,
    ...          "lower": e - 0.03, "upper": e + 0.03, "embedding": label, "rope": 0.02}
    ...         for label, e in [("biased", -0.06), ("debiased", -0.01)]]
    >>> rows.append({"estimand": "change_contrast", "group": "associated - none",
    ...              "estimate": 0.05, "lower": 0.02, "upper": 0.08, "embedding": "debiased",
    ...              "reference": "biased", "rope": 0.02})
    >>> summary = embias.interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    >>> figure = plot_comparison(summary, title="religion")
    >>> [ax.get_title() for ax in figure.axes]
    ['contrasts (89% HDI)', 'change vs biased, paired model (89% HDI)']
    >>> [t.get_text() for t in figure.legends[0].get_texts()]
    ['biased', 'debiased']
    >>> plt.close(figure)
    """
    validate_interval_table(summary)
    if "embedding" not in summary.columns:
        raise ValueError("plot_comparison() needs an interval table with an 'embedding' "
                         "column (EmbeddingComparison.summary())")
    est = summary["estimand"]
    words = summary[est == "word_coefficient"]
    classes = list(dict.fromkeys(words["protected_class"])) if not words.empty else []
    left = [p for p in ("connection_mean", "contrast", "change") if
            (est.str.startswith("change_") if p == "change" else est == p).any()]
    n_rows = max((len(words[words["protected_class"] == c]) for c in classes), default=0)
    fig, left_axes, right_axes = panel_grid(
        len(left), len(classes), wide=14.0, narrow=7.5,
        panel_height=max(3.2, 0.09 * n_rows * len(classes) / max(len(left), 1)),
        min_height=8.0)
    rope = summary.loc[summary["rope"].notna(), "rope"] if "rope" in summary else pd.Series()
    rope_value = float(rope.iloc[0]) if len(rope) else None
    embeddings = list(dict.fromkeys(summary.loc[summary["embedding"] != "", "embedding"]))
    opts: dict[str, Any] = {"by": "embedding", "by_order": embeddings, "legend": False}
    for ax, panel in zip(left_axes, left, strict=True):
        if panel == "connection_mean":
            plot_forest(summary[est == "connection_mean"].assign(estimand=""), ax=ax,
                        title="connection means", xlabel=AXIS_LABELS["connection_mean"],
                        **opts)
        elif panel == "contrast":
            shade_rope(ax, rope_value)
            plot_forest(summary[est == "contrast"].assign(estimand=""), reference=0.0,
                        ax=ax, title="contrasts", xlabel=AXIS_LABELS["contrast"], **opts)
        else:
            changes = [e for e in _CHANGE_ROWS if (est == e).any()]
            part = summary[est.isin(changes)]
            macs = summary[est == "mac_change"]
            markers = pd.DataFrame({"estimand": _CHANGE_ROWS["change_connection_mean"],
                                    "group": macs["group"].to_numpy(),
                                    "embedding": macs["embedding"].to_numpy(),
                                    "value": macs["estimate"].to_numpy(),
                                    "label": "classic MAC change"})
            shade_rope(ax, rope_value)
            ref = str(part["reference"].iloc[0]) if "reference" in part else ""
            plot_forest(part.assign(estimand=part["estimand"].map(_CHANGE_ROWS)),
                        reference=0.0, markers=markers, ax=ax,
                        title=f"change vs {ref}, paired model",
                        xlabel=f"{AXIS_LABELS['change_connection_mean']} "
                               f"(embedding − {ref})" if ref else None,
                        **opts)
    for ax, cls in zip(right_axes, classes, strict=True):
        part = words[words["protected_class"] == cls]
        part = part.assign(estimand=part["protected_word"], group=part["connection"])
        plot_forest(part, ax=ax, title=f"{cls or 'protected words'}: word coefficients",
                    xlabel=AXIS_LABELS["word_coefficient"], **opts)
        if len(part) / max(len(embeddings), 1) > 12:  # many rows: smaller row labels
            ax.tick_params(axis="y", labelsize=7)
    share_x(right_axes)
    figure_legend(fig, "embedding", embeddings)
    if title:
        fig.suptitle(title)
    return fig
