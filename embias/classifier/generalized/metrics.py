"""The generalized fairness metrics PCM, BCM, VBCM and MCM, and the function they share.

``generalized_metric`` checks the choice of score, comparison, normalization and
background, prepares the examples and evaluates the metric (per source, averaged, for the
counterfactual version); :func:`pcm`, :func:`bcm`, :func:`vbcm` and :func:`mcm` call it
with each metric's defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from embias.classifier.generalized.evaluation import MetricKind, average, evaluate
from embias.classifier.generalized.result import FairnessResult, build_result
from embias.classifier.metric_data import (
    check_normalization,
    evaluated_classes,
    prepare_data,
    resolve_score,
    sorted_unique,
)
from embias.classifier.metric_terms import COMPARISONS, SCORES


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
        evaluated = evaluate(data, all_rows, where="", **kwargs)  # type: ignore[arg-type]
        n_sources = None
    else:
        per_source = []
        for s in sorted_unique(data.source):
            rows = all_rows[data.source == s]
            per_source.append(evaluate(data, rows, where=f" in source {s!r}",
                                        **kwargs))  # type: ignore[arg-type]
        evaluated = average(per_source)
        n_sources = len(per_source)
    return build_result(name, kind, data, evaluated, score=sc, comparison=comp, norm=norm,
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
