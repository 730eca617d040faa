"""The figures of the pre-averaging simulations.

Simulated WEAT distributions (:func:`plot_weat_simulations`) and one simulated data set
(:func:`plot_simulated_table`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..simulate import WeatSimulation

__all__ = ["plot_simulated_table", "plot_weat_simulations"]


def plot_weat_simulations(
    simulations: Sequence[WeatSimulation],
    *,
    bins: int = 80,
    show_bounds: bool = True,
    title: str | None = None,
    ax: Any = None,
) -> Figure:
    """Draw histograms (densities, one step line per simulation) of simulated WEAT values.

    Dashed grey lines mark ±threshold (1.81 by default); with ``show_bounds`` dotted lines
    in each simulation's colour mark its ceiling ±max |WEAT|.

    Parameters
    ----------
    simulations
        Results of :func:`embias.simulate_weat` / :func:`embias.simulate_weat_grid`.
    bins
        Histogram bins, over the common range.
    show_bounds
        Draw each design's ceiling of |WEAT|.
    title
        Axes title.
    ax
        Matplotlib axes; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Raises
    ------
    ValueError
        No simulations.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import embias
    >>> noise = embias.simulate_weat(n_protected_per_group=4, n_attributes=4, n_sims=200,
    ...                              random_seed=0)
    >>> figure = plot_weat_simulations([noise])
    >>> [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    ['n=4 m=4 sd=0.08 assoc=0 mean: 0.0% with |WEAT| ≥ 1.81']
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    sims = list(simulations)
    if not sims:
        raise ValueError("nothing to plot: no simulations given")
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 4))
    else:
        fig = ax.figure
    lo = min(float(s.scores.min()) for s in sims)
    hi = max(float(s.scores.max()) for s in sims)
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.linspace(lo - 1, hi + 1, bins + 1)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, s in enumerate(sims):
        color = colors[k % len(colors)]
        ax.hist(s.scores, bins=edges, density=True, histtype="step", lw=1.4, color=color,
                label=f"{s.label}: {s.share_above:.1%} with |WEAT| ≥ {s.threshold:g}")
        if show_bounds:
            for sign in (-1, 1):
                ax.axvline(sign * s.max_abs_weat, color=color, lw=0.8, ls=":")
    for t in sorted({s.threshold for s in sims}):
        for sign in (-1, 1):
            ax.axvline(sign * t, color="grey", lw=0.9, ls="--")
    ax.set_xlabel("WEAT effect size")
    ax.set_ylabel("density")
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig



def plot_simulated_table(table: pd.DataFrame, *, title: str | None = None,
                         ax: Any = None) -> Figure:
    """Draw the raw similarities of one simulated data set, per protected word and connection.

    Points are the similarities, bars the per-(word, connection) means the WEAT is built
    from.

    Parameters
    ----------
    table
        From :func:`embias.simulated_cosine_table` (its ``attrs["weat"]`` goes in the title).
    title
        Axes title (default: the data set's WEAT).
    ax
        Matplotlib axes; a new figure is made when omitted.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import embias
    >>> noise = embias.simulate_weat(n_protected_per_group=4, n_attributes=4, n_sims=200,
    ...                              random_seed=0)
    >>> table = embias.simulated_cosine_table(noise, sim_index=0)
    >>> figure = plot_simulated_table(table)
    >>> ax = figure.axes[0]
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['x1', 'x2', 'x3', 'x4', 'y1', 'y2', 'y3', 'y4']
    >>> ax.get_title() == f"one simulated data set: WEAT = {noise.scores[0]:.2f} (mean)"
    True
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 3.5))
    else:
        fig = ax.figure
    words = list(dict.fromkeys(table["protected_word"]))
    pos = {w: i for i, w in enumerate(words)}
    styles = {"associated": ("tab:red", -0.15), "different": ("tab:blue", 0.15)}
    for con, (color, shift) in styles.items():
        part = table[table["connection"] == con]
        x = part["protected_word"].map(pos).to_numpy(dtype=float) + shift
        ax.plot(x, part["cosine_similarity"], ".", color=color, alpha=0.45, ms=4, label=con)
        means = part.groupby("protected_word", sort=False)["cosine_similarity"].mean()
        mx = np.array([pos[w] for w in means.index], dtype=float) + shift
        ax.hlines(means.to_numpy(), mx - 0.12, mx + 0.12, color=color, lw=2.2)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xticks(range(len(words)))
    ax.set_xticklabels(words, fontsize=7)
    ax.set_ylabel("cosine similarity")
    weat = table.attrs.get("weat")
    if title is None and weat is not None:
        title = f"one simulated data set: WEAT = {weat:.2f} ({table.attrs.get('numerator')})"
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
