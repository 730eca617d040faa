"""The ``bbu`` and ``parity`` sub-commands of the ``embias`` command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embias.cli import main


def run(argv: list[str]) -> int:
    return main(argv)


def test_bbu_n_prints_11903(capsys):
    assert run(["bbu", "n", "--delta", "0.05", "--ci-prob", "0.95"]) == 0  # the paper's ρ
    out = capsys.readouterr().out
    header, _, row = out.splitlines()
    assert header.split("|")[-2].strip() == "required_n"
    assert row.split("|")[-2].strip() == "11903"  # Ethayarajh 2020 §3.3


def test_bbu_delta_prints_winobias_value(capsys):
    assert run(["bbu", "delta", "--n", "3160", "--ci-prob", "0.95"]) == 0
    assert "0.0974" in capsys.readouterr().out  # Ethayarajh 2020 §3.3 (paper: 0.0975)


def test_bbu_interval_from_csv(tmp_path, capsys):
    path = tmp_path / "costs.csv"
    pd.DataFrame({"loss": [1, 0, 1, 1, 0, 0, 1, 0, 1],
                  "gender": ["f", "f", "f", "f", "m", "m", "m", "m", "f"]}).to_csv(path,
                                                                                     index=False)
    assert run(["bbu", "interval", str(path), "--cost", "loss", "--group", "gender"]) == 0
    out = capsys.readouterr().out
    # f: 4/5 = .8, m: 1/4 = .25 ⇒ .55
    assert "groupwise_disparity" in out and "0.5500" in out and "f − m" in out
    assert run(["bbu", "interval", str(path), "--cost", "loss", "--group", "gender",
                "--protected", "m", "--bound", "hoeffding"]) == 0
    out = capsys.readouterr().out
    assert "-0.5500" in out and "hoeffding" in out


def test_bbu_interval_numeric_annotation(tmp_path, capsys):
    path = tmp_path / "ann.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"c": rng.uniform(0, 1, 40), "g": np.tile([1, -1, 0, 1], 10)}).to_csv(path)
    assert run(["bbu", "interval", str(path), "--cost", "c", "--group", "g",
                "--ci-prob", "0.9"]) == 0
    assert "protected − unprotected" in capsys.readouterr().out


def test_bbu_interval_errors(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"c": [0.5, 1.5], "g": [1, -1]}).to_csv(path, index=False)
    assert run(["bbu", "interval", str(path), "--cost", "c", "--group", "g"]) == 1
    err = capsys.readouterr().err
    assert "embias: error: cost values must lie in [0, max_cost=1.0]; got 1.5" in err
    assert run(["bbu", "interval", str(path), "--cost", "cost", "--group", "g"]) == 1
    assert "column 'cost' is not in" in capsys.readouterr().err
    assert run(["bbu", "interval", str(tmp_path / "none.csv"), "--cost", "c",
                "--group", "g"]) == 1


def test_parity_two_groups(capsys):
    assert run(["parity", "20/100", "30/100", "--rope", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "0.0980" in out and "0.4883" in out  # blog scenario 1
    assert "undecided" in out


def test_parity_more_groups_and_labels(capsys):
    assert run(["parity", "20/100", "30/100", "25/100", "--labels", "a,b,c"]) == 0
    out = capsys.readouterr().out
    assert "b − a" in out and "c − rest" in out
    assert len([line for line in out.splitlines() if "difference" in line]) == 6


def test_parity_errors(capsys):
    with pytest.raises(SystemExit) as info:
        run(["parity", "120/100", "30/100"])
    assert info.value.code == 2
    assert "invalid group count '120/100'" in capsys.readouterr().err
    assert run(["parity", "20/100", "30/100", "--prior", "1,b"]) == 1
    assert capsys.readouterr().err.strip() == ("embias: error: --prior '1,b': expected "
                                               "'alpha,beta' such as 1,1")
    with pytest.raises(SystemExit) as info:
        run(["parity", "20-100", "30/100"])
    assert info.value.code == 2
    assert "expected SUCCESSES/TRIALS" in capsys.readouterr().err
    assert run(["parity", "20/100"]) == 1
    assert "give at least two groups" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run(["bbu"])  # a bbu sub-command is required


def test_bbu_ci_prob_replaces_confidence(capsys):
    assert run(["bbu", "n", "--delta", "0.05", "--ci-prob", "0.9"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "ci_prob" in header and "confidence" not in header
    with pytest.raises(SystemExit) as info:
        run(["bbu", "n", "--delta", "0.05", "--confidence", "0.9"])
    assert info.value.code == 2
    assert "unrecognized arguments: --confidence" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        run(["bbu", "delta", "--n", "100", "--ci-prob", "1"])
    assert info.value.code == 2
    assert "ci_prob must be in (0, 1), got 1.0" in capsys.readouterr().err
