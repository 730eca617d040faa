"""The terms of a generalized fairness metric, computed on one set of examples.

``evaluate`` computes, per evaluated class, the groups' scores ϕ and the metric's
per-group, per-pair and aggregate terms of a PCM, BCM, VBCM or MCM on the rows given;
``average`` averages them over the sources of a counterfactual metric.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Literal

import numpy as np

from embias.classifier.metric_data import MetricData
from embias.classifier.metric_terms import Comparison, Score, UndefinedScore

#: The four kinds of generalized metric.
MetricKind = Literal["pcm", "bcm", "vbcm", "mcm"]


def _phi(data: MetricData, rows: np.ndarray, score: Score, c: Any, what: str) -> Any:
    k = data.classes.index(c) if c != "all" else -1
    yt = None if data.y_true is None else data.y_true[rows]
    yp = None if data.y_pred is None else data.y_pred[rows]
    pr = None if data.probs is None else data.probs[rows]
    try:
        value = score.fn(yt, yp, pr, k, c)
    except UndefinedScore as err:
        cls = "" if c == "all" else f", class {c!r}"
        raise ValueError(f"score {score.name!r} is undefined for {what}{cls}: {err}") from None
    return np.asarray(value, float) if score.kind == "set" else float(value)


def _as_input(value: Any, comparison: Comparison) -> Any:
    """Set scores enter scalar comparisons through their mean."""
    if comparison.takes == "scalar" and isinstance(value, np.ndarray):
        return float(value.mean())
    return value


def _compare(comparison: Comparison, *args: Any, what: str) -> float:
    try:
        return float(comparison.fn(*(_as_input(a, comparison) for a in args)))
    except UndefinedScore as err:
        raise ValueError(f"comparison {comparison.name!r} is undefined for {what}: {err}") \
            from None


def evaluate(
    data: MetricData,
    rows: np.ndarray,
    *,
    kind: MetricKind,
    score: Score,
    comparison: Comparison,
    norm: float,
    background: str | None,
    classes: list[Any],
    where: str,
) -> dict[Any, dict[str, Any]]:
    """Per class: aggregate, per-group and per-pair terms and the group scores ϕ.

    Parameters
    ----------
    data
        The checked examples.
    rows
        Indices of the examples to evaluate (all of them, or one source's).
    kind
        ``"pcm"``, ``"bcm"``, ``"vbcm"`` or ``"mcm"``.
    score, comparison
        ϕ and d, resolved.
    norm
        The normalization N.
    background
        ``"all"`` or ``"rest"`` for BCM and VBCM.
    classes
        The classes to evaluate one-vs-rest (``"all"`` for a score of every class).
    where
        Where the rows come from, for messages (``""`` or ``" in source …"``).

    Returns
    -------
    dict
        Class → ``{"phi", "n", "groups", "pairs", "aggregate"}``: the groups' scores and
        sizes, the per-group and per-pair terms and the aggregate (``None`` for VBCM).

    Raises
    ------
    ValueError
        A group without examples in ``rows``, or a score or comparison that is undefined
        on some group; the message names it.
    """
    group = data.group[rows]
    members = {t: rows[group == t] for t in data.groups}
    for t, idx in members.items():
        if idx.size == 0:
            raise ValueError(f"group {t!r} has no examples{where}")
    out: dict[Any, dict[str, Any]] = {}
    for c in classes:
        phi = {t: _phi(data, idx, score, c, f"group {t!r}{where}") for t, idx in members.items()}
        res: dict[str, Any] = {"phi": phi, "n": {t: idx.size for t, idx in members.items()},
                               "groups": {}, "pairs": {}, "aggregate": None}
        if kind in ("bcm", "vbcm"):
            for t in members:
                bg_rows = rows if background == "all" else rows[group != t]
                bg = _phi(data, bg_rows, score, c, f"the background of group {t!r}{where}")
                res["groups"][t] = _compare(comparison, phi[t], bg,
                                            what=f"group {t!r} vs its background{where}")
            if kind == "bcm":
                res["aggregate"] = sum(res["groups"].values()) / norm
        elif kind == "pcm":
            for ti, tj in combinations(data.groups, 2):
                res["pairs"][(ti, tj)] = _compare(comparison, phi[ti], phi[tj],
                                                  what=f"groups {ti!r}, {tj!r}{where}")
            for t in data.groups:
                involved = [v for p, v in res["pairs"].items() if t in p]
                res["groups"][t] = float(np.mean(involved))
            res["aggregate"] = sum(res["pairs"].values()) / norm
        else:  # mcm
            values = [_as_input(phi[t], comparison) for t in data.groups]
            res["aggregate"] = float(comparison.fn(np.asarray(values, float))) / norm
        out[c] = res
    return out


def average(results: list[dict[Any, dict[str, Any]]]) -> dict[Any, dict[str, Any]]:
    """Mean over counterfactual sources of every term (scores ϕ: mean of their means).

    Parameters
    ----------
    results
        One :func:`evaluate` result per source, with the same classes, groups and pairs.

    Returns
    -------
    dict
        The terms in :func:`evaluate`'s form, each the mean over the sources; the group
        sizes ``n`` are summed.
    """
    first = results[0]
    out: dict[Any, dict[str, Any]] = {}
    for c, res in first.items():

        def mean_of(*path: Any, c: Any = c) -> float:
            """Mean over the sources of the term at ``path`` (a set: its mean)."""
            vals: list[float] = []
            for r in results:
                value: Any = r[c]
                for key in path:
                    value = value[key]
                vals.append(float(value.mean() if isinstance(value, np.ndarray) else value))
            return float(np.mean(vals))

        out[c] = {
            "phi": {t: mean_of("phi", t) for t in res["phi"]},
            "n": {t: int(sum(r[c]["n"][t] for r in results)) for t in res["n"]},
            "groups": {t: mean_of("groups", t) for t in res["groups"]},
            "pairs": {p: mean_of("pairs", p) for p in res["pairs"]},
            "aggregate": None if res["aggregate"] is None else mean_of("aggregate"),
        }
    return out
