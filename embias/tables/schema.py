"""The table's schema and its checks: the columns, the connections, :func:`validate_table`.

What a long-form cosine table is (DESIGN §4) — one row per (protected word, compared word),
columns :data:`TABLE_COLUMNS`, ``connection`` one of :data:`CONNECTIONS` — and the checks
that refuse a table that is not one. Nothing here knows where a table comes from (word
lists, embeddings): the models import this module.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .._validation import check_columns

TABLE_COLUMNS: tuple[str, ...] = (
    "protected_word",
    "protected_class",
    "word_to_compare",
    "word_class",
    "connection",
    "cosine_similarity",
    "cosine_distance",
    "embedding",
)
CONNECTIONS: tuple[str, ...] = ("associated", "different", "human", "none")
#: how far outside [0, 2] a cosine distance may fall by float rounding (float32 vectors)
DISTANCE_TOLERANCE = 1e-6


#: Columns that, with ``protected_word`` and ``word_to_compare``, identify a row of a
#: cosine table when the table has them (sentence tables: the templates; several
#: embeddings in one table: the embedding).
ROW_KEY_EXTRA: tuple[str, ...] = ("template", "compared_template", "embedding")
#: Rows named in full in a message about bad rows.
_SHOWN_ROWS = 5


def _row_list(table: pd.DataFrame, positions: np.ndarray, describe: Callable[[int], str]
              ) -> str:
    """Name the rows at ``positions``: ``row 3 (…), row 7 (…) and 4 more``."""
    shown = ", ".join(f"row {table.index[i]!r} ({describe(int(i))})"
                      for i in positions[:_SHOWN_ROWS])
    more = f" and {positions.size - _SHOWN_ROWS} more" if positions.size > _SHOWN_ROWS else ""
    return shown + more


def check_numbers(table: pd.DataFrame, columns: tuple[str, ...], *, what: str) -> None:
    """Refuse a column with an entry that is not a number (``'abc'`` read from a CSV).

    Parameters
    ----------
    table
        The table (a cosine table, or the raw frame read from a file).
    columns
        The columns that must hold numbers; a column the table lacks, or one already of a
        numeric dtype, passes.
    what
        What the table is, for the message.

    Raises
    ------
    ValueError
        An entry of one of ``columns`` that is not a number (NaN passes). The message names
        the column, the rows (index labels) and the values.

    Examples
    --------
    >>> import pandas as pd
    >>> check_numbers(pd.DataFrame({"cosine_distance": ["0.5", "abc"]}), ("cosine_distance",),
    ...               what="my.csv")
    Traceback (most recent call last):
    ...
    ValueError: my.csv: column 'cosine_distance' has 1 value(s) that are not numbers: row 1
    ('abc'); every cosine_distance must be a number (fix the file or drop those rows)
    """
    for column in columns:
        if column not in table.columns or pd.api.types.is_numeric_dtype(table[column]):
            continue
        values = table[column]
        numbers = pd.to_numeric(values, errors="coerce")
        bad = np.flatnonzero(numbers.isna().to_numpy() & values.notna().to_numpy())
        if bad.size:
            def value_at(i: int, column_values: pd.Series = values) -> str:
                return repr(column_values.iat[i])

            shown = _row_list(table, bad, value_at)
            raise ValueError(f"{what}: column {column!r} has {bad.size} value(s) that are not "
                             f"numbers: {shown}; every {column} must be a number (fix the "
                             "file or drop those rows)")


def validate_table(table: pd.DataFrame, *, what: str = "table") -> pd.DataFrame:
    """Check that ``table`` is a usable long-form cosine table; return it.

    A row is identified by its protected word and compared word, plus each of
    :data:`ROW_KEY_EXTRA` (``template``, ``compared_template``, ``embedding``) the table
    has: a second row with the same key would be fitted and averaged as if it were more
    data, so it is refused — except the exact duplicates :func:`load_published_table`
    kept on request (``attrs["duplicates_kept"]``), which reproduce the authors' tables.

    Raises
    ------
    ValueError
        Missing columns, values that are not numbers (names the column and the rows),
        non-finite distances, distances outside [0, 2] (beyond float rounding,
        :data:`DISTANCE_TOLERANCE`), a ``cosine_similarity`` that is not 1 − the distance
        (beyond the same tolerance), rows repeating another row's key (names them with
        their index), or unknown connection labels.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"protected_word": ["he", "she"],
    ...                       "word_to_compare": ["table", "table"],
    ...                       "connection": ["none", "none"], "cosine_distance": [0.4, 2.5]})
    >>> validate_table(table)
    Traceback (most recent call last):
    ...
    ValueError: table has 1 cosine distances outside [0, 2] (a cosine distance is 1 − cosine
    similarity): row 1 ('she', 'table'): 2.5
    """
    need = ("protected_word", "word_to_compare", "connection", "cosine_distance")
    check_columns(table, need, name=what, hint=f"a cosine table needs {list(need)}")
    if table.empty:
        raise ValueError(f"{what} has no rows")
    check_numbers(table, ("cosine_distance", "cosine_similarity"), what=what)
    dist = pd.to_numeric(table["cosine_distance"]).to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(dist))
    if bad.size:
        ex = table.iloc[bad[:3]][["protected_word", "word_to_compare"]].to_records(index=False)
        raise ValueError(f"{what} has {bad.size} NaN/infinite cosine distances (e.g. "
                         f"{[tuple(r) for r in ex]}); drop or fix those rows")
    # the paired differences of two tables (difference_table, attrs["differences"]) lie
    # in [−2, 2]; cosine distances in [0, 2]
    low = -2.0 if table.attrs.get("differences") else 0.0
    out = np.flatnonzero((dist < low - DISTANCE_TOLERANCE) | (dist > 2 + DISTANCE_TOLERANCE))
    if out.size and low < 0:
        raise ValueError(f"{what} has {out.size} paired differences of cosine distances "
                         f"outside [−2, 2], e.g. {float(dist[out[0]])!r}")

    def pair(i: int) -> str:
        return f"{table['protected_word'].iat[i]!r}, {table['word_to_compare'].iat[i]!r}"

    if out.size:
        shown = ", ".join(f"row {table.index[i]} ({pair(i)}): {float(dist[i])!r}"
                          for i in out[:5])
        more = f" and {out.size - 5} more" if out.size > 5 else ""
        raise ValueError(f"{what} has {out.size} cosine distances outside [0, 2] (a cosine "
                         f"distance is 1 − cosine similarity): {shown}{more}")
    if "cosine_similarity" in table.columns:
        sim = pd.to_numeric(table["cosine_similarity"]).to_numpy(dtype=float)
        gap = np.abs(dist - (1.0 - sim))
        off = np.flatnonzero(~(gap <= DISTANCE_TOLERANCE))  # NaN similarities too
        if off.size:
            shown = _row_list(table, off, lambda i: f"{pair(i)}: distance {float(dist[i])!r}, "
                                                    f"similarity {float(sim[i])!r}")
            raise ValueError(f"{what} has {off.size} row(s) whose cosine_distance is not 1 − "
                             f"cosine_similarity (beyond {DISTANCE_TOLERANCE:g}): {shown}; "
                             "the two columns must describe the same cosine — fix or drop "
                             "one of them")
    unknown = sorted(set(table["connection"].unique()) - set(CONNECTIONS))
    if unknown:
        raise ValueError(f"{what} has unknown connection labels {unknown}; allowed: "
                         f"{list(CONNECTIONS)}")
    _check_repeated_rows(table, what=what)
    return table


def _check_repeated_rows(table: pd.DataFrame, *, what: str) -> None:
    """Refuse rows that repeat another row's key (see :func:`validate_table`)."""
    key = ["protected_word", "word_to_compare",
           *(c for c in ROW_KEY_EXTRA if c in table.columns)]
    repeated = table.duplicated(key, keep="first").to_numpy()
    if not repeated.any():
        return
    kept = int(table.attrs.get("duplicates_kept", 0) or 0)
    if repeated.sum() <= kept and (repeated == table.duplicated(keep="first").to_numpy()).all():
        return  # the published table's exact duplicates, kept on request
    first = (pd.Series(np.arange(len(table)))
             .groupby([table[c].to_numpy() for c in key], sort=False, dropna=False)
             .transform("first").to_numpy())
    rows = np.flatnonzero(repeated)
    shown = _row_list(table, rows, lambda i: "repeats row "
                      f"{table.index[first[i]]!r}: "
                      + ", ".join(repr(table[c].iat[i]) for c in key))
    raise ValueError(f"{what} has {rows.size} row(s) repeating the {key} of another row: "
                     f"{shown}. Each pair must be one row — a repeated row would be fitted "
                     "and averaged as if it were more data; drop the repeats "
                     f"(table.drop_duplicates(subset={key})) or fix the table")
