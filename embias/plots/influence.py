"""The figure of a word-influence table: which left-out word moves each contrast most."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_int
from ..influence_table import rank_words
from ..settings import K_THRESHOLD

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_word_influence"]


def plot_word_influence(
    influence: pd.DataFrame,
    *,
    contrast: str | None = None,
    top: int | None = 25,
    rope: float | None = None,
    title: str | None = None,
    ax: Any = None,
) -> Figure:
    """Plot :func:`~embias.word_influence` as a ranked dot plot, the most influential word on top.

    One row per word, the change of each contrast when the word is left out; filled dots
    for PSIS, open dots for PSIS with Pareto k above the table's threshold (unreliable),
    open squares for refits.

    Parameters
    ----------
    influence
        The table of :func:`~embias.word_influence` (nothing is recomputed here).
    contrast
        Show and rank by this contrast only (default: every contrast, ranked by the
        largest change).
    top
        Show the ``top`` most influential words (``None``: all).
    rope
        Shade ±``rope`` (e.g. 0.02, the default ROPE of the contrasts) as a scale.
    title
        Axes title (default: study, embedding and level from the table's ``attrs``).
    ax
        Matplotlib axes to draw on (a new figure when omitted).

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the axes drawn on.

    Raises
    ------
    ValueError
        What :func:`~embias.rank_words` refuses, a ``top`` below 1, or a table without rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.plots import plot_word_influence
    >>> influence = pd.DataFrame({
    ...     "word": ["jew", "greedy"], "word_role": ["protected", "attribute"],
    ...     "contrast": ["associated - none"] * 2, "change": [0.004, 0.020],
    ...     "change_sd": [0.2, 0.9], "method": ["psis", "refit"], "pareto_k": [0.3, 0.8],
    ...     "rows": [321, 15]})
    >>> fig = plot_word_influence(influence, rope=0.02)
    >>> [label.get_text() for label in fig.axes[0].get_yticklabels()]
    ['greedy (attribute)', 'jew (protected)']
    """
    import matplotlib.pyplot as plt

    ranking = rank_words(influence, contrast=contrast)
    if top is not None:
        ranking = ranking.head(check_int("top", top, minimum=1))
    if ranking.empty:
        raise ValueError("nothing to plot: the influence table has no rows")
    data = influence if contrast is None else influence[influence["contrast"] == contrast]
    contrasts = list(dict.fromkeys(data["contrast"]))
    keys = list(zip(ranking["word"], ranking["word_role"], strict=True))
    ypos = {key: len(keys) - 1 - i for i, key in enumerate(keys)}
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(7.5, min(max(1.2 + 0.3 * len(keys), 2.5), 30)))
    else:
        fig = ax.figure
    if rope is not None:
        ax.axvspan(-rope, rope, color="grey", alpha=0.15, lw=0)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    threshold = float(influence.attrs.get("k_threshold", K_THRESHOLD))
    step = 0.6 / max(len(contrasts), 1)
    for k, name in enumerate(contrasts):
        part = data[data["contrast"] == name]
        part = part[[key in ypos for key in zip(part["word"], part["word_role"], strict=True)]]
        y = np.array([ypos[key] for key in zip(part["word"], part["word_role"], strict=True)])
        _draw_changes(ax, part, y + (k - (len(contrasts) - 1) / 2) * step,
                      colors[k % len(colors)], threshold)
    _label_influence_axes(ax, influence, ypos, contrasts, colors, threshold, title)
    if own:
        fig.tight_layout()
    return fig


def _draw_changes(ax: Any, part: pd.DataFrame, y: np.ndarray, color: str,
                  threshold: float) -> None:
    """Draw one contrast's changes: dots for PSIS (open when k > threshold), squares else."""
    refit = (part["method"] == "refit").to_numpy()
    shaky = ~refit & (part["pareto_k"] > threshold).to_numpy()
    good = ~refit & ~shaky
    change = part["change"].to_numpy()
    ax.plot(change[good], y[good], "o", color=color, ms=5)
    ax.plot(change[shaky], y[shaky], "o", mfc="none", mec=color, ms=5)
    ax.plot(change[refit], y[refit], "s", mfc="none", mec=color, ms=6)


def _label_influence_axes(ax: Any, influence: pd.DataFrame, ypos: dict[Any, int],
                          contrasts: list[str], colors: list[str], threshold: float,
                          title: str | None) -> None:
    """Label the words, the axis and the title, and add the legend of the markers."""
    from matplotlib.lines import Line2D

    ax.axvline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(list(ypos.values()))
    ax.set_yticklabels([f"{w} ({r})" for w, r in ypos])
    ax.set_ylim(-0.6, len(ypos) - 0.4)
    ax.set_xlabel("change of the contrast when the word is left out (cosine distance)",
                  fontsize=9)
    if title is None:
        attrs = influence.attrs
        title = " / ".join(str(v) for v in (attrs.get("study"), attrs.get("embedding"),
                                            attrs.get("level")) if v) or "word influence"
    ax.set_title(title, fontsize=10)
    handles = [Line2D([], [], marker="o", ls="", color=colors[k % len(colors)], label=name)
               for k, name in enumerate(contrasts)]
    handles += [Line2D([], [], marker="o", ls="", color="black", label="PSIS (no refit)"),
                Line2D([], [], marker="o", ls="", mfc="none", mec="black",
                       label=f"PSIS, Pareto k > {threshold:g} (unreliable)"),
                Line2D([], [], marker="s", ls="", mfc="none", mec="black", label="refit")]
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0)
    ax.grid(axis="x", alpha=0.3)
