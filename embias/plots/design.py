"""The figure of a design analysis: probability and HDI width against list size.

:func:`plot_design_analysis` (also :meth:`DesignAnalysis.plot`) draws a
:class:`~embias.design.result.DesignAnalysis` or its summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validation import check_columns, check_probability

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..design import DesignAnalysis

__all__ = ["plot_design_analysis"]

#: What :func:`plot_design_analysis` reads of a :class:`~embias.DesignAnalysis` (the
#: result is in a layer above the figures, so it is recognised by these attributes).
_RESULT_ATTRIBUTES = ("results", "designs", "settings", "summary")


def plot_design_analysis(
    result: DesignAnalysis | pd.DataFrame,
    *,
    contrasts: Sequence[str] | None = None,
    target: float | None = 0.8,
    ax: Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Plot the probability of a credible difference and the HDI width against list size.

    Two panels: the probability of a credible difference per contrast, with ±2 Monte
    Carlo se bars (the ``target`` dashed), and the expected HDI width with ±2 se.

    The x axis is attribute words per class when the designs vary it, else protected
    words per class; when both vary, each protected size is a line style.

    Parameters
    ----------
    result
        A :class:`DesignAnalysis` or its :meth:`~DesignAnalysis.summary` (e.g. read back
        from a CSV).
    contrasts
        The contrasts drawn (default every one in the result).
    target
        A probability to draw as a dashed line (default 0.8; ``None`` for none).
    ax
        Two matplotlib Axes to draw on (default a new figure).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the two panels.

    Raises
    ------
    ValueError
        A result that is neither a :class:`DesignAnalysis` nor its summary (or a summary
        without the columns drawn), a contrast not in the result, a ``target`` outside
        (0, 1), or ``ax`` that is not two Axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> summary = pd.DataFrame({
    ...     "protected_words": 5.0, "attribute_words": [4.0, 8.0],
    ...     "contrast": "associated - none", "p_credible": [0.4, 0.7],
    ...     "p_se": [0.05, 0.05], "width_mean": [0.06, 0.04], "width_se": [0.002, 0.001]})
    >>> fig = plot_design_analysis(summary)
    >>> fig.axes[0].get_xlabel(), fig.axes[1].get_ylabel()
    ('attribute words per class', 'expected HDI width')
    >>> plt.close(fig)
    >>> plot_design_analysis(summary, contrasts=["associated - different"])
    Traceback (most recent call last):
    ...
    ValueError: contrast(s) ['associated - different'] are not in the result; it has
    ['associated - none']
    """
    import matplotlib.pyplot as plt

    summary = _summary_to_plot(result)
    present = list(dict.fromkeys(summary["contrast"]))
    if contrasts is None:
        contrasts = present
    elif isinstance(contrasts, str):
        contrasts = [contrasts]
    unknown = [c for c in contrasts if c not in present]
    if unknown:
        raise ValueError(f"contrast(s) {unknown} are not in the result; it has {present}")
    if target is not None:
        target = check_probability("target", target)
    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    else:
        axes = list(ax)
        if len(axes) != 2:
            raise ValueError(f"ax must be two matplotlib Axes, got {len(axes)}")
        fig = axes[0].figure
    x_name = ("attribute_words" if summary["attribute_words"].nunique() > 1
              or summary["protected_words"].nunique() == 1 else "protected_words")
    _draw_design_lines(axes, summary, contrasts, x_name)
    words = ("attribute words per class" if x_name == "attribute_words"
             else "protected words per class")
    for axis in axes:
        axis.set_xscale("log", base=2)
        ticks = sorted(set(summary[x_name]))
        axis.set_xticks(ticks, [f"{t:g}" for t in ticks])
        axis.minorticks_off()
        axis.set_xlabel(words)
    if target is not None:
        axes[0].axhline(target, color="0.3", linestyle="--", linewidth=1)
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("P(credible difference)\n(HDI outside the ROPE)")
    axes[1].set_ylabel("expected HDI width")
    axes[1].set_ylim(bottom=0)
    axes[0].legend(frameon=False, fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _summary_to_plot(result: DesignAnalysis | pd.DataFrame) -> pd.DataFrame:
    """Return the summary :func:`plot_design_analysis` draws (checked)."""
    if isinstance(result, pd.DataFrame):
        check_columns(result, ("protected_words", "attribute_words", "contrast", "p_credible",
                               "p_se", "width_mean", "width_se"),
                      name="summary", hint="pass a DesignAnalysis or its summary()")
        return result
    if all(hasattr(result, name) for name in _RESULT_ATTRIBUTES):
        return result.summary()
    raise ValueError(f"plot_design_analysis() takes a DesignAnalysis or its summary(), "
                     f"got {type(result).__name__}")


def _draw_design_lines(axes: Sequence[Axes], summary: pd.DataFrame, contrasts: Sequence[str],
                       x_name: str) -> None:
    """Draw one line per contrast (colour) and size of the other role (line style).

    On the first panel the probability with ±2 se bars kept inside [0, 1], on the second
    the expected width with ±2 se.
    """
    import matplotlib.pyplot as plt

    other = "protected_words" if x_name == "attribute_words" else "attribute_words"
    styles = ["-", "--", ":", "-."]
    others = sorted(set(summary[other]))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ci, contrast in enumerate(contrasts):
        for si, value in enumerate(others):
            sub = summary[(summary["contrast"] == contrast) & (summary[other] == value)]
            sub = sub.sort_values(x_name)
            label = (contrast if len(others) == 1
                     else f"{contrast}, {other.split('_')[0]} {value:g}")
            p = sub["p_credible"].to_numpy(float)
            p_bar = 2 * sub["p_se"].fillna(0).to_numpy(float)
            panels = ((axes[0], p, [np.minimum(p_bar, p), np.minimum(p_bar, 1 - p)]),
                      (axes[1], sub["width_mean"].to_numpy(float),
                       2 * sub["width_se"].fillna(0).to_numpy(float)))
            for axis, y, yerr in panels:
                axis.errorbar(sub[x_name], y, yerr=yerr, fmt="o",
                              linestyle=styles[si % len(styles)], capsize=3,
                              color=colours[ci % len(colours)], label=label)
