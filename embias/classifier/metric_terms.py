"""The two ingredients of the generalized fairness metrics: scores ϕ and comparisons d.

The metrics are those of :mod:`embias.classifier.generalized`; the scores ϕ are computed
on a set of examples (``SCORES``: error rates, F1, positive rate, and sets of class
probabilities) and the comparisons d compare two or more scores (``COMPARISONS``:
differences, ratios, the Wasserstein distance, the average equality gap, std and range).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import stats

__all__ = ["COMPARISONS", "SCORES", "Comparison", "Score", "UndefinedScore",
           "make_prob_target"]


class UndefinedScore(Exception):
    """A score that has no value on a subset (e.g. FPR without negatives)."""





@dataclass(frozen=True)
class Score:
    """A score ϕ: what it needs, whether it is per class, scalar or a set."""

    name: str
    needs: tuple[str, ...]
    per_class: bool
    kind: Literal["scalar", "set"]
    fn: Callable[[np.ndarray | None, np.ndarray | None, np.ndarray | None, int, Any],
                 float | np.ndarray]
    description: str


def _rate(mask: np.ndarray, hits: np.ndarray, what: str) -> float:
    if not mask.any():
        raise UndefinedScore(f"no {what}")
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
        raise UndefinedScore("no positives and no positive predictions (F1 = 0/0)")
    return 2 * tp / (2 * tp + fp + fn)


def _positive_rate(yt, yp, pr, k, c):
    return _rate(np.ones(yp.shape, bool), yp == c, "examples")


def _prob_set(mask: np.ndarray, values: np.ndarray, what: str) -> np.ndarray:
    if not mask.any():
        raise UndefinedScore(f"no {what}")
    return values[mask]


def _prob(yt, yp, pr, k, c):
    return _prob_set(np.ones(pr.shape[0], bool), pr[:, k], "examples")


def _prob_positives(yt, yp, pr, k, c):
    return _prob_set(yt == c, pr[:, k], "positives (y_true = class)")


def _prob_negatives(yt, yp, pr, k, c):
    return _prob_set(yt != c, pr[:, k], "negatives (y_true ≠ class)")


def make_prob_target(classes: Sequence[Any]) -> Callable[..., np.ndarray]:
    """Return the score ϕ = the probability of each example's gold class, for this class order.

    Parameters
    ----------
    classes
        The classes, in the order of the probability columns.

    Returns
    -------
    callable
        ``fn(y_true, y_pred, probs, k, c)`` → the gold class's probability of each
        example (``y_pred``, ``k`` and ``c`` are unused).

    Examples
    --------
    >>> import numpy as np
    >>> from embias.classifier.metric_terms import make_prob_target
    >>> gold_prob = make_prob_target(["neg", "pos"])
    >>> gold_prob(np.array(["pos", "neg"]), None, np.array([[0.2, 0.8], [0.7, 0.3]]), 0,
    ...           "all").tolist()
    [0.8, 0.7]
    """
    index = {c: i for i, c in enumerate(classes)}

    def fn(yt, yp, pr, k, c):
        if yt.size == 0:
            raise UndefinedScore("no examples")
        cols = np.array([index[v] for v in yt])
        return pr[np.arange(yt.size), cols]

    return fn


SCORES: Mapping[str, Score] = {
    s.name: s
    for s in (
        Score("fpr", ("y_true", "y_pred"), True, "scalar", _fpr, "false positive rate"),
        Score("fnr", ("y_true", "y_pred"), True, "scalar", _fnr, "false negative rate"),
        Score("tpr", ("y_true", "y_pred"), True, "scalar", _tpr, "true positive rate (recall)"),
        Score("tnr", ("y_true", "y_pred"), True, "scalar", _tnr, "true negative rate"),
        Score("accuracy", ("y_true", "y_pred"), False, "scalar", _accuracy,
               "accuracy over all classes"),
        Score("f1", ("y_true", "y_pred"), True, "scalar", _f1, "F1 of the class"),
        Score("positive_rate", ("y_pred",), True, "scalar", _positive_rate,
               "share predicted as the class"),
        Score("prob", ("probs",), True, "set", _prob, "{f(x, c) | x ∈ A}"),
        Score("prob_positives", ("y_true", "probs"), True, "set", _prob_positives,
               "{f(x, c) | x ∈ A, y(x) = c}"),
        Score("prob_negatives", ("y_true", "probs"), True, "set", _prob_negatives,
               "{f(x, c) | x ∈ A, y(x) ≠ c}"),
        # needs the class order of the data: the function is bound in resolve_score()
        Score("prob_target", ("y_true", "probs"), False, "set", make_prob_target(()),
               "{f(x, y(x)) | x ∈ A}: probability of the gold class"),
    )
}




def _ratio(target: float, reference: float) -> float:
    if reference == 0:
        raise UndefinedScore(f"ratio with a reference score of 0 (target score {target!r})")
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
class Comparison:
    """A comparison d: of two scores or of all groups', of numbers or of sets."""

    name: str
    arity: Literal["pair", "multi"]
    takes: Literal["scalar", "set"]
    fn: Callable[..., float]
    description: str


COMPARISONS: Mapping[str, Comparison] = {
    c.name: c
    for c in (
        Comparison("abs_diff", "pair", "scalar", lambda t, r: abs(t - r), "|x − y|"),
        Comparison("diff", "pair", "scalar", lambda t, r: t - r, "x − y (target − reference)"),
        Comparison("ratio", "pair", "scalar", _ratio, "x / y (target / reference)"),
        Comparison("wasserstein", "pair", "set",
                    lambda t, r: float(stats.wasserstein_distance(t, r)),
                    "Wasserstein-1 distance between the two score sets"),
        Comparison("aeg", "pair", "set", _aeg,
                    "average equality gap ½ − U/(n₁n₂) (Mann–Whitney U)"),
        Comparison("std", "multi", "scalar", lambda v: float(np.std(v)),
                    "population standard deviation of the group scores"),
        Comparison("range", "multi", "scalar", lambda v: float(np.max(v) - np.min(v)),
                    "max − min of the group scores"),
    )
}

