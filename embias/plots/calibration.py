"""The figure of a calibration: coverage per quantity against the nominal line."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validation import check_columns

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..calibration import PopulationCalibration

__all__ = ["plot_calibration"]

#: What :func:`plot_calibration` reads of a :class:`~embias.PopulationCalibration` (the
#: result is in a layer above the figures, so it is recognised by these attributes).
_RESULT_ATTRIBUTES = ("results", "populations", "design", "settings", "summary")


def plot_calibration(
    result: PopulationCalibration | pd.DataFrame,
    *,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Plot the coverage of the population answers per quantity, one marker per level.

    With ±2 Monte Carlo standard errors and the nominal coverage dashed.

    Parameters
    ----------
    result
        A :class:`PopulationCalibration`, or its :meth:`~PopulationCalibration.summary`
        (e.g. read back from a CSV).
    ax
        Axes to draw on (default a new figure).
    title
        Figure title (default: the populations, design and number of studies, for a
        result).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Raises
    ------
    ValueError
        A result that is neither a :class:`PopulationCalibration` nor a summary with the
        columns drawn.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> summary = pd.DataFrame({"level": ["hierarchical", "crossed"],
    ...                         "quantity": "associated - none", "coverage": [0.6, 0.88],
    ...                         "mc_se": [0.035, 0.023], "ci_prob": 0.89})
    >>> fig = plot_calibration(summary)
    >>> [text.get_text() for text in fig.axes[0].get_legend().get_texts()]
    ['hierarchical', 'crossed']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    if isinstance(result, pd.DataFrame):
        check_columns(result, ("level", "quantity", "coverage", "mc_se", "ci_prob"),
                      name="summary", hint="pass a PopulationCalibration or its summary()")
        summary = result
    elif all(hasattr(result, name) for name in _RESULT_ATTRIBUTES):
        summary = result.summary()
        if title is None:
            title = (f"{result.populations.name}: {result.settings['n_studies']} studies of "
                     f"{result.design.as_text()}")
    else:
        raise ValueError(f"plot_calibration() takes a PopulationCalibration or its summary(), "
                         f"got {type(result).__name__}")
    nominal = sorted(set(summary["ci_prob"].astype(float)))
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * summary["quantity"].nunique() + 2), 3.8))
    else:
        figure = ax.get_figure(root=True)
        if figure is None:
            raise ValueError("ax must be the Axes of a matplotlib figure, got Axes without one")
        fig = figure
    quantities = list(dict.fromkeys(summary["quantity"]))
    levels = list(dict.fromkeys(summary["level"]))
    step = 0.6 / max(len(levels), 1)
    for j, level in enumerate(levels):
        sub = summary[summary["level"] == level].set_index("quantity").reindex(quantities)
        x = np.arange(len(quantities)) + (j - (len(levels) - 1) / 2) * step
        ax.errorbar(x, sub["coverage"].to_numpy(float), yerr=2 * sub["mc_se"].to_numpy(float),
                    fmt="o", capsize=3, label=level)
    for p in nominal:
        ax.axhline(p, color="0.3", linestyle="--", linewidth=1)
    ax.set_xticks(np.arange(len(quantities)), quantities, rotation=20, ha="right")
    low = float(np.nanmin(summary["coverage"] - 2 * summary["mc_se"])) if len(summary) else 0
    ax.set_ylim(max(0.0, min(low, min(nominal, default=1.0)) - 0.05), 1.01)
    ax.set_ylabel("intervals covering the\npopulation answer")
    ax.legend(title="level", frameon=False, fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig
