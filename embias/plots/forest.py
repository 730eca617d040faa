"""The forest plot of any interval table (:func:`plot_forest`).

The building block of the composite figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_columns
from ..report import validate_interval_table
from .layout import axis_label, kind_suffix

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_forest"]


def plot_forest(
    table: pd.DataFrame,
    *,
    by: str | None = None,
    by_order: Sequence[Any] | None = None,
    estimands: Sequence[str] | None = None,
    reference: float | None = None,
    markers: pd.DataFrame | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    legend: bool = True,
    ax: Any = None,
) -> Figure:
    """Draw a forest plot of an interval table: one row per (estimand, group), bars = intervals.

    Parameters
    ----------
    table
        Interval table (see :func:`embias.interval_table`).
    by
        Optional column whose values are drawn side by side (slightly offset, one colour
        each) within every row — e.g. ``"embedding"`` to compare embeddings.
    by_order
        The values of ``by`` in the order they get their colours and offsets (default:
        table order); pass the same order to every panel of a figure so that one colour
        means one thing throughout.
    estimands
        Restrict to these estimands, in this order (default: all, in table order).
    reference
        Draw a vertical reference line at this value (e.g. 0 for contrasts).
    markers
        Optional extra point values to show alongside, e.g. the classic MAC of the same
        table: a DataFrame with ``estimand``, ``group``, ``value`` and ``label`` columns
        (plus ``by`` if given: the marker then sits on that series' row); drawn as hollow
        diamonds with ``label`` in the legend, never recomputed here.
    title
        Axes title; the interval kind and probability are appended from the table
        (``point estimates`` for rows without an interval).
    xlabel
        x-axis label; default: the unit of the estimands shown
        (:data:`~embias.plots.layout.AXIS_LABELS`, e.g. ``"cosine distance"``) when they
        share one.
    legend
        Draw the legend (outside the axes, to the right, so it never covers the data).
        Composite figures pass ``False`` and draw one legend for the figure.
    ax
        Matplotlib axes to draw on; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (a new one when ``ax`` is omitted).

    Raises
    ------
    ValueError
        Not an interval table, ``estimands`` not in the table, nothing to draw, ``by`` not
        a column, or ``markers`` without its columns; the message names them.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import embias
    >>> rows = [{"estimand": "contrast", "group": "associated - none", "estimate": -0.04,
    ...          "lower": -0.07, "upper": -0.01},
    ...         {"estimand": "contrast", "group": "different - none", "estimate": 0.01,
    ...          "lower": -0.02, "upper": 0.04}]
    >>> table = embias.interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    >>> figure = plot_forest(table, reference=0.0, title="religion")
    >>> (ax,) = figure.axes
    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['contrast: associated - none', 'contrast: different - none']
    >>> ax.get_title(), ax.get_xlabel()
    ('religion (89% HDI)', 'difference in cosine distance')
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    data = _forest_data(table, estimands, by)
    rows = list(dict.fromkeys(zip(data["estimand"], data["group"], strict=True)))
    series, palette = _series(data, by, by_order)
    own_figure = ax is None
    if own_figure:
        height = 1.0 + 0.28 * len(rows) * max(1, len(series) * 0.6)
        fig, ax = plt.subplots(figsize=(7.5, min(max(height, 2.5), 40)))
    else:
        fig = ax.figure
    ypos = {row: len(rows) - 1 - i for i, row in enumerate(rows)}
    width = 0.6
    step = width / max(len(series), 1)
    offsets = {label: (k - (len(series) - 1) / 2) * step if len(series) > 1 else 0.0
               for k, label in enumerate(series)}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for label in series:
        # one series is black, so a colour always means a value of ``by``
        color = "black" if label is None else colors[palette.index(label) % len(colors)]
        part = data if label is None else data[data[by] == label]
        _draw_series(ax, part, label, ypos, offsets[label], color)
    if markers is not None:
        _draw_markers(ax, markers, ypos, offsets, by)
    if reference is not None:
        ax.axvline(reference, color="grey", lw=0.8, ls="--")
    ax.set_yticks(list(ypos.values()))
    ax.set_yticklabels([f"{e}: {g}" if e else str(g) for e, g in ypos])
    ax.set_ylim(-0.6, len(rows) - 0.4)  # half a row of air above and below
    ax.margins(x=0.08)  # no point on the frame
    suffix = kind_suffix(data)
    ax.set_title(f"{title} ({suffix})" if title else suffix, fontsize=10)
    ax.set_xlabel(axis_label(list(dict.fromkeys(data["estimand"]))) if xlabel is None
                  else xlabel, fontsize=9)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(title=by, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0)
    ax.grid(axis="x", alpha=0.3)
    if own_figure:
        fig.tight_layout()
    return fig


def _forest_data(table: pd.DataFrame, estimands: Sequence[str] | None,
                 by: str | None) -> pd.DataFrame:
    """Return the rows :func:`plot_forest` draws.

    The checked interval table, restricted to ``estimands`` in their order (ValueError on an
    unknown estimand or ``by`` column, or on nothing to draw).
    """
    validate_interval_table(table)
    data = table
    if estimands is not None:
        unknown = sorted(set(estimands) - set(table["estimand"]))
        if unknown:
            raise ValueError(
                f"estimands {unknown} not in the table (it has {sorted(set(table['estimand']))})"
            )
        data = table[table["estimand"].isin(estimands)]
        order = {e: i for i, e in enumerate(estimands)}
        data = data.sort_values("estimand", key=lambda s: s.map(order), kind="stable")
    if data.empty:
        raise ValueError("nothing to plot: the interval table has no rows")
    if by is not None and by not in data.columns:
        raise ValueError(f"by={by!r} is not a column of the table ({list(data.columns)})")
    return data


def _series(data: pd.DataFrame, by: str | None, by_order: Sequence[Any] | None
            ) -> tuple[list[Any], list[Any]]:
    """Return the series drawn side by side and the palette order that gives each its colour.

    The series are the values of ``by`` present, in ``by_order`` (one series ``None``
    without ``by``).
    """
    if by is None:
        return [None], [None]
    present = list(dict.fromkeys(data[by]))
    palette = list(dict.fromkeys([*(by_order or []), *present]))
    return [v for v in palette if v in present], palette


def _draw_series(ax: Any, part: pd.DataFrame, label: Any, ypos: dict[Any, int],
                 offset: float, color: Any) -> None:
    """Draw one series of :func:`plot_forest`: a point per row and a bar for its interval."""
    y = np.array([ypos[(e, g)] for e, g in zip(part["estimand"], part["group"], strict=True)])
    y = y + offset
    has_ci = part["lower"].notna().to_numpy()
    ax.hlines(y[has_ci], part["lower"][has_ci], part["upper"][has_ci], color=color, lw=2)
    ax.plot(part["estimate"], y, "o", color=color, ms=4,
            label=None if label is None else str(label))


def _draw_markers(ax: Any, markers: pd.DataFrame, ypos: dict[Any, int],
                  offsets: dict[Any, float], by: str | None) -> None:
    """Draw the extra point values of :func:`plot_forest` on the rows they name.

    Hollow diamonds, one legend entry per label.
    """
    check_columns(markers, ("estimand", "group", "value", "label"), name="markers")
    shown: set[str] = set()
    for _, mk in markers.iterrows():
        key = (mk["estimand"], mk["group"])
        if key not in ypos:
            continue
        y = float(ypos[key])
        if by is not None and by in markers.columns and mk[by] in offsets:
            y += offsets[mk[by]]
        label = str(mk["label"])
        ax.plot(mk["value"], y, "D", mfc="none", mec="black", ms=6,
                label=None if label in shown else label)
        shown.add(label)
