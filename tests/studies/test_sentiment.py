"""The downstream sentiment study: logistic regression, VADER + GloVe classifier, identity
sentences, and group fairness on original vs hard-debiased GloVe.

Known answers: the logistic regression's closed-form MLE on a binary feature, a grid
minimum of the penalised log-loss written out here, finite-difference gradients; the
hard-debiasing geometry (equalized words differ only inside the bias subspace, which a
classifier trained on neutralized words cannot see); parity posteriors and BBU rows
recomputed from the sentence counts.
"""

from __future__ import annotations

import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import special

from embias.classifier import (
    DEFAULT_STOP_WORDS,
    DEFAULT_TEMPLATES,
    DownstreamResult,
    LogisticFit,
    demographic_parity,
    downstream_fairness,
    fit_logistic,
    identity_sentences,
    logistic_objective,
    parity_posterior,
    plot_downstream,
    plot_sentence_scores,
    score_sentences,
    sentiment_classifier,
    vader_lexicon,
)
from embias.debias import hard_debias
from embias.embeddings import MissingWords
from embias.report import validate_interval_table
from embias.wordlists import Study, load_study

# --------------------------------------------------------------------------------------
# logistic regression
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_gradient_matches_central_differences(fit_intercept):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 5)) * 3.0  # logits up to ~±20: the stable branch is exercised
    y = (rng.uniform(size=40) < 0.5).astype(float)
    params = rng.normal(size=5 + int(fit_intercept))
    _, grad = logistic_objective(params, x, y, l2=0.3, fit_intercept=fit_intercept)
    h = 1e-6
    numeric = np.array([
        (logistic_objective(params + h * e, x, y, l2=0.3, fit_intercept=fit_intercept)[0]
         - logistic_objective(params - h * e, x, y, l2=0.3, fit_intercept=fit_intercept)[0])
        / (2 * h)
        for e in np.eye(params.size)
    ])
    # central differences: error O(h²·f''') + rounding O(eps/h) ≈ 1e-9
    np.testing.assert_allclose(grad, numeric, rtol=0, atol=1e-8)


def test_objective_is_finite_for_huge_logits():
    x = np.array([[1000.0], [-1000.0]])
    value, grad = logistic_objective(np.array([1.0, 0.0]), x, np.array([0.0, 1.0]), l2=0.0)
    # each example is wrong by a logit of 1000: loss 1000 each, exactly representable
    assert value == pytest.approx(1000.0, rel=1e-12)
    np.testing.assert_allclose(grad, [1000.0, 0.0], atol=1e-12)


def test_unpenalised_fit_on_a_binary_feature_is_the_closed_form_mle():
    # x = 0: 3 of 10 positive; x = 1: 7 of 10. The saturated model's MLE is
    # b = logit(0.3), w = logit(0.7) − logit(0.3) (the two cell log-odds).
    x = np.repeat([0.0, 1.0], 10)[:, None]
    y = np.concatenate([np.r_[np.ones(3), np.zeros(7)], np.r_[np.ones(7), np.zeros(3)]])
    fit = fit_logistic(x, y, l2=0.0)
    assert fit.converged
    assert fit.intercept == pytest.approx(special.logit(0.3), abs=1e-6)
    assert fit.coef[0] == pytest.approx(special.logit(0.7) - special.logit(0.3), abs=1e-6)
    np.testing.assert_allclose(fit.predict_proba([[0.0], [1.0]]), [0.3, 0.7], atol=1e-7)


def test_penalised_fit_on_separable_data_matches_a_grid_minimum():
    # separable 1-D data with an intercept: only the penalty keeps w finite
    x = np.array([-2.0, -1.0, -0.5, 0.5, 1.5, 3.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    l2 = 0.2
    ws = np.linspace(0.0, 6.0, 1201)  # step 0.005
    bs = np.linspace(-3.0, 3.0, 1201)
    w, b = np.meshgrid(ws, bs, indexing="ij")
    z = w[..., None] * x + b[..., None]
    grid = np.mean(np.log1p(np.exp(z)) - y * z, axis=-1) + 0.5 * l2 * w**2
    i, j = np.unravel_index(np.argmin(grid), grid.shape)
    fit = fit_logistic(x[:, None], y, l2=l2)
    assert fit.converged
    assert fit.coef[0] == pytest.approx(ws[i], abs=0.005)
    assert fit.intercept == pytest.approx(bs[j], abs=0.005)
    assert fit.objective <= grid.min() + 1e-12  # never worse than the best grid point


def test_penalised_fit_without_intercept_solves_the_stationarity_equation():
    # x = ±1, y = 1/0: mean loss log(1 + e^{−w}); stationarity l2·w = σ(−w)
    from scipy.optimize import brentq

    l2 = 0.5
    w_star = brentq(lambda w: l2 * w - special.expit(-w), 0.0, 10.0, xtol=1e-14)
    fit = fit_logistic([[1.0], [-1.0]], [1, 0], l2=l2, fit_intercept=False)
    assert fit.intercept == 0.0
    assert fit.coef[0] == pytest.approx(w_star, abs=1e-8)
    assert fit.predict([[1.0], [-1.0]]).tolist() == [1, 0]


@pytest.mark.parametrize(
    ("x", "y", "kwargs", "match"),
    [
        ([[0.0], [1.0]], [1, 1], {}, "only the label"),
        ([[0.0], [1.0]], [0, 2], {}, "0/1 labels"),
        ([[0.0], [np.nan]], [0, 1], {}, "row 1"),
        ([0.0, 1.0], [0, 1], {}, "two-dimensional"),
        ([[0.0], [1.0]], [0, 1, 1], {}, "labels \\(one per row"),
        ([[0.0], [1.0]], [0, 1], {"l2": -1.0}, "l2"),
    ],
)
def test_fit_logistic_rejects_bad_input(x, y, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_logistic(x, y, **kwargs)


# --------------------------------------------------------------------------------------
# the VADER lexicon and the sentiment classifier
# --------------------------------------------------------------------------------------


def test_vader_lexicon_is_read_in_full():
    lex = vader_lexicon()
    assert list(lex.columns) == ["word", "rating", "sd"]
    assert len(lex) == 7520  # non-empty lines of vader_lexicon.txt (vaderSentiment 3.3.2)
    by_word = lex.drop_duplicates("word", keep="last").set_index("word")["rating"]
    # values as printed in the file
    assert by_word["good"] == 1.9
    assert by_word["bad"] == -2.5
    assert by_word["love"] == 3.2
    assert (lex["word"] == "lol").sum() == 2  # listed twice in the file


def test_vader_lexicon_rejects_a_malformed_file(tmp_path):
    bad = tmp_path / "lex.txt"
    bad.write_text("good\t1.9\t0.5\t[2]\nbad\tminus\t0.1\t[]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        vader_lexicon(bad)


@pytest.fixture(scope="module")
def glove_classifier(glove):
    return sentiment_classifier(glove)


def test_sentiment_classifier_held_out_accuracy_on_glove_vader(glove_classifier):
    clf = glove_classifier
    # measured: 0.852 (seed 0, margin 1, l2 0.01; 0.852–0.862 for l2 in [0, 0.1])
    assert clf.accuracy >= 0.83
    assert clf.accuracy <= 0.88  # a jump would mean a leak, e.g. test words in training
    assert clf.accuracy > clf.baseline_accuracy + 0.25  # majority class: 0.564
    assert clf.model.converged
    # every lexicon entry is accounted for: merged, neutral, missing or used
    assert clf.n_lexicon == 7520
    assert (clf.n_lexicon - clf.n_duplicates
            == clf.n_neutral + clf.n_missing + clf.n_positive + clf.n_negative)
    assert clf.n_missing > 1000  # emoticons, slang and rare derivations; listed, not dropped
    assert "(-:" in clf.missing
    assert ":)" not in clf.missing  # GloVe has this emoticon
    assert clf.n_train + clf.n_test == clf.n_positive + clf.n_negative
    assert clf.n_test == pytest.approx(0.2 * (clf.n_positive + clf.n_negative), abs=1)
    test = clf.words[clf.words["split"] == "test"]
    assert np.mean((test["score"] > 0.5) == (test["label"] == 1)) == clf.accuracy


def test_sentiment_classifier_is_seeded(glove, glove_classifier):
    again = sentiment_classifier(glove)
    assert again.accuracy == glove_classifier.accuracy
    np.testing.assert_array_equal(again.model.coef, glove_classifier.model.coef)
    other = sentiment_classifier(glove, random_state=1)
    assert not other.words["split"].equals(glove_classifier.words["split"])
    assert abs(other.accuracy - glove_classifier.accuracy) < 0.03


@pytest.fixture
def toy_kv(make_kv):
    return make_kv({
        "good": [2.0, 0.1], "great": [1.5, -0.2], "nice": [1.0, 0.3],
        "bad": [-2.0, 0.2], "awful": [-1.5, -0.1], "poor": [-1.0, 0.0],
        "people": [0.3, 1.0], "here": [0.1, -1.0], "met": [0.0, 0.5],
        "alpha": [0.4, 0.0], "beta": [-0.4, 0.0], "gamma": [0.2, 0.2],
    })


TOY_LEXICON = {"good": 2.0, "Good": 1.0, "great": 3.0, "nice": 1.5, "superb": 3.0,
               "bad": -2.5, "awful": -3.0, "poor": -1.5, "meh": 0.2, "alpha": 1.0}


def test_sentiment_classifier_reports_missing_merged_neutral_and_excluded(toy_kv):
    clf = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, exclude=["ALPHA"],
                               test_size=0.34)
    assert clf.missing == ("superb",)
    assert clf.n_duplicates == 1  # "Good" and "good" merged: mean rating 1.5
    assert clf.words.set_index("word").loc["good", "rating"] == 1.5
    assert clf.n_neutral == 1  # "meh"
    assert clf.excluded == ("alpha",)
    assert (clf.n_positive, clf.n_negative) == (3, 3)
    assert (clf.n_train, clf.n_test) == (4, 2)  # round(0.34 · 3) = 1 test word per class


@pytest.mark.parametrize(
    ("lexicon", "match"),
    [
        ({}, "lexicon is empty"),
        (pd.DataFrame({"word": [], "rating": []}), "lexicon is empty"),
        ({"good": 2.0, "great": 1.0}, "no negative words"),
        ({"good": 2.0, "bad": "very"}, "rating of 'bad'"),
        (pd.DataFrame({"token": ["good"]}), "'word' and 'rating'"),
        (["good"], "mapping word"),
        ({"good": 2.0, "great": 2.0, "bad": -2.0, "unknownword": -2.0}, "only 1 negative"),
    ],
)
def test_sentiment_classifier_rejects_bad_lexicons(toy_kv, lexicon, match):
    with pytest.raises(ValueError, match=match):
        sentiment_classifier(toy_kv, lexicon=lexicon)


# --------------------------------------------------------------------------------------
# identity sentences and scores
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["religion", "race", "gender"])
def test_identity_sentences_are_templates_times_words(name):
    study = load_study(name)
    sents = identity_sentences(name)
    n_words = {c: len(w) for c, w in study.protected.items()}
    assert len(sents) == len(DEFAULT_TEMPLATES) * sum(n_words.values())
    assert sents.groupby("class").size().to_dict() == {
        c: len(DEFAULT_TEMPLATES) * k for c, k in n_words.items()}
    # every (word, template) exactly once, and the sentence is the filled template
    assert not sents.duplicated(["word", "template_id"]).any()
    assert (sents["sentence"] == [t.format(w) for t, w in
                                  zip(sents["template"], sents["word"], strict=True)]).all()


def test_identity_sentences_exact_small_case():
    sents = identity_sentences("religion", templates=["{} is here", "about {}"])
    assert len(sents) == 2 * 15
    first = sents.iloc[:2]
    assert first["sentence"].tolist() == ["christianity is here", "about christianity"]
    assert set(sents["study"]) == {"religion"}


@pytest.mark.parametrize(
    ("templates", "match"),
    [([], "empty"), (["no slot"], "exactly one"), (["{} and {}"], "exactly one"),
     (["{} x", "{} x"], "distinct"), ("{} people", "sequence of strings")],
)
def test_identity_sentences_rejects_bad_templates(templates, match):
    with pytest.raises(ValueError, match=match):
        identity_sentences("religion", templates=templates)


def test_unknown_study_is_a_value_error():
    with pytest.raises(ValueError, match="unknown study 'religon'"):
        identity_sentences("religon")


TOY_STUDY = Study.from_dicts(
    "toy", protected={"first": ["alpha", "zeta"], "second": ["beta", "gamma"]},
    attributes={"x": ["good"]},
)


def test_score_is_the_classifier_on_the_mean_content_vector(toy_kv):
    clf = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.34)
    sents = identity_sentences(TOY_STUDY, templates=["{} people are here", "I met a {}"])
    with pytest.warns(UserWarning, match="zeta"):
        scored = score_sentences(clf, toy_kv, sents)
    # "zeta" is out of vocabulary: its two sentences are dropped and reported
    report = scored.attrs["missing_identity_words"]
    assert isinstance(report, MissingWords)
    assert report.missing == {"first": ("zeta",), "second": ()}
    assert len(scored) == 2 * 3
    # "are" is a stop word, "i"/"a" too; the rest are in the vocabulary
    row = scored[(scored["word"] == "alpha") & (scored["template_id"] == 0)].iloc[0]
    assert row["tokens"] == "people here alpha"
    vecs = [np.asarray(toy_kv[w], dtype=np.float64) for w in ("people", "here", "alpha")]
    mean = np.mean(vecs, axis=0)
    expect = 1 / (1 + math.exp(-(mean @ clf.model.coef + clf.model.intercept)))
    assert row["score"] == pytest.approx(expect, rel=1e-12)
    assert row["y_pred"] == int(expect > 0.5)
    row = scored[(scored["word"] == "beta") & (scored["template_id"] == 1)].iloc[0]
    assert row["tokens"] == "met beta"
    # keeping the stop words: "i", "a", "are" are not in this vocabulary → reported
    with pytest.warns(UserWarning):
        kept = score_sentences(clf, toy_kv, sents, stop_words=())
    assert kept.attrs["missing_template_tokens"] == ("a", "are", "i")
    assert {"a", "are", "i"} <= DEFAULT_STOP_WORDS


def test_score_sentences_without_any_identity_word_is_a_value_error(toy_kv):
    clf = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.34)
    with pytest.raises(ValueError, match="none of the 15 identity words"):
        score_sentences(clf, toy_kv, identity_sentences("religion"))


def test_score_sentences_rejects_a_classifier_of_another_dimension(toy_kv, glove_classifier):
    with pytest.raises(ValueError, match="50 weights but the embeddings have 2"):
        score_sentences(glove_classifier, toy_kv, identity_sentences(TOY_STUDY))


# --------------------------------------------------------------------------------------
# downstream fairness
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def religion_result(glove):
    hard = hard_debias(glove, "religion").embeddings
    return downstream_fairness({"original": glove, "hard": hard}, "religion")


def test_religion_table_has_both_embeddings_and_both_interval_kinds(religion_result):
    table = religion_result.table
    validate_interval_table(table)
    assert list(dict.fromkeys(table["embedding"])) == ["original", "hard"]
    contrasts = ["christian − rest", "jewish − rest", "muslim − rest"]
    for emb in ("original", "hard"):
        part = table[table["embedding"] == emb]
        bbu = part[part["estimand"] == "demographic_parity"]
        bayes = part[part["estimand"] == "difference_vs_rest"]
        assert bbu["group"].tolist() == contrasts
        assert bayes["group"].tolist() == contrasts
        assert set(bbu["ci_kind"]) == {"bernstein"}
        assert set(bayes["ci_kind"]) == {"hdi"}
    assert (table["ci_prob"] == 0.95).all()
    assert set(table["study"]) == {"religion"}
    assert len(table) == 12
    # 12 templates × 5 words per class
    assert (religion_result.rates["n"] == 60).all()


def _counts(result: DownstreamResult, embedding: str) -> dict[str, tuple[int, int]]:
    part = result.scores[result.scores["embedding"] == embedding]
    return {c: (int(g["y_pred"].sum()), len(g)) for c, g in part.groupby("class")}


@pytest.mark.parametrize("embedding", ["original", "hard"])
def test_rows_equal_parity_posterior_and_bbu_by_hand(religion_result, embedding):
    counts = _counts(religion_result, embedding)
    table = religion_result.table
    part = table[table["embedding"] == embedding].set_index(["estimand", "group"])
    scores = religion_result.scores[religion_result.scores["embedding"] == embedding]
    for cls, (x, n) in counts.items():
        x_rest = sum(v[0] for c, v in counts.items() if c != cls)
        n_rest = sum(v[1] for c, v in counts.items() if c != cls)
        post = parity_posterior(x_rest, n_rest, x, n)
        hdi = post.hdi(0.95).iloc[0]
        row = part.loc[("difference_vs_rest", f"{cls} − rest")]
        assert (row["x1"], row["n1"], row["x2"], row["n2"]) == (x_rest, n_rest, x, n)
        assert row["estimate"] == pytest.approx((x + 1) / (n + 2) - (x_rest + 1) / (n_rest + 2),
                                                abs=1e-15)
        assert row["lower"] == pytest.approx(hdi["lower"], abs=1e-12)
        assert row["upper"] == pytest.approx(hdi["upper"], abs=1e-12)
        assert row["prob_outside"] == pytest.approx(post.prob_exceeds(0.1), abs=1e-12)
        # BBU: the gap of the observed positive rates, interval from demographic_parity
        bbu = part.loc[("demographic_parity", f"{cls} − rest")]
        assert bbu["estimate"] == pytest.approx(x / n - x_rest / n_rest, abs=1e-12)
        groups = np.where(scores["class"] == cls, cls, "rest")
        ref = demographic_parity(scores["y_pred"].to_numpy(), groups, protected="rest").iloc[0]
        for col in ("estimate", "lower", "upper", "gamma", "sigma2"):
            assert bbu[col] == pytest.approx(ref[col], abs=1e-15)
        assert bbu["gamma"] == pytest.approx(1 / 3)


def test_original_glove_rates_as_measured(religion_result):
    rates = religion_result.rates.set_index(["embedding", "class"])["n_positive"]
    # measured with the defaults (seed 0): 57, 54, 46 of 60 positive
    assert rates["original"].to_dict() == {"christian": 57, "jewish": 54, "muslim": 46}
    table = religion_result.table.set_index(["embedding", "estimand", "group"])
    muslim = table.loc[("original", "difference_vs_rest", "muslim − rest")]
    assert muslim["upper"] < 0  # the HDI excludes parity
    bbu = table.loc[("original", "demographic_parity", "muslim − rest")]
    assert bbu["verdict"] == "not shown"  # the Bernstein bound is too wide at n = 180


def test_hard_debiasing_equalizes_definitional_words_exactly(religion_result):
    # Hard debiasing neutralizes every training word (zero bias-subspace component) and
    # moves the words of each definitional set to ν + (component in the subspace) with
    # a common ν. A classifier trained on neutralized words has (up to rounding) zero
    # weight on the subspace, so within a template the words of one set score alike.
    study = load_study("religion")
    scores = religion_result.scores[religion_result.scores["embedding"] == "hard"]
    score = scores.set_index(["word", "template_id"])["score"]
    for dset in study.definitional:
        for k in range(len(DEFAULT_TEMPLATES)):
            vals = [score[(w, k)] for w in dset]
            assert max(vals) - min(vals) < 1e-6, (dset, k, vals)
    rates = religion_result.rates.set_index(["embedding", "class"])["positive_rate"]
    assert rates["hard"].nunique() == 1
    bbu = religion_result.table.query("embedding == 'hard' and estimand == 'demographic_parity'")
    np.testing.assert_allclose(bbu["estimate"], 0.0, atol=1e-12)
    assert (bbu["verdict"] == "not shown").all()


def test_classifiers_are_trained_per_embedding(religion_result):
    summary = religion_result.classifier_summary()
    assert summary["embedding"].tolist() == ["original", "hard"]
    assert (summary["accuracy"] > 0.83).all()
    orig, hard = (religion_result.classifiers[k] for k in ("original", "hard"))
    assert not np.allclose(orig.model.coef, hard.model.coef)
    # same vocabulary, same seed: the same words in the same split
    assert orig.words[["word", "split"]].equals(hard.words[["word", "split"]])


def test_plots_take_the_result(religion_result):
    fig = religion_result.plot()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "difference_vs_rest: muslim − rest" in labels
    assert "95% BERNSTEIN" in fig.axes[0].get_title()
    assert "95% HDI" in fig.axes[0].get_title()
    plt.close(fig)
    fig = plot_sentence_scores(religion_result)
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="DownstreamResult"):
        plot_downstream(religion_result.table)


def test_two_classes_give_one_contrast_and_pairwise_gives_every_pair(toy_kv):
    with pytest.warns(UserWarning, match="zeta"):
        res = downstream_fairness(toy_kv, TOY_STUDY, lexicon=TOY_LEXICON, margin=0.5,
                                  test_size=0.34, templates=["{} people are here"])
    assert list(res.classifiers) == ["original"]
    assert res.table["group"].tolist() == ["second − first", "second − first"]
    assert res.table["estimand"].tolist() == ["demographic_parity", "pairwise_difference"]
    assert res.missing_identity["original"].missing["first"] == ("zeta",)
    three = Study.from_dicts("three", protected={"a": ["alpha"], "b": ["beta"],
                                                 "c": ["gamma"]}, attributes={"x": ["good"]})
    res = downstream_fairness(toy_kv, three, lexicon=TOY_LEXICON, margin=0.5, test_size=0.34,
                              templates=["{} people are here", "I met {}"],
                              comparisons="pairwise")
    bbu = res.table[res.table["estimand"] == "demographic_parity"]
    assert bbu["group"].tolist() == ["b − a", "c − a", "c − b"]
    assert (bbu["n"] == 4).all()  # pairwise rows use only the two classes' sentences
    bayes = res.table[res.table["estimand"] == "pairwise_difference"]
    assert bayes["group"].tolist() == ["b − a", "c − a", "c − b"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"study": "religon"}, "unknown study"),
        ({"comparisons": "all"}, "comparisons must be"),
        ({"confidence": 1.5}, "confidence"),
        ({"threshold": -0.1}, "threshold"),
    ],
)
def test_downstream_fairness_rejects_bad_arguments(toy_kv, kwargs, match):
    args = {"study": TOY_STUDY, **kwargs}
    with pytest.raises(ValueError, match=match):
        downstream_fairness(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.34, **args)


def test_embeddings_missing_every_identity_word(toy_kv):
    with pytest.raises(ValueError, match="'original': none of the 15 identity words"):
        downstream_fairness(toy_kv, "religion", lexicon=TOY_LEXICON, margin=0.5,
                            test_size=0.34)


def test_a_class_without_identity_words_is_named(toy_kv):
    study = Study.from_dicts("gap", protected={"a": ["alpha"], "b": ["omega"]},
                             attributes={"x": ["good"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match=r"classes \['b'\]"):
            downstream_fairness(toy_kv, study, lexicon=TOY_LEXICON, margin=0.5,
                                test_size=0.34)


@pytest.mark.parametrize("embeddings", [{}, {"x": "glove"}, "glove-6b-50d"])
def test_downstream_fairness_rejects_bad_embeddings(embeddings):
    with pytest.raises(ValueError, match="KeyedVectors"):
        downstream_fairness(embeddings, "religion")


def test_fit_result_is_read_only():
    fit = fit_logistic([[0.0], [1.0], [2.0]], [0, 1, 1], l2=0.1)
    assert isinstance(fit, LogisticFit)
    with pytest.raises(ValueError):
        fit.coef[0] = 1.0
