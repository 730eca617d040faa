"""The command line's inputs and outputs: every option is checked before any work and a bad
one is named in one line; every output is what it says (the embedding named in a table,
output folders created, fits of a study folder keyed on its name). The table-level tests of
comparing published tables with word vectors are in test_tables.py; here is their command
line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import embias
import embias.pipeline.study_fits as store
import embias.pipeline.study_tables as study_tables
from embias.cli import main

ROOT = Path(__file__).resolve().parent.parent
EMBIAS = Path(sys.executable).with_name("embias")
TINY = ["--draws", "50", "--tune", "50", "--level", "dataset", "--no-progress"]


def run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """The console script in a fresh process."""
    return subprocess.run([str(EMBIAS), *argv], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"},
                          timeout=600)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (line,) = [x for x in captured.err.strip().splitlines() if "warning" not in x]
    return line


class NoWork(AssertionError):
    """Raised by a stand-in for loading or sampling: the command got too far."""


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step that loads data or samples fails the test if it is reached."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise NoWork("work started before every option was checked")

    for name in ("load_embeddings", "study_table", "fit_study_model", "compare_embeddings",
                 "load_fit", "load_study"):
        monkeypatch.setattr(embias, name, refuse, raising=False)
    monkeypatch.setattr(store, "fit_bias_model", refuse)
    monkeypatch.setattr(store, "cached_study_table", refuse)


# -------------------------------------------------------------- tables name their embedding
def test_table_csv_carries_the_embedding_name_given(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    out = tmp_path / "rel.csv"
    assert main(["table", "religion", "--out", str(out)]) == 0
    assert "embedding glove-6b-50d" in capsys.readouterr().out
    table = pd.read_csv(out)
    assert set(table["embedding"]) == {"glove-6b-50d"}  # was 'custom'
    published = tmp_path / "reddit.parquet"
    assert main(["table", "religion", "--embedding", "published:reddit", "--out",
                 str(published)]) == 0
    assert set(pd.read_parquet(published)["embedding"]) == {"published:reddit"}


# ---------------------------------------------------- published tables against word vectors
@pytest.mark.xdist_group("compare")
@pytest.mark.slow
def test_cli_compares_published_reddit_with_glove(tmp_path: Path) -> None:
    out = tmp_path / "new" / "comparisons"  # made by the command
    done = run("compare", "religion", "--embedding", "a=published:reddit", "--embedding",
               "b=glove-6b-50d", *TINY, "--seed", "0", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert ("embias: warning: word classes named differently but holding the same word "
            "pairs are named as in 'a': b: 'jewish_stereotype' → 'jew_stereotype'"
            in done.stderr)
    assert "embias: warning: 15 word pairs are not in every embedding's table" in done.stderr
    assert "# religion: a vs b — dataset model, 2 chains × 50 draws per fit, seed 0; 4815 " \
           "shared word pairs" in done.stdout
    table = pd.read_csv(out / "compare_religion_a_b.csv")
    changes = table[table["estimand"] == "change_connection_mean"]
    assert set(changes["group"]) == {"associated", "different", "human", "none"}


# ------------------------------------------------------ options are checked before any work
@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [(["fit", "religion", "--rope", "-0.1"], 2,
      "argument --rope: rope must be a non-negative half-width, got -0.1"),
     (["fit", "religion", "--cores", "0"], 1, "embias: error: cores must be an integer ≥ 1, "
                                              "got 0"),
     (["fit", "religion", "--out", "/proc/nonexistent"], 1,
      "embias: error: --out '/proc/nonexistent': cannot create the folder "
      "'/proc/nonexistent' (No such file or directory)"),
     (["fit", "religion", "--png", "/proc/nonexistent/forest.png"], 1,
      "embias: error: --png '/proc/nonexistent/forest.png': cannot create the folder "
      "'/proc/nonexistent' (No such file or directory)")],
)
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")
def test_every_fit_option_is_checked_before_any_work(
        argv: list[str], code: int, message: str, no_work: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*argv, "--embedding", "published:reddit", *TINY]
    if code == 2:
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)
    else:
        assert main(argv) == 1
        assert one_error_line(capsys) == message


def test_cores_0_is_refused_even_when_a_saved_fit_exists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    calls = []
    real = store.fit_bias_model

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "fit_bias_model", counting)
    argv = ["fit", "religion", "--embedding", "published:reddit", *TINY, "--seed", "1",
            "--out", str(tmp_path)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
        assert main([*argv, "--cores", "1"]) == 0  # the saved fit is reused
    assert len(calls) == 1
    capsys.readouterr()
    assert main([*argv, "--cores", "0"]) == 1
    assert one_error_line(capsys) == "embias: error: cores must be an integer ≥ 1, got 0"


def test_fit_study_model_checks_models_dir_before_sampling(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "fit_bias_model", lambda *a, **k: pytest.fail("sampled"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ValueError) as info:
        store.fit_study_model("religion", "published:reddit", models_dir=blocker / "m",
                              draws=50, tune=50, level="dataset")
    assert str(info.value) == (f"models_dir {str(blocker / 'm')!r}: cannot create the folder "
                               f"{str(blocker / 'm')!r} ({str(blocker)!r} is a file)")


# ---------------------------------------------------------------- a missing sampler package
@pytest.mark.parametrize("sampler", ["nutpie", "numpyro", "blackjax"])
def test_missing_sampler_package_is_one_line_before_any_loading(
        sampler: str, no_work: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == sampler else real(name, *a))
    message = (f"embias: error: sampler={sampler!r} needs the {sampler!r} package, which is "
               f"not installed: pip install {sampler}")
    assert main(["fit", "religion", "--sampler", sampler]) == 1
    assert one_error_line(capsys) == message
    assert main(["compare", "religion", "--embedding", "a=published:reddit", "--embedding",
                 "b=published:reddit-debiased", "--sampler", sampler]) == 1
    assert one_error_line(capsys) == message


def test_fit_study_model_checks_the_sampler_before_loading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nutpie" else real(name, *a))

    def refuse(*args: object, **kwargs: object) -> None:
        raise NoWork("loaded before the sampler was checked")

    monkeypatch.setattr(study_tables, "load_study", refuse)
    monkeypatch.setattr(store, "cached_study_table", refuse)
    with pytest.raises(ValueError, match=r"^sampler='nutpie' needs the 'nutpie' package, which "
                                         r"is not installed: pip install nutpie$"):
        store.fit_study_model("religion", "published:reddit", sampler="nutpie",
                              models_dir=tmp_path / "m")
    assert not (tmp_path / "m").exists()


# ----------------------------------------------------- help offers what the command accepts
def test_weat_and_debias_help_offer_only_word_vectors() -> None:
    for command in ("weat", "debias"):
        done = run(command, "--help")
        assert done.returncode == 0
        assert "glove-6b-50d" in done.stdout and "published" not in done.stdout, command
    done = run("weat", "weat1", "--embedding", "published:reddit")
    assert done.returncode == 1
    assert done.stderr.startswith("embias: error: --embedding 'published:reddit': embias weat "
                                  "needs word vectors, not a published cosine table; use ")


# ----------------------------------------------------------------------------- output paths
def test_table_out_creates_parent_folders(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "newdir" / "deeper" / "x.csv"
    assert main(["table", "religion", "--embedding", "published:reddit", "--out",
                 str(out)]) == 0
    assert len(pd.read_csv(out)) == 4830
    assert f"wrote 4830 rows to {out}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "option", "kind"),
    [(["table", "religion", "--out", "{bad}/x.csv"], "--out", "file"),
     (["debias", "religion", "--out", "{bad}/x.kv"], "--out", "file"),
     (["fit", "religion", "--out", "{bad}/models"], "--out", "folder"),
     (["fit", "religion", "--png", "{bad}/f.png"], "--png", "file"),
     (["show", "somefit", "--png", "{bad}/f.png"], "--png", "file"),
     (["compare", "religion", "--embedding", "a=published:reddit", "--embedding",
       "b=published:reddit-debiased", "--out", "{bad}/cmp"], "--out", "folder")],
)
def test_every_output_path_has_one_policy(
        argv: list[str], option: str, kind: str, tmp_path: Path, no_work: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A path under a file cannot be created: every output option says so in one line,
    before any work; nothing is left behind."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    argv = [a.replace("{bad}", str(blocker)) for a in argv]
    given = argv[argv.index(option) + 1]
    why = (f"cannot create the folder {given!r} ({str(blocker)!r} is a file)"
           if kind == "folder" else f"{str(blocker)!r} is a file, not a folder")
    assert main(argv) == 1
    assert one_error_line(capsys) == f"embias: error: {option} {given!r}: {why}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_fit_out_and_png_create_their_missing_folders(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    models = tmp_path / "new" / "models"
    png = tmp_path / "other" / "deeper" / "forest.png"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["fit", "religion", "--embedding", "published:reddit", *TINY, "--seed",
                     "1", "--out", str(models), "--png", str(png)]) == 0
    (fit,) = list(models.iterdir())
    assert (fit / "posterior.nc").is_file()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"forest plot: {png}" in capsys.readouterr().out


def test_checking_an_output_leaves_nothing_behind(tmp_path: Path) -> None:
    from embias._validation import check_output

    target = tmp_path / "a" / "b" / "x.csv"
    assert check_output("--out", str(target)) == target
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "d").mkdir()
    with pytest.raises(ValueError) as info:
        check_output("--out", str(tmp_path / "d"))
    assert str(info.value) == f"--out {str(tmp_path / 'd')!r} is a folder; give a file name"
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError) as info:
        check_output("--out", str(tmp_path / "f"), folder=True)
    assert str(info.value) == f"--out {str(tmp_path / 'f')!r} is a file, not a folder"


# ---------------------------------------------------------------------------- study folders
def _tiny_study(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "protected.cats.txt").write_text("tabby\nsiamese\nmanx\n")
    (folder / "protected.dogs.txt").write_text("poodle\nbeagle\nboxer\n")
    (folder / "attributes.aloof.txt").write_text("aloof\ncold\n")
    (folder / "attributes.loyal.txt").write_text("loyal\nfaithful\n")
    (folder / "associations.txt").write_text("cats aloof\ndogs loyal\n")
    (folder / "neutral.txt").write_text("table\nchair\nlamp\n")


def _tiny_embeddings(path: Path) -> None:
    from gensim.models import KeyedVectors

    words = ["tabby", "siamese", "manx", "poodle", "beagle", "boxer", "aloof", "cold",
             "loyal", "faithful", "table", "chair", "lamp"]
    vectors = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    kv = KeyedVectors(vector_size=8)
    kv.add_vectors(words, vectors)
    kv.save(str(path))


def test_study_folder_fits_are_keyed_on_the_study_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _tiny_study(tmp_path / "t" / "mystudy")
    _tiny_embeddings(tmp_path / "tiny.kv")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = ["--embedding", str(tmp_path / "tiny.kv"), *TINY, "--seed", "3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["fit", "../t/mystudy", *argv]) == 0
    out = capsys.readouterr().out
    (saved,) = (work / "models").iterdir()
    assert saved.name.startswith("mystudy_") and "_dataset_summary_" in saved.name
    assert f"saved fit: models/{saved.name}" in out
    # nothing written next to the study
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["mystudy"]
    assert len(list((tmp_path / "t" / "mystudy").iterdir())) == 6
    assert embias.load_fit(saved).settings["study"] == "mystudy"
    # the same study by its absolute path is the same saved fit (reused, not written again)
    monkeypatch.setattr(store, "fit_bias_model", lambda *a, **k: pytest.fail("sampled again"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["fit", str(tmp_path / "t" / "mystudy"), *argv]) == 0
    assert f"saved fit: models/{saved.name}" in capsys.readouterr().out
    assert [p.name for p in (work / "models").iterdir()] == [saved.name]
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["mystudy"]


# -------------------------------------------------------------- values named in the message
@pytest.mark.parametrize("value", ["1.5", "0", "-3", "many"])
def test_permutations_names_the_value_and_what_is_allowed(value: str) -> None:
    done = run("weat", "weat1", "--permutations", value)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"embias weat: error: argument --permutations: --permutations must be 'auto', "
        f"'exact' or a positive integer, got {value!r}")


def test_permutations_accepts_auto_exact_and_integers() -> None:
    from embias.cli import build_parser

    for value, parsed in [("auto", "auto"), ("exact", "exact"), ("2000", 2000)]:
        args = build_parser().parse_args(["weat", "weat1", "--permutations", value])
        assert args.permutations == parsed


def test_show_names_the_path_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "religion_hard.kv").write_text("")
    assert main(["show", "models/religion_hard.kv"]) == 1
    assert one_error_line(capsys) == (
        "embias: error: 'models/religion_hard.kv' is not a saved embias fit: it is a file, "
        "and its folder 'models' has no posterior.nc (a fit folder holds posterior.nc, "
        "table.parquet and settings.json)")
    assert main(["show", "models/nothing-here"]) == 1
    assert one_error_line(capsys) == (
        "embias: error: 'models/nothing-here' is not a saved embias fit: no such folder")
