"""The PyMC models of a cosine table: one builder per level.

:func:`build_model` builds the dataset and word levels, the hierarchical level and the
crossed levels, whose compared words are a random sample (:mod:`embias.bayes.crossed`, with
their likelihood in :mod:`embias.bayes.crossed_terms`). ``LevelStructure`` holds the choices
that tell the hierarchical family's levels apart. See :mod:`embias.bayes` for the models'
equations, priors and identification.

The package, one module per idea (every name is also importable from
``embias.bayes.model``):

- :mod:`~embias.bayes.model.build` — ``build_model`` and one builder per level;
- :mod:`~embias.bayes.model.structure` — the levels of the hierarchical family and the
  choices that tell them apart (``LevelStructure``, ``level_structure``,
  ``CROSSED_LEVELS``);
- :mod:`~embias.bayes.model.layout` — the cells' protected words, connections and classes
  (the coordinates every model has, ``protected_strata``);
- :mod:`~embias.bayes.model.likelihood` — the likelihood of the cell statistics or of the
  rows (dataset, word and hierarchical levels);
- :mod:`~embias.bayes.model.prior` — the hierarchical family's prior: connection means,
  sds and the protected words' coefficients (independent, correlated, with a shared
  offset, or integrated out);
- :mod:`~embias.bayes.model.starting_values` — a structure's starting points
  (``structure_starting_values``);
- :mod:`~embias.bayes.model.summary_data` — a summary model's coordinates and data values
  without building it (``summary_model_data``).
"""

# Names imported ``X as X`` are importable from here, as from the module
# embias.bayes.model was, but not in __all__.
from ..correlation import correlation_cholesky as correlation_cholesky
from ..correlation import lkj_cpc_log_density as lkj_cpc_log_density
from ..crossed_terms import PAIR_COMPONENT as PAIR_COMPONENT
from .build import build_model
from .layout import protected_strata as protected_strata
from .starting_values import structure_starting_values as structure_starting_values
from .structure import CROSSED_LEVELS, LevelStructure, level_structure
from .structure import DataMode as DataMode
from .structure import Level as Level
from .summary_data import summary_model_data

__all__ = ["CROSSED_LEVELS", "LevelStructure", "build_model", "level_structure",
           "summary_model_data"]
