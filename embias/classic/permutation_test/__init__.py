"""WEAT on embeddings (Caliskan et al. 2017).

The effect size, its permutation test and its item-bootstrap interval (:func:`weat`,
:class:`WeatResult`), one of Caliskan's tests or a two-class study (:func:`weat_test`),
every pair of classes of a study (:func:`weat_pairs`).

The permutation test answers "could the X/Y labels be arbitrary?": it re-partitions the
same target words (exact enumeration when feasible, else seeded Monte Carlo without
replacement within a partition). It conditions on the words used: it says nothing about
other words, which is the item bootstrap's question (:mod:`embias.classic.item_bootstrap`).
The statistic, the effect size and the permutation null themselves are in
:mod:`embias.classic.numerics`.

The package, one module per idea (every name is also importable from
``embias.classic.permutation_test``):

- :mod:`~embias.classic.permutation_test.on_embeddings` — :func:`weat`: words and vectors to
  a result;
- :mod:`~embias.classic.permutation_test.result` — :class:`WeatResult` and its
  interval-table row;
- :mod:`~embias.classic.permutation_test.inputs` — WEAT's options and word lists checked,
  and :func:`check_weat_roles`;
- :mod:`~embias.classic.permutation_test.studies` — :func:`weat_test` (one of Caliskan's
  tests or a two-class study) and :func:`weat_pairs` (every pair of classes of a study).
"""

# Names imported ``X as X`` are importable from here, as from the module
# embias.classic.permutation_test was, but not in __all__.
from .inputs import check_weat_roles
from .on_embeddings import Alternative, weat
from .result import POPULATION_COLUMNS as POPULATION_COLUMNS
from .result import WeatResult
from .studies import weat_pairs, weat_test

__all__ = [
    "Alternative",
    "WeatResult",
    "check_weat_roles",
    "weat",
    "weat_pairs",
    "weat_test",
]
