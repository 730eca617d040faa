"""The composite figures: legends outside the data, an x-axis label
with units on every panel, no title or label cut at the figure's edge.

The interval tables are built from real numbers without sampling: the authors' Reddit
tables for religion (biased and hard-debiased), per (protected word, connection) cell the
mean cosine distance with a normal-approximation 89% interval (``ci_kind="normal"``), in
exactly the layout :meth:`embias.BiasFit.to_interval_table` and
:meth:`embias.EmbeddingComparison.to_interval_table` produce; the classic scores are
:func:`embias.classic_scores` / :func:`embias.classic_changes` of the same tables. The plot
functions only draw what they are given, so these tables exercise the same drawing code as
a fit's.
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection
from matplotlib.text import Text
from scipy import stats

import embias
from embias.plots import plot_bias_fit, plot_comparison, plot_forest
from embias.report import interval_table, rope_decision, stack_interval_tables

CI_PROB = 0.89
Z = stats.norm.ppf((1 + CI_PROB) / 2)
ROPE = 0.02
CONTRASTS = (("associated", "none"), ("associated", "different"), ("different", "none"),
             ("human", "none"))


def _cells(table: pd.DataFrame) -> pd.DataFrame:
    return (table.groupby(["protected_class", "protected_word", "connection"], sort=False)
            ["cosine_distance"].agg(["mean", "std", "count"]).reset_index())


def _fit_like_table(table: pd.DataFrame) -> pd.DataFrame:
    """A fit-shaped interval table of real numbers (normal 89% intervals, no sampling)."""
    cells = _cells(table)
    half = Z * cells["std"] / np.sqrt(cells["count"])
    words = [{"estimand": "word_coefficient", "group": c.protected_word,
              "estimate": c.mean, "lower": c.mean - h, "upper": c.mean + h,
              "connection": c.connection, "protected_word": c.protected_word,
              "protected_class": c.protected_class}
             for c, h in zip(cells.itertuples(), half, strict=True)]
    by_con = cells.groupby("connection", sort=False)["mean"].agg(["mean", "std", "count"])
    se = by_con["std"] / np.sqrt(by_con["count"])
    means = [{"estimand": "connection_mean", "group": con, "estimate": m,
              "lower": m - Z * se[con], "upper": m + Z * se[con], "connection": con}
             for con, m in by_con["mean"].items()]
    contrasts = []
    for a, b in CONTRASTS:
        d = by_con.loc[a, "mean"] - by_con.loc[b, "mean"]
        h = Z * np.hypot(se[a], se[b])
        contrasts.append({"estimand": "contrast", "group": f"{a} - {b}", "estimate": d,
                          "lower": d - h, "upper": d + h, "contrast": f"{a} - {b}",
                          "rope": ROPE,
                          "rope_decision": str(rope_decision(d - h, d + h, ROPE))})
    return interval_table([*means, *contrasts, *words], ci_prob=CI_PROB, ci_kind="normal")


def _change_rows(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Paired per-cell changes (after − before), shaped like ChangeFit's table."""
    key = ["protected_class", "protected_word", "connection"]
    both = _cells(before).merge(_cells(after), on=key, suffixes=("_b", "_a"))
    both["d"] = both["mean_a"] - both["mean_b"]
    by_con = both.groupby("connection", sort=False)["d"].agg(["mean", "std", "count"])
    se = by_con["std"] / np.sqrt(by_con["count"])
    rows = [{"estimand": "change_connection_mean", "group": con, "estimate": m,
             "lower": m - Z * se[con], "upper": m + Z * se[con]}
            for con, m in by_con["mean"].items()]
    for a, b in CONTRASTS:
        d = by_con.loc[a, "mean"] - by_con.loc[b, "mean"]
        h = Z * np.hypot(se[a], se[b])
        rows.append({"estimand": "change_contrast", "group": f"{a} - {b}", "estimate": d,
                     "lower": d - h, "upper": d + h})
    for r in rows:
        r.update(embedding="reddit-debiased", reference="reddit", rope=ROPE,
                 rope_decision=str(rope_decision(r["lower"], r["upper"], ROPE)))
    return interval_table(rows, ci_prob=CI_PROB, ci_kind="normal")


@pytest.fixture(scope="module")
def published():
    return {e: embias.load_published_table("religion", e) for e in ("reddit", "reddit-debiased")}


@pytest.fixture(scope="module")
def fit_tables(published):
    table = published["reddit"]
    return _fit_like_table(table), embias.classic_scores(table)


@pytest.fixture(scope="module")
def comparison_table(published):
    levels = stack_interval_tables({e: _fit_like_table(t) for e, t in published.items()},
                                   key="embedding")
    levels.insert(3, "reference", "")
    change = _change_rows(published["reddit"], published["reddit-debiased"])
    classic = embias.classic_changes(published, reference="reddit")
    return stack_interval_tables([levels, change, classic])


# --------------------------------------------------------------------------- the checks
def _inside(inner, outer, tol: float = 1.0) -> bool:
    return (inner.x0 >= outer.x0 - tol and inner.y0 >= outer.y0 - tol
            and inner.x1 <= outer.x1 + tol and inner.y1 <= outer.y1 + tol)


def _undrawn_tick_labels(fig) -> set[int]:
    """Tick labels matplotlib keeps for ticks outside the view interval (never drawn)."""
    out = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            tol = 1e-9 * max(1.0, hi - lo)
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not lo - tol <= tick.get_loc() <= hi + tol:
                    out.update({id(tick.label1), id(tick.label2)})
    return out


def _legends(fig) -> list:
    return [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]


def _clipped_artists(fig) -> list[str]:
    """Every visible text (titles, tick labels, axis labels, annotations, legend texts)
    and legend whose window extent leaves the figure."""
    renderer = fig.canvas.get_renderer()
    undrawn = _undrawn_tick_labels(fig)
    bad = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in undrawn:
            continue
        if text.axes is not None and not text.axes.get_visible():
            continue
        box = text.get_window_extent(renderer)
        if not _inside(box, fig.bbox):
            bad.append(f"text {text.get_text()!r} at {box.bounds} outside {fig.bbox.bounds}")
    for legend in _legends(fig):
        if not _inside(legend.get_window_extent(renderer), fig.bbox):
            bad.append(f"legend {[t.get_text() for t in legend.get_texts()]} outside the "
                       "figure")
    return bad


def _data_boxes(ax):
    """Display-space points and segments of the data (estimates, markers, intervals)."""
    points, segments = [], []
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "", " "):
            continue  # reference lines, ROPE edges
        xy = np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float)
        points.append(ax.transData.transform(xy))
    for coll in ax.collections:
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                segments.append(ax.transData.transform(np.asarray(seg, dtype=float)))
    return points, segments


def _legend_overlaps(fig) -> list[str]:
    """A legend (of an axes or of the figure) that covers a point or an interval line of
    any axes, clipped to that axes' visible area."""
    renderer = fig.canvas.get_renderer()
    bad = []
    for legend, ax in ((lg, a) for lg in _legends(fig) for a in fig.axes):
        if not ax.axison:
            continue
        box = legend.get_window_extent(renderer)
        frame = ax.get_window_extent(renderer)
        if (box.x1 < frame.x0 or box.x0 > frame.x1 or box.y1 < frame.y0
                or box.y0 > frame.y1):
            continue  # the legend is beside this axes: nothing of it can be covered
        points, segments = _data_boxes(ax)
        for xy in points:
            hit = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (
                xy[:, 1] <= box.y1)
            if hit.any():
                bad.append(f"legend of {ax.get_title()!r} covers a point at {xy[hit][0]}")
        for seg in segments:  # horizontal interval lines
            (x0, y0), (x1, _) = seg[0], seg[-1]
            if box.y0 <= y0 <= box.y1 and min(x0, x1) <= box.x1 and max(x0, x1) >= box.x0:
                bad.append(f"legend of {ax.get_title()!r} covers an interval at y={y0:.0f}")
    return bad


def _unlabelled_panels(fig) -> list[str]:
    return [ax.get_title() for ax in fig.axes if ax.axison and not ax.get_xlabel().strip()]


def _points_on_frame(fig, share: float = 0.05, rows: float = 0.25) -> list[str]:
    """Data points closer to the left/right frame than ``share`` of the axis width, or
    closer to the top/bottom frame than ``rows`` of a row (forest rows are 1 apart)."""
    bad = []
    for ax in fig.axes:
        if not ax.axison:
            continue
        (x_lo, x_hi), (y_lo, y_hi) = ax.get_xlim(), ax.get_ylim()
        x_pad = share * (x_hi - x_lo)
        for line in ax.get_lines():
            if line.get_marker() in (None, "None", "", " "):
                continue
            x = np.asarray(line.get_xdata(), dtype=float)
            y = np.asarray(line.get_ydata(), dtype=float)
            if np.any((x < x_lo + x_pad) | (x > x_hi - x_pad)):
                bad.append(f"{ax.get_title()!r}: a point within {share:.0%} of the side")
            if np.any((y < y_lo + rows) | (y > y_hi - rows)):
                bad.append(f"{ax.get_title()!r}: a point within {rows:g} row of the top "
                           "or bottom")
    return bad


def _colour_clashes(fig) -> list[str]:
    """A series (legend label) drawn in different colours in different panels."""
    colour: dict[str, str] = {}
    bad = []
    for ax in fig.axes:
        for line in ax.get_lines():
            label = line.get_label()
            if label.startswith("_"):
                continue
            c = matplotlib.colors.to_hex(line.get_color())
            if colour.setdefault(label, c) != c:
                bad.append(f"{label!r} is {colour[label]} in one panel, {c} in "
                           f"{ax.get_title()!r}")
    return bad


def _check(fig) -> None:
    fig.canvas.draw()
    problems = (_clipped_artists(fig) + _legend_overlaps(fig)
                + [f"no x label: {t!r}" for t in _unlabelled_panels(fig)]
                + _points_on_frame(fig) + _colour_clashes(fig))
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- the tests
def test_fit_figure_has_legends_outside_data_labels_everywhere_nothing_clipped(
        fit_tables):
    summary, classic = fit_tables
    fig = plot_bias_fit(summary, classic=classic, title="religion, published:reddit (word)")
    try:
        _check(fig)
        titles = [ax.get_title() for ax in fig.axes]
        weat_title = next(t for t in titles if "WEAT" in t)
        assert not weat_title.endswith("(none)")
        xlabels = {ax.get_title(): ax.get_xlabel() for ax in fig.axes}
        assert xlabels[next(t for t in titles if t.startswith("connection means"))] == (
            "cosine distance")
        assert "WEAT effect size (d)" in xlabels[weat_title]
        assert "cosine distance" in xlabels[next(t for t in titles if "word-level" in t)]
    finally:
        plt.close(fig)


def test_comparison_figure_has_nothing_cut_and_legends_outside_data(
        comparison_table):
    fig = plot_comparison(comparison_table,
                          title="religion: reddit vs reddit-debiased (word)")
    try:
        _check(fig)
        xlabels = [ax.get_xlabel() for ax in fig.axes if ax.axison]
        assert any(x.startswith("change in cosine distance") for x in xlabels)
    finally:
        plt.close(fig)


def test_forest_plot_alone_labels_units_and_keeps_legend_off_the_data():
    rows = [{"estimand": "connection_mean", "group": g, "estimate": m, "lower": m - 0.05,
             "upper": m + 0.05, "embedding": e}
            for e, shift in (("biased", 0.0), ("hard", 0.03))
            for g, m in (("associated", 0.80 + shift), ("none", 0.95 + shift))]
    table = interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    fig = plot_forest(table, by="embedding", title="religion")
    try:
        _check(fig)
        assert fig.axes[0].get_xlabel() == "cosine distance"
    finally:
        plt.close(fig)


def test_template_sensitivity_figure_shows_every_value_it_is_given():
    """plot_template_sensitivity (bench_templates.py and notebook 06 draw with it): every
    SEAT value is a point at its k (jittered per pair), every model contrast a point with
    its interval; the all-template values sit at the right end; bad input names columns."""
    from matplotlib.collections import PathCollection

    from embias.plots import plot_template_sensitivity

    seat = pd.DataFrame({"k": [1, 1, 2, 2, "all", 1, 1, 2, 2, "all"],
                         "pair": ["a vs b"] * 5 + ["a vs c"] * 5,
                         "d": [0.1, -0.2, 0.3, 0.0, 0.05, 1.8, 1.7, 1.9, 1.8, 1.85]})
    model = pd.DataFrame({"k": [2, 4, "all"], "contrast": ["associated - none"] * 3,
                          "estimate": [0.05, 0.06, 0.055], "lower": [0.01, 0.03, 0.03],
                          "upper": [0.09, 0.09, 0.08]})
    fig = plot_template_sensitivity(seat, model)
    left, right = fig.axes
    # k = 1, 2, 4 and "all" on both panels' x axes
    assert [t.get_text() for t in left.get_xticklabels()] == ["1", "2", "4", "all"]
    points = [c.get_offsets() for c in left.collections if isinstance(c, PathCollection)]
    assert [len(p) for p in points] == [5, 5]
    np.testing.assert_allclose(sorted(points[0][:, 1]), sorted(seat["d"][:5]))
    # the first pair sits left of its k, the second right of it; "all" is x = 3
    assert np.allclose(points[0][:, 0], [-0.075, -0.075, 0.925, 0.925, 2.925])
    assert np.allclose(points[1][:, 0], [0.075, 0.075, 1.075, 1.075, 3.075])
    (line,) = [ln for ln in right.get_lines() if ln.get_marker() == "o"]
    np.testing.assert_allclose(line.get_xdata(), [1, 2, 3])
    np.testing.assert_allclose(line.get_ydata(), model["estimate"])
    assert "ROPE ±0.02" in [t.get_text() for t in right.get_legend().get_texts()]
    plt.close(fig)
    with pytest.raises(ValueError, match=r"model lacks columns \['upper'\]"):
        plot_template_sensitivity(seat, model.drop(columns="upper"))
