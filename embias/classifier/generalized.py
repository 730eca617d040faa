"""Generalized fairness metrics (Czarnowska, Vyas & Shah 2021).

Three metrics cover most extrinsic fairness metrics in NLP. With T the protected groups,
ϕ a score computed on a set of examples and d a comparison,

* PCM (pairwise):    (1/N) Σ_{i<j} d(ϕ(S^{tᵢ}), ϕ(S^{tⱼ}))
* BCM (background):  (1/N) Σ_t d(ϕ(β_t), ϕ(Sᵗ)),  β_t = S (``"all"``) or S ∖ Sᵗ (``"rest"``);
  VBCM is the vector of the per-group terms, without the sum
* MCM (multi-group): d(ϕ(S^{t₁}), …, ϕ(S^{tₖ})), k = |T|

The counterfactual versions apply the same metric to the variants of each source example
(template) and average over the sources. Every result carries its per-group (and, for
PCM, per-pair) terms and the per-group scores ϕ. Multiclass problems are evaluated one
class against the rest. Values are point estimates: the result table is an interval table
with ``ci_kind="none"``.

Conventions for the two-argument comparisons d(target, reference): in BCM the target is
the group and the reference its background; in PCM the pair (tᵢ, tⱼ), i < j in group
order, has target tᵢ and reference tⱼ. ``"diff"`` is target − reference, ``"ratio"`` is
target / reference (FPR Ratio: group / background; F1 Ratio: ϕ(t₁)/ϕ(t₂)), ``"aeg"`` is
½ − U/(n_t n_r) with U = #(reference > target) (+½ per tie): positive when the target's
scores tend to be higher.

The parts: :mod:`~embias.classifier.metric_terms` (the scores ϕ and comparisons d),
:mod:`~embias.classifier.metric_data` (the examples, checked), this module (the metrics),
:mod:`~embias.classifier.presets` (the named metrics of Czarnowska et al.) and
:mod:`~embias.classifier.significance` (tests on templated data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np
import pandas as pd

from embias._deprecation import moved_names
from embias.classifier.metric_data import (
    MetricData,
    check_normalization,
    evaluated_classes,
    prepare_data,
    resolve_score,
    sorted_unique,
)
from embias.classifier.metric_terms import (
    COMPARISONS,
    SCORES,
    Comparison,
    Score,
    UndefinedScore,
)
from embias.report import interval_table

__all__ = [
    "COMPARISONS",
    "SCORES",
    "FairnessResult",
    "MetricKind",
    "bcm",
    "generalized_metric",
    "mcm",
    "pcm",
    "vbcm",
]

MetricKind = Literal["pcm", "bcm", "vbcm", "mcm"]


# --------------------------------------------------------------------------------------
# the three metrics on one set of rows
# --------------------------------------------------------------------------------------


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


def _evaluate(
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
    """Per class: aggregate, per-group and per-pair terms and the group scores ϕ."""
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


def _average(results: list[dict[Any, dict[str, Any]]]) -> dict[Any, dict[str, Any]]:
    """Mean over counterfactual sources of every term (scores ϕ: mean of their means)."""
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


# --------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------


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


def _build_result(
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


def generalized_metric(
    kind: MetricKind,
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    score: str,
    comparison: str,
    normalization: Any,
    background: str | None,
    probs: Any,
    source: Any,
    positive: Any,
    classes: Sequence[Any] | None,
    groups: Sequence[Any] | None,
    name: str,
) -> FairnessResult:
    """Compute a generalized fairness metric of any kind; :func:`pcm` … :func:`mcm` call it.

    Every argument is explicit (no defaults): the metric's functions and the presets
    (:func:`~embias.classifier.fairness_metric`) fill them in.

    Parameters
    ----------
    kind
        ``"pcm"``, ``"bcm"``, ``"vbcm"`` or ``"mcm"``.
    y_true, y_pred
        Gold and predicted labels (``None`` when the score does not use them).
    group
        Protected group of each example.
    score
        ϕ: one of :data:`SCORES` (``"fpr"``, ``"fnr"``, ``"tpr"``, ``"tnr"``,
        ``"accuracy"``, ``"f1"``, ``"positive_rate"``, ``"prob"``, ``"prob_positives"``,
        ``"prob_negatives"``, ``"prob_target"``). Set-valued scores enter scalar
        comparisons through their mean.
    comparison
        d: one of :data:`COMPARISONS`; ``"std"`` or ``"range"`` for MCM, another one for
        the others.
    normalization
        ``"none"``, ``"groups"``, ``"pairs"`` or a positive number (N).
    background
        ``"all"`` or ``"rest"`` for BCM and VBCM; ignored by the others.
    probs
        Class probabilities, (n, n_classes), or (n,) = P(class 1) for binary tasks.
    source
        Source example (template) of each row: gives the counterfactual version, the metric
        of each source's variants averaged over sources. Every source needs every group.
    positive
        Class(es) to evaluate one-vs-rest; default the second class of a binary task,
        every class of a multiclass one.
    classes
        All class labels in order (default: sorted labels; ``range(n_classes)`` with
        integer labels and ``probs``).
    groups
        Groups to compare, in this order (default: sorted labels); other rows are dropped.
    name
        Name written in the result.

    Returns
    -------
    FairnessResult

    Raises
    ------
    ValueError
        An unknown score or comparison, a comparison that does not fit the metric or the
        score, arrays that are missing, misaligned or hold missing values, probabilities
        outside [0, 1], fewer than two groups, or a score or comparison that is undefined
        on some group (e.g. FPR of a group without negatives); the message names it.

    Examples
    --------
    The PCM of false positive rates of :func:`pcm`'s example:

    >>> from embias.classifier.generalized import generalized_metric
    >>> y_true = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> y_pred = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> generalized_metric("pcm", y_true, y_pred, group, score="fpr",
    ...                    comparison="abs_diff", normalization="pairs", background=None,
    ...                    probs=None, source=None, positive=None, classes=None,
    ...                    groups=None, name="fpr_gap").value()
    0.5
    """
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison={comparison!r} is not one of {sorted(COMPARISONS)}")
    comp = COMPARISONS[comparison]
    if kind == "mcm" and comp.arity != "multi":
        raise ValueError(f"MCM needs a multi-group comparison ('std' or 'range'), "
                         f"got {comparison!r}")
    if kind != "mcm" and comp.arity != "pair":
        raise ValueError(f"{kind.upper()} needs a two-argument comparison, got {comparison!r} "
                         "(use it with mcm())")
    if kind in ("bcm", "vbcm") and background not in ("all", "rest"):
        raise ValueError(f"background must be 'all' (β = S) or 'rest' (β = S ∖ Sᵗ), "
                         f"got {background!r}")
    if score not in SCORES:
        raise ValueError(f"score={score!r} is not one of {sorted(SCORES)}")
    needs = SCORES[score].needs
    data = prepare_data(y_true, y_pred, group, probs=probs, source=source, classes=classes,
                    groups=groups, needs=needs, score=score)
    sc = resolve_score(score, data.classes)
    if comp.takes == "set" and sc.kind != "set":
        raise ValueError(f"comparison {comparison!r} compares sets of scores; score "
                         f"{score!r} is a single number (use 'prob', 'prob_positives', …)")
    norm = check_normalization(normalization, len(data.groups))
    eval_classes = evaluated_classes(data, sc, positive)
    kwargs = dict(kind=kind, score=sc, comparison=comp, norm=norm, background=background,
                  classes=eval_classes)
    all_rows = np.arange(data.group.size)
    if data.source is None:
        evaluated = _evaluate(data, all_rows, where="", **kwargs)  # type: ignore[arg-type]
        n_sources = None
    else:
        per_source = []
        for s in sorted_unique(data.source):
            rows = all_rows[data.source == s]
            per_source.append(_evaluate(data, rows, where=f" in source {s!r}",
                                        **kwargs))  # type: ignore[arg-type]
        evaluated = _average(per_source)
        n_sources = len(per_source)
    return _build_result(name, kind, data, evaluated, score=sc, comparison=comp, norm=norm,
                         background=background if kind in ("bcm", "vbcm") else None,
                         n_sources=n_sources)


def pcm(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    score: str,
    comparison: str = "abs_diff",
    normalization: Literal["none", "groups", "pairs"] | float = "pairs",
    probs: Any = None,
    source: Any = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
    name: str = "pcm",
) -> FairnessResult:
    """Compute the pairwise comparison metric (1/N) Σ_{i<j} d(ϕ(S^{tᵢ}), ϕ(S^{tⱼ})).

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels (``None`` when the score does not use them).
    group
        Protected group of each example.
    score
        ϕ: one of :data:`SCORES` (``"fpr"``, ``"fnr"``, ``"tpr"``, ``"tnr"``,
        ``"accuracy"``, ``"f1"``, ``"positive_rate"``, ``"prob"``, ``"prob_positives"``,
        ``"prob_negatives"``, ``"prob_target"``). Set-valued scores enter scalar
        comparisons through their mean.
    comparison
        d: one of :data:`COMPARISONS` that compares two scores (``"abs_diff"``,
        ``"diff"``, ``"ratio"``, ``"wasserstein"``, ``"aeg"``).
    normalization
        ``"pairs"`` (N = C(|T|, 2), default), ``"groups"`` (|T|), ``"none"`` (1) or a
        positive number.
    probs
        Class probabilities, (n, n_classes), or (n,) = P(class 1) for binary tasks.
    source
        Source example (template) of each row: gives the counterfactual version, the metric
        of each source's variants averaged over sources. Every source needs every group.
    positive
        Class(es) to evaluate one-vs-rest; default the second class of a binary task,
        every class of a multiclass one.
    classes
        All class labels in order (default: sorted labels; ``range(n_classes)`` with
        integer labels and ``probs``).
    groups
        Groups to compare, in this order (default: sorted labels); other rows are dropped.
    name
        Name written in the result.

    Returns
    -------
    FairnessResult

    Raises
    ------
    ValueError
        An unknown score or comparison, a comparison that does not fit the metric or the
        score, arrays that are missing, misaligned or hold missing values, probabilities
        outside [0, 1], fewer than two groups, or a score or comparison that is undefined
        on some group (e.g. FPR of a group without negatives); the message names it.

    Examples
    --------
    Group "a" has one false positive among its two negatives (FPR 0.5), group "b" none
    (FPR 0): the PCM of false positive rates is |0.5 − 0| = 0.5:

    >>> from embias.classifier import pcm
    >>> y_true = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> y_pred = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> result = pcm(y_true, y_pred, group, score="fpr")
    >>> result.value()
    0.5
    >>> result.scores
       class group  score  n
    0      1     a    0.5  4
    1      1     b    0.0  4
    """
    return generalized_metric("pcm", y_true, y_pred, group, score=score, comparison=comparison,
                   normalization=normalization, background=None, probs=probs, source=source,
                   positive=positive, classes=classes, groups=groups, name=name)


def bcm(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    score: str,
    comparison: str = "abs_diff",
    normalization: Literal["none", "groups", "pairs"] | float = "groups",
    background: Literal["all", "rest"] = "all",
    probs: Any = None,
    source: Any = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
    name: str = "bcm",
) -> FairnessResult:
    """Compute the background comparison metric (1/N) Σ_t d(ϕ(Sᵗ), ϕ(β_t)).

    The per-group terms (the VBCM) are in the result's table and ``.vector()``.

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels (``None`` when the score does not use them).
    group
        Protected group of each example.
    score
        ϕ: one of :data:`SCORES` (``"fpr"``, ``"fnr"``, ``"tpr"``, ``"tnr"``,
        ``"accuracy"``, ``"f1"``, ``"positive_rate"``, ``"prob"``, ``"prob_positives"``,
        ``"prob_negatives"``, ``"prob_target"``). Set-valued scores enter scalar
        comparisons through their mean.
    comparison
        d: one of :data:`COMPARISONS` that compares two scores (``"abs_diff"``,
        ``"diff"``, ``"ratio"``, ``"wasserstein"``, ``"aeg"``).
    normalization
        ``"groups"`` (N = |T|, default), ``"none"``, ``"pairs"`` or a positive number.
    background
        ``"all"`` (β = S, default) or ``"rest"`` (β = S ∖ Sᵗ).
    probs
        Class probabilities, (n, n_classes), or (n,) = P(class 1) for binary tasks.
    source
        Source example (template) of each row: gives the counterfactual version, the metric
        of each source's variants averaged over sources. Every source needs every group.
    positive
        Class(es) to evaluate one-vs-rest; default the second class of a binary task,
        every class of a multiclass one.
    classes
        All class labels in order (default: sorted labels; ``range(n_classes)`` with
        integer labels and ``probs``).
    groups
        Groups to compare, in this order (default: sorted labels); other rows are dropped.
    name
        Name written in the result.

    Returns
    -------
    FairnessResult

    Raises
    ------
    ValueError
        An unknown score or comparison, a comparison that does not fit the metric or the
        score, arrays that are missing, misaligned or hold missing values, probabilities
        outside [0, 1], fewer than two groups, or a score or comparison that is undefined
        on some group (e.g. FPR of a group without negatives); the message names it.

    Examples
    --------
    :func:`pcm`'s example: FPR 0.5 in group "a", 0 in "b" and 1/4 over all examples, so
    the terms are |0.5 − 0.25| and |0 − 0.25| and their mean is 0.25:

    >>> from embias.classifier import bcm
    >>> y_true = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> y_pred = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> result = bcm(y_true, y_pred, group, score="fpr")
    >>> result.value(), result.vector().tolist()
    (0.25, [0.25, 0.25])
    """
    return generalized_metric("bcm", y_true, y_pred, group, score=score, comparison=comparison,
                   normalization=normalization, background=background, probs=probs,
                   source=source, positive=positive, classes=classes, groups=groups, name=name)


def vbcm(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    score: str,
    comparison: str = "abs_diff",
    background: Literal["all", "rest"] = "all",
    probs: Any = None,
    source: Any = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
    name: str = "vbcm",
) -> FairnessResult:
    """Compute the vector-valued BCM: the per-group terms d(ϕ(Sᵗ), ϕ(β_t)), not summed.

    The terms are the result's ``.vector()``.

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels (``None`` when the score does not use them).
    group
        Protected group of each example.
    score
        ϕ: one of :data:`SCORES` (``"fpr"``, ``"fnr"``, ``"tpr"``, ``"tnr"``,
        ``"accuracy"``, ``"f1"``, ``"positive_rate"``, ``"prob"``, ``"prob_positives"``,
        ``"prob_negatives"``, ``"prob_target"``). Set-valued scores enter scalar
        comparisons through their mean.
    comparison
        d: one of :data:`COMPARISONS` that compares two scores (``"abs_diff"``,
        ``"diff"``, ``"ratio"``, ``"wasserstein"``, ``"aeg"``).
    background
        ``"all"`` (β = S, default) or ``"rest"`` (β = S ∖ Sᵗ).
    probs
        Class probabilities, (n, n_classes), or (n,) = P(class 1) for binary tasks.
    source
        Source example (template) of each row: gives the counterfactual version, the metric
        of each source's variants averaged over sources. Every source needs every group.
    positive
        Class(es) to evaluate one-vs-rest; default the second class of a binary task,
        every class of a multiclass one.
    classes
        All class labels in order (default: sorted labels; ``range(n_classes)`` with
        integer labels and ``probs``).
    groups
        Groups to compare, in this order (default: sorted labels); other rows are dropped.
    name
        Name written in the result.

    Returns
    -------
    FairnessResult

    Raises
    ------
    ValueError
        An unknown score or comparison, a comparison that does not fit the metric or the
        score, arrays that are missing, misaligned or hold missing values, probabilities
        outside [0, 1], fewer than two groups, or a score or comparison that is undefined
        on some group (e.g. FPR of a group without negatives); the message names it.

    Examples
    --------
    :func:`pcm`'s example against the rest: FPR 0.5 − 0 for group "a", 0 − 0.5 for "b":

    >>> from embias.classifier import vbcm
    >>> y_true = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> y_pred = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> vbcm(y_true, y_pred, group, score="fpr", comparison="diff",
    ...      background="rest").vector().tolist()
    [0.5, -0.5]
    """
    return generalized_metric("vbcm", y_true, y_pred, group, score=score, comparison=comparison,
                   normalization="none", background=background, probs=probs, source=source,
                   positive=positive, classes=classes, groups=groups, name=name)


def mcm(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    score: str,
    comparison: Literal["std", "range"] = "range",
    probs: Any = None,
    source: Any = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
    name: str = "mcm",
) -> FairnessResult:
    """Compute the multi-group comparison metric d(ϕ(S^{t₁}), …, ϕ(S^{tₖ})), k = |T|.

    Parameters
    ----------
    y_true, y_pred
        Gold and predicted labels (``None`` when the score does not use them).
    group
        Protected group of each example.
    score
        ϕ: one of :data:`SCORES` (``"fpr"``, ``"fnr"``, ``"tpr"``, ``"tnr"``,
        ``"accuracy"``, ``"f1"``, ``"positive_rate"``, ``"prob"``, ``"prob_positives"``,
        ``"prob_negatives"``, ``"prob_target"``). Set-valued scores enter scalar
        comparisons through their mean.
    comparison
        d: ``"range"`` (max − min, default) or ``"std"`` (the population standard
        deviation, ddof = 0).
    probs
        Class probabilities, (n, n_classes), or (n,) = P(class 1) for binary tasks.
    source
        Source example (template) of each row: gives the counterfactual version, the metric
        of each source's variants averaged over sources. Every source needs every group.
    positive
        Class(es) to evaluate one-vs-rest; default the second class of a binary task,
        every class of a multiclass one.
    classes
        All class labels in order (default: sorted labels; ``range(n_classes)`` with
        integer labels and ``probs``).
    groups
        Groups to compare, in this order (default: sorted labels); other rows are dropped.
    name
        Name written in the result.

    Returns
    -------
    FairnessResult

    Raises
    ------
    ValueError
        An unknown score or comparison, a comparison that does not fit the metric or the
        score, arrays that are missing, misaligned or hold missing values, probabilities
        outside [0, 1], fewer than two groups, or a score or comparison that is undefined
        on some group (e.g. FPR of a group without negatives); the message names it.

    Examples
    --------
    :func:`pcm`'s example: group "a" predicts class 1 for 3 of its 4 examples, group "b"
    for 1, so the range of the positive rates is 0.5 and their sd 0.25:

    >>> from embias.classifier import mcm
    >>> y_true = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> y_pred = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> mcm(y_true, y_pred, group, score="positive_rate").value()
    0.5
    >>> mcm(y_true, y_pred, group, score="positive_rate", comparison="std").value()
    0.25
    """
    return generalized_metric("mcm", y_true, y_pred, group, score=score, comparison=comparison,
                   normalization="none", background=None, probs=probs, source=source,
                   positive=positive, classes=classes, groups=groups, name=name)


# The named metrics and the significance tests have modules of their own: still served
# from here for one release, with a DeprecationWarning naming the new home.
__getattr__: Any = moved_names(__name__, {
    "MetricSpec": "embias.classifier.presets",
    "PRESETS": "embias.classifier.presets",
    "fairness_metric": "embias.classifier.presets",
    "SignificanceResult": "embias.classifier.significance",
    "template_significance": "embias.classifier.significance",
})
