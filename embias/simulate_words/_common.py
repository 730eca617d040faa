"""The indices of a design table that the calibration and the table drawing share."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..bayes.crossed import WORD_KIND_OF_CONNECTION, WORD_KINDS
from ..tables import validate_table


def design_indices(table: pd.DataFrame) -> dict[str, Any]:
    """Index a design table: its cells, compared words and their kinds (checked)."""
    validate_table(table)
    protected = table["protected_word"].astype(str)
    connection = table["connection"].astype(str)
    cell_codes, cells = pd.factorize(pd.MultiIndex.from_arrays([protected, connection]))
    word_codes, words = pd.factorize(table["word_to_compare"].astype(str))
    kind_codes = pd.Index(WORD_KINDS).get_indexer(connection.map(WORD_KIND_OF_CONNECTION))
    lowest = np.full(len(words), len(WORD_KINDS))
    highest = np.full(len(words), -1)
    np.minimum.at(lowest, word_codes, kind_codes)
    np.maximum.at(highest, word_codes, kind_codes)
    mixed_words = np.flatnonzero(lowest != highest)
    if mixed_words.size:
        mixed = [(str(words[w]), sorted({WORD_KINDS[k] for k in kind_codes[word_codes == w]}))
                 for w in mixed_words[:3]]
        raise ValueError(f"compared word(s) in rows of two kinds, e.g. {mixed}; a word is "
                         "an attribute, a neutral or a human word")
    counts = np.bincount(word_codes, minlength=len(words))
    if (counts < 2).any():
        single = [str(w) for w in np.asarray(words)[counts < 2]][:5]
        raise ValueError(f"compared word(s) {single} have a single row; a word's own effect "
                         "needs rows with at least 2 protected words")
    return {"cell_codes": cell_codes, "cells": cells, "word_codes": word_codes,
            "words": np.asarray(words, dtype=str),
            "word_kind": np.array(WORD_KINDS, dtype=object)[lowest],
            "connection": connection.to_numpy()}
