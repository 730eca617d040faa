"""Tables: the check that a table has the columns a function reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def check_columns(frame: Any, columns: Iterable[str], *, name: str,
                  hint: str | None = None) -> None:
    """Refuse a table without the columns a function reads.

    Parameters
    ----------
    frame
        A pandas DataFrame.
    columns
        The columns read, in the order the message lists them.
    name
        What the table is called in the message (``"markers"``, ``"a cosine table"``).
    hint
        What to do instead (default: ``"it needs [...]"``).

    Raises
    ------
    ValueError
        ``"<name> lacks columns [...]; <hint> (it has [...])"``.

    Examples
    --------
    >>> import pandas as pd
    >>> check_columns(pd.DataFrame({"a": [1]}), ["a", "b"], name="markers")
    Traceback (most recent call last):
    ...
    ValueError: markers lacks columns ['b']; it needs ['a', 'b'] (it has ['a'])
    """
    needed = list(columns)
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(f"{name} lacks columns {absent}; {hint or f'it needs {needed}'} "
                         f"(it has {list(frame.columns)})")
