"""Generalized fairness metrics (Czarnowska et al. 2021): golden values, hand cases.

The golden values (group FPRs .1/.2/.4, 10 negatives per group) are the DESIGN §7 check
derived from the paper's definitions (§3, Table 2); every other expected number is
computed by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from embias.classifier import (
    PRESETS,
    bcm,
    fairness_metric,
    mcm,
    pcm,
    template_significance,
    vbcm,
)
from embias.report import validate_interval_table


@pytest.fixture
def fpr_data():
    """Three groups of 10 negatives with 1, 2 and 4 false positives: FPR .1, .2, .4."""
    group = np.repeat(["a", "b", "c"], 10)
    y_true = np.zeros(30, int)
    y_pred = np.zeros(30, int)
    y_pred[[0, 10, 11, 20, 21, 22, 23]] = 1
    return y_true, y_pred, group


# --------------------------------------------------------------------------------------
# the golden values
# --------------------------------------------------------------------------------------


def test_golden_vbcm_background_all(fpr_data):
    # overall FPR 7/30 = .2333: |.1 − .2333|, |.2 − .2333|, |.4 − .2333|
    res = vbcm(*fpr_data, score="fpr", background="all")
    assert res.vector() == pytest.approx([0.1333, 0.0333, 0.1667], abs=5e-5)
    assert res.scores["score"].tolist() == pytest.approx([0.1, 0.2, 0.4])


def test_golden_fped_and_fixed_fped(fpr_data):
    assert fairness_metric("fped", *fpr_data).value() == pytest.approx(0.3333, abs=5e-5)
    assert fairness_metric("fixed_fped", *fpr_data).value() == pytest.approx(0.1111, abs=5e-5)


def test_golden_fpr_ratio_background_rest(fpr_data):
    # backgrounds S∖Sᵗ: 6/20, 5/20, 3/20 ⇒ .1/.3, .2/.25, .4/.15
    res = fairness_metric("fpr_ratio", *fpr_data)
    assert res.vector() == pytest.approx([0.333, 0.8, 2.667], abs=5e-4)
    assert res.vector() == pytest.approx([1 / 3, 0.8, 8 / 3], rel=1e-12)


def test_golden_pcm_and_mcm(fpr_data):
    # pairs |.1−.2| + |.1−.4| + |.2−.4| = .6 over 3 pairs
    res = pcm(*fpr_data, score="fpr")
    assert res.value() == pytest.approx(0.2, abs=1e-12)
    assert res.vector() == pytest.approx([0.1, 0.3, 0.2])
    assert mcm(*fpr_data, score="fpr", comparison="range").value() == pytest.approx(0.3)
    # population sd of (.1, .2, .4) = √(.04667/3)
    assert mcm(*fpr_data, score="fpr", comparison="std").value() == pytest.approx(0.1247,
                                                                                 abs=5e-5)


def test_result_table_layout(fpr_data):
    res = pcm(*fpr_data, score="fpr", name="fpr_gap")
    validate_interval_table(res.table)
    assert set(res.table["ci_kind"]) == {"none"}
    levels = res.table.groupby("level").size().to_dict()
    assert levels == {"aggregate": 1, "group": 3, "pair": 3}
    # per-group PCM term = mean of the pairs involving the group: a → (.1 + .3)/2
    per_group = res.table[res.table["level"] == "group"].set_index("group")["estimate"]
    assert per_group.to_dict() == pytest.approx({"a": 0.2, "b": 0.15, "c": 0.25})
    assert res.table[res.table["level"] == "pair"]["group"].tolist() == [
        "a vs b", "a vs c", "b vs c"]


def test_metrics_do_not_depend_on_row_order_or_group_names(fpr_data):
    y_true, y_pred, group = fpr_data
    perm = np.random.default_rng(0).permutation(group.size)
    renamed = np.array([{"a": "z", "b": "y", "c": "x"}[g] for g in group])
    for metric in ("fped", "tpr_gap", "parity_gap", "fixed_fped"):
        if metric == "tpr_gap":
            args = (1 - y_true, 1 - y_pred)  # every example positive: TPR = 1 − FPR above
        else:
            args = (y_true, y_pred)
        base = fairness_metric(metric, *args, group).value()
        shuffled = fairness_metric(metric, *(a[perm] for a in args), group[perm]).value()
        relabelled = fairness_metric(metric, *args, renamed).value()
        assert shuffled == pytest.approx(base) and relabelled == pytest.approx(base), metric


def test_vbcm_has_no_scalar_value_and_mcm_no_vector(fpr_data):
    with pytest.raises(ValueError, match="vector-valued"):
        vbcm(*fpr_data, score="fpr").value()
    with pytest.raises(ValueError, match="MCM"):
        mcm(*fpr_data, score="fpr").vector()


# --------------------------------------------------------------------------------------
# other presets, by hand
# --------------------------------------------------------------------------------------


@pytest.fixture
def small():
    """Two-class data, three groups; hand-computed rates in the tests."""
    # group a: y 1 1 0 0, ŷ 1 0 0 1  → TPR .5, TNR .5, F1 2·1/(2+1+1) = .5, PR .5
    # group b: y 1 1 0 0, ŷ 1 1 0 0  → TPR 1,  TNR 1,  F1 1,               PR .5
    # group c: y 1 1 0 0, ŷ 0 0 1 0  → TPR 0,  TNR .5, F1 0,               PR .25
    y_true = np.array([1, 1, 0, 0] * 3)
    y_pred = np.array([1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0])
    group = np.repeat(["a", "b", "c"], 4)
    return y_true, y_pred, group


def test_gap_presets_by_hand(small):
    # TPR .5, 1, 0: pairs .5, .5, 1 → 2/3
    assert fairness_metric("tpr_gap", *small).value() == pytest.approx(2 / 3)
    # TNR .5, 1, .5: pairs .5, 0, .5 → 1/3
    assert fairness_metric("tnr_gap", *small).value() == pytest.approx(1 / 3)
    # positive rate .5, .5, .25: pairs 0, .25, .25 → 1/6
    assert fairness_metric("parity_gap", *small).value() == pytest.approx(1 / 6)
    # F1 .5, 1, 0: pairs .5, .5, 1 (sum 2): published N = |T| → 2/3; fixed N = pairs → 2/3
    assert fairness_metric("disparity_score", *small).value() == pytest.approx(2 / 3)
    assert fairness_metric("fixed_disparity_score", *small).value() == pytest.approx(2 / 3)
    # FNR 1 − TPR: .5, 0, 1; overall FNR 3/6 = .5 → |0| + |.5| + |.5| = 1
    assert fairness_metric("fned", *small).value() == pytest.approx(1.0)
    assert fairness_metric("fixed_fned", *small).value() == pytest.approx(1 / 3)


def test_disparity_score_normalisations_differ_with_four_groups():
    # four groups, F1 1, 1, 0, 0: |differences| sum 4 (four pairs of 1)
    y_true = np.ones(8, int)
    y_pred = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    group = np.repeat(["a", "b", "c", "d"], 2)
    assert fairness_metric("disparity_score", y_true, y_pred, group).value() == 1.0  # 4/|T|
    assert fairness_metric("fixed_disparity_score", y_true, y_pred,
                           group).value() == pytest.approx(4 / 6)


def test_two_group_presets(small):
    y_true, y_pred, group = small
    keep = group != "c"
    args = (y_true[keep], y_pred[keep], group[keep])
    # accuracy a .5, b 1 → a − b = −.5 ; F1 ratio .5 / 1
    assert fairness_metric("accuracy_difference", *args).value() == pytest.approx(-0.5)
    assert fairness_metric("f1_ratio", *args).value() == pytest.approx(0.5)
    assert fairness_metric("tpr_difference", *args).value() == pytest.approx(-0.5)
    with pytest.raises(ValueError, match=r"'accuracy_difference' compares exactly two groups, "
                                         r"got 3"):
        fairness_metric("accuracy_difference", *small)


def test_average_equality_gap_by_hand():
    # Positive AvgEG for group g: target {f(x,1) | g, y=1} = {.9, .8},
    # reference (rest, y=1) = {.5, .85, .9}: reference > target in 2 pairs, 1 tie
    # ⇒ U = 2.5, AEG = .5 − 2.5/6 = 1/12. For h: target {.5, .85, .9} vs {.9, .8}: U = 3.5
    # ⇒ .5 − 3.5/6 = −1/12.
    group = np.array(["g", "g", "h", "h", "h", "g", "h"])
    y_true = np.array([1, 1, 1, 1, 1, 0, 0])
    probs = np.array([0.9, 0.8, 0.5, 0.85, 0.9, 0.3, 0.1])
    res = fairness_metric("pos_avg_eg", y_true, None, group, probs=probs)
    assert res.vector() == pytest.approx([1 / 12, -1 / 12])
    # Negative AvgEG: {f(x,1) | y = 0}: g {.3} vs h {.1}: U = 0 ⇒ .5; h: U = 1 ⇒ −.5
    neg = fairness_metric("neg_avg_eg", y_true, None, group, probs=probs)
    assert neg.vector() == pytest.approx([0.5, -0.5])


def test_average_group_fairness_wasserstein_by_hand():
    # scores: a {0, 1}, b {.5, .5}; all {0, .5, .5, 1}. W1(a, all) = .25, W1(b, all) = .25
    # → (.25 + .25)/|T| = .25
    group = np.array(["a", "a", "b", "b"])
    probs = np.array([0.0, 1.0, 0.5, 0.5])
    res = fairness_metric("avg_group_fairness", None, None, group, probs=probs)
    assert res.vector() == pytest.approx([0.25, 0.25])
    assert res.value() == pytest.approx(0.25)


def test_multiclass_one_vs_rest():
    # 3 classes; group a predicts perfectly, group b confuses class 2 with class 0
    y_true = np.array([0, 1, 2, 0, 1, 2])
    y_pred = np.array([0, 1, 2, 0, 1, 0])
    group = np.array(["a", "a", "a", "b", "b", "b"])
    res = pcm(y_true, y_pred, group, score="tpr")
    assert res.classes == (0, 1, 2)
    # TPR per class: class 0: a 1, b 1; class 1: 1, 1; class 2: a 1, b 0
    assert [res.value(c) for c in (0, 1, 2)] == pytest.approx([0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"pass cls= to choose one"):
        res.value()
    # FPR of class 0 (one-vs-rest): b predicts 0 for a class-2 example → 1/2 ; a → 0
    only0 = pcm(y_true, y_pred, group, score="fpr", positive=0)
    assert only0.value() == pytest.approx(0.5)
    # accuracy does not depend on the class: a 1, b 2/3
    acc = pcm(y_true, y_pred, group, score="accuracy")
    assert acc.classes == ("all",) and acc.value() == pytest.approx(1 / 3)


# --------------------------------------------------------------------------------------
# counterfactual versions
# --------------------------------------------------------------------------------------


@pytest.fixture
def templates():
    """Two templates × three groups × one variant, with P(class 1) per sentence."""
    source = np.array(["t1", "t1", "t1", "t2", "t2", "t2"])
    group = np.array(["a", "b", "c"] * 2)
    p1 = np.array([0.9, 0.7, 0.6, 0.2, 0.2, 0.5])
    y_true = np.array([1, 1, 1, 0, 0, 0])
    return y_true, group, source, p1


def test_counterfactual_metrics_by_hand(templates):
    y_true, group, source, p1 = templates
    # CFGap (PCM over pairs, |Δ P(class 1)|): t1 (.2 + .3 + .1)/3 = .2, t2 (0 + .3 + .3)/3 = .2
    res = fairness_metric("cf_gap", y_true, None, group, probs=p1, source=source)
    assert res.value() == pytest.approx(0.2)
    assert res.version == "counterfactual" and res.n_sources == 2
    # PertSR on the gold-class probability: t1 {.9,.7,.6} range .3; t2 gold 0 → {.8,.8,.5}
    # range .3 ⇒ .3
    sr = fairness_metric("pert_score_range", y_true, None, group, probs=p1, source=source)
    assert sr.value() == pytest.approx(0.3)
    # PertSD: sd{.9,.7,.6} = √(.0467/3) = .12472; sd{.8,.8,.5} = √(.06/3) = .14142
    sd = fairness_metric("pert_score_deviation", y_true, None, group, probs=p1, source=source)
    assert sd.value() == pytest.approx((math.sqrt(0.14 / 9) + math.sqrt(0.02)) / 2)
    # PertSS: PCM |Δ| of the gold-class probability: t1 .2, t2 (0 + .3 + .3)/3 = .2 ⇒ .2
    ss = fairness_metric("pert_score_sensitivity", y_true, None, group, probs=p1,
                         source=source)
    assert ss.value() == pytest.approx(0.2)


def test_counterfactual_with_several_identity_terms():
    # one template, two groups, two variants each: W1({.1,.3}, {.2,.6}) = (.1 + .3)/2 = .2
    source = np.array(["t"] * 4)
    group = np.array(["f", "f", "m", "m"])
    p1 = np.array([0.1, 0.3, 0.2, 0.6])
    res = fairness_metric("avg_individual_fairness", None, None, group, probs=p1,
                          source=source)
    assert res.value() == pytest.approx(0.2)
    # scalar comparisons use the mean over identity terms: f − m = .2 − .4
    diff = fairness_metric("avg_score_difference", None, None, group, probs=p1,
                           source=source)
    assert diff.value() == pytest.approx(-0.2)


def test_counterfactual_needs_every_group_in_every_source(templates):
    y_true, group, source, p1 = templates
    with pytest.raises(ValueError, match=r"group 'c' has no examples in source 't2'"):
        fairness_metric("cf_gap", y_true[:-1], None, group[:-1], probs=p1[:-1],
                        source=source[:-1])
    with pytest.raises(ValueError, match=r"'cf_gap' is a counterfactual metric: pass source="):
        fairness_metric("cf_gap", y_true, None, group, probs=p1)
    with pytest.raises(ValueError, match=r"'fped' is a group metric; source= is not used"):
        fairness_metric("fped", y_true, y_true, group, source=source)


# --------------------------------------------------------------------------------------
# significance tests for templated data
# --------------------------------------------------------------------------------------


def test_friedman_by_hand():
    # 3 templates × 3 groups, every template ranks the groups 1, 2, 3:
    # χ² = 12/(n k (k+1)) Σ R² − 3 n (k+1) = 12/36 · (9 + 36 + 81) − 36 = 6; p = e^{−3}
    source = np.repeat(["t1", "t2", "t3"], 3)
    group = np.array(["a", "b", "c"] * 3)
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.2, 0.3, 0.9])
    res = template_significance(values, group, source)
    assert res.test == "friedman"
    assert res.statistic == pytest.approx(6.0)
    assert res.p_value == pytest.approx(math.exp(-3))


def test_wilcoxon_by_hand_with_identity_term_averaging():
    # 6 templates, group f always higher (after averaging two identity terms per group):
    # exact two-sided signed-rank p = 2 / 2⁶ = .03125
    source = np.repeat([f"t{i}" for i in range(6)], 4)
    group = np.tile(["f", "f", "m", "m"], 6)
    base = np.repeat(np.arange(6) / 10, 4)
    values = base + np.tile([0.5, 0.7, 0.1, 0.2], 6) * np.repeat(np.arange(1, 7), 4) / 6
    res = template_significance(values, group, source)
    assert res.test == "wilcoxon"
    assert res.p_value == pytest.approx(2 / 64)
    assert res.scores.shape == (6, 3)  # source + one column per group


def test_significance_errors():
    with pytest.raises(ValueError, match=r"source 't2' has no example of group 'b'"):
        template_significance([0.1, 0.2, 0.3], ["a", "b", "a"], ["t1", "t1", "t2"])
    with pytest.raises(ValueError, match="all paired differences are 0"):
        template_significance([0.1, 0.1, 0.3, 0.3], ["a", "b"] * 2, ["t1", "t1", "t2", "t2"])


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def test_undefined_scores_name_the_group(fpr_data):
    y_true, y_pred, group = fpr_data
    y_true = y_true.copy()
    y_true[20:30] = 1  # group c has no negatives: FPR undefined
    with pytest.raises(ValueError, match=r"score 'fpr' is undefined for group 'c', class 1: "
                                         r"no negatives"):
        pcm(y_true, y_pred, group, score="fpr")


def test_ratio_with_zero_reference_is_an_error(fpr_data):
    y_true, y_pred, group = fpr_data
    y_pred = np.zeros_like(y_pred)
    y_pred[0] = 1  # only group a has a false positive: background of a is 0
    with pytest.raises(ValueError, match=r"comparison 'ratio' is undefined for group 'a' vs "
                                         r"its background: ratio with a reference score of 0"):
        fairness_metric("fpr_ratio", y_true, y_pred, group)


def test_bad_parameters(fpr_data):
    with pytest.raises(ValueError, match=r"score='auc' is not one of"):
        pcm(*fpr_data, score="auc")
    with pytest.raises(ValueError, match=r"comparison='kl' is not one of"):
        pcm(*fpr_data, score="fpr", comparison="kl")
    with pytest.raises(ValueError, match=r"MCM needs a multi-group comparison"):
        mcm(*fpr_data, score="fpr", comparison="abs_diff")
    with pytest.raises(ValueError, match=r"background must be 'all' \(β = S\) or 'rest'"):
        bcm(*fpr_data, score="fpr", background="others")
    with pytest.raises(ValueError, match=r"normalization must be one of"):
        bcm(*fpr_data, score="fpr", normalization="pairz")
    with pytest.raises(ValueError, match=r"comparison 'wasserstein' compares sets of scores"):
        pcm(*fpr_data, score="fpr", comparison="wasserstein")
    with pytest.raises(ValueError, match=r"score 'prob' needs probs"):
        pcm(None, None, fpr_data[2], score="prob")
    with pytest.raises(ValueError, match=r"unknown metric 'fpedd'"):
        fairness_metric("fpedd", *fpr_data)
    with pytest.raises(ValueError, match=r"need at least two protected groups"):
        pcm(fpr_data[0][:10], fpr_data[1][:10], fpr_data[2][:10], score="fpr")
    with pytest.raises(ValueError, match=r"probs must lie in \[0, 1\]; got 1\.5 at row 0"):
        pcm(None, None, ["a", "b"], score="prob", probs=[1.5, 0.2])
    with pytest.raises(ValueError, match=r"y_pred must be one-dimensional with 30 values"):
        pcm(fpr_data[0], fpr_data[1][:5], fpr_data[2], score="fpr")


def test_every_preset_is_well_formed():
    for name, spec in PRESETS.items():
        assert spec.kind in ("pcm", "bcm", "vbcm", "mcm"), name
        assert spec.description, name
