"""The columns the command line prints for each kind of table.

One tuple per command and table (``embias fit``, ``show``, ``compare``, ``weat``,
``simulate weat``), printed by the CLI with
:func:`embias.report.formatting.to_markdown`.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["CLI_CHANGE_COLUMNS", "CLI_CHANGE_WORD_COLUMNS", "CLI_LEVEL_COLUMNS",
           "CLI_SHORT_COLUMNS", "CLI_SIMULATION_COLUMNS", "CLI_WEAT_COLUMNS",
           "CLI_WORD_COLUMNS"]

#: Columns ``embias fit``/``show`` print for connection means and contrasts.
CLI_SHORT_COLUMNS: tuple[str, ...] = (
    "estimand", "group", "estimate", "lower", "upper", "ci_prob", "ci_kind", "prob_gt_0",
    "prob_in_rope", "rope_decision")
#: Columns ``embias fit``/``show --words`` print for word coefficients and contrasts.
CLI_WORD_COLUMNS: tuple[str, ...] = (
    "estimand", "protected_class", "group", "connection", "contrast", "estimate", "lower",
    "upper", "prob_gt_0", "rope_decision")
#: Columns ``embias compare`` prints for the changes (those present in the table).
CLI_CHANGE_COLUMNS: tuple[str, ...] = (
    "estimand", "group", "embedding", "reference", "estimate", "lower", "upper", "ci_prob",
    "ci_kind", "prob_gt_0", "rope_decision", "p_value")
#: Columns ``embias compare --words`` prints for the word-level changes.
CLI_CHANGE_WORD_COLUMNS: tuple[str, ...] = (
    "estimand", "protected_word", "group", "embedding", "estimate", "lower", "upper",
    "prob_gt_0", "rope_decision")
#: Columns ``embias weat``/``summary`` print for WEAT rows (point estimates: no interval
#: columns; the permutation null's range in its own columns).
CLI_WEAT_COLUMNS: tuple[str, ...] = (
    "estimand", "group", "estimate", "p_value", "alternative", "n_permutations", "exact",
    "null_lower", "null_upper", "null_ci_prob")
#: Columns ``embias compare`` prints for every embedding's levels.
CLI_LEVEL_COLUMNS: tuple[str, ...] = (
    "estimand", "group", "embedding", "estimate", "lower", "upper", "ci_prob", "ci_kind",
    "prob_gt_0", "rope_decision")
#: Columns ``embias simulate weat`` prints → their short headers.
CLI_SIMULATION_COLUMNS: Mapping[str, str] = {
    "n_protected_per_group": "n/group",
    "n_attributes": "attrs/set",
    "association": "association",
    "numerator": "numerator",
    "estimate": "median",
    "lower": "lower",
    "upper": "upper",
    "share_above": "share |W|≥t",
    "share_above_se": "share se",
    "max_abs_weat": "max |W|",
    "raw_sd": "raw sd",
    "means_sd": "sd of means",
    "exact_lower": "exact lower",
    "exact_upper": "exact upper",
    "exact_share_above": "exact share",
}
