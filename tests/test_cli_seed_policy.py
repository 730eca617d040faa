"""One seed policy on the command line: without ``--seed`` a command draws a fresh seed,
prints it, and rerunning with ``--seed N`` gives the same result (MCMC on the same
machine: seeded draws are reproducible there)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors


def embias(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "embias", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=900,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"})
    assert done.returncode == 0, done.stderr
    return done


def printed_seed(text: str, pattern: str = r"\bseed (\d+)\b") -> int:
    found = re.findall(pattern, text)
    assert found, text
    assert len(set(found)) == 1, found
    return int(found[0])


@pytest.fixture
def weat1_vectors(tmp_path: Path) -> Path:
    from embias import load_study

    study = load_study("weat1")
    words = sorted({w for ws in (*study.protected.values(), *study.attributes.values())
                    for w in ws})
    kv = KeyedVectors(8)
    kv.add_vectors(words, np.random.default_rng(0).normal(size=(len(words), 8)))
    path = tmp_path / "weat1.kv"
    kv.save(str(path))
    return path


def test_weat_draws_prints_and_reproduces_its_seed(tmp_path, weat1_vectors):
    argv = ("weat", "weat1", "--embedding", str(weat1_vectors), "--permutations", "500",
            "--n-boot", "200")
    first = embias(*argv, cwd=tmp_path).stdout
    second = embias(*argv, cwd=tmp_path).stdout
    seed, other = printed_seed(first), printed_seed(second)
    assert seed != other  # fresh seeds (a clash has probability 2**-31)
    again = embias(*argv, "--seed", str(seed), cwd=tmp_path).stdout
    assert again == first  # Monte Carlo p-value and bootstrap interval, reproduced


def test_simulate_weat_prints_a_fresh_seed_and_published_keeps_its_own(tmp_path):
    first = embias("simulate", "weat", "--n-sims", "200", "--no-exact", cwd=tmp_path).stdout
    seed = printed_seed(first)
    again = embias("simulate", "weat", "--n-sims", "200", "--no-exact", "--seed", str(seed),
                   cwd=tmp_path).stdout
    assert again == first
    assert "89% range" in first  # DEFAULT_CI_PROB
    published = embias("simulate", "weat", "--published", "--n-sims", "200", "--no-exact",
                       cwd=tmp_path).stdout
    assert printed_seed(published) == 0 and "95% range" in published  # the README's table


@pytest.mark.slow
@pytest.mark.slow
def test_compare_draws_prints_and_reproduces_its_seed(tmp_path):
    argv = ("compare", "religion", "--embedding", "a=published:reddit", "--embedding",
            "b=published:reddit-debiased", "--level", "dataset", "--draws", "100", "--tune",
            "100", "--chains", "1", "--workers", "1", "--no-progress")
    first = embias(*argv, "--out", "one", cwd=tmp_path)
    seed = printed_seed(first.stdout.splitlines()[0])
    embias(*argv, "--out", "two", "--seed", str(seed), cwd=tmp_path)
    (one,) = (tmp_path / "one").glob("*.csv")
    (two,) = (tmp_path / "two").glob("*.csv")
    a, b = pd.read_csv(one), pd.read_csv(two)
    assert list(a.columns) == list(b.columns) and len(a) == len(b) > 0
    numbers = a.select_dtypes("number").columns
    np.testing.assert_allclose(a[numbers].to_numpy(float), b[numbers].to_numpy(float),
                               rtol=1e-12, equal_nan=True)
