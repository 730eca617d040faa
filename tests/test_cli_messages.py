"""Command-line errors name the value, the option (or file, column and row) and what is
allowed, in one line and without a traceback, seen from a real ``python -m embias``.

Exit codes follow the command line's one error policy (``embias.cli``): a malformed command
line (a value argparse checks) exits 2 with its usage and the error as the last line; a bad
value found while running (a file's content, an option the library refuses) exits 1 with
one line ``embias: error: …``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors

from embias.cli import cli_wording


def embias(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embias", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=600,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"})


def usage_error(done: subprocess.CompletedProcess[str]) -> str:
    """The error line of argparse's usage error (exit 2, no traceback)."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("usage: embias")
    return done.stderr.strip().splitlines()[-1]


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a bad value (exit 1, no traceback)."""
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("embias: error: ")
    return line


# --------------------------------------------------------------------------- parity counts
@pytest.mark.parametrize("count", ["-1/10", "-1/-10", "11/10", "3/0", "1.5/10"])
def test_parity_count_outside_successes_over_trials_is_named(tmp_path, count):
    line = usage_error(embias("parity", count, "3/10", cwd=tmp_path))
    assert line == (f"embias parity: error: argument X/N: invalid group count {count!r}: "
                    "expected SUCCESSES/TRIALS with whole numbers 0 ≤ SUCCESSES ≤ TRIALS and "
                    "TRIALS ≥ 1, such as 20/100")


def test_parity_negative_count_is_not_an_unrecognized_option(tmp_path):
    done = embias("parity", "3/10", "-1/10", cwd=tmp_path)
    assert "unrecognized arguments" not in done.stderr
    assert "invalid group count '-1/10'" in usage_error(done)


def test_parity_valid_counts_still_work(tmp_path):
    done = embias("parity", "0/10", "10/10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| rate_difference |" in done.stdout


# --------------------------------------------------------------------------- bbu options
@pytest.mark.parametrize(("value", "shown"), [("0", "0"), ("-3", "-3")])
def test_bbu_delta_n_prints_the_count_as_given(tmp_path, value, shown):
    line = usage_error(embias("bbu", "delta", "--n", value, cwd=tmp_path))
    assert line.endswith(f"argument --n: --n must be an integer ≥ 1, got {shown}")
    assert "0.0" not in line


def test_bbu_delta_n_refuses_a_fraction_naming_the_option(tmp_path):
    line = usage_error(embias("bbu", "delta", "--n", "2.5", cwd=tmp_path))
    assert line.endswith("argument --n: --n must be an integer, got '2.5'")


# --------------------------------------------------------------------------- CSV cells
@pytest.mark.parametrize(("cell", "shown"), [("abc", "'abc'"), ("", "''")])
def test_bbu_interval_names_file_column_and_row_of_a_non_number(tmp_path, cell, shown):
    path = tmp_path / "costs.csv"
    path.write_text(f"loss,g\n0.5,1\n0.2,-1\n{cell},1\n1,-1\n", encoding="utf-8")
    line = one_line_error(embias("bbu", "interval", "costs.csv", "--cost", "loss",
                                 "--group", "g", cwd=tmp_path))
    assert line == (f"embias: error: costs.csv: column 'loss', row 3 (line 4): {shown} is "
                    "not a number")


# --------------------------------------------------------------------------- report files
def _not_a_comparison(tmp_path: Path) -> Path:
    path = tmp_path / "wrong.csv"
    pd.DataFrame({"a": [1, 2], "b": [3, 4]}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("option", ["--comparison", "--weat"])
def test_report_names_the_option_of_a_wrong_result_file(tmp_path, option):
    _not_a_comparison(tmp_path)
    # checked before the saved fits are read (the fit folder given does not exist)
    line = one_line_error(embias("report", "--fits", "no-such-fit", option, "wrong.csv",
                                 "--out", "page.html", cwd=tmp_path))
    assert line.startswith(f"embias: error: {option} 'wrong.csv': ")
    assert "lacks columns" in line or "is not a comparison" in line


def test_report_names_the_option_of_a_missing_result_file(tmp_path):
    line = one_line_error(embias("report", "--fits", "no-such-fit", "--comparison",
                                 "absent.csv", cwd=tmp_path))
    assert line.startswith("embias: error: --comparison 'absent.csv': ")
    assert "no such file" in line


def test_report_comparison_of_embeddings_is_accepted(tmp_path):
    """A real comparison table passes the check (the error is then about the fits)."""
    rows = pd.DataFrame({
        "estimand": ["change_contrast"], "group": ["associated − none"], "estimate": [0.01],
        "lower": [-0.01], "upper": [0.03], "ci_prob": [0.89], "ci_kind": ["hdi"],
        "embedding": ["hard"]})
    rows.to_csv(tmp_path / "comparison.csv", index=False)
    line = one_line_error(embias("report", "--fits", "no-such-fit", "--comparison",
                                 "comparison.csv", cwd=tmp_path))
    assert "--comparison" not in line and "no-such-fit" in line


# --------------------------------------------------------------------------- Python advice
def test_embedding_format_advice_says_the_command_line_has_no_option(tmp_path):
    (tmp_path / "vectors.txt").write_text("hello\n", encoding="utf-8")
    line = one_line_error(embias("mac", "religion", "--embedding", "vectors.txt",
                                 cwd=tmp_path))
    assert "cannot detect the embedding format" in line
    assert "in Python, pass format= one of" in line
    assert line.endswith("(the command line has no option for format=)")


def _save_kv(path: Path, words: list[str], dim: int, seed: int) -> str:
    kv = KeyedVectors(dim)
    kv.add_vectors(words, np.random.default_rng(seed).normal(size=(len(words), dim)))
    kv.save(str(path))
    return str(path)


def test_compare_dimension_advice_names_the_option(tmp_path):
    from embias import load_study

    study = load_study("religion")
    words = sorted({w for ws in (*study.protected.values(), *study.attributes.values(),
                                 study.neutral, study.human) for w in ws})
    a = _save_kv(tmp_path / "a.kv", words, 6, 1)
    b = _save_kv(tmp_path / "b.kv", words, 7, 2)
    line = one_line_error(embias("compare", "religion", "--embedding", f"a={a}",
                                 "--embedding", f"b={b}", "--out", "out", "--no-progress",
                                 cwd=tmp_path))
    assert "embeddings have different dimensions (a=6, b=7)" in line
    assert "give --different-dimensions to compare different embeddings" in line
    assert "require_same_dimension" not in line


def test_cli_wording_maps_known_keywords_and_names_the_rest():
    assert cli_wording("x; pass flag=False to go on", {"flag=False": "--go-on"}) == \
        "x; give --go-on to go on"
    assert cli_wording("x; pass format= one of ['a']") == \
        "x; in Python, pass format= one of ['a'] (the command line has no option for format=)"
    assert cli_wording("nothing to advise") == "nothing to advise"
