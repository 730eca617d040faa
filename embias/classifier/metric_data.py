"""The examples a generalized fairness metric reads, checked.

The metrics of :mod:`embias.classifier.generalized` read labels, probabilities, groups and
sources as aligned arrays (``prepare_data``), the classes evaluated and the normalization.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from embias._validation import check_number
from embias.classifier.metric_terms import SCORES, Score, make_prob_target

__all__ = ["MetricData", "check_normalization", "evaluated_classes", "prepare_data",
           "resolve_score", "sorted_unique"]


@dataclass(frozen=True)
class MetricData:
    """The checked examples of one metric (only the groups compared).

    Attributes
    ----------
    y_true, y_pred, probs, source
        The aligned arrays (None when not given); ``probs`` has one column per class.
    group
        The group of each example.
    classes
        The classes, in the order of the columns of ``probs``.
    groups
        The groups compared, in order.
    """

    y_true: np.ndarray | None
    y_pred: np.ndarray | None
    probs: np.ndarray | None
    group: np.ndarray
    source: np.ndarray | None
    classes: tuple[Any, ...]
    groups: tuple[Any, ...]


def sorted_unique(values: np.ndarray) -> list[Any]:
    """Return the distinct values, sorted when they can be (else in order of appearance).

    Parameters
    ----------
    values
        A one-dimensional array (labels of any type).

    Returns
    -------
    list

    Examples
    --------
    >>> import numpy as np
    >>> from embias.classifier.metric_data import sorted_unique
    >>> sorted_unique(np.array(["b", "a", "b"], dtype=object))
    ['a', 'b']
    >>> sorted_unique(np.array([2, "a", 2], dtype=object))  # no order between 2 and "a"
    [2, 'a']
    """
    uniq = list(pd.unique(pd.Series(values, dtype=object)))
    try:
        return sorted(uniq)
    except TypeError:
        return uniq


def prepare_data(
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
) -> MetricData:
    """Return the examples of one metric, checked.

    One group label per example, the arrays ``needs`` names given and aligned with it,
    probabilities in [0, 1] with a column per class, labels among the classes, at least
    two groups. Examples of groups not compared are dropped.

    Parameters
    ----------
    y_true, y_pred, group
        Gold labels, predicted labels and the group of each example.
    probs, source, classes, groups
        As for :func:`embias.classifier.pcm`.
    needs
        The arrays the score needs (``"y_true"``, ``"y_pred"``, ``"probs"``).
    score
        Name of the score, for the messages.

    Returns
    -------
    MetricData

    Raises
    ------
    ValueError
        A missing or misaligned array, missing values, probabilities outside [0, 1],
        labels outside ``classes``, or fewer than two groups; the message names it.

    Examples
    --------
    The example of group "c" is dropped, as only "a" and "b" are compared:

    >>> from embias.classifier.metric_data import prepare_data
    >>> data = prepare_data([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], ["a", "a", "b", "b", "c"],
    ...                     probs=None, source=None, classes=None, groups=["a", "b"],
    ...                     needs=("y_true", "y_pred"), score="fpr")
    >>> data.classes, data.groups, data.y_true.tolist()
    ((0, 1), ('a', 'b'), [0, 1, 1, 0])
    >>> prepare_data(None, [0, 1], ["a", "b"], probs=None, source=None, classes=None,
    ...              groups=None, needs=("y_true", "y_pred"), score="fpr")
    Traceback (most recent call last):
    ...
    ValueError: score 'fpr' needs y_true; got y_true=None
    """
    g = np.asarray(group, dtype=object) if group is not None else None
    if g is None or g.ndim != 1 or g.size == 0:
        raise ValueError("group must be a non-empty one-dimensional array of group labels")
    if pd.isna(pd.Series(g)).any():
        raise ValueError("group contains missing values; every example needs a group label")
    n = g.size
    yt = _checked_vector("y_true", y_true, n, needs=needs, score=score)
    yp = _checked_vector("y_pred", y_pred, n, needs=needs, score=score)
    src = _checked_vector("source", source, n, needs=needs, score=score)
    pr = _checked_probs(probs, n, needs=needs, score=score)
    labels: set[Any] = set()
    for arr in (yt, yp):
        if arr is not None:
            labels |= set(pd.unique(pd.Series(arr, dtype=object)))
    cls = _classes(labels, classes, pr)
    grp = _compared_groups(g, groups)
    keep = np.isin(g, np.array(grp, dtype=object))

    def sub(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[keep]

    return MetricData(sub(yt), sub(yp), sub(pr), g[keep], sub(src), cls, grp)


def _checked_vector(name: str, value: Any, n: int, *, needs: Sequence[str],
                    score: str) -> np.ndarray | None:
    """Return one value per example, checked (None when not given and not needed)."""
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


def _checked_probs(probs: Any, n: int, *, needs: Sequence[str],
                   score: str) -> np.ndarray | None:
    """Return class probabilities in [0, 1], (n, n_classes); (n,) is P(class 1) of a binary task."""
    if probs is None:
        if "probs" in needs:
            raise ValueError(f"score {score!r} needs probs (class probabilities); got "
                             "probs=None")
        return None
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
    return pr


def _classes(labels: set[Any], classes: Sequence[Any] | None,
             pr: np.ndarray | None) -> tuple[Any, ...]:
    """Return the classes in order.

    Those given (holding every label), those of the probability columns, or the sorted
    labels.
    """
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
            cls = tuple(sorted_unique(np.array(list(labels), dtype=object)))
        else:
            raise ValueError(f"probs has {k} columns but the labels are {sorted(map(str, labels))}"
                             "; pass classes= (the class of each probs column, in order)")
    else:
        cls = tuple(sorted_unique(np.array(list(labels), dtype=object)))
    if pr is not None and pr.shape[1] != len(cls):
        raise ValueError(f"probs has {pr.shape[1]} columns but there are {len(cls)} classes")
    return cls


def _compared_groups(g: np.ndarray, groups: Sequence[Any] | None) -> tuple[Any, ...]:
    """Return the groups compared, in order.

    Those given (each with examples), else the sorted labels; at least two.
    """
    present = sorted_unique(g)
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
    return grp


def check_normalization(normalization: Any, n_groups: int) -> float:
    """Return the normalization N of a metric as a number.

    Parameters
    ----------
    normalization
        ``"none"`` (1), ``"groups"`` (|T|), ``"pairs"`` (C(|T|, 2)) or a positive number.
    n_groups
        |T|, the number of groups compared.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Another string, or a number that is not positive.

    Examples
    --------
    >>> from embias.classifier.metric_data import check_normalization
    >>> check_normalization("pairs", 4), check_normalization("groups", 4)
    (6.0, 4.0)
    >>> check_normalization("all", 4)
    Traceback (most recent call last):
    ...
    ValueError: normalization must be one of ['groups', 'none', 'pairs'] or a positive ...
    """
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


def resolve_score(score: str, data_classes: tuple[Any, ...]) -> Score:
    """Return the score ϕ named ``score``, bound to the data's classes when it needs them.

    Parameters
    ----------
    score
        A key of :data:`~embias.classifier.SCORES`.
    data_classes
        The classes of the data, in order (``"prob_target"`` reads the probability of each
        example's gold class from its column).

    Returns
    -------
    Score

    Raises
    ------
    ValueError
        An unknown score.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.classifier.metric_data import resolve_score
    >>> resolve_score("fpr", (0, 1)).needs
    ('y_true', 'y_pred')
    >>> gold_prob = resolve_score("prob_target", ("neg", "pos"))
    >>> gold_prob.fn(np.array(["pos", "neg"]), None, np.array([[0.2, 0.8], [0.7, 0.3]]),
    ...              -1, "all").tolist()
    [0.8, 0.7]
    """
    if score not in SCORES:
        raise ValueError(f"score={score!r} is not one of {sorted(SCORES)}")
    s = SCORES[score]
    if s.name == "prob_target":
        return Score(s.name, s.needs, s.per_class, s.kind, make_prob_target(data_classes),
                      s.description)
    return s


def evaluated_classes(data: MetricData, score: Score, positive: Any) -> list[Any]:
    """Return the classes a metric is evaluated for, one against the rest.

    ``["all"]`` for a score that does not depend on a class; otherwise ``positive``, or by
    default the second class of a binary task and every class of a multiclass one.

    Parameters
    ----------
    data
        The checked examples (:func:`prepare_data`).
    score
        The score ϕ (:func:`resolve_score`).
    positive
        A class, a list of classes, or None.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        ``positive`` given for a score without classes, or naming an unknown class.

    Examples
    --------
    >>> from embias.classifier.metric_data import evaluated_classes, prepare_data, resolve_score
    >>> data = prepare_data([0, 1, 1, 0], [0, 1, 0, 0], ["a", "a", "b", "b"], probs=None,
    ...                     source=None, classes=None, groups=None,
    ...                     needs=("y_true", "y_pred"), score="fpr")
    >>> evaluated_classes(data, resolve_score("fpr", data.classes), None)
    [1]
    >>> evaluated_classes(data, resolve_score("accuracy", data.classes), None)
    ['all']
    """
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

