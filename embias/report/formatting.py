"""Numbers as embias prints them, and interval tables as Markdown.

:func:`format_number` is the one rule for a number in a table or an interval (fixed point,
no ``-0.000``, scientific notation only for tiny p-values: :data:`SCIENTIFIC_COLUMNS`,
``is_scientific_column``); :func:`to_markdown` renders a table with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["SCIENTIFIC_COLUMNS", "format_number", "is_scientific_column", "to_markdown"]

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
