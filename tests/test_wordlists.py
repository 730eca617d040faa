"""Studies as data: shipped lists, user-built studies, duplicates, the wheel."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import zipfile

import pytest

import embias
from embias.wordlists import BUILTIN_STUDIES, Study


def test_religion_study_lists():
    st = embias.load_study("religion")
    assert list(st.protected) == ["christian", "jewish", "muslim"]
    assert st.protected["jewish"] == ("judaism", "jew", "synagogue", "torah", "rabbi")
    assert st.attributes["christian_stereotype"] == ("critical", "conservative", "familial")
    assert st.attributes["muslim_stereotype"] == ("violent", "terrorist", "dirty", "uneducated")
    assert dict(st.associations) == {c: f"{c}_stereotype" for c in st.protected}
    assert len(st.neutral) == 226 and len(st.human) == 85
    assert st.definitional[0] == ("judaism", "christianity", "islam")
    assert len(st.definitional) == 5


@pytest.mark.parametrize(
    ("name", "sizes"),
    [("race", {"asian": 3, "black": 3, "caucasian": 4}), ("gender", {"man": 7, "woman": 7}),
     ("weat1", {"flowers": 25, "insects": 25}), ("weat3", {"europeanamericannames": 32,
                                                         "africanamericannames": 32}),
     ("weat6", {"malenames": 8, "femalenames": 8}), ("weat9", {"mentaldisease": 6,
                                                             "physicaldisease": 6})],
)
def test_builtin_study_sizes(name, sizes):
    st = embias.load_study(name)
    assert {c: len(w) for c, w in st.protected.items()} == sizes
    assert list(st.protected) == list(sizes)  # X first, Y second for WEAT


def test_weat_sets_follow_caliskan_order():
    X, Y, A, B = embias.load_study("weat6").weat_sets()
    assert X[:2] == ("John", "Paul") and Y[:2] == ("Amy", "Joan")
    assert A[0] == "executive" and B[0] == "home"
    with pytest.raises(ValueError, match=r"study 'religion' has 3 protected classes"):
        embias.load_study("religion").weat_sets()


def test_all_builtin_studies_load():
    for name in BUILTIN_STUDIES:
        st = embias.load_study(name)
        assert st.name == name
        assert set(st.associations) == set(st.protected)


def test_study_from_dicts_dedupes_with_warning():
    with pytest.warns(UserWarning, match=r"removed 2 duplicate word\(s\): \['a', 'b'\]"):
        st = Study.from_dicts("toy", {"p": ["a", "b", "a", "b", "c"]}, {"p": ["x"]})
    assert st.protected["p"] == ("a", "b", "c")
    assert st.associations["p"] == "p"


def test_study_is_frozen_and_replace_derives_a_copy():
    st = embias.load_study("religion")
    with pytest.raises(dataclasses.FrozenInstanceError):
        st.name = "other"
    with pytest.raises(TypeError):
        st.protected["new"] = ("x",)
    lean = st.replace(neutral=(), human=())
    assert lean.neutral == () and len(st.neutral) == 226
    assert lean.protected == st.protected
    with pytest.raises(TypeError, match=r"Study has no fields \['nuetral'\]"):
        st.replace(nuetral=())


def test_study_validation_messages():
    with pytest.raises(ValueError, match=r"study 'x': attributes\['a'\] is empty"):
        Study.from_dicts("x", {"p": ["w"]}, {"a": []})
    with pytest.raises(ValueError, match=r"associations name attribute classes \['zz'\]"):
        Study.from_dicts("x", {"p": ["w"]}, {"a": ["v"]}, associations={"p": "zz"})
    with pytest.raises(ValueError, match=r"unknown study 'religon' \(did you mean 'religion'\?\)"):
        embias.load_study("religon")


def test_study_from_folder(tmp_path):
    (tmp_path / "protected.cats.txt").write_text("# my cats\ntabby\nsiamese\n")
    (tmp_path / "protected.dogs.txt").write_text("poodle\nbeagle\n")
    (tmp_path / "attributes.aloof.txt").write_text("aloof\ncold\n")
    (tmp_path / "attributes.loyal.txt").write_text("loyal\nfaithful\n")
    (tmp_path / "associations.txt").write_text("dogs loyal\ncats aloof\n")
    (tmp_path / "neutral.txt").write_text("table\nchair\n")
    st = embias.load_study(tmp_path)
    assert list(st.protected) == ["dogs", "cats"]  # order from associations.txt
    assert st.protected["cats"] == ("tabby", "siamese")
    assert st.neutral == ("table", "chair") and st.human == ()
    assert dict(st.associations) == {"dogs": "loyal", "cats": "aloof"}


def test_wheel_ships_word_lists_and_tables(tmp_path):
    """`pip install .` (not editable) gives a working package with its data."""
    wheel_dir = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(wheel_dir), "."],
        check=True, capture_output=True,
    )
    (wheel,) = wheel_dir.glob("embias-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "embias/wordlists/religion/protected.jewish.txt" in names
    assert "embias/wordlists/neutral.txt" in names
    assert "embias/data/published/LICENSE" in names
    assert "embias/data/published/religion_group_reddit_dataset.csv.gz" in names
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True,
    )
    code = (
        "import embias, pathlib; "
        f"assert pathlib.Path(embias.__file__).is_relative_to(pathlib.Path(r'{target}')); "
        "st = embias.load_study('religion'); t = embias.load_published_table('religion', "
        "'reddit'); print(len(st.neutral), len(t))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True,
                         capture_output=True, text=True, env={"PYTHONPATH": str(target)})
    assert out.stdout.split() == ["226", "4830"]


def test_from_dicts_rejects_a_bare_string_like_the_constructor():
    expected = "study 's': protected['a'] must be a list of words, got the string 'jew'"
    with pytest.raises(ValueError) as direct:
        Study(name="s", protected={"a": "jew", "b": ("x",)}, attributes={"a": ("y",)})
    # before the fix from_dicts split 'jew' into ('j', 'e', 'w')
    with pytest.raises(ValueError) as via_dicts:
        Study.from_dicts("s", {"a": "jew", "b": ["x"]}, {"a": ["y"]})
    assert str(via_dicts.value) == str(direct.value) == expected
    with pytest.raises(ValueError) as info:
        Study.from_dicts("s", {"a": ["jew"]}, {"a": "greedy"})
    assert str(info.value) == ("study 's': attributes['a'] must be a list of words, got the "
                               "string 'greedy'")
    with pytest.raises(ValueError) as info:
        Study.from_dicts("s", {"a": ["jew"]}, {"a": ["y"]}, neutral="table")
    assert str(info.value) == ("study 's': neutral must be a list of words, got the string "
                               "'table'")
    with pytest.raises(ValueError) as info:
        Study.from_dicts("s", {"a": ["jew"]}, {"a": ["y"]}, definitional=["jew christian"])
    assert str(info.value) == ("study 's': definitional[0] must be a list of words, got the "
                               "string 'jew christian'")


def test_a_word_in_two_protected_classes_is_an_error():
    with pytest.raises(ValueError) as info:
        Study.from_dicts("s", {"a": ["jew", "rabbi"], "b": ["priest", "jew"], "c": ["imam"]},
                         {"a": ["y"]})
    assert str(info.value) == ("study 's': the protected word 'jew' is in two protected "
                               "classes, 'a' and 'b'; a word can belong to one class only")


def test_study_repr_shows_counts_per_list():
    assert repr(embias.load_study("religion")) == (
        "Study('religion', protected={christian: 5, jewish: 5, muslim: 5}, "
        "attributes={christian_stereotype: 3, jewish_stereotype: 4, muslim_stereotype: 4}, "
        "neutral=226, human=85, definitional=5)"
    )
    toy = Study.from_dicts("toy", {"p": ["a", "b"]}, {"p": ["x"]})
    assert repr(toy) == "Study('toy', protected={p: 2}, attributes={p: 1}, neutral=0, human=0)"


def test_study_pickles_and_deep_copies():
    # a Study must travel to a process pool, a Dask worker or joblib's cache
    import copy
    import pickle

    study = embias.load_study("religion")
    for clone in (pickle.loads(pickle.dumps(study)), copy.deepcopy(study), copy.copy(study)):
        assert clone == study
        assert clone.protected["jewish"] == study.protected["jewish"]
        assert clone.associations == study.associations
        assert clone.definitional == study.definitional
        with pytest.raises(TypeError):  # still read-only after the round trip
            clone.protected["jewish"] = ("x",)  # type: ignore[index]


def test_version_has_its_changelog_entry():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    assert embias.__version__ == "0.3.0"
    assert f"## [{embias.__version__}]" in (root / "CHANGELOG.md").read_text(encoding="utf-8")
