"""The `embias` command line: table, weat, mac, summary; errors are one line."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from embias.cli import main


def test_weat_single_test(capsys):
    assert main(["weat", "weat6"]) == 0
    out = capsys.readouterr().out
    assert "| weat_effect_size | weat6 |    1.708 |" in out
    assert "John" in out  # per-word s values


def test_weat_all_prints_the_readme_table(capsys):
    assert main(["weat", "all", "--permutations", "2000"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("| weat")]
    assert len(lines) == 10
    assert lines[0].split("|")[2].strip() == "1.080"
    assert "flowers:1" in lines[0]  # gladiola is missing from GloVe 6B


def test_table_to_csv(tmp_path, capsys):
    out = tmp_path / "religion.csv"
    assert main(["table", "religion", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert len(table) == 4815
    printed = capsys.readouterr()
    assert "neutral: 1 of 226 missing: literaly" in printed.out
    assert "embias: warning: 1 words missing" in printed.err


def test_mac_on_published_table(capsys):
    assert main(["mac", "religion", "--embedding", "published:reddit"]) == 0
    assert "MAC (mean cosine distance, Manzini et al. 2019): 0.8614" in capsys.readouterr().out


def test_summary(capsys):
    assert main(["summary", "religion"]) == 0
    out = capsys.readouterr().out
    assert "== MAC (mean cosine distance): 0.8229" in out
    assert "jewish vs muslim" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["table", "religon"], "embias: error: unknown study 'religon' (did you mean 'religion'?)"),
     (["mac", "religion", "--embedding", "/no/such.bin"],
      "embias: error: embedding file not found: '/no/such.bin'"),
     (["table", "religion", "--out", "x.xlsx"],
      "embias: error: --out 'x.xlsx': use a .csv or .parquet file name")],
)
def test_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(message)


def test_entry_point_help_and_usage_error():
    done = subprocess.run([sys.executable, "-m", "embias.cli", "--help"], capture_output=True,
                          text=True)
    assert done.returncode == 0
    for command in ("table", "weat", "mac", "summary"):
        assert command in done.stdout
    bad = subprocess.run([sys.executable, "-m", "embias.cli", "weat"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "the following arguments are required: test" in bad.stderr


def test_debias_command_writes_kv_that_loads_back(tmp_path, capsys):
    import numpy as np

    import embias

    out = tmp_path / "religion_hard.kv"
    assert main(["debias", "religion", "--method", "hard", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "15 equalized" in printed and "MAC (mean cosine distance): 0.8229 → 0.8183" in printed
    kv = embias.load_embeddings(out)
    assert isinstance(kv.vectors, np.memmap) and kv.vectors.shape == (400_000, 50)
    assert main(["debias", "religion", "--out", str(tmp_path / "x.bin")]) == 1
    assert "use a .kv file name" in capsys.readouterr().err
