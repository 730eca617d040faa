"""The counts of ``embias design`` and ``embias calibrate`` (studies, draws, word counts):
one argparse type built on embias._validation.check_int, so both commands word a bad count
alike, and refuse it before anything is loaded (exit 2, argparse's usage line)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def embias(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embias", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize(("argv", "message"), [
    (["calibrate", "sentiment", "--studies", "0"],
     "argument --studies: --studies must be an integer ≥ 1, got 0"),
    (["calibrate", "sentiment", "--studies", "x"],
     "argument --studies: --studies must be an integer, got 'x'"),
    (["design", "religion", "--studies", "1"],
     "argument --studies: --studies must be an integer ≥ 2, got 1"),
    (["design", "religion", "--draws", "0"],
     "argument --draws: --draws must be an integer ≥ 1, got 0"),
    (["design", "religion", "--neutral-words", "-1"],
     "argument --neutral-words: --neutral-words must be an integer ≥ 0, got -1"),
])
def test_a_bad_count_is_one_usage_error_worded_alike(argv, message):
    done = embias(*argv)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"embias {argv[0]}: error: {message}"
    assert done.stdout == ""
