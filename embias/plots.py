"""Every figure embias draws. Plot functions take results (interval tables, predictive
checks, simulations) and never recompute them; matplotlib is imported when a plot is
drawn.

- :func:`plot_forest` — a forest plot of any interval table (the building block);
- :func:`plot_bias_fit` and :func:`plot_comparison` — the composite figures of a fit and
  of a comparison of embeddings, both on one layout (:func:`panel_grid`);
- :func:`plot_predictive_check` — observed vs posterior predictive distances;
- :func:`plot_weat_simulations`, :func:`plot_simulated_table` — the pre-averaging
  simulations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._validation import check_columns
from .report import validate_interval_table

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .bayes.diagnostics import PredictiveCheck
    from .simulate import WeatSimulation

__all__ = [
    "panel_grid",
    "plot_bias_fit",
    "plot_comparison",
    "plot_forest",
    "plot_predictive_check",
    "plot_simulated_table",
    "plot_template_sensitivity",
    "plot_weat_simulations",
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


def _axis_label(estimands: Sequence[str]) -> str:
    """The one unit label of these estimands ('' when they differ or are unknown)."""
    labels = {AXIS_LABELS.get(e, "") for e in estimands}
    return labels.pop() if len(labels) == 1 else ""


def _kind_suffix(data: pd.DataFrame) -> str:
    """What the bars are, from the table's own ``ci_kind``/``ci_prob``: ``89% HDI``, or
    ``point estimates`` for rows without an interval."""
    kinds = sorted(
        {(k, None if np.isnan(p) else float(p))
         for k, p in zip(data["ci_kind"], data["ci_prob"], strict=True)},
        key=lambda kp: (kp[0] == "none", kp[0], -1.0 if kp[1] is None else kp[1]),
    )
    return ", ".join("point estimates" if k == "none" else k if p is None
                     else f"{p:.0%} {k.upper()}" for k, p in kinds)


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
    """Forest plot of an interval table: one row per (estimand, group), bars = intervals.

    Parameters
    ----------
    table
        Interval table (see :func:`interval_table`).
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
        x-axis label; default: the unit of the estimands shown (:data:`AXIS_LABELS`,
        e.g. ``"cosine distance"``) when they share one.
    legend
        Draw the legend (outside the axes, to the right, so it never covers the data).
        Composite figures pass ``False`` and draw one legend for the figure.
    ax
        Matplotlib axes to draw on; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

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

    rows = list(dict.fromkeys(zip(data["estimand"], data["group"], strict=True)))
    series: list[Any] = [None]
    palette: list[Any] = [None]  # a series' colour is its place in by_order
    if by is not None:
        present = list(dict.fromkeys(data[by]))
        palette = list(dict.fromkeys([*(by_order or []), *present]))
        series = [v for v in palette if v in present]
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
        k = palette.index(label)
        part = data if label is None else data[data[by] == label]
        y = np.array([ypos[(e, g)] for e, g in zip(part["estimand"], part["group"], strict=True)])
        y = y + offsets[label]
        # one series is black, so a colour always means a value of ``by``
        color = "black" if label is None else colors[k % len(colors)]
        has_ci = part["lower"].notna().to_numpy()
        ax.hlines(y[has_ci], part["lower"][has_ci], part["upper"][has_ci], color=color, lw=2)
        ax.plot(part["estimate"], y, "o", color=color, ms=4,
                label=None if label is None else str(label))
    if markers is not None:
        check_columns(markers, ("estimand", "group", "value", "label"), name="markers")
        shown: set[str] = set()
        for _, mk in markers.iterrows():
            key = (mk["estimand"], mk["group"])
            if key not in ypos:
                continue
            y = ypos[key]
            if by is not None and by in markers.columns and mk[by] in offsets:
                y += offsets[mk[by]]
            label = str(mk["label"])
            ax.plot(mk["value"], y, "D", mfc="none", mec="black", ms=6,
                    label=None if label in shown else label)
            shown.add(label)
    if reference is not None:
        ax.axvline(reference, color="grey", lw=0.8, ls="--")
    ax.set_yticks(list(ypos.values()))
    ax.set_yticklabels([f"{e}: {g}" if e else str(g) for e, g in ypos])
    ax.set_ylim(-0.6, len(rows) - 0.4)  # half a row of air above and below
    ax.margins(x=0.08)  # no point on the frame
    suffix = _kind_suffix(data)
    ax.set_title(f"{title} ({suffix})" if title else suffix, fontsize=10)
    ax.set_xlabel(_axis_label(list(dict.fromkeys(data["estimand"]))) if xlabel is None
                  else xlabel, fontsize=9)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(title=by, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0)
    ax.grid(axis="x", alpha=0.3)
    if own_figure:
        fig.tight_layout()
    return fig


def _figure_legend(fig: Figure, by: str | None, series: Sequence[Any] = ()) -> None:
    """One legend for a composite figure, below the panels (outside every axes): the
    series of ``by`` (one colour each, the same in every panel; in the order of
    ``series``) and then the markers."""
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
    """The layout of every composite figure: a left column of ``n_left`` panels (the
    connection-level results) next to a right column of ``n_right`` panels (one per
    protected class), each column's panels of equal height.

    The figure uses matplotlib's constrained layout, which makes room for every title,
    tick label, axis label and the figure legend (:func:`_figure_legend`, below the
    panels), so nothing is cut at the figure's edge; composite figures do not call
    ``tight_layout``.

    Returns
    -------
    (figure, left_axes, right_axes)
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


def _shade_rope(ax: Any, rope: float | None) -> None:
    """Shade the region of practical equivalence [−rope, rope] behind a panel's data."""
    if rope is not None:
        ax.axvspan(-rope, rope, color="grey", alpha=0.15, lw=0)


def _share_x(axes: Sequence[Any]) -> None:
    """One x scale for panels that are compared by eye."""
    if not axes:
        return
    low = min(a.get_xlim()[0] for a in axes)
    high = max(a.get_xlim()[1] for a in axes)
    for a in axes:
        a.set_xlim(low, high)


def _in_order(values: Sequence[Any], known: Sequence[Any]) -> list[Any]:
    """The distinct ``values``, those in ``known`` first and in its order."""
    distinct = list(dict.fromkeys(values))
    return [v for v in known if v in distinct] + [v for v in distinct if v not in known]


def plot_bias_fit(
    summary: pd.DataFrame,
    *,
    classic: pd.DataFrame | None = None,
    title: str | None = None,
) -> Figure:
    """Forest plots of a fit's interval table, with the classic scores alongside.

    Left column: connection means (MAC of the same table as hollow diamonds), contrasts
    (ROPE shaded, taken from the table's ``rope`` column) and the classic WEAT effect
    sizes (point estimates). Right column (word and hierarchical levels): one panel per
    protected class, each word's coefficients per connection side by side, one colour
    per connection in every panel. Every panel's x axis is labelled with its unit; the
    legend sits below the panels.

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
    """
    from .tables import CONNECTIONS

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
            _shade_rope(ax, rope)
            plot_forest(contrasts.assign(estimand=""), reference=0.0, ax=ax, legend=False,
                        title=f"contrasts (shaded: ROPE ±{rope:g})",
                        xlabel=AXIS_LABELS["contrast"])
        else:
            assert weat is not None
            plot_forest(weat.assign(estimand=""), reference=0.0, ax=ax, legend=False,
                        title="classic WEAT of the same table",
                        xlabel=AXIS_LABELS["weat_effect_size"])
    connections = _in_order(words["connection"], CONNECTIONS) if classes else []
    for ax, cls in zip(right_axes, classes, strict=True):
        part = words[words["protected_class"] == cls].assign(estimand="")
        plot_forest(part, by="connection", by_order=connections, ax=ax, legend=False,
                    title=f"{cls or 'protected words'}: word-level coefficients",
                    xlabel=AXIS_LABELS["word_coefficient"])
    _share_x(right_axes)  # one scale, so classes can be compared by eye
    _figure_legend(fig, "connection" if classes else None, connections)
    if title:
        fig.suptitle(title)
    return fig


#: Short row labels of the change panel of :func:`plot_comparison`.
_CHANGE_ROWS = {"change_connection_mean": "mean", "change_contrast": "contrast"}


def plot_comparison(summary: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Forest plot of a comparison's interval table, embeddings side by side.

    Left column: connection means and contrasts of every embedding (side by side), the
    change model's connection changes and contrast changes (ROPE shaded; classic MAC
    changes as hollow diamonds). Right column: one panel per protected class, every
    word's coefficient per connection with the embeddings side by side. One colour per
    embedding in every panel, every x axis labelled with its unit, the legend below
    the panels.

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
    opts = {"by": "embedding", "by_order": embeddings, "legend": False}
    for ax, panel in zip(left_axes, left, strict=True):
        if panel == "connection_mean":
            plot_forest(summary[est == "connection_mean"].assign(estimand=""), ax=ax,
                        title="connection means", xlabel=AXIS_LABELS["connection_mean"],
                        **opts)
        elif panel == "contrast":
            _shade_rope(ax, rope_value)
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
            _shade_rope(ax, rope_value)
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
    _share_x(right_axes)
    _figure_legend(fig, "embedding", embeddings)
    if title:
        fig.suptitle(title)
    return fig



def plot_predictive_check(check: PredictiveCheck) -> Figure:
    """Observed vs posterior predictive distances per connection, with coverage.

    Parameters
    ----------
    check
        Output of :meth:`embias.BiasFit.predictive_check` (never recomputed here).

    Returns
    -------
    matplotlib.figure.Figure
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



def plot_weat_simulations(
    simulations: Sequence[WeatSimulation],
    *,
    bins: int = 80,
    show_bounds: bool = True,
    title: str | None = None,
    ax: Any = None,
) -> Figure:
    """Histograms (densities, one step line per simulation) of simulated WEAT values.

    Dashed grey lines mark ±threshold (1.81 by default); with ``show_bounds`` dotted
    lines in each simulation's colour mark its ceiling ±max |WEAT|.

    Parameters
    ----------
    simulations
        Results of :func:`embias.simulate_weat` / :func:`embias.simulate_weat_grid`.
    bins
        Histogram bins, over the common range.
    show_bounds
        Draw each design's ceiling of |WEAT|.
    title
        Axes title.
    ax
        Matplotlib axes; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    sims = list(simulations)
    if not sims:
        raise ValueError("nothing to plot: no simulations given")
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 4))
    else:
        fig = ax.figure
    lo = min(float(s.scores.min()) for s in sims)
    hi = max(float(s.scores.max()) for s in sims)
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.linspace(lo - 1, hi + 1, bins + 1)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, s in enumerate(sims):
        color = colors[k % len(colors)]
        ax.hist(s.scores, bins=edges, density=True, histtype="step", lw=1.4, color=color,
                label=f"{s.label}: {s.share_above:.1%} with |WEAT| ≥ {s.threshold:g}")
        if show_bounds:
            for sign in (-1, 1):
                ax.axvline(sign * s.max_abs_weat, color=color, lw=0.8, ls=":")
    for t in sorted({s.threshold for s in sims}):
        for sign in (-1, 1):
            ax.axvline(sign * t, color="grey", lw=0.9, ls="--")
    ax.set_xlabel("WEAT effect size")
    ax.set_ylabel("density")
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig



def plot_simulated_table(table: pd.DataFrame, *, title: str | None = None,
                         ax: Any = None) -> Figure:
    """The raw similarities of one simulated data set, per protected word and connection
    (points), with the per-(word, connection) means the WEAT is built from (bars).

    Parameters
    ----------
    table
        From :func:`embias.simulated_cosine_table` (its ``attrs["weat"]`` goes in the title).
    title
        Axes title (default: the data set's WEAT).
    ax
        Matplotlib axes; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 3.5))
    else:
        fig = ax.figure
    words = list(dict.fromkeys(table["protected_word"]))
    pos = {w: i for i, w in enumerate(words)}
    styles = {"associated": ("tab:red", -0.15), "different": ("tab:blue", 0.15)}
    for con, (color, shift) in styles.items():
        part = table[table["connection"] == con]
        x = part["protected_word"].map(pos).to_numpy(dtype=float) + shift
        ax.plot(x, part["cosine_similarity"], ".", color=color, alpha=0.45, ms=4, label=con)
        means = part.groupby("protected_word", sort=False)["cosine_similarity"].mean()
        mx = np.array([pos[w] for w in means.index], dtype=float) + shift
        ax.hlines(means.to_numpy(), mx - 0.12, mx + 0.12, color=color, lw=2.2)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xticks(range(len(words)))
    ax.set_xticklabels(words, fontsize=7)
    ax.set_ylabel("cosine similarity")
    weat = table.attrs.get("weat")
    if title is None and weat is not None:
        title = f"one simulated data set: WEAT = {weat:.2f} ({table.attrs.get('numerator')})"
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig



def plot_template_sensitivity(
    seat: pd.DataFrame,
    model: pd.DataFrame,
    *,
    rope: float | None = None,
    title: str | None = None,
) -> Figure:
    """How far SEAT moves with the templates it used, next to the crossed model's
    contrasts on the same template subsets.

    Parameters
    ----------
    seat
        One row per SEAT effect size: ``k`` (templates per kind of protected word, or
        ``"all"``), ``pair`` (e.g. ``"christian vs jewish"``) and ``d``.
    model
        One row per contrast of a crossed-model fit: ``k``, ``contrast``, ``estimate``,
        ``lower``, ``upper``.
    rope
        Half-width of the ROPE shaded around 0 on the model's panel (default
        :data:`embias.settings.DEFAULT_ROPE`).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        Left: SEAT's effect size of every subset per k (jittered per pair); right: the
        model's contrasts with their intervals; the all-template values at the right end
        of each panel.
    """
    import matplotlib.pyplot as plt

    from .settings import DEFAULT_ROPE

    for name, frame, columns in (("seat", seat, ("k", "pair", "d")),
                                 ("model", model, ("k", "contrast", "estimate", "lower",
                                                   "upper"))):
        check_columns(frame, columns, name=name)
    rope = DEFAULT_ROPE if rope is None else rope
    numeric = sorted({int(k) for k in [*seat["k"], *model["k"]] if str(k) != "all"})
    labels = [*map(str, numeric), "all"]
    position = {label: i for i, label in enumerate(labels)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    pairs = list(dict.fromkeys(seat["pair"]))
    for j, pair in enumerate(pairs):
        part = seat[seat["pair"] == pair]
        x = np.array([position[str(k)] for k in part["k"]]) + (j - (len(pairs) - 1) / 2) * 0.15
        left.scatter(x, part["d"], s=12, alpha=0.7, color=f"C{j}", label=pair)
    left.axhline(0, color="grey", lw=0.6)
    left.set_xticks(range(len(labels)), labels)
    left.set_xlabel("templates per kind of protected word (k)")
    left.set_ylabel("SEAT effect size d")
    left.set_title("SEAT: one value per random template subset")
    left.legend(fontsize=8)
    right.axhspan(-rope, rope, color="grey", alpha=0.15, label=f"ROPE ±{rope:g}")
    contrasts = list(dict.fromkeys(model["contrast"]))
    for j, contrast in enumerate(contrasts):
        part = model[model["contrast"] == contrast]
        base = np.array([position[str(k)] for k in part["k"]], dtype=float)
        x = base + (j - (len(contrasts) - 1) / 2) * 0.35
        # several subsets of one k side by side
        for label in dict.fromkeys(part["k"].astype(str)):
            same = np.flatnonzero(part["k"].astype(str).to_numpy() == label)
            if len(same) > 1:
                x[same] += np.linspace(-0.1, 0.1, len(same))
        est = part["estimate"].to_numpy(dtype=float)
        yerr = [est - part["lower"].to_numpy(dtype=float),
                part["upper"].to_numpy(dtype=float) - est]
        right.errorbar(x, est, yerr=yerr, fmt="o", ms=3, capsize=2, lw=0.8, color=f"C{j}",
                       label=contrast)
    right.set_xticks(range(len(labels)), labels)
    right.set_xlabel("templates per kind of protected word (k)")
    right.set_ylabel("contrast (cosine distance), interval")
    right.set_title("crossed model on the same subsets")
    right.legend(fontsize=8, loc="lower left")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
