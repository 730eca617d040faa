"""The figure of a BBU coverage simulation (Ethayarajh 2020, Figure 1)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from embias._validation import check_columns

__all__ = ["plot_bbu_coverage"]


def plot_bbu_coverage(
    coverage: pd.DataFrame,
    *,
    x: Literal["n", "protected_share"] = "n",
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """Plot a :func:`~embias.classifier.bbu_coverage` result like Ethayarajh's Figure 1.

    Draws the mean estimate with the mean interval (estimate ± mean half-width) against
    ``x`` and the true disparity as a horizontal line; the coverage is written next to each
    point. Nothing is recomputed.

    Parameters
    ----------
    coverage
        A :func:`~embias.classifier.bbu_coverage` table.
    x
        The horizontal axis: ``"n"`` (sample size) or ``"protected_share"``.
    title
        Title, put before the interval kind.
    ax
        A matplotlib Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        A table without :func:`~embias.classifier.bbu_coverage`'s columns, or an unknown ``x``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from embias.classifier import bbu_coverage, genre_population
    >>> from embias.plots import plot_bbu_coverage
    >>> cost, group = genre_population("government", n_in=100, n_out=900)
    >>> table = bbu_coverage(cost, group, sample_sizes=(100, 400), n_sims=100,
    ...                      random_seed=0)
    >>> fig = plot_bbu_coverage(table, title="government")
    >>> fig.axes[0].get_title(), fig.axes[0].get_xlabel()
    ('government (89% bernstein)', 'sample size')
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    check_columns(coverage, ("n", "protected_share", "true_disparity", "coverage",
                             "mean_estimate", "mean_lower", "mean_upper", "ci_prob", "bound"),
                  name="coverage", hint="pass bbu_coverage()'s result")
    if x not in ("n", "protected_share"):
        raise ValueError(f"x must be 'n' or 'protected_share', got {x!r}")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 3.5))
    else:
        fig = ax.figure
    xs = coverage[x].to_numpy(dtype=float)
    pos = np.arange(len(xs))
    est = coverage["mean_estimate"].to_numpy()
    ax.errorbar(pos, est, yerr=[est - coverage["mean_lower"], coverage["mean_upper"] - est],
                fmt="o", color="tab:blue", capsize=3, label="estimate ± mean half-width")
    ax.axhline(float(coverage["true_disparity"].iloc[0]), color="tab:red", label="true")
    for p, e, cov in zip(pos, coverage["mean_upper"], coverage["coverage"], strict=True):
        ax.annotate(f"{cov:.0%}", (p, e), xytext=(0, 3), textcoords="offset points",
                    ha="center", fontsize=7)
    ax.set_xticks(pos)
    ax.set_xticklabels([f"{v:g}" for v in xs])
    ax.set_xlabel("sample size" if x == "n" else "protected share γ")
    ax.set_ylabel("groupwise disparity")
    kind = f"{float(coverage['ci_prob'].iloc[0]):.0%} {coverage['bound'].iloc[0]}"
    ax.set_title(f"{title} ({kind})" if title else kind, fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
