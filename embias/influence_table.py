"""Ranking the words of a word-influence table: which left-out word moves a result most.

:func:`rank_words` reads the table :func:`~embias.word_influence` returns (one row per
word and contrast: the change of the contrast when the word is left out) and nothing else,
so the figure of that table (:func:`~embias.plots.plot_word_influence`) and the command line
rank words the same way without the models.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import check_choice

__all__ = ["INFLUENCE_COLUMNS", "rank_words"]

#: The columns of :func:`~embias.word_influence`'s table that :func:`rank_words` reads.
INFLUENCE_COLUMNS: tuple[str, ...] = ("word", "word_role", "contrast", "change", "change_sd",
                                      "method", "pareto_k", "rows")


def rank_words(influence: pd.DataFrame, *, contrast: str | None = None) -> pd.DataFrame:
    """Return one row per word, the most influential first.

    A word's influence is the largest absolute change of a contrast when the word is
    left out.

    Parameters
    ----------
    influence
        The table of :func:`~embias.word_influence`.
    contrast
        Rank by this contrast only (default: the largest change over all contrasts).

    Returns
    -------
    pandas.DataFrame
        ``rank``, ``word``, ``word_role``, ``influence`` (|change|), ``contrast`` (the one
        changed most), ``change``, ``change_sd``, ``method``, ``pareto_k``, ``rows``.

    Raises
    ------
    ValueError
        ``influence`` lacks columns of :func:`word_influence`'s table, or an unknown
        ``contrast``.

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.influence_table import rank_words
    >>> influence = pd.DataFrame({
    ...     "word": ["jew", "jew", "greedy", "greedy"],
    ...     "word_role": ["protected", "protected", "attribute", "attribute"],
    ...     "contrast": ["associated - none", "associated - different"] * 2,
    ...     "change": [0.004, -0.011, 0.020, 0.003], "change_sd": [0.2, -0.5, 0.9, 0.1],
    ...     "method": ["psis"] * 4, "pareto_k": [0.3, 0.3, 0.8, 0.8], "rows": [321] * 2 + [15] * 2})
    >>> print(rank_words(influence)[["rank", "word", "influence", "contrast"]].to_string(
    ...     index=False))
     rank   word  influence               contrast
        1 greedy      0.020      associated - none
        2    jew      0.011 associated - different
    """
    absent = sorted(set(INFLUENCE_COLUMNS) - set(influence.columns))
    if absent:
        raise ValueError(f"rank_words() takes word_influence()'s table; it lacks {absent}")
    data = influence
    if contrast is not None:
        check_choice("contrast", contrast, list(dict.fromkeys(influence["contrast"])))
        data = influence[influence["contrast"] == contrast]
    data = data.assign(influence=data["change"].abs())
    top = data.loc[data.groupby(["word", "word_role"], sort=False)["influence"].idxmax()]
    top = top.sort_values("influence", ascending=False, kind="stable").reset_index(drop=True)
    top.insert(0, "rank", np.arange(1, len(top) + 1))
    return top[["rank", "word", "word_role", "influence", "contrast", "change", "change_sd",
                "method", "pareto_k", "rows"]]
