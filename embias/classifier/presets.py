"""The named metrics of Czarnowska et al. (2021, Table 2) as generalized metrics.

Each is a parametrisation of a generalized metric (``PRESETS``,
:func:`~embias.classifier.fairness_metric`): FPED, FNED, FPR Ratio, the average equality
gaps, the disparity score, TPR/TNR and parity gaps, and the counterfactual metrics of
templated data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from embias.classifier.generalized import FairnessResult, MetricKind, generalized_metric
from embias.classifier.metric_data import sorted_unique

__all__ = ["PRESETS", "MetricSpec", "fairness_metric"]


@dataclass(frozen=True)
class MetricSpec:
    """A named parametrisation of a generalized metric.

    Attributes
    ----------
    kind
        ``"pcm"``, ``"bcm"``, ``"vbcm"`` or ``"mcm"``.
    score, comparison, normalization, background
        The arguments of the metric (:func:`~embias.classifier.pcm` …).
    counterfactual
        Whether the metric needs ``source`` (templated data).
    two_groups
        Whether it compares exactly two groups.
    description
        What the metric is, and where it was published.
    """

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
    ``avg_score_difference``) need ``source``; group metrics refuse it.

    Parameters
    ----------
    name
        A key of :data:`PRESETS` (``"fped"``, ``"fned"``, ``"fpr_ratio"``, ``"cf_gap"`` …).
    y_true, y_pred, group, probs, source, positive, classes, groups
        As for :func:`~embias.classifier.pcm`.

    Returns
    -------
    FairnessResult

    Raises
    ------
    ValueError
        An unknown name, ``source`` missing for a counterfactual metric or given to a
        group metric, a two-group metric on another number of groups, or what
        :func:`~embias.classifier.pcm` refuses.

    Examples
    --------
    FPED sums |FPR_t − FPR| over the groups: FPR is 0.5 in group "a", 0 in "b" and 0.25
    over all, so FPED = 0.25 + 0.25 = 0.5:

    >>> from embias.classifier import fairness_metric
    >>> y_true = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> y_pred = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> group = ["a"] * 4 + ["b"] * 4
    >>> fairness_metric("fped", y_true, y_pred, group).value()
    0.5

    The counterfactual token fairness gap averages |P(a) − P(b)| over the templates:
    (|0.9 − 0.7| + |0.6 − 0.6|)/2 = 0.1:

    >>> result = fairness_metric("cf_gap", None, None, ["a", "b", "a", "b"],
    ...                          probs=[0.9, 0.7, 0.6, 0.6], source=["s1", "s1", "s2", "s2"])
    >>> round(result.value(), 3), result.n_sources
    (0.1, 2)
    >>> fairness_metric("cf_gap", y_true, y_pred, group)
    Traceback (most recent call last):
    ...
    ValueError: 'cf_gap' is a counterfactual metric: pass source= (the source example or ...
    """
    if name not in PRESETS:
        raise ValueError(f"unknown metric {name!r}; presets: {sorted(PRESETS)}")
    spec = PRESETS[name]
    if spec.counterfactual and source is None:
        raise ValueError(f"{name!r} is a counterfactual metric: pass source= (the source "
                         "example or template of each row)")
    if not spec.counterfactual and source is not None:
        raise ValueError(f"{name!r} is a group metric; source= is not used by it")
    data_groups = groups if groups is not None else sorted_unique(np.asarray(group, object))
    if spec.two_groups and len(data_groups) != 2:
        raise ValueError(f"{name!r} compares exactly two groups, got {len(data_groups)}: "
                         f"{list(data_groups)}")
    return generalized_metric(spec.kind, y_true, y_pred, group, score=spec.score,
                   comparison=spec.comparison, normalization=spec.normalization,
                   background=spec.background, probs=probs, source=source, positive=positive,
                   classes=classes, groups=groups, name=name)

