"""The figures of the downstream sentiment study (:mod:`embias.studies.sentiment`).

The positive-rate gaps of its interval table (:func:`plot_downstream`) and the sentence
scores by class (:func:`plot_sentence_scores`). They draw a
:class:`~embias.studies.DownstreamResult` and recompute nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_seed
from .forest import plot_forest

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..studies.sentiment import DownstreamResult

__all__ = ["plot_downstream", "plot_sentence_scores"]


def _check_result(result: Any) -> None:
    """Refuse anything but a :class:`~embias.studies.DownstreamResult` (ValueError).

    A result has the study, its interval table and its scored sentences.
    """
    if isinstance(result, pd.DataFrame) or not all(
            hasattr(result, name) for name in ("study", "table", "scores")):
        raise ValueError(f"result must be a DownstreamResult, got {type(result).__name__}")


def plot_downstream(
    result: DownstreamResult,
    *,
    title: str | None = None,
    ax: Any = None,
) -> Figure:
    """Draw a forest plot of a :func:`~embias.studies.downstream_fairness` table.

    One row per (estimand, contrast): the BBU demographic-parity interval and the Bayesian
    HDI of the same positive-rate gap, one colour per embedding, with a reference line at
    0. Kind and probability of the intervals come from the table.

    Parameters
    ----------
    result
        A :class:`~embias.studies.DownstreamResult`.
    title
        Figure title (default: the study and what is compared).
    ax
        Matplotlib axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        ``result`` is not a :class:`~embias.studies.DownstreamResult`.

    Examples
    --------
    A hand-made result of one embedding (the table of
    :func:`~embias.studies.downstream_fairness` has more columns):

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import embias
    >>> from embias.studies import DownstreamResult
    >>> rows = [{"estimand": "difference_vs_rest", "group": "muslim − rest", "estimate": -0.12,
    ...          "lower": -0.2, "upper": -0.04, "embedding": "glove"}]
    >>> table = embias.interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    >>> result = DownstreamResult(study="religion", table=table, rates=pd.DataFrame(),
    ...                           scores=pd.DataFrame(), classifiers={}, missing_identity={})
    >>> figure = plot_downstream(result)
    >>> ax = figure.axes[0]
    >>> ax.get_title()
    'religion: positive-rate gap of the sentiment classifier (89% HDI)'

    The row, its interval and its estimate, as given in the table:

    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['difference_vs_rest: muslim − rest']
    >>> ax.collections[0].get_segments()[0][:, 0].tolist(), ax.lines[0].get_xdata().tolist()
    ([-0.2, -0.04], [-0.12])
    >>> plt.close(figure)
    >>> plot_downstream(table)
    Traceback (most recent call last):
    ...
    ValueError: result must be a DownstreamResult, got DataFrame
    """
    _check_result(result)
    head = title if title is not None else (
        f"{result.study}: positive-rate gap of the sentiment classifier")
    return plot_forest(result.table, by="embedding", reference=0.0, title=head, ax=ax)


def plot_sentence_scores(
    result: DownstreamResult,
    *,
    random_seed: int = 0,
) -> Figure:
    """Draw a strip plot of the sentence scores by class, one panel per embedding.

    Each dot is a sentence's P(positive); the dashed line is the 0.5 decision threshold and
    the bar the class mean.

    Parameters
    ----------
    result
        A :class:`~embias.studies.DownstreamResult`.
    random_seed
        Seed of the horizontal jitter of the dots. Fixed (0) by default, unlike the
        functions that compute results: the jitter only draws a result that is already
        computed, so the same result always gives the same figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        ``result`` is not a :class:`~embias.studies.DownstreamResult`, or a bad seed.

    Examples
    --------
    Hand-made scores of two embeddings:

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> from embias.studies import DownstreamResult
    >>> scores = pd.DataFrame({"embedding": ["glove"] * 4 + ["reddit"] * 4,
    ...                        "class": ["jewish", "jewish", "muslim", "muslim"] * 2,
    ...                        "score": [0.7, 0.6, 0.4, 0.3, 0.6, 0.5, 0.5, 0.4]})
    >>> result = DownstreamResult(study="religion", table=pd.DataFrame(), rates=pd.DataFrame(),
    ...                           scores=scores, classifiers={}, missing_identity={})
    >>> figure = plot_sentence_scores(result)
    >>> [ax.get_title() for ax in figure.axes], figure.axes[0].get_ylabel()
    (['glove', 'reddit'], 'P(positive)')

    The class means of glove, drawn as bars: (0.7 + 0.6) / 2 and (0.4 + 0.3) / 2:

    >>> [float(bar.get_segments()[0][0, 1]) for bar in figure.axes[0].collections]
    [0.65, 0.35]
    >>> plt.close(figure)
    """
    import matplotlib.pyplot as plt

    _check_result(result)
    labels = list(dict.fromkeys(result.scores["embedding"]))
    fig, axes = plt.subplots(1, len(labels), figsize=(3.2 * len(labels) + 1, 3.4),
                             sharey=True, squeeze=False)
    rng = np.random.default_rng(check_seed(random_seed))
    for ax, label in zip(axes[0], labels, strict=True):
        part = result.scores[result.scores["embedding"] == label]
        classes = list(dict.fromkeys(part["class"]))
        for k, c in enumerate(classes):
            s = part.loc[part["class"] == c, "score"].to_numpy()
            ax.plot(k + rng.uniform(-0.2, 0.2, s.size), s, "o", ms=3, alpha=0.5)
            ax.hlines(s.mean(), k - 0.3, k + 0.3, color="black", lw=2)
        ax.axhline(0.5, color="grey", ls="--", lw=0.8)
        ax.set_xticks(range(len(classes)))
        ax.set_xticklabels(classes, rotation=20)
        ax.set_title(label, fontsize=10)
    axes[0][0].set_ylabel("P(positive)")
    fig.suptitle(f"{result.study}: sentence scores by class", fontsize=10)
    fig.tight_layout()
    return fig
