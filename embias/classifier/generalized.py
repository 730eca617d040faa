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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from embias._validation import check_number
from embias.report import interval_table

__all__ = [
    "COMPARISONS",
    "PRESETS",
    "SCORES",
    "FairnessResult",
    "MetricSpec",
    "SignificanceResult",
    "bcm",
    "fairness_metric",
    "mcm",
    "pcm",
    "template_significance",
    "vbcm",
]

MetricKind = Literal["pcm", "bcm", "vbcm", "mcm"]


_Arr = Any  # a numpy array (or None when the score does not use it)


class _Undefined(Exception):
    """A score that has no value on a subset (e.g. FPR without negatives)."""


# --------------------------------------------------------------------------------------
# scores ϕ
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Score:
    name: str
    needs: tuple[str, ...]
    per_class: bool
    kind: Literal["scalar", "set"]
    fn: Callable[[np.ndarray | None, np.ndarray | None, np.ndarray | None, int, Any],
                 float | np.ndarray]
    description: str


def _rate(mask: np.ndarray, hits: np.ndarray, what: str) -> float:
    if not mask.any():
        raise _Undefined(f"no {what}")
    return float(hits[mask].mean())


def _fpr(yt, yp, pr, k, c):
    return _rate(yt != c, yp == c, "negatives (y_true ≠ class)")


def _fnr(yt, yp, pr, k, c):
    return _rate(yt == c, yp != c, "positives (y_true = class)")


def _tpr(yt, yp, pr, k, c):
    return _rate(yt == c, yp == c, "positives (y_true = class)")


def _tnr(yt, yp, pr, k, c):
    return _rate(yt != c, yp != c, "negatives (y_true ≠ class)")


def _accuracy(yt, yp, pr, k, c):
    return _rate(np.ones(yt.shape, bool), yp == yt, "examples")


def _f1(yt, yp, pr, k, c):
    tp = int(np.sum((yp == c) & (yt == c)))
    fp = int(np.sum((yp == c) & (yt != c)))
    fn = int(np.sum((yp != c) & (yt == c)))
    if 2 * tp + fp + fn == 0:
        raise _Undefined("no positives and no positive predictions (F1 = 0/0)")
    return 2 * tp / (2 * tp + fp + fn)


def _positive_rate(yt, yp, pr, k, c):
    return _rate(np.ones(yp.shape, bool), yp == c, "examples")


def _prob_set(mask: np.ndarray, values: np.ndarray, what: str) -> np.ndarray:
    if not mask.any():
        raise _Undefined(f"no {what}")
    return values[mask]


def _prob(yt, yp, pr, k, c):
    return _prob_set(np.ones(pr.shape[0], bool), pr[:, k], "examples")


def _prob_positives(yt, yp, pr, k, c):
    return _prob_set(yt == c, pr[:, k], "positives (y_true = class)")


def _prob_negatives(yt, yp, pr, k, c):
    return _prob_set(yt != c, pr[:, k], "negatives (y_true ≠ class)")


def _make_prob_target(classes: Sequence[Any]) -> Callable[..., np.ndarray]:
    index = {c: i for i, c in enumerate(classes)}

    def fn(yt, yp, pr, k, c):
        if yt.size == 0:
            raise _Undefined("no examples")
        cols = np.array([index[v] for v in yt])
        return pr[np.arange(yt.size), cols]

    return fn


SCORES: Mapping[str, _Score] = {
    s.name: s
    for s in (
        _Score("fpr", ("y_true", "y_pred"), True, "scalar", _fpr, "false positive rate"),
        _Score("fnr", ("y_true", "y_pred"), True, "scalar", _fnr, "false negative rate"),
        _Score("tpr", ("y_true", "y_pred"), True, "scalar", _tpr, "true positive rate (recall)"),
        _Score("tnr", ("y_true", "y_pred"), True, "scalar", _tnr, "true negative rate"),
        _Score("accuracy", ("y_true", "y_pred"), False, "scalar", _accuracy,
               "accuracy over all classes"),
        _Score("f1", ("y_true", "y_pred"), True, "scalar", _f1, "F1 of the class"),
        _Score("positive_rate", ("y_pred",), True, "scalar", _positive_rate,
               "share predicted as the class"),
        _Score("prob", ("probs",), True, "set", _prob, "{f(x, c) | x ∈ A}"),
        _Score("prob_positives", ("y_true", "probs"), True, "set", _prob_positives,
               "{f(x, c) | x ∈ A, y(x) = c}"),
        _Score("prob_negatives", ("y_true", "probs"), True, "set", _prob_negatives,
               "{f(x, c) | x ∈ A, y(x) ≠ c}"),
        # needs the class order of the data: the function is bound in _resolve_score()
        _Score("prob_target", ("y_true", "probs"), False, "set", _make_prob_target(()),
               "{f(x, y(x)) | x ∈ A}: probability of the gold class"),
    )
}


# --------------------------------------------------------------------------------------
# comparisons d
# --------------------------------------------------------------------------------------


def _ratio(target: float, reference: float) -> float:
    if reference == 0:
        raise _Undefined(f"ratio with a reference score of 0 (target score {target!r})")
    return target / reference


def _aeg(target: np.ndarray, reference: np.ndarray) -> float:
    """½ − U/(n_t n_r), U = #(reference > target) + ½ #(ties) (Borkan et al. 2019)."""
    t = np.sort(np.asarray(target, float))
    r = np.asarray(reference, float)
    below = np.searchsorted(t, r, side="left")  # targets strictly below each reference
    ties = np.searchsorted(t, r, side="right") - below
    u = float(below.sum() + 0.5 * ties.sum())
    return 0.5 - u / (t.size * r.size)


@dataclass(frozen=True)
class _Comparison:
    name: str
    arity: Literal["pair", "multi"]
    takes: Literal["scalar", "set"]
    fn: Callable[..., float]
    description: str


COMPARISONS: Mapping[str, _Comparison] = {
    c.name: c
    for c in (
        _Comparison("abs_diff", "pair", "scalar", lambda t, r: abs(t - r), "|x − y|"),
        _Comparison("diff", "pair", "scalar", lambda t, r: t - r, "x − y (target − reference)"),
        _Comparison("ratio", "pair", "scalar", _ratio, "x / y (target / reference)"),
        _Comparison("wasserstein", "pair", "set",
                    lambda t, r: float(stats.wasserstein_distance(t, r)),
                    "Wasserstein-1 distance between the two score sets"),
        _Comparison("aeg", "pair", "set", _aeg,
                    "average equality gap ½ − U/(n₁n₂) (Mann–Whitney U)"),
        _Comparison("std", "multi", "scalar", lambda v: float(np.std(v)),
                    "population standard deviation of the group scores"),
        _Comparison("range", "multi", "scalar", lambda v: float(np.max(v) - np.min(v)),
                    "max − min of the group scores"),
    )
}


# --------------------------------------------------------------------------------------
# data preparation
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Data:
    y_true: np.ndarray | None
    y_pred: np.ndarray | None
    probs: np.ndarray | None
    group: np.ndarray
    source: np.ndarray | None
    classes: tuple[Any, ...]
    groups: tuple[Any, ...]


def _sorted_unique(values: np.ndarray) -> list[Any]:
    uniq = list(pd.unique(pd.Series(values, dtype=object)))
    try:
        return sorted(uniq)
    except TypeError:
        return uniq


def _prepare(
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    probs: Any,
    source: Any,
    classes: Sequence[Any] | None,
    groups: Sequence[Any] | None,
    needs: Sequence[str],
    score: str,
) -> _Data:
    g = np.asarray(group, dtype=object) if group is not None else None
    if g is None or g.ndim != 1 or g.size == 0:
        raise ValueError("group must be a non-empty one-dimensional array of group labels")
    if pd.isna(pd.Series(g)).any():
        raise ValueError("group contains missing values; every example needs a group label")
    n = g.size

    def vector(name: str, value: Any) -> np.ndarray | None:
        if value is None:
            if name in needs:
                raise ValueError(f"score {score!r} needs {name}; got {name}=None")
            return None
        arr = np.asarray(value)
        if arr.ndim != 1 or arr.size != n:
            raise ValueError(f"{name} must be one-dimensional with {n} values (one per "
                             f"example, like group), got shape {arr.shape}")
        if pd.isna(pd.Series(arr, dtype=object)).any():
            raise ValueError(f"{name} contains missing values")
        return arr

    yt = vector("y_true", y_true)
    yp = vector("y_pred", y_pred)
    src = vector("source", source)
    pr = None
    if probs is not None:
        pr = np.asarray(probs, dtype=float)
        bad = ~((pr >= 0) & (pr <= 1))  # NaN fails too
        if bad.any():
            at = tuple(int(v) for v in np.argwhere(bad)[0])
            where = f"row {at[0]}" + (f", column {at[1]}" if len(at) > 1 else "")
            raise ValueError(f"probs must lie in [0, 1]; got {float(pr[at])!r} at {where}")
        if pr.ndim == 1:
            pr = np.column_stack([1.0 - pr, pr])
        if pr.ndim != 2 or pr.shape[0] != n or pr.shape[1] < 2:
            raise ValueError(f"probs must be (n,) for binary or (n, n_classes) with n={n}, "
                             f"got shape {np.shape(probs)}")
    elif "probs" in needs:
        raise ValueError(f"score {score!r} needs probs (class probabilities); got probs=None")

    labels: set[Any] = set()
    for arr in (yt, yp):
        if arr is not None:
            labels |= set(pd.unique(pd.Series(arr, dtype=object)))
    if classes is not None:
        cls = tuple(classes)
        if len(set(cls)) != len(cls):
            raise ValueError(f"classes must be distinct, got {list(cls)}")
        unknown = labels - set(cls)
        if unknown:
            raise ValueError(f"labels {sorted(map(str, unknown))} are not in classes={list(cls)}")
    elif pr is not None:
        k = pr.shape[1]
        if labels <= set(range(k)):
            cls = tuple(range(k))
        elif len(labels) == k:
            cls = tuple(_sorted_unique(np.array(list(labels), dtype=object)))
        else:
            raise ValueError(f"probs has {k} columns but the labels are {sorted(map(str, labels))}"
                             "; pass classes= (the class of each probs column, in order)")
    else:
        cls = tuple(_sorted_unique(np.array(list(labels), dtype=object)))
    if pr is not None and pr.shape[1] != len(cls):
        raise ValueError(f"probs has {pr.shape[1]} columns but there are {len(cls)} classes")

    present = _sorted_unique(g)
    if groups is None:
        grp = tuple(present)
    else:
        grp = tuple(groups)
        if len(set(grp)) != len(grp):
            raise ValueError(f"groups must be distinct, got {list(grp)}")
        missing = [x for x in grp if x not in set(present)]
        if missing:
            raise ValueError(f"groups {missing} have no examples (group labels present: "
                             f"{present})")
    if len(grp) < 2:
        raise ValueError(f"need at least two protected groups, got {list(grp)}")
    keep = np.isin(g, np.array(grp, dtype=object))

    def sub(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[keep]

    return _Data(sub(yt), sub(yp), sub(pr), g[keep], sub(src), cls, grp)


def _check_normalization(normalization: Any, n_groups: int) -> float:
    if isinstance(normalization, str):
        table = {"none": 1.0, "groups": float(n_groups),
                 "pairs": float(n_groups * (n_groups - 1) // 2)}
        if normalization not in table:
            raise ValueError(f"normalization must be one of {sorted(table)} or a positive "
                             f"number, got {normalization!r}")
        return table[normalization]
    try:
        return check_number("normalization", normalization, low=0.0, low_open=True)
    except ValueError:
        raise ValueError(f"normalization must be 'none', 'groups', 'pairs' or a positive "
                         f"number, got {normalization!r}") from None


def _resolve_score(score: str, data_classes: tuple[Any, ...]) -> _Score:
    if score not in SCORES:
        raise ValueError(f"score={score!r} is not one of {sorted(SCORES)}")
    s = SCORES[score]
    if s.name == "prob_target":
        return _Score(s.name, s.needs, s.per_class, s.kind, _make_prob_target(data_classes),
                      s.description)
    return s


def _eval_classes(data: _Data, score: _Score, positive: Any) -> list[Any]:
    if not score.per_class:
        if positive is not None:
            raise ValueError(f"score {score.name!r} does not depend on a class; "
                             f"positive={positive!r} has no effect, leave it None")
        return ["all"]
    if positive is None:
        if len(data.classes) == 2:
            return [data.classes[1]]
        return list(data.classes)
    wanted = list(positive) if isinstance(positive, list | tuple) else [positive]
    unknown = [c for c in wanted if c not in data.classes]
    if unknown:
        raise ValueError(f"positive={positive!r}: {unknown} not among the classes "
                         f"{list(data.classes)}")
    return wanted


# --------------------------------------------------------------------------------------
# the three metrics on one set of rows
# --------------------------------------------------------------------------------------


def _phi(data: _Data, rows: np.ndarray, score: _Score, c: Any, what: str) -> Any:
    k = data.classes.index(c) if c != "all" else -1
    yt = None if data.y_true is None else data.y_true[rows]
    yp = None if data.y_pred is None else data.y_pred[rows]
    pr = None if data.probs is None else data.probs[rows]
    try:
        value = score.fn(yt, yp, pr, k, c)
    except _Undefined as err:
        cls = "" if c == "all" else f", class {c!r}"
        raise ValueError(f"score {score.name!r} is undefined for {what}{cls}: {err}") from None
    return np.asarray(value, float) if score.kind == "set" else float(value)


def _as_input(value: Any, comparison: _Comparison) -> Any:
    """Set scores enter scalar comparisons through their mean."""
    if comparison.takes == "scalar" and isinstance(value, np.ndarray):
        return float(value.mean())
    return value


def _compare(comparison: _Comparison, *args: Any, what: str) -> float:
    try:
        return float(comparison.fn(*(_as_input(a, comparison) for a in args)))
    except _Undefined as err:
        raise ValueError(f"comparison {comparison.name!r} is undefined for {what}: {err}") \
            from None


def _evaluate(
    data: _Data,
    rows: np.ndarray,
    *,
    kind: MetricKind,
    score: _Score,
    comparison: _Comparison,
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

        def mean_of(getter: Callable[[dict[str, Any]], Any], c: Any = c) -> float:
            vals = [getter(r[c]) for r in results]
            return float(np.mean([v.mean() if isinstance(v, np.ndarray) else v for v in vals]))

        out[c] = {
            "phi": {t: mean_of(lambda r, t=t: r["phi"][t]) for t in res["phi"]},
            "n": {t: int(sum(r[c]["n"][t] for r in results)) for t in res["n"]},
            "groups": {t: mean_of(lambda r, t=t: r["groups"][t]) for t in res["groups"]},
            "pairs": {p: mean_of(lambda r, p=p: r["pairs"][p]) for p in res["pairs"]},
            "aggregate": None if res["aggregate"] is None
            else mean_of(lambda r: r["aggregate"]),
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
        """The metric's interval table (point values, ``ci_kind="none"``): :attr:`table`."""
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
        """The aggregate value (for ``cls``; optional when a single class was evaluated)."""
        if self.kind == "vbcm":
            raise ValueError(f"{self.name} is vector-valued (VBCM); use .vector()")
        c = self._class(cls)
        t = self.table
        sel = t[(t["level"] == "aggregate") & (t["class"] == c)]
        return float(sel["estimate"].iloc[0])

    def vector(self, cls: Any = None) -> np.ndarray:
        """Per-group terms in group order (BCM/VBCM), or per-pair terms (PCM)."""
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
    data: _Data,
    evaluated: dict[Any, dict[str, Any]],
    *,
    score: _Score,
    comparison: _Comparison,
    norm: float,
    background: str | None,
    n_sources: int | None,
) -> FairnessResult:
    version = "group" if n_sources is None else "counterfactual"
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


def _metric(
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
    data = _prepare(y_true, y_pred, group, probs=probs, source=source, classes=classes,
                    groups=groups, needs=needs, score=score)
    sc = _resolve_score(score, data.classes)
    if comp.takes == "set" and sc.kind != "set":
        raise ValueError(f"comparison {comparison!r} compares sets of scores; score "
                         f"{score!r} is a single number (use 'prob', 'prob_positives', …)")
    norm = _check_normalization(normalization, len(data.groups))
    eval_classes = _eval_classes(data, sc, positive)
    kwargs = dict(kind=kind, score=sc, comparison=comp, norm=norm, background=background,
                  classes=eval_classes)
    all_rows = np.arange(data.group.size)
    if data.source is None:
        evaluated = _evaluate(data, all_rows, where="", **kwargs)  # type: ignore[arg-type]
        n_sources = None
    else:
        per_source = []
        for s in _sorted_unique(data.source):
            rows = all_rows[data.source == s]
            per_source.append(_evaluate(data, rows, where=f" in source {s!r}",
                                        **kwargs))  # type: ignore[arg-type]
        evaluated = _average(per_source)
        n_sources = len(per_source)
    return _build_result(name, kind, data, evaluated, score=sc, comparison=comp, norm=norm,
                         background=background if kind in ("bcm", "vbcm") else None,
                         n_sources=n_sources)


_DOC_DATA = """
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
"""


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
    """Pairwise comparison metric: (1/N) Σ_{i<j} d(ϕ(S^{tᵢ}), ϕ(S^{tⱼ})).

    ``normalization``: ``"pairs"`` (N = C(|T|, 2), default), ``"groups"`` (|T|),
    ``"none"`` (1) or a number.
    """
    return _metric("pcm", y_true, y_pred, group, score=score, comparison=comparison,
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
    """Background comparison metric: (1/N) Σ_t d(ϕ(Sᵗ), ϕ(β_t)).

    ``background``: ``"all"`` (β = S) or ``"rest"`` (β = S ∖ Sᵗ); ``normalization``:
    ``"groups"`` (N = |T|, default), ``"none"``, ``"pairs"`` or a number. The per-group
    terms (the VBCM) are in the result's table and ``.vector()``.
    """
    return _metric("bcm", y_true, y_pred, group, score=score, comparison=comparison,
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
    """Vector-valued BCM: the per-group terms d(ϕ(Sᵗ), ϕ(β_t)), not summed (``.vector()``).
    """
    return _metric("vbcm", y_true, y_pred, group, score=score, comparison=comparison,
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
    """Multi-group comparison metric: d(ϕ(S^{t₁}), …, ϕ(S^{tₖ})), k = |T|, d = ``std``/``range``.

    ``std`` is the population standard deviation (ddof = 0).
    """
    return _metric("mcm", y_true, y_pred, group, score=score, comparison=comparison,
                   normalization="none", background=None, probs=probs, source=source,
                   positive=positive, classes=classes, groups=groups, name=name)


for _f in (pcm, bcm, vbcm, mcm):
    _f.__doc__ = (_f.__doc__ or "") + _DOC_DATA + """
    Returns
    -------
    FairnessResult
    """


# --------------------------------------------------------------------------------------
# named metrics (Czarnowska et al. 2021, Table 2)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSpec:
    """A named parametrisation of a generalized metric."""

    kind: MetricKind
    score: str
    comparison: str
    normalization: str = "none"
    background: str | None = None
    counterfactual: bool = False
    two_groups: bool = False
    description: str = ""


PRESETS: Mapping[str, MetricSpec] = {
    # group metrics
    "fped": MetricSpec("bcm", "fpr", "abs_diff", "none", "all",
                       description="① False Positive Equality Difference (Dixon et al. 2018)"),
    "fned": MetricSpec("bcm", "fnr", "abs_diff", "none", "all",
                       description="② False Negative Equality Difference (Dixon et al. 2018)"),
    "fixed_fped": MetricSpec("bcm", "fpr", "abs_diff", "groups", "all",
                             description="FPED normalised by |T| (Czarnowska et al.)"),
    "fixed_fned": MetricSpec("bcm", "fnr", "abs_diff", "groups", "all",
                             description="FNED normalised by |T| (Czarnowska et al.)"),
    "avg_group_fairness": MetricSpec("bcm", "prob", "wasserstein", "groups", "all",
                                     description="③ Average Group Fairness (Huang et al. 2020)"),
    "fpr_ratio": MetricSpec("vbcm", "fpr", "ratio", "none", "rest",
                            description="④ FPR Ratio, group / rest (Beutel et al. 2019)"),
    "fnr_ratio": MetricSpec("vbcm", "fnr", "ratio", "none", "rest",
                            description="FNR Ratio, group / rest (FNR version of ④)"),
    "pos_avg_eg": MetricSpec("vbcm", "prob_positives", "aeg", "none", "rest",
                             description="⑤ Positive Average Equality Gap (Borkan et al. 2019)"),
    "neg_avg_eg": MetricSpec("vbcm", "prob_negatives", "aeg", "none", "rest",
                             description="⑥ Negative Average Equality Gap (Borkan et al. 2019)"),
    "disparity_score": MetricSpec("pcm", "f1", "abs_diff", "groups",
                                  description="⑦ Disparity Score, N = |T| as published "
                                              "(Gaut et al. 2020)"),
    "fixed_disparity_score": MetricSpec("pcm", "f1", "abs_diff", "pairs",
                                        description="Disparity Score normalised by the pairs"),
    "tpr_gap": MetricSpec("pcm", "tpr", "abs_diff", "pairs",
                          description="⑧ TPR Gap (Prost et al. 2019)"),
    "tnr_gap": MetricSpec("pcm", "tnr", "abs_diff", "pairs",
                          description="⑨ TNR Gap (Prost et al. 2019)"),
    "parity_gap": MetricSpec("pcm", "positive_rate", "abs_diff", "pairs",
                             description="⑩ Parity Gap: positive-prediction rates"),
    "accuracy_difference": MetricSpec("pcm", "accuracy", "diff", "none", two_groups=True,
                                      description="⑪ Accuracy Difference (two groups)"),
    "tpr_difference": MetricSpec("pcm", "tpr", "diff", "none", two_groups=True,
                                 description="⑫/⑮ TPR (recall) Difference (two groups)"),
    "f1_difference": MetricSpec("pcm", "f1", "diff", "none", two_groups=True,
                                description="⑬ F1 Difference (two groups)"),
    "f1_ratio": MetricSpec("pcm", "f1", "ratio", "none", two_groups=True,
                           description="⑯ F1 Ratio ϕ(t₁)/ϕ(t₂) (two groups)"),
    # counterfactual metrics (templated data: BCMs against the original become PCMs)
    "cf_gap": MetricSpec("pcm", "prob", "abs_diff", "pairs", counterfactual=True,
                         description="⑰ Counterfactual Token Fairness Gap (Garg et al. 2019)"),
    "pert_score_sensitivity": MetricSpec("pcm", "prob_target", "abs_diff", "pairs",
                                         counterfactual=True,
                                         description="⑱ Perturbation Score Sensitivity "
                                                     "(Prabhakaran et al. 2019)"),
    "pert_score_deviation": MetricSpec("mcm", "prob_target", "std", counterfactual=True,
                                       description="⑲ Perturbation Score Deviation"),
    "pert_score_range": MetricSpec("mcm", "prob_target", "range", counterfactual=True,
                                   description="⑳ Perturbation Score Range"),
    "avg_individual_fairness": MetricSpec("pcm", "prob", "wasserstein", "pairs",
                                          counterfactual=True,
                                          description="㉑ Average Individual Fairness "
                                                      "(Huang et al. 2020)"),
    "avg_score_difference": MetricSpec("pcm", "prob", "diff", "none", counterfactual=True,
                                       two_groups=True,
                                       description="㉒ Average Score Difference (two groups)"),
}


def fairness_metric(
    name: str,
    y_true: Any,
    y_pred: Any,
    group: Any,
    *,
    probs: Any = None,
    source: Any = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
) -> FairnessResult:
    """Compute a named metric of Czarnowska et al. (2021, Table 2); see :data:`PRESETS`.

    Counterfactual metrics (``cf_gap``, ``pert_score_*``, ``avg_individual_fairness``,
    ``avg_score_difference``) need ``source``; group metrics refuse it. Other arguments as
    in :func:`pcm`.
    """
    if name not in PRESETS:
        raise ValueError(f"unknown metric {name!r}; presets: {sorted(PRESETS)}")
    spec = PRESETS[name]
    if spec.counterfactual and source is None:
        raise ValueError(f"{name!r} is a counterfactual metric: pass source= (the source "
                         "example or template of each row)")
    if not spec.counterfactual and source is not None:
        raise ValueError(f"{name!r} is a group metric; source= is not used by it")
    data_groups = groups if groups is not None else _sorted_unique(np.asarray(group, object))
    if spec.two_groups and len(data_groups) != 2:
        raise ValueError(f"{name!r} compares exactly two groups, got {len(data_groups)}: "
                         f"{list(data_groups)}")
    return _metric(spec.kind, y_true, y_pred, group, score=spec.score,
                   comparison=spec.comparison, normalization=spec.normalization,
                   background=spec.background, probs=probs, source=source, positive=positive,
                   classes=classes, groups=groups, name=name)


# --------------------------------------------------------------------------------------
# significance tests for templated data
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignificanceResult:
    """A paired test of equal scores across groups over templates.

    ``scores`` holds the per-template mean score of each group (rows: sources).
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

    Raises
    ------
    ValueError
        Fewer than two groups or sources, a template without some group, or all paired
        differences zero (the Wilcoxon test is undefined).
    """
    v = np.asarray(values, dtype=float)
    g = np.asarray(group, dtype=object)
    s = np.asarray(source, dtype=object)
    if not (v.ndim == g.ndim == s.ndim == 1 and v.size == g.size == s.size):
        raise ValueError(f"values, group and source must be one-dimensional and of equal "
                         f"length, got {v.shape}, {g.shape}, {s.shape}")
    if np.isnan(v).any():
        raise ValueError("values contain NaN")
    grp = tuple(_sorted_unique(g)) if groups is None else tuple(groups)
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
