"""How the audit page words its numbers: interval names, ROPE decisions and sentences.

What each connection compares a protected word with (:data:`CONNECTION_MEANING`), an
interval's name (``interval_label``), the style class of a ROPE decision, and every
contrast of a fit and every change between embeddings in plain words
(``contrast_sentence``, ``change_sentence``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..report import CREDIBLE_DIFFERENCE, PRACTICALLY_EQUIVALENT
from .render import number

#: What each connection compares a protected word with (DESIGN §4).
CONNECTION_MEANING: Mapping[str, str] = {
    "associated": "the stereotype words of their own class",
    "different": "the stereotype words of the other classes",
    "none": "neutral words",
    "human": "human (person) words",
}


def decision_class(column: str, value: Any, _row: pd.Series) -> str:
    """Return a table cell's style class: its ROPE decision's, in the decision column.

    The ``cell_class`` of the page's tables that show ROPE decisions
    (:func:`embias.audit.render.frame_table`).

    Parameters
    ----------
    column
        The cell's column.
    value
        The cell's value.
    _row
        The cell's row (not used).

    Returns
    -------
    str
        ``"decision credible-difference"`` … for a decision in the ``rope_decision``
        column, else ``""``.

    Examples
    --------
    >>> decision_class("rope_decision", "credible difference", None)
    'decision credible-difference'
    >>> decision_class("estimate", 0.031, None)
    ''
    """
    if column != "rope_decision" or not value:
        return ""
    return "decision " + str(value).replace(" ", "-")


def interval_label(ci_prob: float, ci_kind: str) -> str:
    """``89% HDI`` (how the page names an interval, from the table's own stamps)."""
    if ci_kind == "none" or ci_prob != ci_prob:  # NaN: no interval
        return "point estimate"
    return f"{ci_prob:.0%} {ci_kind.upper()}"


def with_interval_label(table: pd.DataFrame) -> pd.DataFrame:
    """Return a copy of an interval table with the page's ``interval`` column.

    Every row's interval is named from its own ``ci_prob`` and ``ci_kind``
    (:func:`interval_label`).

    Parameters
    ----------
    table
        An interval table (with ``ci_prob`` and ``ci_kind`` columns).

    Returns
    -------
    pandas.DataFrame
        The copy, with ``interval`` (``"89% HDI"`` …).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"ci_prob": [0.89, 0.95], "ci_kind": ["hdi", "eti"]})
    >>> with_interval_label(table)["interval"].tolist()
    ['89% HDI', '95% ETI']
    """
    out = table.copy()
    out["interval"] = [interval_label(p, k) for p, k in zip(out["ci_prob"], out["ci_kind"],
                                                            strict=True)]
    return out


def contrast_name(row: pd.Series) -> str:
    """Return a row's contrast name (``"associated - different"`` …).

    Its ``contrast``, else its ``group`` (a table read back from CSV has NaN where the
    column is empty).

    Parameters
    ----------
    row
        A row of an interval table.

    Returns
    -------
    str
        The contrast's name.

    Examples
    --------
    >>> import pandas as pd
    >>> contrast_name(pd.Series({"contrast": float("nan"), "group": "associated - none"}))
    'associated - none'
    """
    name = row.get("contrast")
    return name if isinstance(name, str) and name else str(row["group"])


def contrast_sentence(row: pd.Series) -> str:
    """Return a contrast's ROPE decision in plain words."""
    a, _, b = contrast_name(row).partition(" - ")
    est, lo, hi = float(row["estimate"]), float(row["lower"]), float(row["upper"])
    rope = float(row["rope"])
    label = interval_label(float(row["ci_prob"]), str(row["ci_kind"]))
    head = (f"{a} − {b} = {number(est)} [{number(lo)}, {number(hi)}] ({label}; ROPE ±{rope:g}, "
            f"P(> 0) = {number(float(row['prob_gt_0']))}): ")
    what_a, what_b = CONNECTION_MEANING.get(a, f"{a} words"), CONNECTION_MEANING.get(
        b, f"{b} words")
    decision = row["rope_decision"]
    if decision == CREDIBLE_DIFFERENCE:
        side = "below" if hi < -rope else "above"
        closer = "closer to" if est < 0 else "farther from"
        return (head + f"the whole interval lies {side} the ROPE — a credible difference: "
                f"protected words sit {closer} {what_a} than to {what_b}.")
    if decision == PRACTICALLY_EQUIVALENT:
        return (head + "the whole interval lies inside the ROPE — practically equivalent: "
                f"protected words are as close to {what_a} as to {what_b}, up to ±{rope:g}.")
    return (head + "the interval reaches both inside and outside the ROPE — undecided: these "
            "data cannot tell a difference of practical size from none.")


def change_sentence(row: pd.Series) -> str:
    """Return a change between embeddings (paired model) in plain words."""
    est, lo, hi = float(row["estimate"]), float(row["lower"]), float(row["upper"])
    rope = float(row["rope"]) if "rope" in row and row["rope"] == row["rope"] else 0.0
    label = interval_label(float(row["ci_prob"]), str(row["ci_kind"]))
    group = str(row["group"])
    what = (f"mean distance of the {group} rows (to {CONNECTION_MEANING.get(group, group)})"
            if row["estimand"] == "change_connection_mean"
            else f"contrast {group.replace(' - ', ' − ')}")
    head = (f"{row['embedding']} − {row['reference']}, {what}: {number(est)} "
            f"[{number(lo)}, {number(hi)}] ({label}; ROPE ±{rope:g}): ")
    decision = row["rope_decision"]
    if decision == CREDIBLE_DIFFERENCE:
        return head + f"a credible change ({'up' if est > 0 else 'down'})."
    if decision == PRACTICALLY_EQUIVALENT:
        return head + f"practically no change (within ±{rope:g})."
    return head + "undecided: a change of practical size can be neither shown nor excluded."
