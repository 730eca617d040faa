"""The compared words' share of the residual variance of a cosine table."""

from __future__ import annotations

import pandas as pd

from ..tables import CONNECTIONS, validate_table


def word_effect_shares(table: pd.DataFrame) -> pd.Series:
    """Measure the share of the residual variance that is the compared words' own effect.

    Residuals are the cosine distances minus their (protected word, connection) cell mean;
    the share is the variance (ddof=1) of the compared words' mean residuals over the
    variance (ddof=1) of the residuals, within each connection. 0 when the compared words
    are exchangeable, near 1 when a word's distance to every protected word is mostly the
    word itself. On the religion table (GloVe 6B 50d): associated .88, different .67,
    human .50, none .65.

    Parameters
    ----------
    table
        Long-form cosine table.

    Returns
    -------
    pandas.Series
        The share per connection (in :data:`embias.tables.CONNECTIONS` order).

    Raises
    ------
    ValueError
        ``table`` is not a valid cosine table (:func:`embias.tables.validate_table`).

    Examples
    --------
    >>> import embias
    >>> table = embias.study_table("religion", "glove-6b-50d")
    >>> word_effect_shares(table).round(2).to_dict()
    {'associated': 0.88, 'different': 0.67, 'human': 0.5, 'none': 0.65}
    """
    validate_table(table)
    distance = table["cosine_distance"].astype(float)
    keys = [table["protected_word"].astype(str), table["connection"].astype(str)]
    residual = distance - distance.groupby(keys).transform("mean")
    frame = pd.DataFrame({"connection": table["connection"].astype(str).to_numpy(),
                          "word": table["word_to_compare"].astype(str).to_numpy(),
                          "residual": residual.to_numpy()})
    shares = {}
    for con, rows in frame.groupby("connection", sort=False):
        word_means = rows.groupby("word")["residual"].mean()
        shares[con] = float(word_means.var(ddof=1) / rows["residual"].var(ddof=1))
    order = [c for c in CONNECTIONS if c in shares]
    return pd.Series([shares[c] for c in order], index=pd.Index(order, name="connection"),
                     name="word_share")
