"""``embias simulate weat`` (moved from test_simulate.py with the CLI)."""

from __future__ import annotations

import math
import re

import pytest

from embias.cli import build_parser, main
from embias.cli.simulate import weat_simulation_report


def test_cli_published(capsys):
    args = build_parser().parse_args(["simulate", "weat", "--published", "--n-sims", "4000",
                                      "--seed", "3"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.count("| first-word |") == 3 and out.count("| mean       |") == 3
    assert "-2.763" in out and "0.829" in out
    _, display = weat_simulation_report(args)
    first_null = display[(display["numerator"] == "first-word") & (display["association"] == 0)]
    assert first_null["lower"].item() == pytest.approx(-2.763, abs=3 * math.sqrt(2) * 0.06)
    assert first_null["exact upper"].item() == pytest.approx(2.724, abs=1e-3)


def test_cli_grid_and_errors(capsys):
    parser = build_parser()
    args = parser.parse_args(["simulate", "weat", "--n-protected", "2", "4", "--n-sims", "500",
                              "--numerator", "both", "--no-exact"])
    assert args.func(args) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines()
             if re.match(r"\|\s+[24] \|", ln)]
    assert len(lines) == 4 and "exact" not in lines[0]
    with pytest.raises(SystemExit):
        parser.parse_args(["simulate", "weat", "--numerator", "median"])
    bad = parser.parse_args(["simulate", "weat", "--sd", "0"])
    with pytest.raises(ValueError, match=re.escape("sd must be a positive finite number, "
                                                   "got 0.0")):
        bad.func(bad)


def test_cli_bad_value_is_one_line(capsys):
    assert main(["simulate", "weat", "--sd", "0", "--n-sims", "10"]) == 1
    assert capsys.readouterr().err.strip() == ("embias: error: sd must be a positive finite "
                                               "number, got 0.0")
    with pytest.raises(SystemExit) as info:
        main(["simulate", "weat", "--ci-prob", "0"])
    assert info.value.code == 2
    assert "ci_prob must be in (0, 1), got 0.0" in capsys.readouterr().err
