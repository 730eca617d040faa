"""Saved fits that cannot be read: one clear error naming the folder and the
file, and ``fit_*_model`` fitting again over them with a warning instead of leaving the
user stuck with h5py's ``OSError: Unable to synchronously open file (truncated file …)``.

Known answers: the damage is made by hand (a file cut in half, a format number changed,
garbage bytes), so which file is unreadable is known exactly.
"""

from __future__ import annotations

import json
import pickle
import shutil
import warnings
from pathlib import Path

import pytest

import embias
from embias.cli import main
from embias.pipeline.store import FIT_FORMAT, UnreadableFitError

pytestmark = pytest.mark.xdist_group("store_errors")

#: One small fit (the dataset level samples fastest); every test damages a copy of it.
OPTIONS = {"level": "dataset", "draws": 100, "tune": 100, "random_seed": 1,
           "progress": False}


def _fit(models_dir: Path) -> embias.BiasFit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", embias.ConvergenceWarning)  # 100 draws
        return embias.fit_religion_model("published:reddit", models_dir=models_dir,
                                         **OPTIONS)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    return Path(_fit(tmp_path_factory.mktemp("models")).path)


@pytest.fixture
def copy(saved: Path, tmp_path: Path) -> Path:
    """A copy of the saved fit where ``fit_religion_model(models_dir=tmp_path)`` looks."""
    return Path(shutil.copytree(saved, tmp_path / saved.name))


def _cut_in_half(file: Path) -> None:
    data = file.read_bytes()
    file.write_bytes(data[: len(data) // 2])


def test_a_truncated_posterior_names_the_folder_and_the_file(copy: Path) -> None:
    _cut_in_half(copy / "posterior.nc")
    with pytest.raises(UnreadableFitError) as caught:
        embias.load_fit(copy)
    error = caught.value
    assert isinstance(error, ValueError)
    assert str(error).startswith(f"saved fit {str(copy)!r}: posterior.nc cannot be read, "
                                 "it is damaged or cut short (OSError: Unable to")
    assert "truncated file" in str(error)
    assert str(error).endswith("— fit it again (refit=True, embias fit --refit) or delete "
                               "the folder")
    assert (error.folder, error.file) == (str(copy), "posterior.nc")
    # the error survives a process pool (pickled with its parts)
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error) and again.file == "posterior.nc"


def test_fit_model_refits_over_a_truncated_posterior_with_a_warning(copy: Path) -> None:
    _cut_in_half(copy / "posterior.nc")
    with pytest.warns(UserWarning, match=r"posterior\.nc cannot be read") as record:
        fit = _fit(copy.parent)
    (message,) = [str(w.message) for w in record if "cannot be read" in str(w.message)]
    assert message.startswith(f"saved fit {str(copy)!r}: posterior.nc cannot be read")
    assert message.endswith("; fitting again over it")
    assert fit.path == str(copy)
    reloaded = embias.load_fit(copy)  # the new fit replaced the damaged one
    assert reloaded.settings["level"] == "dataset"
    assert reloaded.posterior["posterior"].sizes["draw"] == 100
    assert [p.name for p in copy.parent.iterdir()] == [copy.name]  # no temporary folders


def test_an_older_fit_format_is_refused_then_refitted(copy: Path) -> None:
    settings = copy / "settings.json"
    record = json.loads(settings.read_text(encoding="utf-8"))
    record["format"] = FIT_FORMAT - 1
    settings.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ValueError, match=(
            rf"saved fit '{copy}': settings\.json says fit format {FIT_FORMAT - 1}; this "
            rf"embias reads format {FIT_FORMAT} — fit it again")):
        embias.load_fit(copy)
    with pytest.warns(UserWarning, match=rf"settings\.json says fit format {FIT_FORMAT - 1}"):
        _fit(copy.parent)
    assert json.loads(settings.read_text(encoding="utf-8"))["format"] == FIT_FORMAT


@pytest.mark.parametrize(("name", "content", "problem"), [
    ("settings.json", b"{not json", "JSONDecodeError"),
    ("table.parquet", b"PAR1 not a parquet file", "ArrowInvalid"),
    ("intervals.parquet", b"PAR1 not a parquet file", "ArrowInvalid"),
])
def test_every_damaged_file_is_named(copy: Path, name: str, content: bytes,
                                     problem: str) -> None:
    (copy / name).write_bytes(content)
    with pytest.raises(UnreadableFitError, match=(
            rf"saved fit '{copy}': {name.replace('.', '[.]')} cannot be read, it is damaged "
            rf"or cut short \({problem}: ")):
        embias.load_fit(copy)


def test_a_missing_folder_or_file_is_file_not_found(copy: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"'.*nope' is not a saved embias fit: no "
                                                r"such folder"):
        embias.load_fit(tmp_path / "nope")
    (copy / "table.parquet").unlink()
    with pytest.raises(FileNotFoundError, match=r"table\.parquet is missing \(a fit folder "
                                                r"holds posterior\.nc, table\.parquet and "
                                                r"settings\.json\)"):
        embias.load_fit(copy)
    with pytest.warns(UserWarning, match=r"table\.parquet is missing.*; fitting again"):
        _fit(copy.parent)
    assert (copy / "table.parquet").is_file()


def test_embias_show_of_a_damaged_fit_is_one_line(copy: Path, capsys) -> None:
    _cut_in_half(copy / "posterior.nc")
    assert main(["show", str(copy)]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(f"embias: error: saved fit {str(copy)!r}: posterior.nc cannot be "
                          "read")
    assert err.count("\n") == 1
