"""Pre-averaging simulations: how large a WEAT effect size pure noise produces.

Dobrzeniecka & Urbaniak ("Taking uncertainty seriously", slides "The problem with
pre-averaging") draw every raw cosine similarity of a WEAT design from a normal
distribution and show that the WEAT effect size of such pure-noise data is often
"large". This module redoes those simulations, vectorised, in two versions:

``numerator="mean"`` (default, the WEAT of Caliskan et al. 2017)
    (mean_X s − mean_Y s) / sd_{X∪Y}(s), computed with
    :func:`embias.classic.weat_effect_size`.
``numerator="first-word"`` (the published figures)
    (s(x₁) − s(y₁)) / sd_{X∪Y}(s). The authors' R code wrote the numerator as
    ``mean(s1, s2, …, s8) - mean(s9, …, s16)``; R's ``mean()`` averages only its first
    argument (the rest go to ``...`` and are ignored), so the published numerator was
    s(t₁) − s(t₉): one word per group. The denominator (the sd of all 16 s values) was
    right. This variant reproduces the slides' figures exactly — null 95% range
    (−2.76, 2.70) and 21.4% of |WEAT| ≥ 1.81 — whereas the correct WEAT's null range
    is about (−0.96, 0.96) and it never reaches 1.81 with 8 words per group.

What survives the correction, and is shown here:

* Under the null (all similarities i.i.d. normal) the s values are i.i.d. normal and
  WEAT is scale-free, so its chance distribution depends only on the number of
  protected words per group — not on the raw sd, not on the attribute-list length.
  It is an exact monotone transform of Student's t with 2n − 2 degrees of freedom
  (:func:`exact_weat_distribution`): with two words per group |WEAT| ≥ 1.5 happens
  13% of the time by chance.
* WEAT is bounded: |WEAT| ≤ √(2(2n − 1)/n) with the sample sd (√2 for one word per
  group, √3 ≈ 1.73 for two, 1.94 for eight), so "1.81, the largest effect Caliskan et
  al. report" is close to the ceiling, and a tiny cosine difference that is consistent
  across words already gives a WEAT near that ceiling (association 0.1 → WEAT ≈ 1.8).
  WEAT measures separation relative to the spread of the pre-averaged s values, not
  the size of the difference in cosine similarity.
* Pre-averaging hides the raw variation: the sd of the per-(word, attribute set) mean
  similarities is the raw sd divided by √(attribute-list length).

:func:`simulate_weat_bootstrap_coverage` checks the other side: how often WEAT's
item-bootstrap interval (:func:`embias.classic.weat_item_bootstrap`) contains the
population effect size when target and attribute words are drawn from populations of
word vectors (:func:`vector_model_effect_size` gives that population value), against the
naive interval that holds the attribute lists fixed.

The package, one module per idea (every name is also importable from ``embias.simulate``):

- :mod:`~embias.simulate.design` — the numerators, design checks and the ceiling of |WEAT|;
- :mod:`~embias.simulate.noise` — the simulations, their grid and their summary table;
- :mod:`~embias.simulate.exact` — the exact distribution of the effect size;
- :mod:`~embias.simulate.cosine_tables` — one simulated data set as a cosine table;
- :mod:`~embias.simulate.coverage` — coverage of the item-bootstrap interval.
"""

# Names imported ``X as X`` are importable from here, as from the module embias.simulate
# was, but not in __all__ (``_vector_model_study``: for benchmarks/bench_weat_population.py,
# until it imports embias.simulate.coverage.vector_model_study).
from .cosine_tables import largest_weat_index, simulated_cosine_table
from .coverage import (
    BOOTSTRAP_COVERAGE_DESIGNS,
    SeededEstimate,
    simulate_weat_bootstrap_coverage,
    vector_model_effect_size,
)
from .coverage import vector_model_study as _vector_model_study  # noqa: F401
from .design import CALISKAN_LARGEST_EFFECT, NUMERATORS, max_abs_weat
from .design import Numerator as Numerator
from .exact import WeatDistribution, exact_weat_distribution
from .noise import (
    PUBLISHED_FIGURES,
    WeatSimulation,
    WeatSimulationGrid,
    simulate_weat,
    simulate_weat_grid,
    summarize_simulations,
)
from .noise import SIMULATION_CI_KIND as SIMULATION_CI_KIND

__all__ = [
    "BOOTSTRAP_COVERAGE_DESIGNS",
    "CALISKAN_LARGEST_EFFECT",
    "NUMERATORS",
    "PUBLISHED_FIGURES",
    "SeededEstimate",
    "WeatDistribution",
    "WeatSimulation",
    "WeatSimulationGrid",
    "exact_weat_distribution",
    "largest_weat_index",
    "max_abs_weat",
    "simulate_weat",
    "simulate_weat_bootstrap_coverage",
    "simulate_weat_grid",
    "simulated_cosine_table",
    "summarize_simulations",
    "vector_model_effect_size",
]
