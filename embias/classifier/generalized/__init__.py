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

The package, one module per idea (every name is also importable from
``embias.classifier.generalized``):

- :mod:`~embias.classifier.generalized.metrics` — the metrics :func:`pcm`, :func:`bcm`,
  :func:`vbcm`, :func:`mcm` and the function they share (``generalized_metric``);
- :mod:`~embias.classifier.generalized.evaluation` — the metrics' terms on one set of
  examples, and their average over sources (``MetricKind``);
- :mod:`~embias.classifier.generalized.result` — :class:`FairnessResult` and its tables.

Around them: :mod:`~embias.classifier.metric_terms` (the scores ϕ and comparisons d,
:data:`SCORES` and :data:`COMPARISONS`), :mod:`~embias.classifier.metric_data` (the
examples, checked), :mod:`~embias.classifier.presets` (the named metrics of Czarnowska et
al.) and :mod:`~embias.classifier.significance` (tests on templated data).
"""

from typing import Any

from embias._deprecation import moved_names
from embias.classifier.generalized.evaluation import MetricKind
from embias.classifier.generalized.metrics import bcm, generalized_metric, mcm, pcm, vbcm
from embias.classifier.generalized.result import FairnessResult
from embias.classifier.metric_terms import COMPARISONS, SCORES

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

# The named metrics and the significance tests have modules of their own: still served
# from here for one release, with a DeprecationWarning naming the new home.
__getattr__: Any = moved_names(__name__, {
    "MetricSpec": "embias.classifier.presets",
    "PRESETS": "embias.classifier.presets",
    "fairness_metric": "embias.classifier.presets",
    "SignificanceResult": "embias.classifier.significance",
    "template_significance": "embias.classifier.significance",
})
