"""Paired tests of equal scores across groups on templated data.

:func:`~embias.classifier.template_significance`: Wilcoxon for two groups, Friedman for
more, after Czarnowska et al. (2021, §6.1) and Kiritchenko & Mohammad (2018).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from embias.classifier.metric_data import sorted_unique

__all__ = ["SignificanceResult", "template_significance"]


@dataclass(frozen=True)
class SignificanceResult:
    """A paired test of equal scores across groups over templates.

    Attributes
    ----------
    test
        ``"wilcoxon"`` (two groups) or ``"friedman"`` (more).
    statistic, p_value
        scipy's statistic and p-value.
    n_sources
        Number of templates.
    groups
        The groups compared, in order.
    scores
        The per-template mean score of each group (rows: sources).
    """

    test: Literal["wilcoxon", "friedman"]
    statistic: float
    p_value: float
    n_sources: int
    groups: tuple[Any, ...]
    scores: pd.DataFrame


def template_significance(
    values: Any,
    group: Any,
    source: Any,
    *,
    groups: Sequence[Any] | None = None,
) -> SignificanceResult:
    """Test whether a score differs between groups on templated data.

    As in Czarnowska et al. (2021, §6.1, after Kiritchenko & Mohammad 2018): the values
    (e.g. the probability of the positive class) are averaged over the identity terms of
    each group within each template; the template × group table is then tested with the
    Wilcoxon signed-rank test for two groups or the Friedman test for more.

    Parameters
    ----------
    values
        The score of each example (e.g. the probability of the positive class).
    group
        The group of each example.
    source
        The template of each example.
    groups
        The groups compared, in order (default: the sorted labels).

    Returns
    -------
    SignificanceResult

    Raises
    ------
    ValueError
        Fewer than two groups or sources, a template without some group, or all paired
        differences zero (the Wilcoxon test is undefined).

    Examples
    --------
    Group "a" scores higher than group "b" in each of five templates, by distinct
    amounts: all five signed ranks are positive, so W = 0 and the exact two-sided p-value
    is 2/2⁵ = 0.0625:

    >>> from embias.classifier import template_significance
    >>> values = [0.9, 0.5, 0.8, 0.5, 0.7, 0.5, 0.6, 0.5, 0.55, 0.5]
    >>> result = template_significance(values, ["a", "b"] * 5,
    ...                                [f"t{i // 2}" for i in range(10)])
    >>> result.test, result.statistic, result.p_value, result.n_sources
    ('wilcoxon', 0.0, 0.0625, 5)
    """
    v = np.asarray(values, dtype=float)
    g = np.asarray(group, dtype=object)
    s = np.asarray(source, dtype=object)
    if not (v.ndim == g.ndim == s.ndim == 1 and v.size == g.size == s.size):
        raise ValueError(f"values, group and source must be one-dimensional and of equal "
                         f"length, got {v.shape}, {g.shape}, {s.shape}")
    if np.isnan(v).any():
        raise ValueError("values contain NaN")
    grp = tuple(sorted_unique(g)) if groups is None else tuple(groups)
    if len(grp) < 2:
        raise ValueError(f"need at least two groups, got {list(grp)}")
    frame = pd.DataFrame({"value": v, "group": g, "source": s})
    frame = frame[frame["group"].isin(grp)]
    table = frame.pivot_table(index="source", columns="group", values="value",
                              aggfunc="mean", observed=True)
    missing_groups = [x for x in grp if x not in table.columns]
    if missing_groups:
        raise ValueError(f"groups {missing_groups} have no examples")
    table = table[list(grp)]
    holes = table.isna()
    if holes.to_numpy().any():
        src, grp_missing = next((i, c) for i in table.index for c in table.columns
                                if holes.loc[i, c])
        raise ValueError(f"source {src!r} has no example of group {grp_missing!r}; every "
                         "template needs every group")
    if table.shape[0] < 2:
        raise ValueError(f"need at least two sources (templates), got {table.shape[0]}")
    if len(grp) == 2:
        diffs = table.iloc[:, 0] - table.iloc[:, 1]
        if np.all(diffs == 0):
            raise ValueError("all paired differences are 0: the Wilcoxon test is undefined")
        res = stats.wilcoxon(table.iloc[:, 0], table.iloc[:, 1])
        test = "wilcoxon"
    else:
        res = stats.friedmanchisquare(*(table[c].to_numpy() for c in grp))
        test = "friedman"
    stat, p = float(res.statistic), float(res.pvalue)
    if not (math.isfinite(stat) and math.isfinite(p)):
        raise ValueError(f"the {test} test is undefined on these data (statistic={stat}, "
                         f"p={p}); are all scores tied?")
    return SignificanceResult(test, stat, p, table.shape[0], grp,  # type: ignore[arg-type]
                              table.reset_index())
