"""What every figure shares: axis labels, interval kinds, layout, legends, ROPE shading.

The axis label of each estimand (:data:`AXIS_LABELS`), the interval kind in a title, the
layout of the composite figures (:func:`panel_grid`) with one legend below the panels,
ROPE shading and shared x scales.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "AXIS_LABELS",
    "axis_label",
    "figure_legend",
    "in_order",
    "kind_suffix",
    "panel_grid",
    "shade_rope",
    "share_x",
]


#: The x-axis label (with units) of each estimand, used when a panel shows one kind.
AXIS_LABELS: dict[str, str] = {
    "connection_mean": "cosine distance",
    "word_coefficient": "cosine distance",
    "mac": "cosine distance",
    "contrast": "difference in cosine distance",
    "word_contrast": "difference in cosine distance",
    "change_connection_mean": "change in cosine distance",
    "change_word_coefficient": "change in cosine distance",
    "change_contrast": "change in cosine distance",
    "change_word_contrast": "change in cosine distance",
    "mac_change": "change in cosine distance",
    "weat_effect_size": "WEAT effect size (d)",
    "weat_change": "change in WEAT effect size (d)",
}


def axis_label(estimands: Sequence[str]) -> str:
    """Return the one unit label of these estimands ('' when they differ or are unknown).

    Parameters
    ----------
    estimands
        Estimand names (``"connection_mean"``, ``"contrast"`` …).

    Returns
    -------
    str
        Their :data:`AXIS_LABELS` entry when they share one, else ``""``.

    Examples
    --------
    >>> axis_label(["connection_mean", "word_coefficient"])
    'cosine distance'
    >>> axis_label(["connection_mean", "contrast"])
    ''
    """
    labels = {AXIS_LABELS.get(e, "") for e in estimands}
    return labels.pop() if len(labels) == 1 else ""


def kind_suffix(data: pd.DataFrame) -> str:
    """Return what the bars are, from the table's own ``ci_kind`` and ``ci_prob``.

    Parameters
    ----------
    data
        Interval-table rows.

    Returns
    -------
    str
        ``89% HDI`` (several kinds joined by commas), or ``point estimates`` for rows
        without an interval.

    Examples
    --------
    >>> import embias
    >>> rows = [{"estimand": "mac", "group": "all", "estimate": 0.86, "lower": 0.83,
    ...          "upper": 0.9}]
    >>> kind_suffix(embias.interval_table(rows, ci_prob=0.95, ci_kind="t"))
    '95% T'
    >>> kind_suffix(embias.interval_table(rows, ci_prob=None, ci_kind="none"))
    'point estimates'
    """
    kinds = sorted(
        {(k, None if np.isnan(p) else float(p))
         for k, p in zip(data["ci_kind"], data["ci_prob"], strict=True)},
        key=lambda kp: (kp[0] == "none", kp[0], -1.0 if kp[1] is None else kp[1]),
    )
    return ", ".join("point estimates" if k == "none" else k if p is None
                     else f"{p:.0%} {k.upper()}" for k, p in kinds)


def figure_legend(fig: Figure, by: str | None, series: Sequence[Any] = ()) -> None:
    """Draw one legend for a composite figure, below the panels (outside every axes).

    The series of ``by`` first (one colour each, the same in every panel; in the order of
    ``series``), then the markers.

    Parameters
    ----------
    fig
        The figure; the labelled artists of all its axes are collected (one entry per
        label).
    by
        The legend's title (the column the series are values of), or None.
    series
        The values of ``by`` in legend order.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, (left, right) = plt.subplots(1, 2, layout="constrained")
    >>> _ = left.plot([0], [0], "o", label="reddit")
    >>> _ = right.plot([0], [0], "o", label="glove")
    >>> _ = right.plot([1], [1], "o", label="reddit")
    >>> figure_legend(figure, "embedding", ["glove", "reddit"])
    >>> [text.get_text() for text in figure.legends[0].get_texts()]
    ['glove', 'reddit']
    >>> plt.close(figure)
    """
    found: dict[str, Any] = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            found.setdefault(label, handle)
    if not found:
        return
    first = [str(v) for v in series if str(v) in found]
    handles = {label: found[label] for label in [*first, *(k for k in found if k not in first)]}
    fig.legend(list(handles.values()), list(handles), title=by, fontsize=8,
               title_fontsize=8, loc="outside lower center", ncols=min(len(handles), 6),
               frameon=False)


def panel_grid(n_left: int, n_right: int, *, wide: float, narrow: float,
               panel_height: float, min_height: float) -> tuple[Figure, list[Any], list[Any]]:
    """Make the layout of every composite figure: a left and a right column of panels.

    A left column of ``n_left`` panels (the connection-level results) next to a right
    column of ``n_right`` panels (one per protected class), each column's panels of equal
    height. The figure uses matplotlib's constrained layout, which makes room for every
    title, tick label, axis label and the figure legend (:func:`figure_legend`, below the
    panels), so nothing is cut at the figure's edge; composite figures do not call
    ``tight_layout``.

    Parameters
    ----------
    n_left, n_right
        Panels in the left and the right column (``n_right=0``: one column).
    wide, narrow
        Figure width in inches with two columns and with one.
    panel_height
        Height of a panel of the taller column, in inches.
    min_height
        Smallest figure height, in inches.

    Returns
    -------
    tuple of (matplotlib.figure.Figure, list, list)
        The figure, the left column's axes and the right column's axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, left, right = panel_grid(2, 3, wide=13.0, narrow=7.5, panel_height=2.6,
    ...                                  min_height=7.0)
    >>> len(left), len(right), [float(x) for x in figure.get_size_inches()]
    (2, 3, [13.0, 7.8])
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    n_rows = max(n_left, 1) * max(n_right, 1)
    fig = plt.figure(figsize=(wide if n_right else narrow,
                              max(min_height, panel_height * max(n_left, n_right))),
                     layout="constrained")
    grid = fig.add_gridspec(n_rows, 2 if n_right else 1)
    span_l = n_rows // max(n_left, 1)
    left = [fig.add_subplot(grid[i * span_l:(i + 1) * span_l, 0]) for i in range(n_left)]
    right = []
    if n_right:
        span_r = n_rows // n_right
        right = [fig.add_subplot(grid[j * span_r:(j + 1) * span_r, 1]) for j in range(n_right)]
    return fig, left, right


def shade_rope(ax: Any, rope: float | None) -> None:
    """Shade the region of practical equivalence [−rope, rope] behind a panel's data.

    Parameters
    ----------
    ax
        The axes.
    rope
        The ROPE's half-width (None: nothing is shaded).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, ax = plt.subplots()
    >>> shade_rope(ax, 0.02)
    >>> (band,) = ax.patches
    >>> round(band.get_x(), 3), round(band.get_x() + band.get_width(), 3)
    (-0.02, 0.02)
    >>> plt.close(figure)
    """
    if rope is not None:
        ax.axvspan(-rope, rope, color="grey", alpha=0.15, lw=0)


def share_x(axes: Sequence[Any]) -> None:
    """Give panels that are compared by eye one x scale (the union of their ranges).

    Parameters
    ----------
    axes
        The axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure, (a, b) = plt.subplots(1, 2)
    >>> _ = a.set_xlim(0, 1), b.set_xlim(-1, 0.5)
    >>> share_x([a, b])
    >>> [float(x) for x in (*a.get_xlim(), *b.get_xlim())]
    [-1.0, 1.0, -1.0, 1.0]
    >>> plt.close(figure)
    """
    if not axes:
        return
    low = min(a.get_xlim()[0] for a in axes)
    high = max(a.get_xlim()[1] for a in axes)
    for a in axes:
        a.set_xlim(low, high)


def in_order(values: Sequence[Any], known: Sequence[Any]) -> list[Any]:
    """Return the distinct ``values``, those in ``known`` first and in its order.

    Parameters
    ----------
    values
        The values (repeated ones are shown once).
    known
        The order of the values it knows.

    Returns
    -------
    list
        The distinct values in that order, the unknown ones after them as they came.

    Examples
    --------
    >>> in_order(["none", "human", "associated", "none", "extra"],
    ...          ["associated", "different", "none", "human"])
    ['associated', 'none', 'human', 'extra']
    """
    distinct = list(dict.fromkeys(values))
    return [v for v in known if v in distinct] + [v for v in distinct if v not in known]
