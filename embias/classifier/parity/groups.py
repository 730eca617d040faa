"""Rate differences between several groups: every pair, and each group against the rest.

:func:`parity_comparisons` checks the groups' counts and reports the HDI (and optionally
the decisions against a ROPE) of every comparison as one interval table.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Literal

import pandas as pd

from embias._validation import check_probability
from embias.classifier.parity._checks import check_counts
from embias.classifier.parity.posterior import ParityPosterior, parity_posterior
from embias.report import interval_table
from embias.settings import DEFAULT_CI_PROB


def parity_comparisons(
    successes: Sequence[int],
    totals: Sequence[int],
    *,
    labels: Sequence[str] | None = None,
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float | None = None,
    prior: tuple[float, float] = (1, 1),
    comparisons: Sequence[Literal["pairwise", "rest"]] = ("pairwise", "rest"),
) -> pd.DataFrame:
    """Rate differences between several groups as an interval table of HDIs.

    Parameters
    ----------
    successes, totals
        Positive outcomes and sizes per group.
    labels
        Group names (default ``"group 1"``, ``"group 2"``, …).
    ci_prob
        HDI probability.
    rope
        Optional fairness threshold T (ROPE = [−T, T]): adds ``rope``, ``prob_outside``
        (P(|d| > T)), ``hdi_rope`` and ``simple`` decisions (see
        :meth:`ParityPosterior.decide`).
    prior
        Beta prior for every rate.
    comparisons
        ``"pairwise"``: e_j − e_i for every pair i < j (estimand ``pairwise_difference``);
        ``"rest"``: each group against all the others pooled (estimand
        ``difference_vs_rest``, e_group − e_rest).

    Returns
    -------
    pandas.DataFrame
        Interval table (``ci_kind="hdi"``); no multiplicity adjustment (each row is its
        own posterior statement).

    Raises
    ------
    ValueError
        Lists of different lengths, fewer than two groups, labels that are not distinct
        or do not match the groups, bad counts, an unknown comparison, or a bad
        ``ci_prob``, ``rope`` or ``prior``.

    Examples
    --------
    Three groups of 100 with 20, 30 and 25 positive outcomes: the pairwise posterior mean
    differences are (31 − 21)/102, (26 − 21)/102 and (26 − 31)/102, and group "a" against
    the other two pooled (55 of 200) is 21/102 − 56/202 ≈ −0.071:

    >>> from embias.classifier import parity_comparisons
    >>> table = parity_comparisons([20, 30, 25], [100, 100, 100], labels=["a", "b", "c"])
    >>> table[["estimand", "group", "estimate"]].round(3)
                  estimand     group  estimate
    0  pairwise_difference     b − a     0.098
    1  pairwise_difference     c − a     0.049
    2  pairwise_difference     c − b    -0.049
    3   difference_vs_rest  a − rest    -0.071
    4   difference_vs_rest  b − rest     0.076
    5   difference_vs_rest  c − rest     0.002
    """
    names, checked = _checked_groups(successes, totals, labels)
    unknown = sorted(set(comparisons) - {"pairwise", "rest"})
    if unknown or not comparisons:
        raise ValueError(f"comparisons must be a non-empty subset of ['pairwise', 'rest'], "
                         f"got {list(comparisons)!r}")
    p = check_probability("ci_prob", ci_prob)
    rows = []
    for estimand, post in _posteriors(checked, names, comparisons, prior):
        row = post.hdi(p).iloc[0].to_dict()
        row = {k: v for k, v in row.items() if k not in ("ci_prob", "ci_kind")}
        row["estimand"] = estimand
        if rope is not None:
            dec = post.decide(rope, p)
            row.update(rope=dec.rope, prob_outside=dec.prob_outside,
                       hdi_rope=dec.hdi_rope, simple=dec.simple)
        rows.append(row)
    return interval_table(rows, ci_prob=p, ci_kind="hdi")


def _checked_groups(successes: Sequence[int], totals: Sequence[int],
                    labels: Sequence[str] | None) -> tuple[list[str], list[tuple[int, int]]]:
    """Return the groups' names and checked (successes, total) counts.

    ValueError for lists of different lengths, fewer than two groups, labels that do not
    match the groups or repeat, or bad counts.
    """
    xs = list(successes)
    ns = list(totals)
    if len(xs) != len(ns):
        raise ValueError(f"successes has {len(xs)} entries but totals has {len(ns)}")
    if len(xs) < 2:
        raise ValueError(f"need at least two groups, got {len(xs)}")
    names = [f"group {i + 1}" for i in range(len(xs))] if labels is None else \
        [str(v) for v in labels]
    if len(names) != len(xs):
        raise ValueError(f"labels has {len(names)} entries but there are {len(xs)} groups")
    if len(set(names)) != len(names):
        raise ValueError(f"labels must be distinct, got {names}")
    checked = [check_counts(x, n, f" ({name})") for x, n, name in zip(xs, ns, names,
                                                                      strict=True)]
    return names, checked


def _posteriors(checked: Sequence[tuple[int, int]], names: Sequence[str],
                comparisons: Sequence[str], prior: tuple[float, float]
                ) -> list[tuple[str, ParityPosterior]]:
    """Return (estimand, posterior) of every pair of groups and of each group vs the rest.

    Pairs come first when ``comparisons`` has ``"pairwise"`` (e_j − e_i, i < j), then
    each group against the others pooled when it has ``"rest"``.
    """
    pairs: list[tuple[str, ParityPosterior]] = []
    if "pairwise" in comparisons:
        for i, j in combinations(range(len(checked)), 2):
            (xi, ni), (xj, nj) = checked[i], checked[j]
            pairs.append(("pairwise_difference",
                          parity_posterior(xi, ni, xj, nj, prior=prior,
                                           labels=(names[i], names[j]))))
    if "rest" in comparisons:
        tot_x = sum(x for x, _ in checked)
        tot_n = sum(n for _, n in checked)
        for i, (xi, ni) in enumerate(checked):
            pairs.append(("difference_vs_rest",
                          parity_posterior(tot_x - xi, tot_n - ni, xi, ni, prior=prior,
                                           labels=("rest", names[i]))))
    return pairs
