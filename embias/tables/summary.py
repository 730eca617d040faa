"""A cosine table summarised per connection: :func:`summarize_table`."""

from __future__ import annotations

import pandas as pd

from .schema import CONNECTIONS, validate_table


def summarize_table(table: pd.DataFrame) -> pd.DataFrame:
    """Summarize a cosine table per connection: rows, words and distance statistics.

    Parameters
    ----------
    table
        A cosine table.

    Returns
    -------
    pandas.DataFrame
        One row per connection (in the order of ``embias.tables.CONNECTIONS``):
        ``connection``, ``rows``,
        ``protected_words``, ``compared_words`` and the ``mean``, ``std``, ``min`` and
        ``max`` of the cosine distance.

    Raises
    ------
    ValueError
        ``table`` is not a valid cosine table (:func:`validate_table`).

    Examples
    --------
    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.tables import cosine_table
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "strong", "gentle", "table"], np.array(
    ...     [[1, 0], [0, 1], [1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32))
    >>> study = Study.from_dicts("toy", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["strong"], "f": ["gentle"]},
    ...                          neutral=["table"])
    >>> summarize_table(cosine_table(kv, study))
       connection  rows  protected_words  compared_words  mean       std  min  max
    0  associated     2                2               2   0.0  0.000000  0.0  0.0
    1   different     2                2               2   1.0  0.000000  1.0  1.0
    2        none     2                2               1   0.3  0.141421  0.2  0.4
    """
    validate_table(table)
    grouped = table.groupby("connection", sort=False)
    out = grouped["cosine_distance"].agg(["count", "mean", "std", "min", "max"])
    out.insert(1, "protected_words", grouped["protected_word"].nunique())
    out.insert(2, "compared_words", grouped["word_to_compare"].nunique())
    order = [c for c in CONNECTIONS if c in out.index]
    return out.loc[order].rename(columns={"count": "rows"}).reset_index()
