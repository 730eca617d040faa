"""What validate_table (and so every fit and score of a table) refuses: repeated rows,
similarities that disagree with the distances, and values that are not numbers."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import embias
from embias.bayes.data import cell_statistics
from embias.tables import validate_table

KEY = "['protected_word', 'word_to_compare', 'embedding']"


@pytest.fixture()
def toy_table(make_kv):
    kv = make_kv({"x": [1, 0], "y": [0, 1], "a": [1, 1], "b": [-1, 0], "n": [3, 4]},
                 dtype=np.float64)
    study = embias.Study.from_dicts("toy", {"X": ["x"], "Y": ["y"]},
                                    {"X": ["a"], "Y": ["b"]}, neutral=["n"])
    return embias.cosine_table(kv, study)


def repeats_message(what: str) -> str:
    return (f"{what} has 2 row(s) repeating the {KEY} of another row: row 6 (repeats row 1: "
            "'x', 'b', 'custom'), row 7 (repeats row 4: 'y', 'b', 'custom'). Each pair must be "
            "one row — a repeated row would be fitted and averaged as if it were more data; "
            f"drop the repeats (table.drop_duplicates(subset={KEY})) or fix the table")


# ----------------------------------------------------------------- item 6: repeated rows
def test_repeated_rows_are_refused_naming_them(toy_table):
    doubled = pd.concat([toy_table, toy_table.iloc[[1, 4]]], ignore_index=True)
    # before: accepted, and the (x, different) cell mean became (2 + 2)/2 with n = 2
    with pytest.raises(ValueError) as info:
        validate_table(doubled)
    assert str(info.value) == repeats_message("table")
    with pytest.raises(ValueError) as info:
        embias.fit_bias_model(doubled, level="dataset", draws=10, tune=10, chains=1,
                              progress=False)
    assert str(info.value) == repeats_message("table given to fit_bias_model()")
    with pytest.raises(ValueError, match=re.escape("table given to mac() has 2 row(s)")):
        embias.mac(doubled)
    # a repeat with another distance (not an exact copy) is a repeat too
    changed = doubled.copy()
    changed.loc[6, ["cosine_distance", "cosine_similarity"]] = [1.5, -0.5]
    with pytest.raises(ValueError, match=re.escape("row 6 (repeats row 1: 'x', 'b'")):
        validate_table(changed)


def test_rows_differing_in_template_or_embedding_are_not_repeats(toy_table):
    # a sentence table has one row per (protected word, template, compared word)
    two_templates = pd.concat([toy_table.assign(template="This is {term}."),
                               toy_table.assign(template="That is {term}.")],
                              ignore_index=True)
    assert validate_table(two_templates) is two_templates
    two_embeddings = pd.concat([toy_table, toy_table.assign(embedding="other")],
                               ignore_index=True)
    assert validate_table(two_embeddings) is two_embeddings
    cells = cell_statistics(toy_table)
    # by hand: each (word, connection) cell of the toy table holds one row
    assert cells["n"].tolist() == [1, 1, 1, 1, 1, 1]


def test_published_race_table_keeps_its_exact_duplicates_only_on_request():
    with pytest.warns(UserWarning, match="2608 of 5868 rows are exact duplicates"):
        kept = embias.load_published_table("race", "reddit")
    assert kept.attrs["duplicates_kept"] == 2608
    # the authors fitted these rows: the published replication keeps them
    assert validate_table(kept) is kept
    cells = cell_statistics(kept)
    assert int(cells["n"].sum()) == 5868
    # a part of it too (attrs travel with the rows)
    part = kept[kept["connection"] != "human"]
    assert validate_table(part) is part
    # a repeat that is not one of the authors' is refused
    extra = pd.concat([kept, kept.iloc[[0]]])
    extra.attrs = dict(kept.attrs)
    with pytest.raises(ValueError, match=r"table has 2609 row\(s\) repeating"):
        validate_table(extra)
    with pytest.warns(UserWarning, match="dropped as asked"):
        dropped = embias.load_published_table("race", "reddit", duplicates="drop")
    assert dropped.attrs["duplicates_kept"] == 0
    assert int(cell_statistics(dropped)["n"].sum()) == 3260
    # the same rows without the loader's record are a user's table: refused
    plain = pd.DataFrame(kept.to_dict("list"))
    with pytest.raises(ValueError, match=r"table has 2608 row\(s\) repeating the "):
        validate_table(plain)


# ------------------------------------------------ item 6: similarity against distance
def test_a_similarity_that_is_not_one_minus_the_distance_is_refused(toy_table):
    bad = toy_table.copy()
    bad.loc[2, ["cosine_distance", "cosine_similarity"]] = [0.4, 0.5]  # 1 − 0.4 = 0.6
    bad.loc[4, "cosine_distance"] = 1.25  # similarity 0 says distance 1
    with pytest.raises(ValueError) as info:
        validate_table(bad)
    assert str(info.value) == (
        "table has 2 row(s) whose cosine_distance is not 1 − cosine_similarity (beyond 1e-06): "
        "row 2 ('x', 'n': distance 0.4, similarity 0.5), row 4 ('y', 'b': "
        "distance 1.25, similarity 0.0); the two columns must describe the same cosine — fix "
        "or drop one of them")
    missing = toy_table.copy()
    missing.loc[0, "cosine_similarity"] = np.nan
    with pytest.raises(ValueError, match=r"row 0 \('x', 'a': distance 0\.29\d+, similarity "
                                         r"nan\)"):
        validate_table(missing)
    # a table without a similarity column (the paired differences) is not checked for it
    assert len(validate_table(toy_table.drop(columns="cosine_similarity"))) == 6


def test_float32_rounding_of_the_published_tables_is_not_a_disagreement():
    # the authors' GoogleNews tables store float32 similarities: |d − (1 − s)| up to 9e-8
    table = embias.load_published_table("religion", "google")
    gap = (table.cosine_distance - (1 - table.cosine_similarity)).abs()
    assert 1e-9 < gap.max() < 1e-7
    assert validate_table(table) is table


# ------------------------------------------------------- item 12: values that are not numbers
def test_a_value_that_is_not_a_number_names_column_and_row(tmp_path, toy_table):
    path = tmp_path / "table.csv"
    toy_table.to_csv(path, index=False)
    text = path.read_text().splitlines()
    fields = text[4].split(",")  # data row 3
    fields[6] = "abc"  # cosine_distance
    text[4] = ",".join(fields)
    path.write_text("\n".join(text) + "\n")
    table = pd.read_csv(path)
    with pytest.raises(ValueError) as info:
        embias.fit_bias_model(table, level="dataset", draws=10, tune=10, chains=1,
                              progress=False)
    # before: "could not convert string to float: 'abc'"
    assert str(info.value) == (
        "table given to fit_bias_model(): column 'cosine_distance' has 1 value(s) that are "
        "not numbers: row 3 ('abc'); every cosine_distance must be a number (fix the file or "
        "drop those rows)")
    table = pd.read_csv(path).assign(cosine_distance=lambda t: 1 - t.cosine_similarity)
    table["cosine_similarity"] = table["cosine_similarity"].astype(object)
    table.loc[[1, 5], "cosine_similarity"] = ["n/a", "0,8"]
    with pytest.raises(ValueError) as info:
        validate_table(table, what="my.csv")
    assert str(info.value) == (
        "my.csv: column 'cosine_similarity' has 2 value(s) that are not numbers: row 1 "
        "('n/a'), row 5 ('0,8'); every cosine_similarity must be a number (fix the file or "
        "drop those rows)")
    # numbers written as strings are numbers
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = toy_table.astype({"cosine_distance": str, "cosine_similarity": str})
        assert validate_table(ok) is ok
