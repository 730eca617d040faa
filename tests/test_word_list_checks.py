"""Word lists given to WEAT, MAC, SEAT and debiasing: one check of each list
(``embias._validation.check_word_list``), one check of a word in two roles
(``embias._validation.check_distinct_lists``); the seed each classic result records; plain
floats; the one default interval probability of the classic scores."""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from scipy import stats

import embias
from embias.classic import ATTRIBUTE_WHY, ONE_WORD_WHY
from embias.debias import DEFINITIONAL_WHY, bias_subspace, hard_debias, soft_debias
from embias.sentences import seat_overview, seat_test, word_sentences

FEMALE = ["she", "woman", "girl", "sister"]
MALE = ["he", "him", "his", "brother"]
CAREER = ["career", "office", "salary", "business"]
FAMILY = ["home", "family", "children", "parents"]
ROLE = ": a word can play one role only (remove it from one of the lists)"
TWO_TEMPLATES = ["This is {term}.", "{term} is here."]


def random_encoder(sentences):
    """A sentence encoder with a fixed vector per sentence (seeded by its text)."""
    return np.array([np.random.default_rng(list(s.encode())).normal(size=8)
                     for s in sentences])


@pytest.fixture
def toy(make_kv):
    # a=(1,0), b=(0,1); s(w) = cos(w,a) − cos(w,b): s(x1)=1, s(x2)=0, s(y1)=−1, s(y2)=−1/√5
    return make_kv({"a": [1, 0], "b": [0, 1], "x1": [1, 0], "x2": [1, 1], "y1": [0, 1],
                    "y2": [1, 2]}, dtype=np.float64)


def _message(call) -> str:
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


# --------------------------------------------------------------------------- item 2
def test_a_bare_string_is_not_read_as_its_letters(glove):
    # embias.weat(kv, "he", ...) returned d = 1.606 from the "words" h and e
    assert _message(lambda: embias.weat(glove, "he", FEMALE, CAREER, FAMILY)) == (
        "X must be a list of words, got the string 'he' (one word? wrap it in a list: ['he'])")
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, "career", FAMILY)) == (
        "A must be a list of words, got the string 'career' (one word? wrap it in a list: "
        "['career'])")
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, CAREER, "home family")) == (
        "B must be a list of words, got the string 'home family' (several words? give them "
        "as a list: ['home', 'family'])")
    assert _message(lambda: word_sentences("he")) == (
        "words must be a list of words, got the string 'he' (one word? wrap it in a list: "
        "['he'])")


def test_debiasing_refuses_a_bare_string_of_words(glove):
    # neutralize="doctor" neutralized the single letters d, o, c, t, r (all in GloVe)
    assert _message(lambda: hard_debias(glove, "gender", neutralize="doctor")) == (
        "neutralize must be a list of words, got the string 'doctor' (one word? wrap it in a "
        "list: ['doctor'])")
    assert _message(lambda: soft_debias(glove, "gender", vocabulary="the cat")) == (
        "vocabulary must be a list of words, got the string 'the cat' (several words? give "
        "them as a list: ['the', 'cat'])")
    assert _message(lambda: soft_debias(glove, "gender", vocabulary=2.5)) == (
        "vocabulary must be an integer ≥ 1, got 2.5 (the number of most frequent words kept)")


def test_list_entries_must_be_words(glove):
    assert _message(lambda: embias.weat(glove, ["he", 3], FEMALE, CAREER, FAMILY)) == (
        "X[1] must be a word (a non-empty string), got 3")
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, ["career", " "], FAMILY)) == (
        "A[1] must be a word (a non-empty string), got ' '")
    assert _message(lambda: embias.weat(glove, {"he": 1, "him": 2}, FEMALE, CAREER,
                                        FAMILY)) == (
        "X must be a list of words, got {'he': 1, 'him': 2}")
    assert _message(lambda: embias.weat(glove, MALE, None, CAREER, FAMILY)) == (
        "Y must be a list of words, got None")
    study = embias.Study.from_dicts("g", {"m": ["he"], "f": ["she"]},
                                    {"m": ["career"], "f": ["home"]},
                                    definitional=[("he", None)])
    assert _message(lambda: bias_subspace(glove, study)) == (
        "study 'g': definitional[0][1] must be a word (a non-empty string), got None")


# --------------------------------------------------------------------------- item 12
def test_an_empty_list_says_which_list_and_how_many_words_it_needs(glove):
    # weat(kv, [], ...) said "(missing: no missing words)"
    assert _message(lambda: embias.weat(glove, [], FEMALE, CAREER, FAMILY)) == (
        f"X has no words; it needs at least 2 ({ONE_WORD_WHY})")
    assert _message(lambda: embias.weat(glove, MALE, ["she"], CAREER, FAMILY,
                                        set_names=("male", "female", "career", "family"))) == (
        f"Y ('female') has 1 word; it needs at least 2 ({ONE_WORD_WHY})")
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, CAREER, ())) == (
        f"B has no words; it needs at least 1 ({ATTRIBUTE_WHY})")
    assert _message(lambda: hard_debias(glove, "gender", neutralize=[])) == (
        "neutralize has no words; it needs at least 1 (to neutralize every word but the "
        "definitional ones, leave it None)")
    one = embias.Study.from_dicts("g", {"m": ["he"], "f": ["she"]},
                                  {"m": ["career"], "f": ["home"]},
                                  definitional=[("he", "she"), ("his",)])
    assert _message(lambda: bias_subspace(glove, one)) == (
        f"study 'g': definitional[1] has 1 word; it needs at least 2 ({DEFINITIONAL_WHY})")


def test_a_list_whose_words_are_all_missing_is_named_with_its_words(glove):
    with pytest.warns(UserWarning, match="2 words missing"), pytest.raises(ValueError) as info:
        embias.weat(glove, MALE, FEMALE, CAREER, ["qqzzx", "zzqqy"])
    assert str(info.value) == (
        "word lists ['B'] have no word in the embeddings for WEAT 'weat' (missing: B: 2 of 2 "
        "missing (0 kept): qqzzx, zzqqy)")
    # two target words listed, one found: not a sample (the found count is checked)
    with pytest.warns(UserWarning, match="qqzzx"), pytest.raises(ValueError) as info:
        embias.weat(glove, ["he", "qqzzx"], FEMALE, CAREER, FAMILY)
    assert str(info.value) == ("the number of X words found in the embeddings must be an "
                               f"integer ≥ 2, got 1 ({ONE_WORD_WHY})")


def test_a_definitional_set_with_one_word_in_the_vocabulary_is_named(glove):
    study = embias.Study.from_dicts("g", {"m": ["he"], "f": ["she"]},
                                    {"m": ["career"], "f": ["home"]},
                                    definitional=[("he", "she"), ("qqzzx", "his"),
                                                  ("father", "mother")])
    with pytest.warns(UserWarning) as record:
        basis, _ = bias_subspace(glove, study)
    messages = [str(w.message) for w in record if "definitional" in str(w.message)]
    assert messages == [
        "study 'g': 1 definitional set(s) have one word in the vocabulary and are not used: "
        f"definitional[1] ('qqzzx', 'his') ('his' found) ({DEFINITIONAL_WHY})"]
    # the subspace is that of the two usable sets: PCA of their centred unit vectors
    rows = []
    for pair in (("he", "she"), ("father", "mother")):
        v = np.array([glove[w] / np.linalg.norm(glove[w]) for w in pair], dtype=np.float64)
        rows.extend(v - v.mean(axis=0))
    top = np.linalg.svd(np.array(rows), full_matrices=False)[2][0]
    assert abs(float(basis[0] @ top)) == pytest.approx(1.0, abs=1e-9)


# --------------------------------------------------------------------------- item 4
def test_weat_refuses_a_word_in_two_roles(glove):
    # today: X = Y gives d = 0, p = 1; "man" in X and Y gives d = 0.53
    assert _message(lambda: embias.weat(glove, FEMALE, FEMALE, CAREER, FAMILY)) == (
        "WEAT 'weat': X and Y are the same list ('she', 'woman', 'girl', 'sister')" + ROLE)
    names = ("male", "female", "career", "family")
    assert _message(lambda: embias.weat(glove, ["man", *MALE], ["man", *FEMALE], CAREER, FAMILY,
                                        set_names=names)) == (
        "WEAT 'weat': the word 'man' is in both X ('male') and Y ('female')" + ROLE)
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, ["he", *CAREER], FAMILY)) == (
        "WEAT 'weat': the word 'he' is in both X and A" + ROLE)
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, CAREER, [*FAMILY, "girl", "she"],
                                        name="g")) == (
        "WEAT 'g': the words 'she', 'girl' are in both Y and B" + ROLE)
    assert _message(lambda: embias.weat(glove, MALE, FEMALE, CAREER, [*FAMILY, "office"])) == (
        "WEAT 'weat': the word 'office' is in both A and B" + ROLE)
    # GloVe is uncased, so 'He' is looked up as 'he': one word
    assert _message(lambda: embias.weat(glove, ["He", "him"], FEMALE, ["he", *CAREER],
                                        FAMILY)) == (
        "WEAT 'weat': the word 'He' (as 'he' in A) is in both X and A" + ROLE)
    # every clash is named at once
    assert _message(lambda: embias.weat(glove, ["man", *MALE], ["man", *FEMALE],
                                        ["he", *CAREER], FAMILY)) == (
        "WEAT 'weat': the word 'man' is in both X and Y; the word 'he' is in both X and A"
        + ROLE)


def test_weat_with_distinct_lists_still_matches_a_hand_computation(toy):
    r = embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"])
    s = np.array([1.0, 0.0, -1.0, -1 / math.sqrt(5)])
    assert r.effect_size == pytest.approx((s[:2].mean() - s[2:].mean()) / s.std(ddof=1),
                                          abs=1e-12)


def test_seat_refuses_a_word_in_two_roles_case_folded():
    # the study's own check compares words as written; a template capitalises the first
    # letter, so 'alpha' and 'Alpha' would give the same sentence 'Alpha is here.'
    study = embias.Study(name="toy", protected={"x": ("alpha", "beta"), "y": ("gamma", "delta")},
                         attributes={"x_stereotype": ("Alpha", "epsilon"),
                                     "y_stereotype": ("zeta", "eta")})
    assert _message(lambda: seat_test(study, random_encoder, templates=TWO_TEMPLATES)) == (
        "WEAT 'toy (SEAT)': the word 'alpha' (as 'Alpha' in A ('x_stereotype')) is in both "
        "X ('x') and A ('x_stereotype')" + ROLE)


def test_mac_refuses_a_protected_word_that_is_also_an_attribute_word(glove):
    # GloVe is uncased: 'Man' and 'man' are one vector, whose distance to itself (0) would
    # enter S('Man', male_stereotype)
    study = embias.Study.from_dicts("m", {"male": ["Man", "he"], "female": ["woman", "she"]},
                                    {"male_stereotype": ["man", "career"],
                                     "female_stereotype": ["home", "family"]})
    assert _message(lambda: embias.mac(glove, study)) == (
        "study 'm' (looked up in lower case in these embeddings): the word 'Man' (as 'man' in "
        "attributes['male_stereotype']) is in both protected['male'] and "
        "attributes['male_stereotype']" + ROLE)
    # a table: its attribute rows compare 'muslim' as a jew_stereotype word
    table = embias.load_published_table("religion", "reddit")
    word = table.loc[table["word_class"] == "jew_stereotype", "word_to_compare"].iloc[0]
    edited = table.assign(word_to_compare=table["word_to_compare"].replace(word, "muslim"))
    assert _message(lambda: embias.mac(edited)) == (
        "MAC of the table's attribute rows: the word 'muslim' is in both protected['muslim'] "
        "and attributes['jew_stereotype']" + ROLE)
    assert embias.mac(table).value == pytest.approx(0.8614, abs=5e-4)  # unedited: accepted


# --------------------------------------------------------------------------- item 14
def test_a_fresh_seed_is_recorded_shown_and_repeats_the_weat(glove):
    first = embias.weat(glove, MALE, FEMALE, CAREER, FAMILY, permutations=2000, n_boot=300)
    seed = first.random_seed
    assert isinstance(seed, int) and 0 <= seed < 2**31
    again = embias.weat(glove, MALE, FEMALE, CAREER, FAMILY, permutations=2000, n_boot=300,
                        random_seed=seed)
    assert again.p_value == first.p_value
    np.testing.assert_array_equal(again.null_effect_sizes, first.null_effect_sizes)
    np.testing.assert_array_equal(again.bootstrap.effect_sizes, first.bootstrap.effect_sizes)
    assert f"random_seed={seed}" in repr(first)
    assert first.to_interval_table()["random_seed"].tolist() == [seed]
    # the Monte Carlo p-value is (hits + 1)/(m + 1) of the recorded null, to the bit
    s = first.s_values["s"].to_numpy()
    stat = s[:4].sum() - s[4:].sum()
    # with |X| = |Y| = 4 the null statistic is 4·sd·d of each re-partition, centred on 0
    null = first.null_effect_sizes * s.std(ddof=1) * 4
    hits = np.count_nonzero(np.abs(null) >= abs(stat) - 1e-9 * max(1, abs(stat)))
    assert first.p_value == pytest.approx((hits + 1) / 2001, abs=1e-12)


def test_the_bootstrap_records_its_fresh_seed(glove):
    rng = np.random.default_rng(4)
    sim_a, sim_b = rng.uniform(-1, 1, (6, 3)), rng.uniform(-1, 1, (6, 4))
    first = embias.weat_item_bootstrap(sim_a, sim_b, 3, n_boot=500)
    assert isinstance(first.random_seed, int)
    again = embias.weat_item_bootstrap(sim_a, sim_b, 3, n_boot=500,
                                       random_seed=first.random_seed)
    np.testing.assert_array_equal(again.effect_sizes, first.effect_sizes)
    assert f"random_seed={first.random_seed}" in repr(first)


def test_overviews_and_pairs_record_each_tests_seed(glove):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        overview = embias.weat_overview(glove, permutations=1000, n_boot=100, random_seed=None)
    assert overview["random_seed"].map(type).eq(int).all()
    row = overview.iloc[3]  # weat4, a Monte Carlo p-value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        again = embias.weat_test("weat4", glove, permutations=1000, n_boot=100,
                                 random_seed=int(row["random_seed"]))
    assert (row["test"], row["p_value"]) == ("weat4", again.p_value)
    pairs = embias.weat_pairs(glove, "religion", permutations=300, n_boot=50, random_seed=5)
    assert pairs["random_seed"].tolist() == [5, 5, 5]
    study = embias.Study(name="toy", protected={"x": ("alpha", "beta"), "y": ("gamma", "delta")},
                         attributes={"x_stereotype": ("epsilon",), "y_stereotype": ("zeta",)})
    seat = seat_overview(random_encoder, tests=[study], templates=TWO_TEMPLATES,
                         permutations=30, random_seed=None)
    seed = int(seat["random_seed"].iloc[0])
    repeat = seat_test(study, random_encoder, templates=TWO_TEMPLATES, permutations=30,
                       n_boot=10, random_seed=seed)
    assert repeat.random_seed == seed and repeat.p_value == seat["p_value"].iloc[0]


# --------------------------------------------------------------------------- item 18
def test_result_numbers_are_plain_floats(toy):
    r = embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"], random_seed=0)
    # exact two-sided p: |T| of the 6 re-partitions against the observed T = 2 + 1/√5
    s = np.array([1.0, 0.0, -1.0, -1 / math.sqrt(5)])
    t_obs = s[:2].sum() - s[2:].sum()
    ts = [2 * s[list(c)].sum() - s.sum() for c in itertools.combinations(range(4), 2)]
    assert r.p_value == pytest.approx(np.mean(np.abs(ts) >= abs(t_obs) - 1e-9), abs=1e-15)
    assert r.p_value == pytest.approx(1 / 3)
    for value in (r.p_value, r.p_value_se, r.effect_size, r.statistic):
        assert type(value) is float
    mc = embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"], permutations=99,
                     random_seed=0)
    assert type(mc.p_value) is float and type(mc.p_value_se) is float
    assert round(mc.p_value * 100, 9) == round(mc.p_value * 100)  # (hits + 1)/100
    assert mc.p_value_se == pytest.approx(math.sqrt(mc.p_value * (1 - mc.p_value) / 99))


# --------------------------------------------------------------------------- item 15
def test_classic_intervals_default_to_the_one_interval_probability():
    table = embias.load_published_table("religion", "reddit")
    r = embias.mac(table)
    s = r.s_values["S"].to_numpy()
    half = stats.t.ppf(0.945, s.size - 1) * s.std(ddof=1) / math.sqrt(s.size)
    row = r.to_interval_table().set_index("group").loc["all"]
    assert row["ci_prob"] == embias.settings.DEFAULT_CI_PROB == 0.89
    assert (row["lower"], row["upper"]) == (pytest.approx(s.mean() - half, rel=1e-9),
                                            pytest.approx(s.mean() + half, rel=1e-9))
    classic = embias.classic_scores(table)
    assert set(classic.loc[classic["estimand"] == "mac", "ci_prob"]) == {0.89}
    # a paper's level is one argument away
    wide = embias.classic_scores(table, ci_prob=0.95).set_index("group").loc["all"]
    half95 = stats.t.ppf(0.975, s.size - 1) * s.std(ddof=1) / math.sqrt(s.size)
    assert wide["upper"] - wide["estimate"] == pytest.approx(half95, rel=1e-9)
    with pytest.raises(ValueError, match=re.escape("ci_prob must be in (0, 1), got 95")):
        r.to_interval_table(ci_prob=95)


def test_word_influence_refuses_a_bare_string_of_words():
    table = embias.study_table("religion", "glove-6b-50d")
    words = list(dict.fromkeys(table["protected_word"]))[:3]
    table = table[table["protected_word"].isin(words)].reset_index(drop=True)
    fit = embias.fit_bias_model(table, level="dataset", draws=50, tune=50, chains=2,
                                random_seed=1, progress=False, warn=False)
    with pytest.raises(ValueError, match=r"^words must be a list of words, got the string "
                                         r"'church' \(one word\? wrap it in a list: "
                                         r"\['church'\]\)"):
        embias.word_influence(fit, words="church", refit="never", progress=False)
    # the same word in a list is left out as asked: one unit, the protected word
    influence = embias.word_influence(fit, words=["church"], refit="never", progress=False)
    assert set(influence["word"]) == {"church"}
