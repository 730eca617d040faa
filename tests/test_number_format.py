"""One rule for the numbers of interval tables (:func:`embias.report.format_number`,
:func:`embias.to_markdown`): fixed point for estimates and interval ends, no negative zero,
scientific notation only for a p-value too small for the decimals."""

from __future__ import annotations

import numpy as np
import pytest

from embias.report import format_number, interval_table, to_markdown


@pytest.mark.parametrize(("value", "digits", "scientific", "text"), [
    (-0.159, 3, False, "-0.159"),
    (9.68e-04, 3, False, "0.001"),           # next to fixed-point numbers: fixed point
    (-0.0004, 3, False, "0.000"),            # rounds to zero: no sign
    (-0.0004, 2, False, "0.00"),
    (-0.4, 0, False, "0"),
    (-0.6, 0, False, "-1"),
    (0.0, 3, False, "0.000"),
    (-0.0, 3, False, "0.000"),
    (1.55e-04, 3, True, "1.55e-04"),         # a p-value: scientific when tiny
    (0.0534, 3, True, "0.053"),
    (np.float64(-2e-05), 3, True, "-2.00e-05"),
    (float("nan"), 3, False, ""),
    (np.float32(0.25), 2, False, "0.25"),
    (7, 3, False, "7"),
    ("hdi", 3, False, "hdi"),
])
def test_format_number(value, digits, scientific, text) -> None:
    assert format_number(value, digits, scientific=scientific) == text


def test_an_interval_table_prints_fixed_point_without_negative_zero() -> None:
    rows = [{"estimand": "contrast", "group": "associated - none", "estimate": -0.0004,
             "lower": -0.159, "upper": 9.68e-04, "p_value": 1.55e-04},
            {"estimand": "contrast", "group": "different - none", "estimate": -0.07949,
             "lower": -0.12, "upper": -0.0001, "p_value": 0.0534}]
    table = interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    assert to_markdown(table, columns=["group", "estimate", "lower", "upper",
                                       "p_value"]) == (
        "| group             | estimate |  lower | upper |  p_value |\n"
        "|:------------------|---------:|-------:|------:|---------:|\n"
        "| associated - none |    0.000 | -0.159 | 0.001 | 1.55e-04 |\n"
        "| different - none  |   -0.079 | -0.120 | 0.000 |    0.053 |")


def test_the_audit_page_prints_intervals_by_the_same_rule() -> None:
    import pandas as pd

    from embias.audit.content import contrast_sentence
    from embias.audit.render import frame_table

    row = pd.Series({"estimand": "contrast", "group": "associated - none",
                     "contrast": "associated - none", "estimate": -0.0004, "lower": -0.159,
                     "upper": 9.68e-04, "ci_prob": 0.89, "ci_kind": "hdi", "rope": 0.01,
                     "prob_gt_0": 0.0005, "rope_decision": "undecided"})
    assert contrast_sentence(row).startswith(
        "associated − none = 0.000 [-0.159, 0.001] (89% HDI; ROPE ±0.01, P(> 0) = 0.001): ")
    table = frame_table(pd.DataFrame({"estimate": [-0.0004], "upper": [9.68e-04],
                                      "p_value": [1.55e-04]}))
    assert [cell.text for cell in table.rows[0]] == ["0.000", "0.001", "1.55e-04"]
