"""Long-form cosine tables from embeddings and the authors' published tables."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import embias
from embias.embeddings import MissingWordsError
from embias.tables import TABLE_COLUMNS


@pytest.fixture(scope="module")
def religion_table(glove):
    with pytest.warns(UserWarning, match="literaly"):
        return embias.cosine_table(glove, "religion")


def test_religion_table_shape_and_connections(religion_table):
    t = religion_table
    assert list(t.columns) == list(TABLE_COLUMNS)
    # 15 protected words × (11 attributes + 225 neutral + 85 human); 'literaly' is not in GloVe
    assert len(t) == 15 * (11 + 225 + 85)
    counts = t["connection"].value_counts().to_dict()
    assert counts == {"none": 15 * 225, "human": 15 * 85, "different": 110, "associated": 55}
    row = t[(t.protected_word == "jew") & (t.word_to_compare == "greedy")].iloc[0]
    assert row.connection == "associated" and row.protected_class == "jewish"
    row = t[(t.protected_word == "jew") & (t.word_to_compare == "violent")].iloc[0]
    assert row.connection == "different" and row.word_class == "muslim_stereotype"
    np.testing.assert_allclose(t.cosine_distance, 1 - t.cosine_similarity, atol=0)


def test_table_matches_gensim_similarity(religion_table, glove):
    gensim_sim = np.array([
        glove.similarity(a, b)
        for a, b in zip(religion_table.protected_word, religion_table.word_to_compare,
                        strict=True)
    ])
    np.testing.assert_allclose(religion_table.cosine_similarity, gensim_sim, atol=1e-6)


def test_missing_words_report(religion_table, glove):
    report = religion_table.attrs["missing"]
    assert report["neutral"] == {"missing": ["literaly"], "kept": 225, "total": 226}
    assert report["protected:jewish"] == {"missing": [], "kept": 5, "total": 5}
    with pytest.raises(MissingWordsError) as info:
        embias.cosine_table(glove, "religion", missing="raise")
    assert isinstance(info.value, KeyError)
    assert "neutral: 1 of 226 missing (225 kept): literaly" in str(info.value)


def test_warn_lists_every_missing_word_grouped(glove):
    study = embias.load_study("religion").replace(
        attributes={"christian_stereotype": ("critical", "qqzzx1"),
                    "jewish_stereotype": ("greedy",),
                    "muslim_stereotype": ("violent", "qqzzx2", "qqzzx3")},
        neutral=(), human=())
    with pytest.warns(UserWarning) as record:
        t = embias.cosine_table(glove, study)
    text = str(record[0].message)
    assert "3 words missing" in text
    assert "attributes:christian_stereotype: 1 of 2 missing (1 kept): qqzzx1" in text
    assert "attributes:muslim_stereotype: 2 of 3 missing (1 kept): qqzzx2, qqzzx3" in text
    assert len(t) == 15 * 3


def test_empty_list_is_an_error(glove):
    study = embias.load_study("religion").replace(
        attributes={**embias.load_study("religion").attributes,
                    "jewish_stereotype": ("qqzzx1", "qqzzx2")})
    with pytest.raises(ValueError, match=r"word lists \['attributes:jewish_stereotype'\] have "
                                         r"no word in the embeddings"), pytest.warns(UserWarning):
        embias.cosine_table(glove, study)


def test_lowercase_handling(make_kv):
    kv = make_kv({"Jew": [1.0, 0.0], "jew": [0.0, 1.0], "greedy": [1.0, 1.0], "x": [1, 2]})
    study = embias.Study.from_dicts("t", {"j": ["Jew"]}, {"j": ["greedy"]}, neutral=["x"])
    cased = embias.cosine_table(kv, study, lowercase=False)
    lower = embias.cosine_table(kv, study, lowercase=True)
    assert cased.cosine_similarity.iloc[0] == pytest.approx(1 / np.sqrt(2), abs=1e-7)
    assert lower.cosine_similarity.iloc[0] == pytest.approx(1 / np.sqrt(2), abs=1e-7)
    assert cased.cosine_similarity.iloc[1] == pytest.approx(1 / np.sqrt(5), abs=1e-7)
    assert lower.cosine_similarity.iloc[1] == pytest.approx(2 / np.sqrt(5), abs=1e-7)
    assert lower.protected_word.iloc[0] == "Jew"  # words are reported as listed


def test_zero_vector_is_named(make_kv):
    kv = make_kv({"a": [1.0, 0.0], "b": [0.0, 0.0], "c": [0.0, 1.0]})
    study = embias.Study.from_dicts("t", {"p": ["a"]}, {"p": ["b", "c"]})
    with pytest.raises(ValueError, match=r"zero or non-finite vectors for \['b'\]"):
        embias.cosine_table(kv, study)


def test_hand_computed_table(make_kv):
    kv = make_kv({"x": [1, 0], "y": [0, 1], "a": [1, 1], "b": [-1, 0], "n": [3, 4]})
    study = embias.Study.from_dicts("toy", {"X": ["x"], "Y": ["y"]},
                                    {"X": ["a"], "Y": ["b"]}, neutral=["n"])
    t = embias.cosine_table(kv, study).set_index(["protected_word", "word_to_compare"])
    expect = {("x", "a"): (1 / np.sqrt(2), "associated"), ("x", "b"): (-1.0, "different"),
              ("x", "n"): (0.6, "none"), ("y", "a"): (1 / np.sqrt(2), "different"),
              ("y", "b"): (0.0, "associated"), ("y", "n"): (0.8, "none")}
    for key, (sim, con) in expect.items():
        assert t.loc[key, "cosine_similarity"] == pytest.approx(sim, abs=1e-7)
        assert t.loc[key, "cosine_distance"] == pytest.approx(1 - sim, abs=1e-7)
        assert t.loc[key, "connection"] == con


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dim=st.integers(2, 6),
    n_words=st.integers(4, 12),
)
def test_property_table_equals_pairwise_cosines(make_kv, data, dim, n_words):
    vecs = data.draw(arrays(np.float64, (n_words, dim),
                            elements=st.floats(-3, 3, allow_nan=False, width=32)))
    vecs = vecs[np.linalg.norm(vecs, axis=1) > 1e-3]
    if len(vecs) < 4:
        return
    words = [f"w{i}" for i in range(len(vecs))]
    kv = make_kv(dict(zip(words, vecs.tolist(), strict=True)), dtype=np.float64)
    cut = data.draw(st.integers(1, len(words) - 3))
    half = data.draw(st.integers(cut + 1, len(words) - 2))
    study = embias.Study.from_dicts(
        "prop", {"p": words[:cut], "q": words[cut:half]},
        {"p": words[half:half + 1], "q": words[half + 1:]}, neutral=words[:2])
    # words[0] and words[1] are protected words and neutral ones: their two
    # self-comparison rows are dropped with a warning
    with pytest.warns(UserWarning, match=r"'w0' \(class 'p'\) is 'w0' \(neutral\), 'w1'"):
        t = embias.cosine_table(kv, study)
    n_compared = (len(words) - half) + 2
    assert len(t) == half * n_compared - 2
    assert not (t.protected_word == t.word_to_compare).any()
    for r in t.itertuples():
        u, v = kv[r.protected_word], kv[r.word_to_compare]
        cos = float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))
        assert r.cosine_similarity == pytest.approx(cos, abs=1e-9)
        if r.connection in ("associated", "different"):
            own = study.associations[r.protected_class]
            assert (r.connection == "associated") == (r.word_class == own)


# ----------------------------------------------------------------------- published tables
def test_published_religion_reddit():
    t = embias.load_published_table("religion", "reddit")
    assert list(t.columns) == list(TABLE_COLUMNS)
    assert len(t) == 4830 and t.attrs["duplicates"] == 0
    means = t.groupby("connection").cosine_distance.mean()
    # raw connection means of the authors' table (DESIGN §5 posterior means are close to these)
    assert means.to_dict() == pytest.approx(
        {"associated": 0.8322, "different": 0.8838, "human": 0.9068, "none": 0.9544}, abs=1e-4)
    assert set(t.protected_class) == {"christian", "jewish", "muslim"}
    assert (t.embedding == "published:reddit").all()


def test_published_race_duplicates_are_reported_not_dropped():
    with pytest.warns(UserWarning, match=r"2608 of 5868 rows are exact duplicates.*kept"):
        kept = embias.load_published_table("race", "reddit")
    assert len(kept) == 5868 and kept.attrs["duplicates"] == 2608
    with pytest.warns(UserWarning, match=r"dropped as asked"):
        dropped = embias.load_published_table("race", "reddit", duplicates="drop")
    assert len(dropped) == 3260 and not dropped.duplicated().any()
    with pytest.raises(ValueError, match=r"2608 of 5868 rows are exact duplicates"):
        embias.load_published_table("race", "reddit", duplicates="raise")


def test_published_missing_code_is_dropped_and_counted():
    with pytest.warns(UserWarning, match=r"6890 of 18050 rows are coded -100") as record:
        t = embias.load_published_table("weat1", "reddit")
    assert len(t) == 18050 - 6890
    assert (t.cosine_distance > -1).all()
    miss = t.attrs["missing"]
    assert miss["flowers"] == {"coded_missing": 506, "total": 1250}
    assert miss["insects"] == {"coded_missing": 475, "total": 1250}
    assert sum(v["coded_missing"] for v in miss.values()) == 6890
    assert "flowers: 506 of 1250" in str(record[0].message)
    with pytest.raises(MissingWordsError):
        embias.load_published_table("weat1", "reddit", missing="raise")


@pytest.mark.parametrize(("study", "embedding"), list(itertools.product(
    ["religion", "race", "gender", "weat1", "weat7"], ["reddit", "google", "glove"])))
def test_every_published_table_loads(study, embedding):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t = embias.load_published_table(study, embedding)
    assert np.isfinite(t.cosine_distance).all()
    assert set(t.connection) <= {"associated", "different", "human", "none"}
    assert not t.protected_class.isna().any()


def test_published_errors():
    with pytest.raises(ValueError, match=r"no hard-debiased published table for study 'weat1'"):
        embias.load_published_table("weat1", "reddit-debiased")
    with pytest.raises(ValueError, match=r"unknown published embedding 'twitter'; available: "
                                         r"\['reddit', 'google', 'glove', 'reddit-debiased'\]"):
        embias.load_published_table("religion", "twitter")
    with pytest.raises(ValueError, match=r"no published table for study 'weat2'"):
        embias.load_published_table("weat2", "reddit")


def test_summarize_table_counts(religion_table):
    s = embias.summarize_table(religion_table).set_index("connection")
    assert s.loc["associated", "rows"] == 55 and s.loc["none", "compared_words"] == 225
    assert s.loc["human", "mean"] == pytest.approx(
        religion_table[religion_table.connection == "human"].cosine_distance.mean())


def test_validate_table_errors():
    from embias.tables import validate_table

    good = embias.load_published_table("religion", "reddit")
    with pytest.raises(ValueError, match=r"lacks columns \['connection'\]"):
        validate_table(good.drop(columns="connection"))
    bad = good.copy()
    bad.loc[3, "cosine_distance"] = np.nan
    with pytest.raises(ValueError, match=r"1 NaN/infinite cosine distances"):
        validate_table(bad)
    with pytest.raises(ValueError, match=r"has no rows"):
        validate_table(good.iloc[:0])
    bad = good.copy()
    bad.loc[0, "connection"] = "related"
    with pytest.raises(ValueError, match=r"unknown connection labels \['related'\]"):
        validate_table(pd.DataFrame(bad))


@pytest.fixture(scope="module")
def cased_study():
    return embias.Study.from_dicts(
        "cased", {"muslim": ["Muslim", "muslim", "islam"], "jewish": ["jew", "judaism"]},
        {"muslim_stereotype": ["violent"], "jewish_stereotype": ["greedy"]})


def test_case_variants_count_once_in_table_and_mac(glove, cased_study):
    with pytest.warns(UserWarning) as record:
        t = embias.cosine_table(glove, cased_study)
    assert [str(r.message) for r in record] == [
        "duplicate words for study 'cased' after case handling (looked up in lower case) were "
        "dropped, keeping the first spelling: list 'protected:muslim': 'muslim' is 'Muslim'"
    ]
    # 4 protected words (not 5) × 2 attribute words
    assert len(t) == 8
    assert list(dict.fromkeys(t.protected_word)) == ["Muslim", "islam", "jew", "judaism"]
    # MAC by hand from gensim's similarity: each word counted once
    pairs = [(w, a) for w in ("muslim", "islam", "jew", "judaism") for a in ("violent", "greedy")]
    hand = np.mean([1 - float(glove.similarity(w, a)) for w, a in pairs])
    assert embias.mac(t).value == pytest.approx(hand, abs=1e-6)
    assert hand == pytest.approx(0.70277, abs=1e-5)
    with pytest.warns(UserWarning, match=r"'muslim' is 'Muslim'"):
        assert embias.mac(glove, cased_study).value == pytest.approx(hand, abs=1e-6)


def test_protected_word_that_is_also_compared_drops_the_self_pair_with_warning(make_kv):
    kv = make_kv({"x": [1, 0], "y": [0, 1], "a": [1, 1], "b": [-1, 0], "n": [3, 4]})
    study = embias.Study.from_dicts("self", {"X": ["x"], "Y": ["y"]},
                                    {"X": ["a"], "Y": ["b"]}, neutral=["x", "n"])
    with pytest.warns(UserWarning) as record:
        t = embias.cosine_table(kv, study)
    assert [str(r.message) for r in record] == [
        "study 'self': protected words that are also compared words: 'x' (class 'X') is "
        "'x' (neutral); their 1 self-comparison row(s) (cosine distance 0 by construction) "
        "were dropped, the words' other rows kept"
    ]
    got = {(r.protected_word, r.word_to_compare): round(r.cosine_distance, 7)
           for r in t.itertuples()}
    # by hand: x·a/|a| = 1/√2, x·b = −1, x·n/5 = 0.6; y·x = 0, y·a = 1/√2, y·b = 0, y·n = .8
    assert got == {("x", "a"): round(1 - 1 / np.sqrt(2), 7), ("x", "b"): 2.0,
                   ("x", "n"): 0.4, ("y", "a"): round(1 - 1 / np.sqrt(2), 7),
                   ("y", "b"): 1.0, ("y", "x"): 1.0, ("y", "n"): 0.2}
    assert t.attrs["self_pairs_dropped"] == [("x", "x")]


def test_shipped_weat10_billy_is_protected_and_neutral_on_glove(glove):
    # 'Billy' (young names) and 'billy' (neutral list) are one GloVe word
    with pytest.warns(UserWarning) as record:
        t = embias.cosine_table(glove, "weat10")
    messages = [str(r.message) for r in record]
    assert ("study 'weat10': protected words that are also compared words: 'Billy' (class "
            "'youngnames') is 'billy' (neutral); their 1 self-comparison row(s) (cosine "
            "distance 0 by construction) were dropped, the words' other rows kept") in messages
    assert t.cosine_distance.min() > 0.05
    assert not ((t.protected_word == "Billy") & (t.word_to_compare == "billy")).any()
    assert ((t.protected_word == "Billy") & (t.connection == "none")).sum() == (
        (t.protected_word == "Tiffany") & (t.connection == "none")).sum() - 1


def test_case_variants_in_two_protected_classes_are_an_error(glove):
    # (each class has its associated attribute class: a study without one is refused)
    study = embias.Study.from_dicts("two", {"a": ["Jew", "rabbi"], "b": ["jew", "priest"]},
                                    {"a": ["greedy"], "b": ["kind"]})
    with pytest.raises(ValueError) as info:
        embias.cosine_table(glove, study)
    assert str(info.value) == (
        "study 'two': the protected words 'Jew' (class 'a') and 'jew' (class 'b') are one word "
        "in these embeddings (looked up in lower case); a word can belong to one protected "
        "class only")


def test_validate_table_refuses_distances_outside_0_2():
    from embias.tables import validate_table

    good = embias.load_published_table("religion", "reddit")
    bad = good.copy()
    bad.loc[5, "cosine_distance"] = -3.0
    bad.loc[9, "cosine_distance"] = 2.5
    r5, r9 = good.loc[5], good.loc[9]
    with pytest.raises(ValueError) as info:
        validate_table(bad)
    assert str(info.value) == (
        "table has 2 cosine distances outside [0, 2] (a cosine distance is 1 − cosine "
        f"similarity): row 5 ({r5.protected_word!r}, {r5.word_to_compare!r}): -3.0, row 9 "
        f"({r9.protected_word!r}, {r9.word_to_compare!r}): 2.5")
    # rounding of a distance computed in float32 is not an error (with a similarity that
    # agrees: a table whose two columns disagree is refused)
    ok = good.copy()
    ok.loc[5, ["cosine_distance", "cosine_similarity"]] = [-1e-7, 1 + 1e-7]
    validate_table(ok)


def test_published_table_names_are_case_insensitive():
    lower = embias.load_published_table("religion", "reddit")
    for study, embedding in [("Religion", "reddit"), ("RELIGION", "Reddit")]:
        t = embias.load_published_table(study, embedding)  # failed before the fix
        pd.testing.assert_frame_equal(t, lower)
        assert t.attrs == lower.attrs and t.attrs["study"] == "religion"
    with pytest.warns(UserWarning, match=r"'literaly'"):
        weat7 = embias.load_published_table("WEAT-7", "glove")
    with pytest.warns(UserWarning, match=r"'literaly'"):
        pd.testing.assert_frame_equal(weat7, embias.load_published_table("weat7", "glove"))
    with pytest.raises(ValueError) as info:
        embias.load_published_table("WEAT2", "reddit")
    assert str(info.value) == ("no published table for study 'WEAT2'; available: "
                               "['religion', 'race', 'gender', 'weat1', 'weat7']")
    with pytest.raises(ValueError) as info:
        embias.load_published_table("religon", "Reddit")
    assert str(info.value) == ("no published table for study 'religon'; available: "
                               "['religion', 'race', 'gender', 'weat1', 'weat7'] (did you "
                               "mean 'religion'?)")


def test_published_reddit_aligns_with_glove():
    """The authors' table names a class ``jew_stereotype``, the shipped study
    ``jewish_stereotype``: word pairs are matched on (protected word, compared word,
    connection) and the class name is mapped, with a warning and an attrs record."""
    import warnings

    from embias.pipeline.sources import resolve_tables
    from embias.tables import align_tables, difference_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 'literaly' is not in GloVe
        tables, _ = resolve_tables({"a": "published:reddit", "b": "glove-6b-50d"},
                                   "religion", require_same_dimension=True)
    assert set(tables["a"]["word_class"]) > {"jew_stereotype"}
    assert "jewish_stereotype" in set(tables["b"]["word_class"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        aligned, unmatched = align_tables(tables)
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("15 word pairs are not in every embedding's table") for m in messages)
    (mapped,) = [m for m in messages if "named differently" in m]
    assert mapped == ("word classes named differently but holding the same word pairs are "
                      "named as in 'a': b: 'jewish_stereotype' → 'jew_stereotype'")
    # only the word GloVe lacks is left out (135 pairs were left out before)
    assert len(unmatched) == 15 and set(unmatched["word_to_compare"]) == {"literaly"}
    assert set(unmatched["missing_from"]) == {"b"}
    assert len(aligned["a"]) == len(aligned["b"]) == 4815
    assert aligned["b"].attrs["word_class_mapped"] == {"jewish_stereotype": "jew_stereotype"}
    assert "word_class_mapped" not in aligned["a"].attrs
    assert (aligned["a"]["word_class"].to_numpy() == aligned["b"]["word_class"].to_numpy()).all()
    # every connection keeps its rows: the models and the classic scores can be computed
    counts = aligned["b"].groupby(["protected_class", "connection"]).size()
    assert counts[("jewish", "associated")] == 5 * 4 and counts[("jewish", "different")] == 5 * 7
    d = difference_table(aligned["b"], aligned["a"], label="b", reference_label="a")
    assert len(d) == 4815 and np.isfinite(d["cosine_distance"]).all()


def test_class_names_that_do_not_map_one_to_one_are_an_error():
    from embias.tables import align_tables

    a = embias.load_published_table("religion", "reddit")
    b = a.copy()
    b["cosine_distance"] = b["cosine_distance"] * 0.9
    # b calls every attribute class by one name: not a renaming but a different study
    attribute = b["connection"].isin(["associated", "different"])
    b.loc[attribute, "word_class"] = "stereotype"
    with pytest.raises(ValueError) as info:
        align_tables({"a": a, "b": b})
    assert str(info.value) == (
        "embedding 'b': word class 'stereotype' holds word pairs of 3 word classes of 'a' "
        "(['christian_stereotype', 'jew_stereotype', 'muslim_stereotype']): the tables do "
        "not classify the compared words alike (are they the same study?)")
    # …nor does a table that splits one of the reference's classes in two
    c = a.assign(cosine_distance=a["cosine_distance"] * 0.9)
    split = (c["word_class"] == "jew_stereotype") & (c["word_to_compare"] == "greedy")
    c.loc[split, "word_class"] = "greed"
    with pytest.raises(ValueError) as info:
        align_tables({"a": a, "c": c})
    assert str(info.value) == (
        "embedding 'c': word classes ['greed', 'jew_stereotype'] hold the word pairs of one "
        "word class 'jew_stereotype' of 'a': the tables do not classify the compared words "
        "alike (are they the same study?)")


def test_word_in_two_attribute_lists_keeps_word_class_in_the_key():
    """A compared word in two attribute lists is two rows of one (protected word, compared
    word, connection): then word_class stays part of the key, as before."""
    from embias.tables import align_tables

    a = embias.load_published_table("religion", "reddit")
    extra = a[(a["word_to_compare"] == "terrorist") & (a["connection"] == "different")]
    extra = extra[extra["word_class"] == "muslim_stereotype"].copy()
    extra = extra[extra["protected_class"] == "jewish"]
    extra["word_class"] = "christian_stereotype"
    a2 = pd.concat([a, extra], ignore_index=True)
    b2 = a2.assign(cosine_distance=a2["cosine_distance"] * 0.9)
    aligned, unmatched = align_tables({"a": a2, "b": b2})
    assert unmatched.empty and len(aligned["b"]) == len(a2)
