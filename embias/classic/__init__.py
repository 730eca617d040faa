"""The classic pre-averaged scores, done right: WEAT and MAC.

WEAT is the test of Caliskan et al. (2017), MAC the score of Manzini et al. (2019).

Both are reported next to the Bayesian intervals so users can see where the
pre-averaged numbers claim more than the data support.

WEAT answers two questions, with two tools:

* **Could the X/Y labels be arbitrary?** The permutation test re-partitions the same
  target words (exact enumeration when feasible, else seeded Monte Carlo without
  replacement within a partition) and gives the p-value. It conditions on the words used:
  it says nothing about other words.
* **Would other words from the same populations give a similar effect?** The two-way
  (crossed) item bootstrap (:func:`weat_item_bootstrap`) resamples X, Y, A and B, each
  with replacement, recomputes s(w, A*, B*) and the effect size, and reports the central
  ``ci_prob`` (default 0.89) percentile interval. Target *and* attribute words are
  samples; an interval that holds the attribute lists fixed is too narrow (on GloVe's
  weat7 the bootstrap sd of d is 0.62 with attributes resampled, 0.13 without). The
  percentile interval is preferred to the basic and bias-corrected ones because it
  covered best in the simulations of :func:`embias.simulate.simulate_weat_bootstrap_coverage`
  and stays inside WEAT's bounded range; BCa's acceleration needs a jackknife, which has no
  single form for a crossed design. Its known weakness is measured there too: with short
  attribute lists the effect size itself is attenuated and the interval undercovers on the
  low side.

The package, one module per idea (every name is also importable from ``embias.classic``):

- :mod:`~embias.classic.numerics` — association scores, the effect size, the permutation
  null and its p-value;
- :mod:`~embias.classic.item_bootstrap` — the two-way item bootstrap;
- :mod:`~embias.classic.permutation_test` — :func:`weat` on embeddings, Caliskan's tests
  and every pair of classes of a study;
- :mod:`~embias.classic.mac_scores` — MAC and its paired t-test;
- :mod:`~embias.classic.overview` — Caliskan's ten tests, the classic scores of a table and
  their changes across embeddings.
"""

# Names imported ``X as X`` are importable from here, as from the module embias.classic
# was, but not in __all__.
from .item_bootstrap import (
    DEFAULT_N_BOOT,
    ITEM_BOOTSTRAP_CI_KIND,
    RESAMPLE_OPTIONS,
    WeatBootstrap,
    bootstrap_counts,
    weat_item_bootstrap,
)
from .item_bootstrap import DEGENERATE_SD as DEGENERATE_SD
from .item_bootstrap import MAX_DRAWS_PER_REPLICATE as MAX_DRAWS_PER_REPLICATE
from .mac_scores import MacResult, check_mac_roles, mac, mac_ttest
from .numerics import ATTRIBUTE_WHY as ATTRIBUTE_WHY
from .numerics import DEFAULT_MC_PERMUTATIONS as DEFAULT_MC_PERMUTATIONS
from .numerics import MAX_EXACT_PARTITIONS as MAX_EXACT_PARTITIONS
from .numerics import ONE_WORD_WHY as ONE_WORD_WHY
from .numerics import (
    PermutationTest,
    association_scores,
    partition_sums,
    permutation_p_value,
    weat_effect_size,
    weat_permutation_test,
)
from .overview import CALISKAN_840B as CALISKAN_840B
from .overview import (
    CLASSIC_CI_PROB,
    classic_changes,
    classic_scores,
    weat_overview,
)
from .permutation_test import Alternative as Alternative
from .permutation_test import (
    WeatResult,
    check_weat_roles,
    weat,
    weat_pairs,
    weat_test,
)

__all__ = [
    "CLASSIC_CI_PROB",
    "DEFAULT_N_BOOT",
    "ITEM_BOOTSTRAP_CI_KIND",
    "RESAMPLE_OPTIONS",
    "MacResult",
    "PermutationTest",
    "WeatBootstrap",
    "WeatResult",
    "association_scores",
    "bootstrap_counts",
    "check_mac_roles",
    "check_weat_roles",
    "classic_changes",
    "classic_scores",
    "mac",
    "mac_ttest",
    "partition_sums",
    "permutation_p_value",
    "weat",
    "weat_effect_size",
    "weat_item_bootstrap",
    "weat_overview",
    "weat_pairs",
    "weat_permutation_test",
    "weat_test",
]
