"""The figure of SEAT's template sensitivity (:func:`plot_template_sensitivity`).

SEAT next to the crossed model's contrasts on the same template subsets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validation import check_columns

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_template_sensitivity"]


def plot_template_sensitivity(
    seat: pd.DataFrame,
    model: pd.DataFrame,
    *,
    rope: float | None = None,
    title: str | None = None,
) -> Figure:
    """Draw how far SEAT moves with its templates, next to the crossed model's contrasts.

    Both are computed on the same template subsets.

    Parameters
    ----------
    seat
        One row per SEAT effect size: ``k`` (templates per kind of protected word, or
        ``"all"``), ``pair`` (e.g. ``"christian vs jewish"``) and ``d``.
    model
        One row per contrast of a crossed-model fit: ``k``, ``contrast``, ``estimate``,
        ``lower``, ``upper``.
    rope
        Half-width of the ROPE shaded around 0 on the model's panel (default
        :data:`embias.settings.DEFAULT_ROPE`).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        Left: SEAT's effect size of every subset per k (jittered per pair); right: the
        model's contrasts with their intervals; the all-template values at the right end
        of each panel.

    Raises
    ------
    ValueError
        ``seat`` or ``model`` without its columns (the message names them).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> seat = pd.DataFrame({"k": [1, 1, 2, "all"], "pair": "christian vs jewish",
    ...                      "d": [0.9, -0.4, 0.5, 0.3]})
    >>> model = pd.DataFrame({"k": [1, 2, "all"], "contrast": "associated - none",
    ...                       "estimate": [-0.03, -0.02, -0.02], "lower": [-0.07, -0.05, -0.04],
    ...                       "upper": [0.01, 0.01, 0.0]})
    >>> figure = plot_template_sensitivity(seat, model)
    >>> left, right = figure.axes
    >>> [t.get_text() for t in left.get_xticklabels()], right.get_title()
    (['1', '2', 'all'], 'crossed model on the same subsets')
    >>> plt.close(figure)
    >>> plot_template_sensitivity(seat.drop(columns="d"), model)
    Traceback (most recent call last):
    ...
    ValueError: seat lacks columns ['d']; it needs ['k', 'pair', 'd'] (it has ['k', 'pair'])
    """
    import matplotlib.pyplot as plt

    from ..settings import DEFAULT_ROPE

    for name, frame, columns in (("seat", seat, ("k", "pair", "d")),
                                 ("model", model, ("k", "contrast", "estimate", "lower",
                                                   "upper"))):
        check_columns(frame, columns, name=name)
    rope = DEFAULT_ROPE if rope is None else rope
    numeric = sorted({int(k) for k in [*seat["k"], *model["k"]] if str(k) != "all"})
    labels = [*map(str, numeric), "all"]
    position = {label: i for i, label in enumerate(labels)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    pairs = list(dict.fromkeys(seat["pair"]))
    for j, pair in enumerate(pairs):
        part = seat[seat["pair"] == pair]
        x = np.array([position[str(k)] for k in part["k"]]) + (j - (len(pairs) - 1) / 2) * 0.15
        left.scatter(x, part["d"], s=12, alpha=0.7, color=f"C{j}", label=pair)
    left.axhline(0, color="grey", lw=0.6)
    left.set_xticks(range(len(labels)), labels)
    left.set_xlabel("templates per kind of protected word (k)")
    left.set_ylabel("SEAT effect size d")
    left.set_title("SEAT: one value per random template subset")
    left.legend(fontsize=8)
    right.axhspan(-rope, rope, color="grey", alpha=0.15, label=f"ROPE ±{rope:g}")
    contrasts = list(dict.fromkeys(model["contrast"]))
    for j, contrast in enumerate(contrasts):
        part = model[model["contrast"] == contrast]
        base = np.array([position[str(k)] for k in part["k"]], dtype=float)
        x = base + (j - (len(contrasts) - 1) / 2) * 0.35
        # several subsets of one k side by side
        for label in dict.fromkeys(part["k"].astype(str)):
            same = np.flatnonzero(part["k"].astype(str).to_numpy() == label)
            if len(same) > 1:
                x[same] += np.linspace(-0.1, 0.1, len(same))
        est = part["estimate"].to_numpy(dtype=float)
        yerr = [est - part["lower"].to_numpy(dtype=float),
                part["upper"].to_numpy(dtype=float) - est]
        right.errorbar(x, est, yerr=yerr, fmt="o", ms=3, capsize=2, lw=0.8, color=f"C{j}",
                       label=contrast)
    right.set_xticks(range(len(labels)), labels)
    right.set_xlabel("templates per kind of protected word (k)")
    right.set_ylabel("contrast (cosine distance), interval")
    right.set_title("crossed model on the same subsets")
    right.legend(fontsize=8, loc="lower left")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
