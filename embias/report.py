"""Shared reporting layer: one tidy interval table for every method in embias.

Every estimate that embias reports — a Bayesian HDI, a Student-t interval, a Bernstein
bound, a WEAT effect size with its permutation p-value — is a row of the same table:

=============  ==============================================================
column         meaning
=============  ==============================================================
``estimand``   what is estimated (``"connection_mean"``, ``"weat_effect_size"`` …)
``group``      which group/level/word it belongs to (``"associated"``, ``"weat6"``)
``estimate``   point estimate (posterior mean, observed statistic, …)
``lower``      lower end of an interval *for the estimate* (NaN for a point estimate)
``upper``      upper end of that interval
``ci_prob``    probability/confidence level of the interval (e.g. 0.89)
``ci_kind``    kind of interval (one of :data:`CI_KINDS`)
=============  ==============================================================

Methods add their own extra columns (``p_value``, ``prob_gt_0``, ``rope_decision``,
``embedding`` …). Numbers that are not an interval for the estimate never go in
``lower``/``upper``: the critical values of a WEAT's permutation null, for instance, are
``null_lower``/``null_upper`` (with ``null_ci_prob``) next to a point estimate. The kind
and the probability are always set by the code that computed the numbers (through
:func:`interval_table`), never by the caller of a plot or a renderer, so a label cannot
drift from the numbers it describes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._validation import check_columns

__all__ = [
    "CI_KINDS",
    "DECISIONS",
    "INTERVAL_COLUMNS",
    "RETIRED_CI_KINDS",
    "SCIENTIFIC_COLUMNS",
    "combine_interval_tables",
    "format_number",
    "interval_table",
    "is_scientific_column",
    "rope_decision",
    "share_with_mc_se",
    "stack_interval_tables",
    "to_markdown",
    "validate_interval_table",
]

INTERVAL_COLUMNS: tuple[str, ...] = (
    "estimand",
    "group",
    "estimate",
    "lower",
    "upper",
    "ci_prob",
    "ci_kind",
)

#: Allowed interval kinds and what they mean.
CI_KINDS: Mapping[str, str] = {
    "hdi": "highest posterior density interval",
    "eti": "equal-tailed (percentile) posterior interval",
    "bernstein": "Bernstein-bound confidence interval (Ethayarajh 2020)",
    "hoeffding": "Hoeffding-bound confidence interval",
    "simulation": "central interval of the statistic's simulated distribution",
    "bootstrap": "percentile interval of the statistic over resampled items (words)",
    "t": "Student-t confidence interval",
    "normal": "normal-approximation confidence interval",
    "none": "point estimate only (no interval)",
}

#: Kinds that older versions wrote and why they are gone (named in the error message).
RETIRED_CI_KINDS: Mapping[str, str] = {
    "permutation": "the central range of a permutation null is not an interval for the "
                   "estimate (it is centred on 0, not on the estimate); embias 0.2 reports "
                   "the WEAT effect size as a point estimate (ci_kind='none') with its "
                   "p_value and the null's range in null_lower/null_upper",
}


#: The one decision vocabulary of embias (Kruschke's interval + ROPE rule), used by the
#: Bayesian fits, the comparisons and the classifier side. The words cannot be read as a
#: connection name (``different``, ``none`` …) or as a verdict on a person or group.
CREDIBLE_DIFFERENCE = "credible difference"
PRACTICALLY_EQUIVALENT = "practically equivalent"
UNDECIDED = "undecided"
DECISIONS: tuple[str, ...] = (CREDIBLE_DIFFERENCE, PRACTICALLY_EQUIVALENT, UNDECIDED)


def rope_decision(lower: Any, upper: Any, rope: float) -> np.ndarray:
    """Return Kruschke's interval + ROPE decision for a difference (ROPE = [−rope, rope]).

    The one rule for every decision embias prints: a Bayesian contrast (HDI), a change
    between embeddings, a parity test's HDI or simple z-interval, a BBU confidence interval
    (``rope=0``: does the interval exclude 0?).

    Parameters
    ----------
    lower, upper
        Interval ends (scalars or arrays of the same shape).
    rope
        Half-width of the region of practical equivalence, ≥ 0.

    Returns
    -------
    numpy.ndarray of str
        Element-wise :data:`CREDIBLE_DIFFERENCE` when the interval lies entirely outside
        the ROPE, :data:`PRACTICALLY_EQUIVALENT` when it lies entirely inside it (never
        with ``rope=0`` unless the interval is the single point 0), else
        :data:`UNDECIDED`.

    Raises
    ------
    ValueError
        A negative or non-numeric ``rope``.

    Examples
    --------
    >>> rope_decision([-0.07, -0.01, -0.03], [-0.03, 0.01, 0.05], 0.02).tolist()
    ['credible difference', 'practically equivalent', 'undecided']
    >>> rope_decision(0.01, 0.05, 0).tolist()  # rope=0: does the interval exclude 0?
    'credible difference'
    """
    from ._validation import check_rope

    rope = check_rope(rope)
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    outside = (lower > rope) | (upper < -rope)
    inside = (lower >= -rope) & (upper <= rope)
    return np.where(outside, CREDIBLE_DIFFERENCE,
                    np.where(inside, PRACTICALLY_EQUIVALENT, UNDECIDED))


def interval_table(
    rows: Iterable[Mapping[str, Any]],
    *,
    ci_prob: float | None,
    ci_kind: str,
) -> pd.DataFrame:
    """Build an interval table from row mappings; kind and probability are set here.

    Parameters
    ----------
    rows
        Mappings with at least ``estimand``, ``group``, ``estimate``, ``lower`` and
        ``upper``; any further keys become extra columns.
    ci_prob
        Probability (Bayesian) or confidence level of the intervals, in (0, 1); ``None``
        only with ``ci_kind="none"``.
    ci_kind
        One of :data:`CI_KINDS`.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`INTERVAL_COLUMNS` first, then the extras in row order.

    Raises
    ------
    ValueError
        Unknown ``ci_kind``, ``ci_prob`` outside (0, 1), a row missing a required key, or
        a row whose ``lower`` exceeds its ``upper``.

    Examples
    --------
    >>> rows = [{"estimand": "contrast", "group": "associated - none", "estimate": -0.041,
    ...          "lower": -0.07, "upper": -0.012, "prob_gt_0": 0.01}]
    >>> table = interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    >>> table.columns.tolist()
    ['estimand', 'group', 'estimate', 'lower', 'upper', 'ci_prob', 'ci_kind', 'prob_gt_0']
    >>> table.to_dict(orient="records")[0]["ci_prob"], table["ci_kind"].tolist()
    (0.89, ['hdi'])
    >>> interval_table(rows, ci_prob=0.89, ci_kind="hpd")
    Traceback (most recent call last):
    ...
    ValueError: ci_kind='hpd' is not one of ['bernstein', 'bootstrap', 'eti', 'hdi', ...]
    """
    if ci_kind not in CI_KINDS:
        raise ValueError(f"ci_kind={ci_kind!r} is not one of {sorted(CI_KINDS)}")
    if ci_kind == "none":
        if ci_prob is not None:
            raise ValueError(f"ci_kind='none' takes ci_prob=None, got {ci_prob!r}")
    elif ci_prob is None or not (0.0 < float(ci_prob) < 1.0):
        raise ValueError(f"ci_prob must be in (0, 1), got {ci_prob!r}")
    records = [dict(r) for r in rows]
    required = ("estimand", "group", "estimate", "lower", "upper")
    for i, rec in enumerate(records):
        absent = [k for k in required if k not in rec]
        if absent:
            raise ValueError(f"interval row {i} lacks {absent}; every row needs {list(required)}")
        for key in ("ci_prob", "ci_kind"):
            if key in rec:
                raise ValueError(
                    f"interval row {i} sets {key!r}; it is set by interval_table(), "
                    "not by the rows"
                )
        rec["ci_prob"] = np.nan if ci_prob is None else float(ci_prob)
        rec["ci_kind"] = ci_kind
    extras: list[str] = []
    for rec in records:
        extras.extend(k for k in rec if k not in INTERVAL_COLUMNS and k not in extras)
    table = pd.DataFrame.from_records(records, columns=[*INTERVAL_COLUMNS, *extras])
    for col in ("estimate", "lower", "upper", "ci_prob"):
        table[col] = table[col].astype(float)
    validate_interval_table(table)
    return table


def validate_interval_table(table: pd.DataFrame) -> pd.DataFrame:
    """Check that ``table`` is an interval table; return it unchanged.

    Parameters
    ----------
    table
        The table.

    Returns
    -------
    pandas.DataFrame
        ``table``.

    Raises
    ------
    ValueError
        Missing columns, unknown ``ci_kind`` values or a ``lower`` above its ``upper``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"estimand": ["mac"], "group": ["all"], "estimate": [0.86],
    ...                       "lower": [0.9], "upper": [0.83], "ci_prob": [0.89],
    ...                       "ci_kind": ["t"]})
    >>> validate_interval_table(table)
    Traceback (most recent call last):
    ...
    ValueError: interval row 0 ('mac', 'all') has lower=0.9 > upper=0.83
    """
    check_columns(table, INTERVAL_COLUMNS, name="the interval table",
                  hint=f"an interval table (to_interval_table()) has {list(INTERVAL_COLUMNS)}")
    bad_kinds = sorted(set(table["ci_kind"]) - set(CI_KINDS))
    if bad_kinds:
        why = "".join(f"; {k!r}: {RETIRED_CI_KINDS[k]}" for k in bad_kinds
                      if k in RETIRED_CI_KINDS)
        raise ValueError(f"unknown ci_kind values {bad_kinds}; allowed: "
                         f"{sorted(CI_KINDS)}{why}")
    lower = table["lower"].to_numpy(dtype=float)
    upper = table["upper"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        inverted = np.flatnonzero(lower > upper)
    if inverted.size:
        i = inverted[0]
        raise ValueError(
            f"interval row {i} ({table['estimand'].iloc[i]!r}, {table['group'].iloc[i]!r}) "
            f"has lower={float(lower[i])!r} > upper={float(upper[i])!r}"
        )
    return table


def stack_interval_tables(
    tables: Mapping[str, pd.DataFrame] | Sequence[pd.DataFrame],
    *,
    key: str = "embedding",
) -> pd.DataFrame:
    """Stack interval tables into one: the one stacking helper of embias.

    Parameters
    ----------
    tables
        A mapping label → interval table (e.g. ``{"biased": t1, "hard": t2}``): each
        block is labelled in a new column ``key``; or a sequence of interval tables with
        possibly different extra columns, stacked as they are (empty ones skipped).
        Text columns missing from a block are filled with ``""``, numeric ones with NaN.
    key
        Name of the label column for a mapping (``"embedding"`` by default); placed right
        after ``group``.

    Returns
    -------
    pandas.DataFrame
        One interval table.

    Raises
    ------
    ValueError
        No tables, something that is not an interval table, or a labelled table that
        already has the ``key`` column.

    Examples
    --------
    >>> row = {"estimand": "mac", "group": "all", "estimate": 0.86, "lower": 0.83,
    ...        "upper": 0.9}
    >>> biased = interval_table([row], ci_prob=0.89, ci_kind="t")
    >>> hard = interval_table([{**row, "estimate": 0.95, "upper": 0.99}], ci_prob=0.89,
    ...                       ci_kind="t")
    >>> stack_interval_tables({"biased": biased, "hard": hard})
      estimand group embedding  estimate  lower  upper  ci_prob ci_kind
    0      mac   all    biased      0.86   0.83   0.90     0.89       t
    1      mac   all      hard      0.95   0.83   0.99     0.89       t
    """
    if isinstance(tables, Mapping):
        parts = []
        for label, table in tables.items():
            validate_interval_table(table)
            if key in table.columns:
                raise ValueError(f"table {label!r} already has a {key!r} column")
            part = table.copy()
            part.insert(2, key, label)
            parts.append(part)
    else:
        parts = [validate_interval_table(t) for t in tables]
    parts = [p for p in parts if not p.empty] or parts[:1]
    if not parts:
        raise ValueError("stack_interval_tables() needs at least one table, got none")
    out = pd.concat(parts, ignore_index=True)
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]) and not pd.api.types.is_bool_dtype(
                out[col]):
            out[col] = out[col].astype(object).where(out[col].notna(), "").astype(str)
    return validate_interval_table(out)


def combine_interval_tables(
    tables: Mapping[str, pd.DataFrame],
    *,
    key: str = "embedding",
) -> pd.DataFrame:
    """Stack labelled interval tables: :func:`stack_interval_tables` with a mapping.

    Another name of ``stack_interval_tables(tables, key=key)``; new code calls that.

    Parameters
    ----------
    tables
        A mapping label → interval table.
    key
        Name of the label column.

    Returns
    -------
    pandas.DataFrame
        One interval table.

    Raises
    ------
    ValueError
        As :func:`stack_interval_tables`.

    Examples
    --------
    >>> row = {"estimand": "mac", "group": "all", "estimate": 0.86, "lower": 0.83,
    ...        "upper": 0.9}
    >>> table = interval_table([row], ci_prob=0.89, ci_kind="t")
    >>> combine_interval_tables({"a": table, "b": table})["embedding"].tolist()
    ['a', 'b']
    """
    return stack_interval_tables(tables, key=key)

#: Columns whose tiny values print in scientific notation (a test's p-value, which is not
#: an interval end: ``1.55e-04`` says more than ``0.000``); every other number prints in
#: fixed point (:func:`format_number`).
SCIENTIFIC_COLUMNS: tuple[str, ...] = ("p_value",)


def format_number(value: Any, digits: int = 3, *, scientific: bool = False) -> str:
    """Return a number as embias prints it in tables and intervals.

    Fixed point with ``digits`` decimals, so an estimate and its interval ends line up
    (``[-0.159, 0.001]``, not ``[-0.159, 9.68e-04]``); a value that rounds to zero prints
    without a sign (``0.000``, never ``-0.000``); NaN prints as ``""``. With
    ``scientific=True`` (a p-value, :data:`SCIENTIFIC_COLUMNS`) a non-zero value too small
    for ``digits`` decimals prints in scientific notation with ``digits - 1`` decimals
    (``1.55e-04``). Anything that is not a float prints as ``str(value)``.

    Parameters
    ----------
    value
        The value.
    digits
        Decimals, ≥ 0.
    scientific
        Scientific notation for tiny non-zero values.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> format_number(-0.15912), format_number(0.000968), format_number(-0.0004)
    ('-0.159', '0.001', '0.000')
    >>> format_number(0.000155, scientific=True), format_number(float("nan")), format_number(7)
    ('1.55e-04', '', '7')
    """
    if not isinstance(value, float | np.floating):
        return str(value)
    value = float(value)
    if np.isnan(value):
        return ""
    if scientific and value != 0 and abs(value) < 10 ** (-digits):
        return f"{value:.{max(digits - 1, 0)}e}"
    text = f"{value:.{digits}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


def is_scientific_column(column: Any) -> bool:
    """Return whether a column's tiny values print in scientific notation.

    Parameters
    ----------
    column
        The column's name.

    Returns
    -------
    bool
        True for p-values (:data:`SCIENTIFIC_COLUMNS`, and names that start with them).

    Examples
    --------
    >>> is_scientific_column("p_value"), is_scientific_column("p_value_se")
    (True, True)
    >>> is_scientific_column("estimate")
    False
    """
    return str(column).startswith(SCIENTIFIC_COLUMNS)


def to_markdown(
    table: pd.DataFrame,
    *,
    digits: int = 3,
    columns: Sequence[str] | None = None,
) -> str:
    """Render an interval table (or any DataFrame) as a GitHub-flavoured markdown table.

    Parameters
    ----------
    table
        The table to render.
    digits
        Decimals for floats, in fixed point (:func:`format_number`): an estimate and its
        interval ends print alike, a value that rounds to zero prints as ``0.000``
        (never ``-0.000``); only p-values (:data:`SCIENTIFIC_COLUMNS`) switch to
        scientific notation when too small for ``digits`` decimals.
    columns
        Columns to show, in order; default all.

    Returns
    -------
    str
        The markdown text, one line per row; readable as plain text in a terminal.

    Raises
    ------
    ValueError
        ``columns`` not in the table.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"group": ["associated", "none"], "estimate": [-0.0004, 0.8612],
    ...                       "p_value": [0.000155, 0.5]})
    >>> print(to_markdown(table))
    | group      | estimate |  p_value |
    |:-----------|---------:|---------:|
    | associated |    0.000 | 1.55e-04 |
    | none       |    0.861 |    0.500 |
    >>> to_markdown(table, columns=["rope"])
    Traceback (most recent call last):
    ...
    ValueError: columns ['rope'] are not in the table (it has ['group', 'estimate', 'p_value'])
    """
    cols = list(table.columns if columns is None else columns)
    unknown = [c for c in cols if c not in table.columns]
    if unknown:
        raise ValueError(f"columns {unknown} are not in the table (it has {list(table.columns)})")
    sci = [is_scientific_column(c) for c in cols]
    cells = [[format_number(v, digits, scientific=e) for v, e in zip(row, sci, strict=True)]
             for row in table[cols].itertuples(index=False)]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(cols)]
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in cols]

    def line(values: Sequence[str]) -> str:
        """Return one row of the table, its cells padded to the column widths."""
        padded = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(
        ("-" * (w + 1) + ":") if num else (":" + "-" * (w + 1))
        for w, num in zip(widths, numeric, strict=True)
    ) + "|"
    return "\n".join([line(cols), rule, *(line(r) for r in cells)])




# --------------------------------------------------------------------------- CLI presets
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


def share_with_mc_se(hits: pd.Series) -> tuple[float, float]:
    """Return the share of ``True`` in ``hits`` and its binomial Monte Carlo standard error.

    Parameters
    ----------
    hits
        One boolean per simulated study or table (an interval covered, a claim made).

    Returns
    -------
    tuple of (float, float)
        The share p and √(p(1 − p)/n); the standard error is NaN for fewer than two hits.

    Examples
    --------
    >>> import pandas as pd
    >>> share_with_mc_se(pd.Series([True, True, False, True]))  # √(0.75 · 0.25 / 4)
    (0.75, 0.217)
    """
    n = len(hits)
    p = float(hits.mean())
    return p, math.sqrt(p * (1 - p) / n) if n > 1 else math.nan
