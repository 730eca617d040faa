"""The interval table: one tidy table for every estimate of every method in embias.

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

:func:`interval_table` builds one, ``validate_interval_table`` checks one,
:func:`stack_interval_tables` stacks several (:func:`combine_interval_tables` is another
name of it for labelled tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_columns

__all__ = ["CI_KINDS", "INTERVAL_COLUMNS", "RETIRED_CI_KINDS", "combine_interval_tables",
           "interval_table", "stack_interval_tables", "validate_interval_table"]

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
