"""Saved fits (models/), the one-call study fits and the ``embias fit``/``show`` commands.

Real sampling with short chains: these tests check saving, reuse and rendering, not the
posterior (see test_bayes.py for that).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import embias
import embias.pipeline.study_fits as fits_module
import embias.pipeline.study_tables as tables_module
from embias.bayes import BiasFit, ConvergenceWarning
from embias.bayes.fit import DeferredDraws
from embias.pipeline import fit_religion_model, fit_study_model, load_fit, save_fit
from embias.pipeline.store import UnreadableFitError

matplotlib.use("Agg")

SHORT = {"draws": 150, "tune": 200, "random_seed": 17, "progress": False}


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def glove_fit(models_dir: Path) -> BiasFit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # short chains
        warnings.simplefilter("ignore", UserWarning)  # GloVe lacks one neutral word
        return fit_religion_model(models_dir=models_dir, **SHORT)


def test_religion_fit_on_glove_is_saved(glove_fit: BiasFit, models_dir: Path) -> None:
    path = Path(glove_fit.path)
    assert path.parent == models_dir
    assert path.name.startswith("religion_glove-6b-50d_crossed_summary_")  # the default level
    assert sorted(p.name for p in path.iterdir()) == [
        "check_cells.parquet", "check_coverage.parquet", "check_observed.parquet",
        "check_predictive.parquet", "check_words.parquet", "classic.parquet",
        "diagnostics.parquet", "intervals.parquet", "manifest.json", "posterior.nc",
        "settings.json", "table.parquet"]
    # nothing else in models_dir: no temporary folders left behind
    assert [p.name for p in models_dir.iterdir()] == [path.name]
    record = json.loads((path / "settings.json").read_text())
    assert record["settings"]["study"] == "religion"
    assert record["settings"]["embedding"] == "glove-6b-50d"
    assert record["settings"]["random_seed"] == 17
    assert record["settings"]["draws"] == 150
    assert record["table_attrs"]["missing"]["neutral"]["missing"] == ["literaly"]
    assert glove_fit.settings["rows"] == len(glove_fit.table) == 15 * (11 + 85 + 225)


def test_saved_fit_reloads_identically(glove_fit: BiasFit) -> None:
    loaded = load_fit(glove_fit.path)
    assert loaded.path == glove_fit.path
    assert dict(loaded.settings) == dict(glove_fit.settings)
    pd.testing.assert_frame_equal(loaded.summary(), glove_fit.summary())
    pd.testing.assert_frame_equal(loaded.cells, glove_fit.cells)
    pd.testing.assert_frame_equal(loaded.classic, glove_fit.classic)
    pd.testing.assert_frame_equal(loaded.table, glove_fit.table, check_dtype=False)
    np.testing.assert_array_equal(loaded.posterior["posterior"]["coef"].values,
                                  glove_fit.posterior["posterior"]["coef"].values)
    assert loaded.divergences == glove_fit.divergences
    # any file of the fit folder also works
    assert load_fit(Path(glove_fit.path) / "posterior.nc").path == glove_fit.path


def test_reloaded_fit_reads_its_post_processing_back(glove_fit: BiasFit,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # diagnostics, the default interval table and the classic scores are computed once,
    # saved with the fit and read back: a reloaded fit never recomputes them
    import embias.bayes.fit as fit_module
    import embias.pipeline.store.loading as store_module

    def refuse(*args, **kwargs):
        raise AssertionError("recomputed on reload")

    monkeypatch.setattr(fit_module, "convergence_diagnostics", refuse)
    monkeypatch.setattr(fit_module, "summarize_posterior", refuse)
    monkeypatch.setattr(fit_module, "posterior_predictive_check", refuse)
    monkeypatch.setattr(fit_module, "count_divergences", refuse)
    monkeypatch.setattr(store_module, "classic_scores", refuse)
    loaded = load_fit(glove_fit.path)
    pd.testing.assert_frame_equal(loaded.diagnostics(), glove_fit.diagnostics())
    pd.testing.assert_frame_equal(loaded.to_interval_table(), glove_fit.to_interval_table())
    assert loaded.problems() == glove_fit.problems()
    assert loaded.divergences == glove_fit.divergences
    # the default predictive check was saved: the same numbers as computing it again
    check, fresh = loaded.predictive_check(), glove_fit.predictive_check()
    for part in ("coverage", "cell_intervals", "predictive", "observed", "words_left_out"):
        pd.testing.assert_frame_equal(getattr(check, part), getattr(fresh, part),
                                      check_dtype=False)
    # none of that read the draws: posterior.nc is read when the draws are used
    assert isinstance(loaded.__dict__["_posterior"], DeferredDraws)
    assert isinstance(loaded.replace(path="elsewhere").__dict__["_posterior"], DeferredDraws)
    assert loaded.posterior["posterior"].sizes["draw"] == glove_fit.settings["draws"]
    assert not isinstance(loaded.__dict__["_posterior"], DeferredDraws)
    # another interval probability (or check) is computed (once) from the draws
    with pytest.raises(AssertionError, match="recomputed"):
        loaded.to_interval_table(ci_prob=0.5)
    with pytest.raises(AssertionError, match="recomputed"):
        loaded.predictive_check(random_seed=1)


def test_deferred_draws_of_a_damaged_file_name_it(glove_fit: BiasFit, tmp_path: Path) -> None:
    """The draws are read when first used: a posterior.nc that is damaged by then gives the
    error load_fit gives for a damaged file, naming the folder and the file."""
    import shutil

    copy = Path(shutil.copytree(glove_fit.path, tmp_path / "copy"))
    loaded = load_fit(copy)  # a whole file: loads
    (copy / "posterior.nc").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(4096))  # then damaged
    with pytest.raises(UnreadableFitError) as info:
        loaded.posterior  # noqa: B018 - the read under test
    assert (info.value.folder, info.value.file) == (str(copy), "posterior.nc")
    assert "cannot be read, it is damaged or cut short" in str(info.value)


def test_identical_call_reuses_the_saved_fit(glove_fit: BiasFit, models_dir: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def no_sampling(*args: object, **kwargs: object) -> None:
        raise AssertionError("an identical call must not sample again")

    monkeypatch.setattr(fits_module, "fit_bias_model", no_sampling)
    again = fit_religion_model(models_dir=models_dir, **SHORT)
    assert again.path == glove_fit.path
    np.testing.assert_array_equal(again.posterior["posterior"]["bar"].values,
                                  glove_fit.posterior["posterior"]["bar"].values)
    # a different setting is a different fit: it would sample
    with pytest.raises(AssertionError, match="must not sample again"):
        fit_religion_model(models_dir=models_dir, **{**SHORT, "draws": 151})


def test_refit_replaces_the_saved_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = fits_module.fit_bias_model

    def counting(*args: object, **kwargs: object) -> BiasFit:
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(fits_module, "fit_bias_model", counting)
    options = {**SHORT, "models_dir": tmp_path, "level": "dataset"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        first = fit_religion_model("published:reddit", **options)
        second = fit_religion_model("published:reddit", **options)
        sampled: list[BiasFit] = []
        third = fit_religion_model("published:reddit", refit=True, on_sampled=sampled.append,
                                   **options)
    assert len(calls) == 2  # the first and the refit
    # the hook sees the labelled fit as soon as it is sampled, before it is saved
    (hooked,) = sampled
    assert hooked.path is None and third.path is not None
    assert hooked.settings == third.settings and hooked.settings["study"] == "religion"
    assert hooked.posterior is third.posterior
    assert first.path == second.path == third.path
    assert [p.name for p in tmp_path.iterdir()] == [Path(first.path).name]
    assert first.settings["embedding"] == "published:reddit"
    assert first.settings["rows"] == 4830
    # same seed, same settings: the refit reproduces the first fit exactly
    np.testing.assert_array_equal(first.posterior["posterior"]["co"].values,
                                  third.posterior["posterior"]["co"].values)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: fit_study_model("religion", "published:wikipedia", models_dir=d),
         "unknown published table 'published:wikipedia'; available: ['published:reddit', "
         "'published:google', 'published:glove', 'published:reddit-debiased']"),
        (lambda d: fit_study_model("weat3", "published:reddit", models_dir=d),
         "the authors published no table for study 'weat3'"),
        (lambda d: fit_religion_model(models_dir=d, level="county"),
         "level='county' is not one of ['dataset', 'word', 'hierarchical', 'crossed']"),
    ],
)
def test_bad_calls_write_nothing(tmp_path: Path, call, message: str) -> None:
    target = tmp_path / "models"
    with pytest.raises(ValueError) as info:
        call(target)
    assert message in str(info.value)
    assert not target.exists()


def test_bad_table_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def table_with_a_gap(study: str, embedding: str, identity: dict) -> pd.DataFrame:
        table = embias.load_published_table("religion", "reddit")
        table.loc[7, "cosine_distance"] = np.nan
        return table

    monkeypatch.setattr(fits_module, "cached_study_table", table_with_a_gap)
    target = tmp_path / "models"
    with pytest.raises(ValueError, match="has 1 NaN/infinite cosine distances"):
        fit_religion_model("published:reddit", models_dir=target, **SHORT)
    assert not target.exists()


def test_save_fit_anywhere_and_unknown_folders(glove_fit: BiasFit, tmp_path: Path) -> None:
    saved = save_fit(glove_fit, tmp_path / "mine")
    assert saved.path == str(tmp_path / "mine")
    assert load_fit(tmp_path / "mine").settings["random_seed"] == 17
    with pytest.raises(FileNotFoundError, match=r"is not a saved embias fit: posterior\.nc is "
                                                r"missing"):
        load_fit(tmp_path)



def test_study_table_is_built_once_and_its_warnings_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refit does not load the vocabulary again: the table comes from the per-user cache
    (keyed by word lists and source), equal to a fresh build, and the missing-word warning
    of the build is given again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    study = embias.load_study("religion")
    identity = {"study": "religion", "study_lists": tables_module.study_identity(study),
                "embedding": tables_module.embedding_identity("glove-6b-50d")}
    with pytest.warns(UserWarning, match="literaly") as first:
        built = tables_module.cached_study_table(study, "glove-6b-50d", identity)
    cached = list((tmp_path / "cache" / "embias" / "tables").glob("religion_*.parquet"))
    assert len(cached) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("the table was built again")

    monkeypatch.setattr(tables_module, "study_table", refuse)
    with pytest.warns(UserWarning, match="literaly") as second:
        again = tables_module.cached_study_table(study, "glove-6b-50d", identity)
    assert [str(w.message) for w in second] == [str(w.message) for w in first]
    pd.testing.assert_frame_equal(again, built)
    assert json.loads(json.dumps(built.attrs)) == again.attrs
    assert again.attrs["missing"]["neutral"]["missing"] == ["literaly"]
    # other word lists are another table
    other = {**identity, "study_lists": "another"}
    with pytest.raises(AssertionError, match="built again"):
        tables_module.cached_study_table(study, "glove-6b-50d", other)
