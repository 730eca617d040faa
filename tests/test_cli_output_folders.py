"""One rule for every ``--out`` of the command line: missing parent folders are created
(``embias table``, ``debias`` and ``report`` alike), and a command that fails leaves no
folder behind; a path that cannot be written fails before any work, naming the option."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def embias(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embias", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=900,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"})


def test_table_out_creates_missing_folders(tmp_path):
    done = embias("table", "religion", "--embedding", "published:reddit", "--out",
                  "new/sub/table.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new" / "sub" / "table.csv").stat().st_size > 0


def test_debias_out_creates_missing_folders(tmp_path):
    done = embias("debias", "religion", "--out", "new/sub/hard.kv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new" / "sub" / "hard.kv").is_file()


def test_report_out_that_cannot_be_created_names_the_option(tmp_path):
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    done = embias("report", "--fits", "no-such-fit", "--out", "file/page.html", cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("embias: error: --out 'file/page.html': ")


def test_failed_report_leaves_no_folder_behind(tmp_path):
    done = embias("report", "--fits", "no-such-fit", "--out", "new/sub/page.html",
                  cwd=tmp_path)
    assert done.returncode == 1
    assert "no-such-fit" in done.stderr
    assert not (tmp_path / "new").exists()


@pytest.mark.slow
def test_report_out_creates_missing_folders(tmp_path):
    fit = embias("fit", "religion", "--embedding", "published:reddit", "--level", "dataset",
                 "--draws", "100", "--tune", "100", "--chains", "1", "--out", "models",
                 cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    (saved,) = (tmp_path / "models").iterdir()
    done = embias("report", "--fits", str(saved), "--out", "new/sub/page.html",
                  "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = tmp_path / "new" / "sub" / "page.html"
    assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert f"audit report: {Path('new/sub/page.html')}" in done.stdout
