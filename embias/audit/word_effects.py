"""Section 5 of the audit page: the compared words that move their rows most.

For every fit of the crossed level, the own offsets u[w] of every attribute word and of
the control words with the largest ones (``word_effect_tables``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .options import CiKind
from .render import Table, frame_table
from .sources import FitEntry
from .wording import with_interval_label


def word_effect_tables(
    entries: Sequence[FitEntry],
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
    top: int = 5,
) -> list[Table]:
    """Return, for every fit of the crossed level, the compared words that move their rows most.

    Every attribute word, and the ``top`` control words of each kind with the largest own
    offset |u[w]| (largest first within each kind).
    """
    tables = []
    for e in entries:
        table = e.fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        effects = table[table["estimand"] == "compared_word_effect"]
        if effects.empty:
            continue
        ranked = effects.assign(size=effects["estimate"].abs()).sort_values(
            "size", ascending=False, kind="stable")
        kinds = list(dict.fromkeys(["attribute", *ranked["word_kind"]]))
        ranked = pd.concat([part if kind == "attribute" else part.head(top)
                            for kind in kinds
                            for part in [ranked[ranked["word_kind"] == kind]]])
        tables.append(frame_table(
            with_interval_label(ranked), id=f"word-effects-{e.anchor}",
            columns={"group": "compared word", "word_kind": "kind", "estimate": "u[w]",
                     "lower": "lower", "upper": "upper", "interval": "interval"},
            caption=f"{e.label}, {e.level} model: own offsets u[w] of every attribute word "
                    f"and of the {top} control words of each kind with the largest ones (of "
                    f"{len(effects)} compared words) — how far each word moves all of its "
                    "rows (positive: farther from every protected word)"))
    return tables
