"""One name for one idea: ``progress`` (was ``progressbar``) in every fitting function, the
old spelling still accepted with a FutureWarning at the caller's line; and the sampler's
progress bars stay out of logs and pipes."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import embias
from embias._deprecation import renamed_keywords


@pytest.fixture(scope="module")
def small_table():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        table = embias.study_table("religion", "glove-6b-50d")
    words = list(dict.fromkeys(table["protected_word"]))[:4]
    return table[table["protected_word"].isin(words)].reset_index(drop=True)


def test_the_old_spelling_still_fits_and_warns_at_the_callers_line(small_table):
    options = {"level": "dataset", "draws": 50, "tune": 50, "chains": 2, "random_seed": 3,
               "warn": False}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = embias.fit_bias_model(small_table, progressbar=False, **options)
    (warning,) = [w for w in caught if w.category is FutureWarning]
    assert str(warning.message) == (
        "fit_bias_model(progressbar=...) is now fit_bias_model(progress=...); progressbar "
        "still works but will be removed in embias 0.5")
    assert warning.filename == __file__
    new = embias.fit_bias_model(small_table, progress=False, **options)
    # the same seed and settings: the very same draws
    assert (old.posterior["posterior"]["connection_mean"].values
            == new.posterior["posterior"]["connection_mean"].values).all()


def test_both_spellings_at_once_is_an_error():
    @renamed_keywords(progressbar="progress")
    def fit(table, *, progress=True):
        return progress

    with pytest.raises(ValueError, match=r"^fit\(\) got both progressbar= and progress=; "
                                         r"progressbar is the old spelling of progress: give "
                                         r"progress= only$"):
        fit(None, progressbar=False, progress=True)


def test_every_fitting_function_takes_progress_and_none_progressbar():
    import inspect

    from embias.pipeline.sentence_fits import fit_sentence_model

    for function in (embias.fit_bias_model, embias.fit_study_model, fit_sentence_model,
                     embias.audit_report, embias.fit_many, embias.word_influence,
                     embias.compare_models):
        parameters = inspect.signature(function).parameters
        assert "progress" in parameters and "progressbar" not in parameters, function


@pytest.mark.slow
def test_sampler_progress_bars_stay_out_of_a_pipe(tmp_path):
    # progress is on by default; with standard error a pipe (a log), no bar is drawn
    done = subprocess.run(
        [sys.executable, "-m", "embias", "fit", "religion", "--level", "hierarchical",
         "--draws", "100", "--tune", "100", "--seed", "2", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stderr and "it/s" not in done.stderr, done.stderr[-2000:]
    assert "\r" not in done.stderr
