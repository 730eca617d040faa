"""Words in sentences: May et al.'s templates and the word kinds (data), the sentence table
(hand-checked on 2+2 words in 2 templates), SEAT through embias's WEAT, ``embias seat``."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import embias
from embias.classic import classic_scores, weat_effect_size
from embias.encoders import as_encoder, default_encoder
from embias.sentences import (
    FALLBACK_TEMPLATES,
    KINDS,
    load_templates,
    load_word_kinds,
    resolve_word_kinds,
    seat_overview,
    seat_test,
    sentence_table,
    word_sentences,
)
from embias.tables import TABLE_COLUMNS, validate_table
from embias.wordlists import BUILTIN_STUDIES

TWO_TEMPLATES = ["This is {term}.", "{term} is here."]
#: A toy encoder for hand-checked cosines: each sentence's vector, chosen so every cosine
#: is 0, 1/2, 1/√2 or 1.
TOY_VECTORS = {
    "This is alpha.": [1, 0, 0], "Alpha is here.": [0, 1, 0],
    "This is beta.": [1, 1, 0], "Beta is here.": [0, 0, 1],
    "This is gamma.": [1, 0, 0], "Gamma is here.": [1, 1, 0],
    "This is delta.": [0, 0, 2], "Delta is here.": [0, 1, 1],
}


def toy_study(**extra) -> embias.Study:
    return embias.Study(name="toy", protected={"x": ("alpha",), "y": ("beta",)},
                        attributes={"x_stereotype": ("gamma",), "y_stereotype": ("delta",)},
                        **extra)


def toy_encoder(sentences):
    return np.array([TOY_VECTORS[s] for s in sentences], dtype=float)


# --------------------------------------------------------------------------- data
def test_may_et_al_template_sets_as_published():
    sets = load_templates()
    sizes = {name: len(t) for name, t in sets.items()}
    assert sizes == {"name": 8, "subject_pronoun": 5, "object_pronoun": 3,
                     "possessive_pronoun": 7, "adjective": 3, "mass_noun": 4, "verb": 8,
                     "singular_noun": 6, "plural_noun": 5, "singular_person": 1,
                     "plural_person": 1, "singular_thing": 2, "plural_thing": 1}
    assert sets["name"][-1] == "The person's name is {term}."
    assert sets["singular_noun"][0] == "This is {article} {term}."
    assert FALLBACK_TEMPLATES == tuple(t for t in sets["adjective"] if t in sets["name"])


def test_every_word_of_every_shipped_study_has_a_kind():
    table = load_word_kinds()
    assert table["word"].is_unique and set(table["kind"]) <= set(KINDS)
    for name in BUILTIN_STUDIES:
        study = embias.load_study(name)
        words = [w for ws in (*study.protected.values(), *study.attributes.values(),
                              study.neutral, study.human) for w in ws]
        kinds = resolve_word_kinds(words)
        assert {k.source for k in kinds.values()} == {"table"}, name
    nouns = table[table["kind"].isin(["person_noun", "thing_noun"])]
    assert (nouns[["singular", "plural", "article"]] != "").all().all()
    assert set(nouns["article"]) == {"a", "an"}
    # where embias departs from May et al.'s rules on Caliskan et al.'s words (the header)
    caliskan = {w for n in BUILTIN_STUDIES if n.startswith("weat")
                for s in [embias.load_study(n)]
                for ws in (*s.protected.values(), *s.attributes.values()) for w in ws}
    differ = table[table["word"].isin(caliskan) & (table["kind"] != table["may2019_kind"])]
    assert sorted(differ["word"]) == ["children", "cousins", "executive", "friend",
                                      "influenza", "parents", "relatives"]


def test_words_go_into_may_et_al_sentences_by_kind():
    s = word_sentences(["Adam", "freedom", "kill", "parents", "aster", "he", "his", "happy"])
    by_word = s.groupby("word", sort=False)["sentence"].apply(list).to_dict()
    assert len(by_word["Adam"]) == 8 and "The person's name is Adam." in by_word["Adam"]
    assert by_word["freedom"] == ["This is freedom.", "That is freedom.", "There is freedom.",
                                  "It is freedom."]
    assert by_word["kill"][:2] == ["This will kill.", "This did kill."]
    assert by_word["parents"] == [
        "This is a parent.", "That is a parent.", "There is a parent.", "Here is a parent.",
        "The parent is here.", "The parent is there.", "A parent is a person.",
        "These are parents.", "Those are parents.", "They are parents.",
        "The parents are here.", "The parents are there.", "Parents are people."]
    assert "An aster is a thing." in by_word["aster"] and "It is an aster." in by_word["aster"]
    assert "Asters are things." in by_word["aster"]
    assert by_word["he"] == ["He is here.", "He is there.", "Here he is.", "There he is.",
                             "He is a person."]
    assert "It is his." in by_word["his"]
    assert by_word["happy"] == ["This is happy.", "That is happy.", "They are happy."]
    assert s.loc[s["word"] == "parents", "template"].iloc[0] == "This is {article} {term}."


def test_unknown_words_fall_back_and_are_named():
    with pytest.warns(UserWarning, match=r"1 word\(s\) of unknown kind take the fallback "
                                         r"templates \['This is \{term\}.', 'That is "
                                         r"\{term\}.'\]: \['glorp'\]"):
        s = word_sentences(["glorp", "Zebulon", "Freedom"])
    kinds = dict(zip(s["word"], s["kind_source"], strict=False))
    assert kinds == {"glorp": "unknown", "Zebulon": "capitalised",
                     "Freedom": "table (lower case)"}
    assert list(s.loc[s["word"] == "glorp", "sentence"]) == ["This is glorp.",
                                                              "That is glorp."]
    assert "Zebulon is a person." in set(s["sentence"])
    assert "It is Freedom." in set(s["sentence"])
    with warnings.catch_warnings():  # user templates: kinds do not matter, no warning
        warnings.simplefilter("error")
        word_sentences(["glorp"], templates=TWO_TEMPLATES)


def test_word_kinds_given_by_the_user():
    s = word_sentences(["glorp", "blick"], word_kinds={
        "glorp": "adjective", "blick": {"kind": "thing_noun", "plural": "blicken"}})
    assert "They are glorp." in set(s["sentence"])
    assert {"A blick is a thing.", "Blicken are things."} <= set(s["sentence"])
    with pytest.raises(ValueError, match=r"word_kinds\['blick'\]: a thing_noun needs its "
                                         "plural"):
        word_sentences(["blick"], word_kinds={"blick": "thing_noun"})
    with pytest.raises(ValueError, match=r"word_kinds\['blick'\]='noun' is not one of"):
        word_sentences(["blick"], word_kinds={"blick": "noun"})
    with pytest.raises(ValueError, match="article must be 'a' or 'an', got 'the'"):
        word_sentences(["blick"], word_kinds={"blick": {"kind": "thing_noun", "plural": "x",
                                                        "article": "the"}})


@pytest.mark.parametrize(("templates", "message"), [
    (["This is it."], r"templates\[0\] 'This is it.' has no \{term\} slot"),
    (["This is {word}."], r"has the slot\(s\) \{word\}; a template may have only \{term\} "
                          r"\(required\) and \{article\}"),
    (["This is {}."], r"has the slot\(s\) \{\}"),
    (["This is {term!r}."], "slots take no format spec or conversion"),
    (["This is {term."], r"'This is \{term.' is not a valid template"),
    ([], r"templates is an empty list of templates; give at least one"),
    (["A {term}.", "A {term}."], r"repeats the template\(s\) \['A \{term\}.'\]"),
    ("This is {term}.", r"wrap it in a list: \['This is \{term\}.'\]"),
    ("may2020", r"templates='may2020' is not 'may2019'"),
    ({}, "templates is an empty mapping"),
    ({"noun": ["{term}."]}, r"a key of templates='noun' is not one of"),
    ({"name": []}, r"templates\['name'\] is an empty list"),
    ({"name": ["{term} is here."]}, r"templates has no list for the kind\(s\) "
                                    r"\['thing_noun'\]"),
    ([3], r"templates\[0\] must be a string with a \{term\} slot, got 3"),
])
def test_bad_templates_are_refused_naming_the_problem(templates, message):
    with pytest.raises(ValueError, match=message):
        word_sentences(["Adam", "rose"], templates=templates)


# --------------------------------------------------------------------------- the table
def test_hand_checked_table_of_two_plus_two_words_in_two_templates():
    """alpha (class x), beta (class y) against gamma (x's attribute) and delta (y's), each
    word in 'This is {term}.' and '{term} is here.'; vectors in TOY_VECTORS."""
    table = sentence_table(toy_encoder, toy_study(), templates=TWO_TEMPLATES)
    assert list(table.columns) == [*TABLE_COLUMNS, "template", "sentence",
                                   "n_compared_sentences"]
    r2 = 1 / math.sqrt(2)
    # cos with gamma's sentences (1,0,0), (1,1,0) and delta's (0,0,2), (0,1,1), averaged
    expected = [
        # protected sentence, compared word, connection, mean cosine
        ("This is alpha.", "gamma", "associated", (1 + r2) / 2),   # (1,0,0)
        ("This is alpha.", "delta", "different", (0 + 0) / 2),
        ("Alpha is here.", "gamma", "associated", (0 + r2) / 2),   # (0,1,0)
        ("Alpha is here.", "delta", "different", (0 + r2) / 2),
        ("This is beta.", "gamma", "different", (r2 + 1) / 2),     # (1,1,0)
        ("This is beta.", "delta", "associated", (0 + 0.5) / 2),
        ("Beta is here.", "gamma", "different", (0 + 0) / 2),      # (0,0,1)
        ("Beta is here.", "delta", "associated", (1 + r2) / 2),
    ]
    got = table[["sentence", "word_to_compare", "connection", "cosine_similarity"]]
    assert [tuple(r[:3]) for r in got.itertuples(index=False)] == [e[:3] for e in expected]
    np.testing.assert_allclose(got["cosine_similarity"], [e[3] for e in expected], atol=1e-12)
    np.testing.assert_allclose(table["cosine_distance"], 1 - table["cosine_similarity"])
    assert list(table["template"]) == [t for t in TWO_TEMPLATES for _ in range(2)] * 2
    assert list(table["protected_class"]) == ["x"] * 4 + ["y"] * 4
    assert list(table["word_class"]) == ["x_stereotype", "y_stereotype"] * 4
    assert set(table["n_compared_sentences"]) == {2} and set(table["embedding"]) == {
        "toy_encoder"}
    assert table.attrs["sentences"] == 8 and table.attrs["pairing"] == "mean"

    every = sentence_table(toy_encoder, toy_study(), templates=TWO_TEMPLATES, pairing="all")
    assert len(every) == 16
    first = every.iloc[:4]
    assert list(first["compared_sentence"]) == ["This is gamma.", "Gamma is here.",
                                                "This is delta.", "Delta is here."]
    np.testing.assert_allclose(first["cosine_similarity"], [1, r2, 0, 0], atol=1e-12)
    # the mean pairing is the all pairing averaged over the compared word's sentences
    means = every.groupby(["sentence", "word_to_compare"], sort=False)["cosine_similarity"]
    np.testing.assert_allclose(means.mean().to_numpy(), table["cosine_similarity"])


def test_controls_and_classic_scores_read_the_sentence_table():
    # a protected word may also be a control word (its rows with itself are dropped); an
    # attribute word may not (a word in two roles is refused by the study)
    study = toy_study(neutral=("alpha",), human=("beta",))
    with pytest.warns(UserWarning, match=r"protected words that are also compared words: "
                                         r"'alpha' \(neutral\), 'beta' \(human\); their 4 "
                                         r"row\(s\)"):
        table = sentence_table(toy_encoder, study, templates=TWO_TEMPLATES)
    assert table.attrs["self_pairs_dropped"] == [("alpha", "alpha"), ("beta", "beta")]
    assert table["connection"].value_counts().to_dict() == {
        "associated": 4, "different": 4, "human": 2, "none": 2}
    validate_table(table)
    scores = classic_scores(table)
    weat_row = scores[scores["estimand"] == "weat_effect_size"]
    # word-level WEAT of the table: s(w) = mean over w's rows with A − with B
    s = table[table["connection"].isin(["associated", "different"])].pivot_table(
        index="protected_word", columns="word_class", values="cosine_similarity")
    s = s["x_stereotype"] - s["y_stereotype"]
    expected = weat_effect_size(s[["alpha"]].to_numpy(), s[["beta"]].to_numpy())
    assert weat_row["estimate"].iloc[0] == pytest.approx(expected)


def test_each_sentence_is_encoded_once():
    calls: list[str] = []

    def counting(sentences):
        calls.extend(sentences)
        return toy_encoder(sentences)

    enc = as_encoder(counting)
    sentence_table(enc, toy_study(), templates=TWO_TEMPLATES)
    sentence_table(enc, toy_study(), templates=TWO_TEMPLATES, pairing="all")
    assert sorted(calls) == sorted(TOY_VECTORS)


@pytest.mark.parametrize(("encoder", "message"), [
    (lambda s: np.ones((len(s) - 1, 3)), r"returned an array of shape \(7, 3\) for 8 "
                                         "sentences"),
    (lambda s: np.where(np.array([["alpha" in x.lower()] * 3 for x in s]), np.nan, 1.0),
     r"NaN or infinite values for 2 of 8 sentences: 'This is alpha.', 'Alpha is here.'"),
    (lambda s: np.array([[0.0, 0.0] if "beta" in x.lower() else [1.0, 2.0] for x in s]),
     r"zero vectors \(cosine undefined\) for 2 of 8 sentences: 'This is beta.'"),
])
def test_bad_encoders_are_refused_by_the_table(encoder, message):
    with pytest.raises(ValueError, match=message):
        sentence_table(as_encoder(encoder, name="bad"), toy_study(), templates=TWO_TEMPLATES)


def test_bad_table_options():
    with pytest.raises(ValueError, match=r"pairing='same' is not one of \['mean', 'all'\]"):
        sentence_table(toy_encoder, toy_study(), templates=TWO_TEMPLATES, pairing="same")
    with pytest.raises(ValueError, match="templates is an empty list"):
        sentence_table(toy_encoder, toy_study(), templates=[])
    with pytest.raises(ValueError, match=r"'This is it.' has no \{term\} slot"):
        sentence_table(toy_encoder, toy_study(), templates=["This is it.", "{term}."])


# --------------------------------------------------------------------------- SEAT
def test_seat_is_weat_over_sentences_exact_p_value_by_enumeration():
    # the attribute words epsilon and zeta have alpha's and beta's vectors (a word may not
    # be a target and an attribute word at once)
    vectors = {**TOY_VECTORS, "This is epsilon.": [1, 0, 0], "Epsilon is here.": [0, 1, 0],
               "This is zeta.": [1, 1, 0], "Zeta is here.": [0, 0, 1]}

    def encoder(sentences):
        return np.array([vectors[s] for s in sentences], dtype=float)

    study = embias.Study(name="toy2", protected={"x": ("alpha", "beta"),
                                                 "y": ("gamma", "delta")},
                         attributes={"x_stereotype": ("epsilon",), "y_stereotype": ("zeta",)})
    r = seat_test(study, encoder, templates=TWO_TEMPLATES, permutations="exact")
    v = {s: np.array(x) / np.linalg.norm(x) for s, x in vectors.items()}
    sent = {w: [t.format(term=w)[:1].upper() + t.format(term=w)[1:] for t in TWO_TEMPLATES]
            for w in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")}
    X, Y = sent["alpha"] + sent["beta"], sent["gamma"] + sent["delta"]
    A, B = sent["epsilon"], sent["zeta"]

    def s_of(x):
        return np.mean([v[x] @ v[a] for a in A]) - np.mean([v[x] @ v[b] for b in B])

    s = np.array([s_of(x) for x in X + Y])
    d = (s[:4].mean() - s[4:].mean()) / s.std(ddof=1)
    assert r.effect_size == pytest.approx(d)
    stat = s[:4].sum() - s[4:].sum()
    null = [2 * s[list(c)].sum() - s.sum() for c in itertools.combinations(range(8), 4)]
    mid = 0.0
    assert r.exact and r.n_permutations == 70
    assert r.p_value == pytest.approx(
        np.mean(np.abs(np.array(null) - mid) >= abs(stat - mid) - 1e-9))
    assert list(r.s_values.columns[:5]) == ["word", "template", "sentence", "target", "s"]
    assert list(r.s_values["sentence"]) == X + Y
    np.testing.assert_allclose(r.s_values["s"], s)


@pytest.fixture(scope="module")
def minilm():
    return default_encoder()


def test_seat_on_the_default_encoder(minilm):
    r = seat_test("weat7", minilm, permutations=2000, random_seed=0)
    counts = r.s_values.groupby("target").size().to_dict()
    assert counts == {"X": 72, "Y": 82}  # 8 math and 8 arts words in their templates
    assert r.s_values.groupby("word").size()["math"] == 4  # a mass noun: 4 templates
    s = r.s_values["s"].to_numpy()
    x = (r.s_values["target"] == "X").to_numpy()
    assert r.effect_size == pytest.approx(weat_effect_size(s[x], s[~x]))
    assert r.effect_size > 0.3 and r.p_value < 0.01  # math ~ male terms, arts ~ female
    again = seat_test("weat7", minilm, permutations=2000, random_seed=0)
    assert again.p_value == r.p_value and again.effect_size == r.effect_size

    overview = seat_overview(minilm, tests=["weat7"], permutations=2000)
    assert overview.loc[0, "sentences"] == "72/82/80/80"
    assert overview.loc[0, "effect_size"] == pytest.approx(r.effect_size)


def test_sentence_table_on_the_default_encoder(minilm):
    study = embias.load_study("weat7").replace(neutral=(), human=())
    table = sentence_table(minilm, study)
    assert len(table) == 154 * 16  # 154 protected sentences × 16 attribute words
    assert set(table["embedding"]) == {"all-MiniLM-L6-v2"}
    assert table.attrs["unknown_kind"] == [] and table.attrs["templates"] == "may2019"
    validate_table(table)
    summary = embias.summarize_table(table)
    assert list(summary["connection"]) == ["associated", "different"]
    stats = embias.cell_statistics(table)
    assert int(stats["n"].sum()) == len(table)


# --------------------------------------------------------------------------- the command
def test_embias_seat_command():
    done = subprocess.run([sys.executable, "-m", "embias", "seat", "weat9",
                           "--permutations", "1000"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("SEAT (May et al. 2019)")
    row = next(line for line in lines if line.startswith("| weat9"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "18/63/21/23" and cells[4] == "MC 1,000"
    assert 0 < float(cells[2]) < 2
    bad = subprocess.run([sys.executable, "-m", "embias", "seat", "weat66"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert bad.stderr.strip() == ("embias: error: unknown WEAT test 'weat66' (did you mean "
                                  "'weat6'?); known: weat1, weat2, weat3, weat4, weat5, "
                                  "weat6, weat7, weat8, weat9, weat10, 'all', or a folder of "
                                  "a two-class study")


def test_table_attrs_list_the_kinds():
    table = sentence_table(toy_encoder, toy_study(), templates=TWO_TEMPLATES)
    assert table.attrs["word_kinds"] == {"alpha": "other", "beta": "other", "gamma": "other",
                                         "delta": "other"}
    assert isinstance(table, pd.DataFrame)
