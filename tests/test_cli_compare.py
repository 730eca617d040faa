"""``embias compare`` (moved from test_compare.py with the CLI)."""

from __future__ import annotations

import warnings

import matplotlib
import pandas as pd
import pytest

import embias
from embias.cli import main
from embias.settings import FitSettings

matplotlib.use("Agg")

# one xdist worker runs the comparison tests (as test_compare.py)
pytestmark = pytest.mark.xdist_group("compare")


def test_compare_command(tmp_path, capsys):
    argv = ["compare", "religion", "--embedding", "biased=published:reddit", "--embedding",
            "hard=published:reddit-debiased", "--draws", "100", "--tune", "200", "--seed",
            "3", "--out", str(tmp_path), "--no-progress", "--workers", "1",
            "--level", "hierarchical"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", embias.ConvergenceWarning)
        assert main(argv) == 0
    out = capsys.readouterr().out
    assert "# religion: biased vs hard — hierarchical model" in out
    assert "| change_connection_mean | associated " in out
    mac_line = next(line for line in out.splitlines() if line.startswith("| mac_change ")
                    and "| all " in line)
    assert "0.072" in mac_line and "2.26e-06" in mac_line
    png = tmp_path / "compare_religion_biased_hard.png"
    csv = tmp_path / "compare_religion_biased_hard.csv"
    assert png.stat().st_size > 10_000
    table = pd.read_csv(csv)
    assert {"change_connection_mean", "mac_change", "word_coefficient"} <= set(table["estimand"])


def test_compare_command_errors(capsys):
    assert main(["compare", "religion", "--embedding", "biased=published:reddit"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("embias: error: compare_embeddings() needs at least 2 embeddings "
                          "to compare, got 1")
    assert main(["compare", "religion", "--embedding", "a=published:reddit", "--embedding",
                 "a=published:reddit-debiased"]) == 1
    assert "--embedding labels must be distinct; repeated: ['a']" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["compare", "religion", "--embedding", "biased"])
    assert info.value.code == 2
    assert "expected LABEL=SOURCE" in capsys.readouterr().err
    assert main(["compare", "religon", "--embedding", "a=published:reddit", "--embedding",
                 "b=published:reddit-debiased"]) == 1
    assert capsys.readouterr().err.startswith(
        "embias: error: unknown study 'religon' (did you mean 'religion'?)")
    with pytest.raises(SystemExit) as info:
        main(["compare", "religion", "--embedding", "a=x", "--min-shared", "0"])
    assert info.value.code == 2
    assert "min_shared must be a share in (0, 1], got 0.0" in capsys.readouterr().err


def test_compare_command_passes_one_fit_settings(monkeypatch):
    """The options reach the library as one FitSettings (no sampling here)."""
    calls = []

    class Stop(Exception):
        pass

    def fake(embeddings, study, **options):
        calls.append((embeddings, study, options))
        raise Stop

    monkeypatch.setattr(embias, "compare_embeddings", fake, raising=False)
    with pytest.raises(Stop):
        main(["compare", "religion", "--embedding", "a=published:reddit", "--embedding",
              "b=published:reddit-debiased", "--reference", "b", "--level", "word",
              "--draws", "100", "--chains", "4", "--min-shared", "0.9", "--workers", "2",
              "--no-progress"])
    ((embeddings, study, options),) = calls
    assert embeddings == {"a": "published:reddit", "b": "published:reddit-debiased"}
    assert study == "religion"
    assert options == {"reference": "b", "executor": None, "max_workers": 2,
                       "min_shared": 0.9, "progress": False, "require_same_dimension": True,
                       "settings": FitSettings(level="word", draws=100, chains=4,
                                               random_seed=None)}
