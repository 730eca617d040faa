"""The downstream sentiment study (embias.studies.sentiment): VADER + GloVe classifier on
scikit-learn, identity sentences, and group fairness on original vs hard-debiased GloVe.

Known answers: the stationarity (KKT) equations of the penalised mean log-loss the
classifier documents, checked on the real GloVe + VADER fit (they pin down our λ → C
translation for scikit-learn); the closed-form MLE of an unpenalised fit on a binary
feature; a direct scikit-learn fit and split on the same words; the hard-debiasing
geometry (equalized words differ only inside the bias subspace, which a classifier
trained on neutralized words cannot see); parity posteriors and BBU rows recomputed from
the sentence counts.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from importlib import resources

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import special
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from embias.classifier import demographic_parity, parity_posterior
from embias.debias import hard_debias
from embias.embeddings import MissingWords
from embias.report import UNDECIDED, validate_interval_table
from embias.studies import (
    DEFAULT_STOP_WORDS,
    DEFAULT_TEMPLATES,
    DownstreamResult,
    downstream_fairness,
    identity_sentences,
    plot_downstream,
    plot_sentence_scores,
    score_sentences,
    sentiment_classifier,
    vader_lexicon,
)
from embias.wordlists import Study, load_study

# --------------------------------------------------------------------------------------
# the VADER lexicon
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


def test_vader_lexicon_is_the_installed_packages_own_file():
    own = resources.files("vaderSentiment") / "vader_lexicon.txt"
    with resources.as_file(own) as path:
        pd.testing.assert_frame_equal(vader_lexicon(), vader_lexicon(path))


def test_vader_lexicon_rejects_a_malformed_file(tmp_path):
    bad = tmp_path / "lex.txt"
    bad.write_text("good\t1.9\t0.5\t[2]\nbad\tminus\t0.1\t[]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        vader_lexicon(bad)


def test_without_vadersentiment_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "vaderSentiment", None)  # import now fails
    with pytest.raises(ImportError, match=r'pip install "embias\[studies\]"'):
        vader_lexicon()


# --------------------------------------------------------------------------------------
# the sentiment classifier on GloVe + VADER
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def glove_classifier(glove):
    return sentiment_classifier(glove, random_seed=0)


def test_sentiment_classifier_held_out_accuracy_on_glove_vader(glove_classifier):
    clf = glove_classifier
    # measured: 0.853 ± 0.012 (binomial SE; seed 0, margin 1, l2 0.01). The bounds are
    # about ±2 SE around it and cover seeds 0–9 (0.833–0.868); a jump above 0.88 would
    # mean a leak, e.g. test words in training.
    assert clf.accuracy >= 0.83
    assert clf.accuracy <= 0.88
    assert clf.accuracy_se == pytest.approx(math.sqrt(clf.accuracy * (1 - clf.accuracy)
                                                      / clf.n_test), rel=1e-12)
    assert clf.accuracy > clf.baseline_accuracy + 0.25  # majority class: 0.564
    assert clf.converged
    # every lexicon entry is accounted for: merged, neutral, missing or used
    assert clf.n_lexicon == 7520
    assert (clf.n_lexicon - clf.n_duplicates
            == clf.n_neutral + clf.n_missing + clf.n_positive + clf.n_negative)
    assert clf.n_missing > 1000  # emoticons, slang and rare derivations; listed, not dropped
    assert "(-:" in clf.missing
    assert ":)" not in clf.missing  # GloVe has this emoticon
    assert clf.n_train + clf.n_test == clf.n_positive + clf.n_negative
    # scikit-learn's split holds out ceil(0.2 · n) words, shared between the labels in
    # proportion (stratified): 831 of 4155, 362 of them positive (0.2 · 1811 = 362.2;
    # the two labels' shares are rounded to whole words, hence ±1)
    n = clf.n_positive + clf.n_negative
    assert clf.n_test == math.ceil(0.2 * n)
    test = clf.words[clf.words["split"] == "test"]
    assert test["label"].sum() == pytest.approx(0.2 * clf.n_positive, abs=1)
    assert np.mean((test["score"] > 0.5) == (test["label"] == 1)) == clf.accuracy


def test_fit_solves_the_documented_penalised_objective(glove, glove_classifier):
    # sentiment_classifier documents: minimise mean log-loss + (l2/2)‖w‖², intercept free.
    # At the optimum the gradient vanishes: Xᵀ(σ(z) − y)/n + l2·w = 0 and mean(σ(z) − y)
    # = 0. Measured max |gradient| 1.3e-8 (solver tolerance 1e-8); a λ → C translation
    # off by the factor n (C = 1/λ) would leave ≈ λ·|w| ≈ 5e-3, so 1e-6 separates the two.
    clf = glove_classifier
    train = clf.words[clf.words["split"] == "train"]
    x = np.asarray(glove[train["word"].tolist()], dtype=np.float64)
    y = train["label"].to_numpy(dtype=np.float64)
    w, b = clf.model.coef_[0], clf.model.intercept_[0]
    resid = special.expit(x @ w + b) - y
    grad = np.concatenate([x.T @ resid / len(y) + clf.l2 * w, [resid.mean()]])
    assert np.abs(grad).max() < 1e-6
    assert np.abs(w).max() > 0.1  # not a degenerate all-zero solution


def test_wrapper_equals_a_direct_scikit_learn_split_and_fit(glove, glove_classifier):
    # the same words, split and fitted by hand with scikit-learn: same split, and the same
    # probabilities up to the solver's tolerance (measured difference 0: the same
    # deterministic computation; 1e-9 leaves room for BLAS reordering)
    clf = glove_classifier
    words = clf.words
    x = np.asarray(glove[words["word"].tolist()], dtype=np.float64)
    y = words["label"].to_numpy()
    train, test = train_test_split(np.arange(len(y)), test_size=0.2, stratify=y,
                                   random_state=0)
    assert set(test) == set(np.flatnonzero(words["split"] == "test"))
    direct = LogisticRegression(C=1 / (0.01 * len(train)), tol=1e-8, max_iter=2000)
    direct.fit(x[train], y[train])
    np.testing.assert_allclose(words["score"], direct.predict_proba(x)[:, 1], rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(clf.predict_proba(x[:5]), direct.predict_proba(x[:5])[:, 1],
                               rtol=0, atol=1e-9)


def test_sentiment_classifier_is_seeded(glove, glove_classifier):
    again = sentiment_classifier(glove, random_seed=0)
    assert again.accuracy == glove_classifier.accuracy
    np.testing.assert_array_equal(again.model.coef_, glove_classifier.model.coef_)
    other = sentiment_classifier(glove, random_seed=1)
    assert other.random_seed == 1
    assert not other.words["split"].equals(glove_classifier.words["split"])
    # measured 0.841 vs 0.853; two held-out accuracies on different 831-word samples
    # differ by SE ≈ √2 · 0.012 ≈ 0.017, and 0.03 is under two of those
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
                               test_size=0.3)
    assert clf.missing == ("superb",)
    assert clf.n_duplicates == 1  # "Good" and "good" merged: mean rating 1.5
    assert clf.words.set_index("word").loc["good", "rating"] == 1.5
    assert clf.n_neutral == 1  # "meh"
    assert clf.excluded == ("alpha",)
    assert (clf.n_positive, clf.n_negative) == (3, 3)
    assert (clf.n_train, clf.n_test) == (4, 2)  # ceil(0.3 · 6) = 2, one word per label
    assert clf.words.groupby("label")["split"].apply(lambda s: (s == "test").sum()).tolist() \
        == [1, 1]


def test_unpenalised_fit_on_a_two_valued_feature_is_the_closed_form_mle(make_kv):
    # one feature, 1 or 2 (lookup refuses zero vectors); ten words each. Unpenalised, the
    # MLE reproduces the training words' cell log-odds: logit(p_x) = b + w·x, so
    # w = logit(p₂) − logit(p₁) and b = logit(p₁) − w
    pos1, neg1 = [f"p1w{i}" for i in range(3)], [f"n1w{i}" for i in range(7)]
    pos2, neg2 = [f"p2w{i}" for i in range(7)], [f"n2w{i}" for i in range(3)]
    kv = make_kv({**{w: [1.0] for w in pos1 + neg1}, **{w: [2.0] for w in pos2 + neg2}},
                 dtype=np.float64)
    lexicon = {**dict.fromkeys(pos1 + pos2, 2.0), **dict.fromkeys(neg1 + neg2, -2.0)}
    clf = sentiment_classifier(kv, lexicon=lexicon, l2=0.0, random_seed=0)
    assert clf.converged
    train = clf.words[clf.words["split"] == "train"]
    cell = train["word"].str[1].astype(int)
    p1, p2 = (train.loc[cell == k, "label"].mean() for k in (1, 2))
    assert 0 < p1 < 1 and 0 < p2 < 1  # the stratified split keeps both labels per cell
    w = special.logit(p2) - special.logit(p1)
    # measured errors ≈ 1e-7 (L-BFGS stops at a gradient of 1e-8); abs 1e-6 leaves a
    # factor 10 for other BLAS/solver builds, probabilities move less than logits (×¼)
    assert clf.model.coef_[0, 0] == pytest.approx(w, abs=1e-6)
    assert clf.model.intercept_[0] == pytest.approx(special.logit(p1) - w, abs=1e-6)
    np.testing.assert_allclose(clf.predict_proba([[1.0], [2.0]]), [p1, p2], atol=1e-6)


@pytest.mark.parametrize(
    ("lexicon", "match"),
    [
        ({}, "lexicon is empty"),
        (pd.DataFrame({"word": [], "rating": []}), "lexicon is empty"),
        ({"good": 2.0, "great": 1.0}, "no negative words"),
        ({"good": 2.0, "bad": "very"}, "rating of 'bad'"),
        (pd.DataFrame({"token": ["good"]}), r"lacks columns \['word', 'rating'\]"),
        (["good"], "mapping word"),
        ({"good": 2.0, "great": 2.0, "bad": -2.0, "unknownword": -2.0}, "only 1 negative"),
    ],
)
def test_sentiment_classifier_rejects_bad_lexicons(toy_kv, lexicon, match):
    with pytest.raises(ValueError, match=match):
        sentiment_classifier(toy_kv, lexicon=lexicon)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"l2": -1.0}, "l2"),
        ({"test_size": 1.0}, "test_size"),
        ({"margin": -0.5}, "margin"),
        ({"random_seed": -1}, "random_seed"),
        ({"random_seed": 1.5}, "random_seed"),
        # ceil(0.1 · 7) = 1 test word cannot hold both labels
        ({"test_size": 0.1}, "cannot split 7 words"),
    ],
)
def test_sentiment_classifier_rejects_bad_settings(toy_kv, kwargs, match):
    with pytest.raises(ValueError, match=match):
        sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, **{"margin": 0.5, **kwargs})


def test_random_seed_none_draws_and_records_a_seed(toy_kv):
    clf = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.3,
                               random_seed=None)
    assert isinstance(clf.random_seed, int)
    again = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.3,
                                 random_seed=clf.random_seed)
    assert again.words["split"].equals(clf.words["split"])


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
    clf = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.3,
                               random_seed=0)
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
    expect = 1 / (1 + math.exp(-(mean @ clf.model.coef_[0] + clf.model.intercept_[0])))
    assert row["score"] == pytest.approx(expect, rel=1e-12)
    assert row["y_pred"] == int(expect > 0.5)
    row = scored[(scored["word"] == "beta") & (scored["template_id"] == 1)].iloc[0]
    assert row["tokens"] == "met beta"
    # the bare scikit-learn model scores the same
    with pytest.warns(UserWarning, match="zeta"):
        bare = score_sentences(clf.model, toy_kv, sents)
    np.testing.assert_array_equal(bare["score"], scored["score"])
    # keeping the stop words: "i", "a", "are" are not in this vocabulary → reported
    with pytest.warns(UserWarning):
        kept = score_sentences(clf, toy_kv, sents, stop_words=())
    assert kept.attrs["missing_template_tokens"] == ("a", "are", "i")
    assert {"a", "are", "i"} <= DEFAULT_STOP_WORDS


def test_score_sentences_without_any_identity_word_is_a_value_error(toy_kv):
    clf = sentiment_classifier(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.3,
                               random_seed=0)
    with pytest.raises(ValueError, match="none of the 15 identity words"):
        score_sentences(clf, toy_kv, identity_sentences("religion"))


def test_score_sentences_rejects_a_classifier_of_another_dimension(toy_kv, glove_classifier):
    with pytest.raises(ValueError, match="50 weights but the embeddings have 2"):
        score_sentences(glove_classifier, toy_kv, identity_sentences(TOY_STUDY))


def test_score_sentences_rejects_other_models(toy_kv):
    with pytest.raises(ValueError, match="SentimentClassifier or a fitted LogisticRegression"):
        score_sentences("model", toy_kv, identity_sentences(TOY_STUDY))
    with pytest.raises(ValueError, match="fitted on labels 0/1"):
        score_sentences(LogisticRegression(), toy_kv, identity_sentences(TOY_STUDY))


# --------------------------------------------------------------------------------------
# downstream fairness
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def religion_result(glove):
    hard = hard_debias(glove, "religion").embeddings
    # 95%: the level of notebook 04's figures (embias's default is DEFAULT_CI_PROB)
    return downstream_fairness({"original": glove, "hard": hard}, "religion", ci_prob=0.95,
                               random_seed=0)


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
    settings = religion_result.settings
    assert (settings["ci_prob"], settings["rope"], settings["random_seed"]) == (0.95, 0.1, 0)


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
        ref = demographic_parity(scores["y_pred"].to_numpy(), groups, protected="rest",
                                 ci_prob=0.95).iloc[0]
        for col in ("estimate", "lower", "upper", "gamma", "sigma2"):
            assert bbu[col] == pytest.approx(ref[col], abs=1e-15)
        assert bbu["decision"] == ref["decision"]
        assert bbu["gamma"] == pytest.approx(1 / 3)


def test_original_glove_rates_as_measured(religion_result):
    rates = religion_result.rates.set_index(["embedding", "class"])["n_positive"]
    # measured with the defaults (seed 0): 57, 56, 50 of 60 positive. Counts of a seeded,
    # deterministic pipeline, so exact; the split seed alone moves the Muslim count
    # between 44 and 51 over seeds 0–9 (notebook 04), which is why the seed is fixed here
    assert rates["original"].to_dict() == {"christian": 57, "jewish": 56, "muslim": 50}
    table = religion_result.table.set_index(["embedding", "estimand", "group"])
    muslim = table.loc[("original", "difference_vs_rest", "muslim − rest")]
    # measured estimate −0.112, 95% HDI [−0.218, −0.011]: it excludes parity
    assert muslim["estimate"] == pytest.approx(-0.112, abs=5e-4)
    assert muslim["upper"] < 0
    bbu = table.loc[("original", "demographic_parity", "muslim − rest")]
    # the Bernstein bound is too wide at n = 180: [−0.284, 0.068] contains 0
    assert bbu["lower"] < 0 < bbu["upper"]
    assert bbu["decision"] == UNDECIDED


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
    assert (bbu["decision"] == UNDECIDED).all()


def test_classifiers_are_trained_per_embedding(religion_result):
    summary = religion_result.classifier_summary()
    assert summary["embedding"].tolist() == ["original", "hard"]
    assert (summary["accuracy"] > 0.83).all()  # measured 0.853 and 0.851
    orig, hard = (religion_result.classifiers[k] for k in ("original", "hard"))
    assert not np.allclose(orig.model.coef_, hard.model.coef_)
    # same vocabulary, same seed: the same words in the same split
    assert orig.words[["word", "split"]].equals(hard.words[["word", "split"]])


def test_plots_take_the_result(religion_result):
    fig = religion_result.plot()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "difference_vs_rest: muslim − rest" in labels
    assert "95% BERNSTEIN" in fig.axes[0].get_title()
    assert "95% HDI" in fig.axes[0].get_title()
    plt.close(fig)
    fig = plot_sentence_scores(religion_result, random_seed=1)
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="DownstreamResult"):
        plot_downstream(religion_result.table)


def test_two_classes_give_one_contrast_and_pairwise_gives_every_pair(toy_kv):
    with pytest.warns(UserWarning, match="zeta"):
        res = downstream_fairness(toy_kv, TOY_STUDY, lexicon=TOY_LEXICON, margin=0.5,
                                  test_size=0.3, templates=["{} people are here"],
                                  random_seed=0)
    assert list(res.classifiers) == ["original"]
    assert res.table["group"].tolist() == ["second − first", "second − first"]
    assert res.table["estimand"].tolist() == ["demographic_parity", "pairwise_difference"]
    assert res.missing_identity["original"].missing["first"] == ("zeta",)
    three = Study.from_dicts("three", protected={"a": ["alpha"], "b": ["beta"],
                                                 "c": ["gamma"]}, attributes={"x": ["good"]})
    res = downstream_fairness(toy_kv, three, lexicon=TOY_LEXICON, margin=0.5, test_size=0.3,
                              templates=["{} people are here", "I met {}"],
                              comparisons="pairwise", random_seed=0)
    bbu = res.table[res.table["estimand"] == "demographic_parity"]
    assert bbu["group"].tolist() == ["b − a", "c − a", "c − b"]
    assert (bbu["n"] == 4).all()  # pairwise rows use only the two classes' sentences
    bayes = res.table[res.table["estimand"] == "pairwise_difference"]
    assert bayes["group"].tolist() == ["b − a", "c − a", "c − b"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"study": "religon"}, "unknown study"),
        ({"comparisons": "all"}, "comparisons"),
        ({"ci_prob": 1.5}, "ci_prob"),
        ({"rope": -0.1}, "rope"),
        ({"random_seed": "zero"}, "random_seed"),
    ],
)
def test_downstream_fairness_rejects_bad_arguments(toy_kv, kwargs, match):
    args = {"study": TOY_STUDY, **kwargs}
    with pytest.raises(ValueError, match=match):
        downstream_fairness(toy_kv, lexicon=TOY_LEXICON, margin=0.5, test_size=0.3, **args)


def test_embeddings_missing_every_identity_word(toy_kv):
    with pytest.raises(ValueError, match="'original': none of the 15 identity words"):
        downstream_fairness(toy_kv, "religion", lexicon=TOY_LEXICON, margin=0.5,
                            test_size=0.3)


def test_a_class_without_identity_words_is_named(toy_kv):
    study = Study.from_dicts("gap", protected={"a": ["alpha"], "b": ["omega"]},
                             attributes={"x": ["good"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match=r"classes \['b'\]"):
            downstream_fairness(toy_kv, study, lexicon=TOY_LEXICON, margin=0.5,
                                test_size=0.3)


@pytest.mark.parametrize("embeddings", [{}, {"x": "glove"}, "glove-6b-50d"])
def test_downstream_fairness_rejects_bad_embeddings(embeddings):
    with pytest.raises(ValueError, match="KeyedVectors"):
        downstream_fairness(embeddings, "religion")


# --------------------------------------------------------------------------------------
# the optional extra
# --------------------------------------------------------------------------------------


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


def test_studies_without_scikit_learn_name_the_extra():
    proc = _run("import sys; sys.modules['sklearn'] = None; import embias.studies")
    assert proc.returncode == 1
    assert 'ImportError: embias.studies needs scikit-learn' in proc.stderr
    assert 'pip install "embias[studies]"' in proc.stderr


def test_classifier_needs_neither_scikit_learn_nor_vader():
    proc = _run(
        "import sys\n"
        "for m in ('sklearn', 'vaderSentiment', 'matplotlib', 'gensim'): sys.modules[m] = None\n"
        "import embias.classifier\n"
        "print(sorted(embias.classifier.__all__))\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "sentiment_classifier" not in proc.stdout
    assert "demographic_parity" in proc.stdout
