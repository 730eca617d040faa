"""Section 6 of the audit page: across embeddings.

The paired change table against the reference embedding, its decisions in words and the
comparison figure (``across_section``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .render import frame_table, picture
from .wording import change_sentence, decision_class, with_interval_label


def across_section(comparison: Any, *, labels: Sequence[str], fmt: str) -> dict[str, Any]:
    """Return the comparison across embeddings.

    The paired change table, its decisions in words and the comparison figure (or why there
    is none).
    """
    if comparison is None:
        return {"computed": False, "several": len(labels) > 1}
    from ..plots import plot_comparison

    table = comparison.table
    keep = ["change_connection_mean", "change_contrast", "mac_change", "weat_change"]
    changes = with_interval_label(table[table["estimand"].isin(keep)])
    columns = {"estimand": "estimand", "group": "group", "embedding": "embedding",
               "reference": "reference", "estimate": "estimate", "lower": "lower",
               "upper": "upper", "interval": "interval", "prob_gt_0": "P(> 0)",
               "rope_decision": "decision", "p_value": "p-value (classic)"}
    change_table = frame_table(changes, columns=columns, id="changes",
                               caption="Changes against the reference embedding: the paired "
                                       "model (change_*) and the classic scores",
                               cell_class=decision_class)
    bayes = changes[changes["estimand"].isin(keep[:2])]
    sentences = [change_sentence(r) for _, r in bayes.iterrows()]
    embeddings = [e for e in dict.fromkeys(table["embedding"]) if e]
    figure = picture(plot_comparison(table, title=" vs ".join(embeddings)),
                     alt="Forest plot comparing the embeddings: connection means, contrasts "
                         "and the paired changes, and word coefficients side by side",
                     caption="Every embedding side by side, and the paired change model "
                             "against the reference (shaded: ROPE)", fmt=fmt)
    diagnostics = (frame_table(comparison.diagnostics, id="comparison-diagnostics",
                               digits={"max_r_hat": 3, "min_ess_bulk": 0, "min_ess_tail": 0},
                               caption="Convergence of the comparison's fits")
                   if comparison.diagnostics is not None else None)
    return {"computed": True, "table": change_table, "sentences": sentences,
            "figure": figure, "diagnostics": diagnostics, "where": comparison.where,
            "unmatched": comparison.unmatched}
