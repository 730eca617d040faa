"""What reaches a study: associations, words in two roles, and the word-list files."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import embias
from embias import Study
from embias.bayes.data import cell_statistics
from embias.wordlists import read_wordlist

ASSOCIATIONS_HELP = (
    "Say which attribute class belongs to which protected class: in the study folder, a "
    "file associations.txt with one line '<protected class> <attribute class>' per "
    "protected class (e.g. 'cats aloof'), or Study.from_dicts(..., associations={'cats': "
    "'aloof', ...}); attribute classes: ['aloof', 'loyal'] (an attribute class named "
    "'<class>_stereotype' or '<class>' is associated with protected class <class> by "
    "default). To label their attribute rows 'different' on purpose (e.g. for MAC, which "
    "averages every attribute class alike), pass unassociated='different' to "
    "cosine_table()/study_table()")


@pytest.fixture()
def pets_kv(make_kv):
    return make_kv({"tabby": [1, 0, 0], "siamese": [0.9, 0.1, 0], "poodle": [0, 1, 0],
                    "beagle": [0.1, 0.9, 0], "aloof": [1, 1, 0], "cold": [1, 0, 1],
                    "loyal": [0, 1, 1], "faithful": [-1, 1, 0], "table": [0, 0, 1],
                    "chair": [1, 2, 3]})


def pets_folder(folder, *, associations: bool, neutral: bool = True):
    (folder / "protected.cats.txt").write_text("tabby\nsiamese\n")
    (folder / "protected.dogs.txt").write_text("poodle\nbeagle\n")
    (folder / "attributes.aloof.txt").write_text("aloof\ncold\n")
    (folder / "attributes.loyal.txt").write_text("loyal\nfaithful\n")
    if associations:
        (folder / "associations.txt").write_text("cats aloof\ndogs loyal\n")
    if neutral:
        (folder / "neutral.txt").write_text("table\nchair\n")
    return folder


# ------------------------------------------------------------------ item 3: associations
def test_a_folder_without_associations_is_refused_naming_the_file(tmp_path, pets_kv):
    study = embias.load_study(pets_folder(tmp_path, associations=False))
    assert study.unassociated == ("cats", "dogs")
    with pytest.raises(ValueError) as info:
        embias.cosine_table(pets_kv, study)
    assert str(info.value) == (
        f"study {tmp_path.name!r}: protected class(es) ['cats', 'dogs'] have no associated "
        "attribute class, so every attribute row of their words would be labelled "
        "'different' and none 'associated'. " + ASSOCIATIONS_HELP)
    # the same through study_table, and without neutral words (before: "has a single
    # connection ['different']" from the fit, which did not point at the missing file)
    (tmp_path / "bare").mkdir()
    bare = embias.load_study(pets_folder(tmp_path / "bare", associations=False, neutral=False))
    with pytest.raises(ValueError, match=re.escape(ASSOCIATIONS_HELP)):
        embias.study_table(bare, pets_kv)


def test_embias_fit_of_a_folder_without_associations_says_what_is_missing(tmp_path, pets_kv):
    (tmp_path / "pets").mkdir()
    folder = pets_folder(tmp_path / "pets", associations=False)
    pets_kv.save_word2vec_format(str(tmp_path / "pets.txt"))
    done = subprocess.run(
        [sys.executable, "-m", "embias", "fit", str(folder), "--embedding",
         str(tmp_path / "pets.txt"), "--level", "dataset", "--draws", "20", "--tune", "20",
         "--out", str(tmp_path / "models")],
        capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1
    # one line; before: a fit that reported 'different − none' as if nothing were missing
    assert done.stderr.splitlines() == [
        "embias: error: study 'pets': protected class(es) ['cats', 'dogs'] have no associated "
        "attribute class, so every attribute row of their words would be labelled "
        "'different' and none 'associated'. "
        + ASSOCIATIONS_HELP.replace("pass unassociated", "in Python, pass unassociated")
        + " (the command line has no option for unassociated=)"]
    assert not (tmp_path / "models").exists()


def test_from_dicts_without_associations_is_refused_naming_the_argument(pets_kv):
    study = Study.from_dicts("pets", {"cats": ["tabby", "siamese"], "dogs": ["poodle"]},
                             {"aloof": ["aloof"], "loyal": ["loyal"]}, neutral=["table"])
    with pytest.raises(ValueError, match=re.escape(
            "Study.from_dicts(..., associations={'cats': 'aloof', ...})")):
        embias.cosine_table(pets_kv, study)
    # one class left without: named alone
    half = Study.from_dicts("pets", {"cats": ["tabby"], "dogs": ["poodle"]},
                            {"aloof": ["aloof"], "loyal": ["loyal"]},
                            associations={"cats": "aloof"})
    with pytest.raises(ValueError, match=re.escape(
            "study 'pets': protected class(es) ['dogs'] have no associated attribute class")):
        embias.cosine_table(pets_kv, half)


def test_associations_file_or_default_names_give_associated_rows(tmp_path, pets_kv):
    table = embias.cosine_table(pets_kv, embias.load_study(pets_folder(tmp_path,
                                                                       associations=True)))
    labels = {(r.protected_word, r.word_to_compare): r.connection for r in table.itertuples()}
    assert labels[("tabby", "aloof")] == "associated"
    assert labels[("tabby", "loyal")] == "different"
    assert labels[("poodle", "faithful")] == "associated"
    assert labels[("poodle", "table")] == "none"
    # the documented default: an attribute class named '<class>_stereotype'
    study = Study.from_dicts("pets", {"cats": ["tabby"], "dogs": ["poodle"]},
                             {"cats_stereotype": ["aloof"], "dogs_stereotype": ["loyal"]})
    assert study.unassociated == ()
    assert set(embias.cosine_table(pets_kv, study).connection) == {"associated", "different"}


def test_unassociated_different_labels_every_attribute_row_different_on_request(pets_kv):
    study = Study.from_dicts("pets", {"cats": ["tabby", "siamese"], "dogs": ["poodle"]},
                             {"aloof": ["aloof", "cold"], "loyal": ["loyal"]},
                             neutral=["table"])
    table = embias.cosine_table(pets_kv, study, unassociated="different")
    assert table.groupby("connection").size().to_dict() == {"different": 9, "none": 3}
    # MAC (Manzini) averages every attribute class alike: by hand from the vectors
    pairs = [(p, a) for p in ("tabby", "siamese", "poodle") for a in ("aloof", "cold", "loyal")]
    s = {}
    for p, a in pairs:
        u, v = pets_kv[p].astype(float), pets_kv[a].astype(float)
        s[p, a] = 1 - u @ v / np.linalg.norm(u) / np.linalg.norm(v)
    by_word_class = [np.mean([s[p, "aloof"], s[p, "cold"]]) for p in ("tabby", "siamese",
                                                                        "poodle")]
    by_word_class += [s[p, "loyal"] for p in ("tabby", "siamese", "poodle")]
    assert embias.mac(table).value == pytest.approx(np.mean(by_word_class), abs=1e-12)
    with pytest.raises(ValueError, match=r"unassociated='maybe' is not one of \['raise', "
                                         r"'different'\]"):
        embias.cosine_table(pets_kv, study, unassociated="maybe")


def test_a_fit_of_a_table_without_associated_rows_is_refused(pets_kv):
    study = Study.from_dicts("pets", {"cats": ["tabby", "siamese"], "dogs": ["poodle",
                                                                              "beagle"]},
                             {"aloof": ["aloof", "cold"], "loyal": ["loyal", "faithful"]},
                             neutral=["table", "chair"])
    table = embias.cosine_table(pets_kv, study, unassociated="different")
    message = (
        "table given to fit_bias_model() has 'different' rows but no 'associated' row: every "
        "attribute row says the attribute belongs to another protected class, as in a table "
        "of a study without associations, and a fit would report 'different' against the "
        "controls as if nothing were missing. Give the study its associations "
        "(associations.txt in its folder, lines '<protected class> <attribute class>', or "
        "Study.from_dicts(..., associations={...})) and build the table again")
    with pytest.raises(ValueError) as info:
        cell_statistics(table)
    assert str(info.value) == message
    # without the controls too (before: "has a single connection ['different']")
    with pytest.raises(ValueError) as info:
        embias.fit_bias_model(table[table.connection == "different"], level="dataset",
                              draws=10, tune=10, chains=1, progress=False)
    assert str(info.value) == message


# ------------------------------------------------------------ item 4: a word in two roles
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"neutral": ["greedy", "table"]},
         "the word 'greedy' is in both attributes['a'] and neutral"),
        ({"human": ["kind", "person"]},
         "the word 'kind' is in both attributes['b'] and human"),
        ({"neutral": ["table", "person"], "human": ["person"]},
         "the word 'person' is in both neutral and human"),
        ({"attributes": {"a": ["greedy", "kind"], "b": ["kind"]}},
         "the word 'kind' is in both attributes['a'] and attributes['b']"),
        ({"attributes": {"a": ["greedy", "jew"], "b": ["kind"]}},
         "the word 'jew' is in both protected['a'] and attributes['a']"),
        ({"attributes": {"a": ["greedy"], "b": ["kind", "priest"]}},
         "the word 'priest' is in both protected['b'] and attributes['b']"),
    ],
)
def test_a_word_in_two_roles_is_refused_naming_both_lists(extra, message):
    args = {"attributes": {"a": ["greedy"], "b": ["kind"]}, **extra}
    with pytest.raises(ValueError) as info:
        Study.from_dicts("roles", {"a": ["jew", "rabbi"], "b": ["priest"]},
                         args.pop("attributes"), **args)
    assert str(info.value) == (f"study 'roles': {message}: a word can play one role only "
                               "(remove it from one of the lists)")


def test_a_protected_word_that_is_a_control_word_keeps_its_warning(make_kv):
    # allowed, as before: the shipped WEAT 10 has 'Billy' among the young names and the
    # neutral words; the self-comparison row is dropped with a warning
    kv = make_kv({"x": [1, 0], "y": [0, 1], "a": [1, 1], "b": [-1, 0], "n": [3, 4]})
    study = Study.from_dicts("self", {"X": ["x"], "Y": ["y"]}, {"X": ["a"], "Y": ["b"]},
                             human=["x", "n"])
    with pytest.warns(UserWarning, match=r"'x' \(class 'X'\) is 'x' \(human\)"):
        table = embias.cosine_table(kv, study)
    assert table.attrs["self_pairs_dropped"] == [("x", "x")]


def test_case_variants_in_two_roles_are_refused_on_an_uncased_vocabulary(make_kv):
    kv = make_kv({"x": [1, 0, 0], "y": [0, 1, 0], "greedy": [1, 1, 0], "kind": [0, 1, 1],
                  "table": [1, 0, 1]})
    study = Study.from_dicts("cased", {"x": ["x"], "y": ["y"]},
                             {"x": ["Greedy"], "y": ["kind"]}, neutral=["greedy", "table"])
    with pytest.raises(ValueError) as info:
        embias.cosine_table(kv, study)
    assert str(info.value) == (
        "study 'cased' (looked up in lower case in these embeddings): the word 'Greedy' (as "
        "'greedy' in neutral) is in both attributes['x'] and neutral: a word can play one "
        "role only (remove it from one of the lists)")
    # looked up as given, they are two words: the table has both
    table = embias.cosine_table(kv, study.replace(attributes={"x": ("greedy",),
                                                               "y": ("kind",)},
                                                   neutral=("table",)), lowercase=False)
    assert len(table) == 2 * 3


# -------------------------------------------------------------- item 7: word-list files
def test_a_byte_order_mark_is_not_part_of_the_first_word(tmp_path, pets_kv):
    path = tmp_path / "protected.cats.txt"
    path.write_bytes("tabby\nsiamese\n".encode("utf-8-sig"))
    assert path.read_bytes()[:3] == b"\xef\xbb\xbf"
    assert read_wordlist(path) == ("tabby", "siamese")  # was ('\ufefftabby', 'siamese')
    pets_folder(tmp_path, associations=True)
    for name in ("protected.cats.txt", "associations.txt", "neutral.txt"):
        text = (tmp_path / name).read_text()
        (tmp_path / name).write_bytes(text.encode("utf-8-sig"))
    study = embias.load_study(tmp_path)
    assert dict(study.associations) == {"cats": "aloof", "dogs": "loyal"}
    assert study.protected["cats"] == ("tabby", "siamese") and study.neutral[0] == "table"
    table = embias.cosine_table(pets_kv, study, missing="raise")  # nothing missing
    assert set(table.protected_word) == {"tabby", "siamese", "poodle", "beagle"}


def test_unrecognised_files_in_a_study_folder_are_named_with_the_close_match(tmp_path):
    pets_folder(tmp_path, associations=True)
    (tmp_path / "atributes.extra.txt").write_text("fluffy\n")
    (tmp_path / "Protected.other.txt").write_text("hamster\n")
    (tmp_path / "README.md").write_text("notes on the lists\n")  # not a word list: fine
    (tmp_path / ".hidden.txt").write_text("x\n")  # hidden files are skipped
    with pytest.raises(ValueError) as info:
        embias.load_study(tmp_path)
    assert str(info.value) == (
        f"study folder {str(tmp_path)!r}: file(s) not recognised: 'Protected.other.txt' (did "
        "you mean 'protected.other.txt'?), 'atributes.extra.txt' (did you mean "
        "'attributes.extra.txt'?); a study folder holds protected.<class>.txt, "
        "attributes.<class>.txt, associations.txt and optionally neutral.txt, human.txt, "
        "definitional.txt (names are case-sensitive) — rename the file(s) or move them out "
        "of the folder")
    (tmp_path / "atributes.extra.txt").unlink()
    (tmp_path / "Protected.other.txt").unlink()
    (tmp_path / "protected.cats.csv").write_text("tabby\n")
    with pytest.raises(ValueError, match=re.escape(
            "'protected.cats.csv' (did you mean 'protected.cats.txt'?)")):
        embias.load_study(tmp_path)
    (tmp_path / "protected.cats.csv").unlink()
    study = embias.load_study(tmp_path)
    assert list(study.protected) == ["cats", "dogs"]
