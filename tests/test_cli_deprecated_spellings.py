"""The command line spells each idea as the Python API does: ``embias report --fits``
(``audit_report(fits=)``) and ``embias word-influence`` (``embias.word_influence``). The old
spellings (``--from``, ``sensitivity``) still work for one release and print one
deprecation line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from embias.cli import build_parser

NOTE_FROM = ("embias: deprecated: --from is now --fits; --from still works but will be "
             "removed in embias 0.5")
NOTE_SENSITIVITY = ("embias: deprecated: embias sensitivity is now embias word-influence; "
                    "embias sensitivity still works but will be removed in embias 0.5")


def embias(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embias", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=600,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"})


def test_report_fits_and_from_fill_the_same_option():
    parser = build_parser()
    new = parser.parse_args(["report", "--fits", "a", "--fits", "b"])
    old = parser.parse_args(["report", "--from", "a", "--fits", "b"])
    assert new.fits == old.fits == ["a", "b"]


def test_report_from_prints_a_deprecation_note_and_still_works(tmp_path):
    done = embias("report", "--from", "no-such-fit", cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert lines[0] == NOTE_FROM
    # still the saved-fit option: the error is the one of a missing saved fit
    assert done.returncode == 1 and "no-such-fit" in lines[1] and len(lines) == 2


def test_report_fits_prints_no_deprecation_note(tmp_path):
    done = embias("report", "--fits", "no-such-fit", cwd=tmp_path)
    assert done.returncode == 1
    assert "deprecated" not in done.stderr


def test_sensitivity_is_a_deprecated_alias_of_word_influence(tmp_path):
    old = embias("sensitivity", "religion", "--draws", "0", cwd=tmp_path)
    new = embias("word-influence", "religion", "--draws", "0", cwd=tmp_path)
    error = "embias: error: draws must be an integer ≥ 1, got 0"
    assert old.stderr.strip().splitlines() == [NOTE_SENSITIVITY, error]
    assert new.stderr.strip().splitlines() == [error]
    assert old.returncode == new.returncode == 1


def test_help_lists_word_influence_with_its_old_name():
    text = build_parser().format_help()
    assert "word-influence (sensitivity)" in text
