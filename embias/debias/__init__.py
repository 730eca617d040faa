"""Debiasing word embeddings: hard (neutralize + equalize) and soft.

Both as in Bolukbasi et al. 2016, generalised to several classes as in Manzini et al. 2019.

Both functions return a :class:`DebiasResult` whose ``embeddings`` is a new gensim
``KeyedVectors`` (the input is never modified) plus a record of what was done.

The package, one module per idea (every name is also importable from ``embias.debias``):

- :mod:`~embias.debias.subspace` — the bias subspace of a study's definitional sets
  (:func:`bias_subspace`) and the steps both methods share;
- :mod:`~embias.debias.hard` — :func:`hard_debias`: neutralize and equalize;
- :mod:`~embias.debias.soft` — :func:`soft_debias`: one linear map, solved exactly;
- :mod:`~embias.debias.result` — :class:`DebiasResult`, what a method produced and how.
"""

# Names imported ``X as X`` are importable from here, as from the module embias.debias
# was, but not in __all__.
from .hard import hard_debias
from .result import DebiasResult
from .soft import soft_debias
from .subspace import DEFAULT_K as DEFAULT_K
from .subspace import DEFINITIONAL_WHY as DEFINITIONAL_WHY
from .subspace import bias_subspace

__all__ = ["DebiasResult", "bias_subspace", "hard_debias", "soft_debias"]
