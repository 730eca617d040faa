"""The result of a generalized fairness metric: :class:`FairnessResult` and its tables.

``build_result`` writes a metric's evaluated terms as an interval table (point values,
``ci_kind="none"``) with one row per aggregate, group and pair, and the groups' scores ϕ
as a table of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from embias.classifier.generalized.evaluation import MetricKind
from embias.classifier.metric_data import MetricData
from embias.classifier.metric_terms import Comparison, Score
from embias.report import interval_table


@dataclass(frozen=True)
class FairnessResult:
    """A generalized fairness metric with all its parts.

    Attributes
    ----------
    name
        Metric name (a preset name such as ``"fped"``, or ``"pcm"``/``"bcm"``/…).
    kind
        ``"pcm"``, ``"bcm"``, ``"vbcm"`` or ``"mcm"``.
    version
        ``"group"`` or ``"counterfactual"`` (averaged over ``n_sources`` sources).
    table
        Interval table (``ci_kind="none"``, point values) with a ``level`` column:
        ``"aggregate"`` (group ``"all"``; absent for VBCM), ``"group"`` (the per-group
        terms; for PCM the mean of the pairs involving the group) and ``"pair"`` (PCM).
        Further columns: ``class``, ``metric``, ``score``, ``comparison``, ``version``.
    scores
        Per (class, group): the score ϕ (mean of the set for set-valued scores; mean over
        sources for counterfactual metrics) and ``n`` examples.
    """

    name: str
    kind: MetricKind
    version: Literal["group", "counterfactual"]
    score: str
    comparison: str
    normalization: float
    background: str | None
    groups: tuple[Any, ...]
    classes: tuple[Any, ...]
    n_sources: int | None
    table: pd.DataFrame
    scores: pd.DataFrame

    def to_interval_table(self) -> pd.DataFrame:
        """Return the metric's interval table (point values, ``ci_kind="none"``): :attr:`table`."""
        return self.table

    def _class(self, cls: Any) -> Any:
        if cls is None:
            if len(self.classes) != 1:
                raise ValueError(f"{self.name} was evaluated for classes {list(self.classes)}; "
                                 "pass cls= to choose one")
            return self.classes[0]
        if cls not in self.classes:
            raise ValueError(f"cls={cls!r} is not one of {list(self.classes)}")
        return cls

    def value(self, cls: Any = None) -> float:
        """Return the aggregate value for class ``cls`` (optional when one class was evaluated).

        ValueError for a VBCM (use :meth:`vector`) or a class not evaluated.
        """
        if self.kind == "vbcm":
            raise ValueError(f"{self.name} is vector-valued (VBCM); use .vector()")
        c = self._class(cls)
        t = self.table
        sel = t[(t["level"] == "aggregate") & (t["class"] == c)]
        return float(sel["estimate"].iloc[0])

    def vector(self, cls: Any = None) -> np.ndarray:
        """Return the per-group terms in group order (BCM/VBCM), or the per-pair terms (PCM).

        ValueError for an MCM (no such terms) or a class not evaluated.
        """
        if self.kind == "mcm":
            raise ValueError(f"{self.name} is an MCM: it has no per-group terms; see .scores")
        c = self._class(cls)
        level = "pair" if self.kind == "pcm" else "group"
        t = self.table
        return t[(t["level"] == level) & (t["class"] == c)]["estimate"].to_numpy(float)


def _pair_label(p: tuple[Any, Any]) -> str:
    return f"{p[0]} vs {p[1]}"


def build_result(
    name: str,
    kind: MetricKind,
    data: MetricData,
    evaluated: dict[Any, dict[str, Any]],
    *,
    score: Score,
    comparison: Comparison,
    norm: float,
    background: str | None,
    n_sources: int | None,
) -> FairnessResult:
    """Return the metric's :class:`FairnessResult` from its evaluated terms.

    Parameters
    ----------
    name
        Metric name written in the result.
    kind
        ``"pcm"``, ``"bcm"``, ``"vbcm"`` or ``"mcm"``.
    data
        The checked examples (their groups, in order).
    evaluated
        Class → terms, as :func:`~embias.classifier.generalized.evaluation.evaluate` (or
        :func:`~embias.classifier.generalized.evaluation.average`) returns them.
    score, comparison
        ϕ and d, resolved.
    norm
        The normalization N.
    background
        ``"all"`` or ``"rest"`` for BCM and VBCM, ``None`` for the others.
    n_sources
        Number of sources of a counterfactual metric; ``None`` for the group version.

    Returns
    -------
    FairnessResult
    """
    version: Literal["group", "counterfactual"] = (
        "group" if n_sources is None else "counterfactual")
    rows: list[dict[str, Any]] = []
    score_rows: list[dict[str, Any]] = []
    nan = float("nan")
    common = {"metric": kind, "score": score.name, "comparison": comparison.name,
              "version": version}
    for c, res in evaluated.items():
        if res["aggregate"] is not None:
            rows.append({"estimand": name, "group": "all", "estimate": res["aggregate"],
                         "lower": nan, "upper": nan, "class": c, "level": "aggregate",
                         **common})
        for t, v in res["groups"].items():
            rows.append({"estimand": name, "group": str(t), "estimate": v, "lower": nan,
                         "upper": nan, "class": c, "level": "group", **common})
        for p, v in res["pairs"].items():
            rows.append({"estimand": name, "group": _pair_label(p), "estimate": v,
                         "lower": nan, "upper": nan, "class": c, "level": "pair", **common})
        for t in data.groups:
            phi = res["phi"][t]
            score_rows.append({"class": c, "group": t,
                               "score": float(phi.mean()) if isinstance(phi, np.ndarray)
                               else float(phi), "n": res["n"][t]})
    table = interval_table(rows, ci_prob=None, ci_kind="none")
    return FairnessResult(
        name=name, kind=kind, version=version, score=score.name, comparison=comparison.name,
        normalization=norm, background=background, groups=data.groups,
        classes=tuple(evaluated), n_sources=n_sources, table=table,
        scores=pd.DataFrame(score_rows, columns=["class", "group", "score", "n"]),
    )
