"""The shared reporting layer: interval tables, markdown, forest plots."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embias.plots import plot_forest
from embias.report import (
    DECISIONS,
    interval_table,
    rope_decision,
    stack_interval_tables,
    to_markdown,
    validate_interval_table,
)


def rows():
    return [
        {"estimand": "connection_mean", "group": "associated", "estimate": 0.832,
         "lower": 0.761, "upper": 0.902},
        {"estimand": "connection_mean", "group": "none", "estimate": 0.954,
         "lower": 0.938, "upper": 0.971, "prob_gt_0": 1.0},
    ]


def test_interval_table_sets_kind_and_prob():
    t = interval_table(rows(), ci_prob=0.89, ci_kind="hdi")
    assert list(t.columns) == ["estimand", "group", "estimate", "lower", "upper", "ci_prob",
                               "ci_kind", "prob_gt_0"]
    assert (t.ci_kind == "hdi").all() and (t.ci_prob == 0.89).all()
    assert np.isnan(t.prob_gt_0.iloc[0]) and t.prob_gt_0.iloc[1] == 1.0


def test_interval_table_errors():
    with pytest.raises(ValueError, match=r"ci_kind='hpd' is not one of"):
        interval_table(rows(), ci_prob=0.89, ci_kind="hpd")
    with pytest.raises(ValueError, match=r"ci_prob must be in \(0, 1\), got 89"):
        interval_table(rows(), ci_prob=89, ci_kind="hdi")
    bad = rows()
    bad[0]["ci_kind"] = "eti"
    with pytest.raises(ValueError, match=r"interval row 0 sets 'ci_kind'; it is set by "
                                         r"interval_table\(\)"):
        interval_table(bad, ci_prob=0.89, ci_kind="hdi")
    bad = rows()
    bad[1]["lower"] = 0.99
    with pytest.raises(ValueError, match=r"interval row 1 \('connection_mean', 'none'\) has "
                                         r"lower=0.99 > upper=0.971"):
        interval_table(bad, ci_prob=0.89, ci_kind="hdi")
    with pytest.raises(ValueError, match=r"interval row 0 lacks \['upper'\]"):
        interval_table([{"estimand": "e", "group": "g", "estimate": 1, "lower": 0}],
                       ci_prob=0.9, ci_kind="hdi")
    with pytest.raises(ValueError, match=r"the interval table lacks columns \['ci_kind'\]; an "
                                         r"interval table \(to_interval_table\(\)\) has"):
        validate_interval_table(pd.DataFrame(rows()).assign(ci_prob=0.9))


def test_missing_columns_are_named_in_the_order_read():
    """One message for every table a function reads (embias._validation.check_columns):
    the absent columns in the order given, what to pass instead, what the table has."""
    from embias._validation import check_columns

    frame = pd.DataFrame({"b": [1], "x": [2]})
    check_columns(frame, ("x", "b"), name="t")  # all present: nothing raised
    with pytest.raises(ValueError) as info:
        check_columns(frame, ("c", "b", "a"), name="markers")
    assert str(info.value) == ("markers lacks columns ['c', 'a']; it needs ['c', 'b', 'a'] "
                               "(it has ['b', 'x'])")
    with pytest.raises(ValueError) as info:
        check_columns(frame, ("a",), name="refits", hint="pass refit_published_tables()'s result")
    assert str(info.value) == ("refits lacks columns ['a']; pass refit_published_tables()'s "
                               "result (it has ['b', 'x'])")


def test_to_markdown_exact_text():
    t = interval_table(rows()[:1], ci_prob=0.89, ci_kind="hdi")
    assert to_markdown(t, digits=2) == (
        "| estimand        | group      | estimate | lower | upper | ci_prob | ci_kind |\n"
        "|:----------------|:-----------|---------:|------:|------:|--------:|:--------|\n"
        "| connection_mean | associated |     0.83 |  0.76 |  0.90 |    0.89 | hdi     |"
    )


def test_combine_and_forest_plot():
    a = interval_table(rows(), ci_prob=0.89, ci_kind="hdi")
    b = a.assign(estimate=a.estimate + 0.05, lower=a.lower + 0.05, upper=a.upper + 0.05)
    both = stack_interval_tables({"biased": a, "hard": b})
    assert list(both.columns[:3]) == ["estimand", "group", "embedding"]
    assert both.embedding.tolist() == ["biased", "biased", "hard", "hard"]
    markers = pd.DataFrame({"estimand": ["connection_mean"], "group": ["associated"],
                            "value": [0.86], "label": ["MAC"]})
    fig = plot_forest(both, by="embedding", markers=markers, title="religion")
    ax = fig.axes[0]
    assert ax.get_title() == "religion (89% HDI)"
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "connection_mean: associated", "connection_mean: none"]
    # one interval segment per (row, embedding): 2 rows × 2 embeddings
    assert sum(len(c.get_segments()) for c in ax.collections) == 4
    # the series, then the marker (hollow diamond, in the legend instead of a text label)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["biased", "hard", "MAC"]
    with pytest.raises(ValueError, match=r"by='model' is not a column"):
        plot_forest(both, by="model")
    with pytest.raises(ValueError, match=r"estimands \['x'\] not in the table"):
        plot_forest(both, estimands=["x"])


def test_forest_title_with_point_estimates_only():
    points = interval_table(
        [{"estimand": "mac", "group": g, "estimate": v, "lower": np.nan, "upper": np.nan}
         for g, v in (("a", 0.8), ("b", 0.9), ("c", 0.7))],
        ci_prob=None, ci_kind="none")
    mixed = pd.concat([points, interval_table(rows(), ci_prob=0.89, ci_kind="hdi")])
    # a point estimate is named as one, never as "(none)"
    assert plot_forest(points).axes[0].get_title() == "point estimates"
    assert plot_forest(mixed, title="t").axes[0].get_title() == "t (89% HDI, point estimates)"


def test_stack_a_sequence_fills_text_gaps_and_keeps_numbers():
    a = interval_table(rows(), ci_prob=0.89, ci_kind="hdi")
    b = interval_table([{"estimand": "mac", "group": "all", "estimate": 0.86, "lower": 0.84,
                         "upper": 0.88, "embedding": "reddit"}], ci_prob=0.95, ci_kind="t")
    both = stack_interval_tables([a, b])
    assert both["embedding"].tolist() == ["", "", "reddit"]
    assert np.isnan(both["prob_gt_0"].iloc[2]) and both["prob_gt_0"].iloc[1] == 1.0
    assert both["ci_kind"].tolist() == ["hdi", "hdi", "t"]
    with pytest.raises(ValueError, match="needs at least one table"):
        stack_interval_tables([])


def test_one_decision_vocabulary_none_of_it_a_connection_name():
    from embias.tables import CONNECTIONS

    assert DECISIONS == ("credible difference", "practically equivalent", "undecided")
    assert not set(DECISIONS) & set(CONNECTIONS)
    # hand cases against ROPE [−0.02, 0.02]: outside, inside, straddling, touching
    assert rope_decision([0.03, -0.02, -0.05, 0.02], [0.1, 0.02, 0.01, 0.3], 0.02).tolist() == [
        "credible difference", "practically equivalent", "undecided", "undecided"]
    # ROPE 0 (BBU): an interval excluding 0 is a credible difference, otherwise undecided
    assert rope_decision([-0.2, 0.01], [0.1, 0.2], 0.0).tolist() == ["undecided",
                                                                    "credible difference"]
    with pytest.raises(ValueError, match="rope must be a non-negative half-width, got -1"):
        rope_decision(0.0, 1.0, -1)


def test_every_result_has_to_interval_table():
    # one name for "the interval table of this result" across embias (summary() kept as
    # an alias where it reads naturally)
    import inspect

    from embias.bayes import BiasFit, ChangeFit
    from embias.classic import MacResult, WeatResult
    from embias.classifier.generalized import FairnessResult
    from embias.classifier.parity import ParityPosterior
    from embias.pipeline import EmbeddingComparison
    from embias.simulate import WeatSimulation

    for cls in (BiasFit, ChangeFit, EmbeddingComparison, MacResult, WeatResult,
                FairnessResult, ParityPosterior, WeatSimulation):
        assert inspect.isfunction(cls.to_interval_table), cls.__name__
    for cls in (BiasFit, ChangeFit, EmbeddingComparison, WeatSimulation):
        assert cls.summary is cls.to_interval_table, cls.__name__
    from embias.classifier import parity_posterior

    post = parity_posterior(20, 100, 30, 100)
    table = post.to_interval_table(ci_prob=0.95)
    assert table["estimate"].iloc[0] == pytest.approx(31 / 102 - 21 / 102, abs=1e-12)
    assert table["ci_kind"].iloc[0] == "hdi"


def test_ci_kinds_are_intervals_for_the_estimate():
    # A permutation null's quantiles are not an interval for the estimate: the kind is gone, and an
    # old table that uses it is refused with the reason.
    from embias.report import CI_KINDS

    assert "permutation" not in CI_KINDS
    assert all("null" not in meaning for meaning in CI_KINDS.values())
    with pytest.raises(ValueError, match=r"ci_kind='permutation' is not one of"):
        interval_table(rows(), ci_prob=0.95, ci_kind="permutation")
    old = interval_table(rows(), ci_prob=0.95, ci_kind="t").assign(ci_kind="permutation")
    with pytest.raises(ValueError) as info:
        validate_interval_table(old)
    assert "'permutation'" in str(info.value)
    assert "null_lower" in str(info.value)  # says where those numbers belong now
