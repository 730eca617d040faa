"""Bayesian multilevel models of the long-form cosine table (DESIGN §5).

The modelling layer: it takes a table and knows nothing of embeddings, encoders or files.
Studies are run on it — tables built, fits saved and reloaded, embeddings compared — by
:mod:`embias.pipeline`.

:func:`fit_bias_model` fits one of three PyMC models to any long-form cosine table (from
:func:`embias.cosine_table` or :func:`embias.load_published_table`) and returns a
:class:`BiasFit`: the posterior draws (an ArviZ ``DataTree``), a tidy interval table
(:meth:`BiasFit.to_interval_table`), convergence diagnostics, a posterior predictive
check and plots, next to the classic MAC/WEAT figures of the same table.

The subpackage, one module per step:

- :mod:`~embias.bayes.data` — cell sufficient statistics, centring, starting points;
- :mod:`~embias.bayes.model` — the PyMC models (:func:`build_model`);
- :mod:`~embias.bayes.fit` — :func:`fit_bias_model` and :class:`BiasFit`;
- :mod:`~embias.bayes.summary` — interval tables, contrasts and their ROPE decisions;
- :mod:`~embias.bayes.diagnostics` — r̂, ESS, divergences, posterior predictive checks;
- :mod:`~embias.bayes.loo`, :mod:`~embias.bayes.influence` — PSIS-LOO and word influence;
- :mod:`~embias.bayes.batch` — :class:`FitJob` and :func:`fit_many` on any executor;
- :mod:`~embias.bayes.change` — the paired change model of one table against another.

Every fit takes one :class:`embias.FitSettings` (or its fields as keywords).

y = cosine distance of one (protected word, compared word) row; ``pw`` = protected
word, ``con`` = connection (associated, different, human, none).

``level="dataset"``
    y ~ Normal(m + co[con], σ); m ~ N(1, 0.5); co ~ ZeroSumNormal(0.5) over the
    connections; σ ~ HalfCauchy(1).
``level="word"``
    y ~ Normal(m[pw] + co[con], σ); m[pw] ~ N(1, 0.5); co ~ ZeroSumNormal(0.5);
    σ ~ HalfCauchy(1).
``level="hierarchical"`` (the authors' published model)
    y ~ Normal(coef[pw, con], σ[con]); coef[pw, con] ~ N(bar[con], τ[con]);
    bar ~ N(1, 0.3); τ ~ Exponential(2); σ ~ Exponential(2).

The location 1 of the priors of ``m`` and ``bar`` is ``FitSettings.prior_location``
(cosine distances centre on 1; the paired change model of differences uses 0).

Identification: the slides' ``m + co[con]`` with independent ``co ~ N(0, 0.5)`` is
identified only through the priors (r̂ up to 1.3 on the raw ``co``). Here ``co`` is a
``ZeroSumNormal`` (the connection effects sum to zero), so every raw parameter is
identified: ``m`` is the unweighted mean over connections of the connection means
(dataset level) or the word's own mean over connections (word level). The reported
quantities do not depend on this choice: ``connection_mean`` (m + co[con], or the mean of
m over words + co[con]) and ``coef`` (m[pw] + co[con]) are the cell means, and they are
what the contrasts are built from. Note that ``ZeroSumNormal(σ=0.5)`` gives each
``co[con]`` a marginal prior sd of 0.5·√(1 − 1/K) for K connections.

Fast path (``data="summary"``, the default): with a Normal likelihood the posterior
depends on each (pw, con) cell only through n, the mean ȳ and the sum of squared
deviations SS. Per cell, observed ȳ ~ Normal(μ, σ/√n) and, for n ≥ 2, observed
SS ~ Gamma((n − 1)/2, rate = 1/(2σ²)); the product is proportional, as a function of
(μ, σ), to the raw likelihood σ^(−n)·exp(−(SS + n(ȳ − μ)²)/(2σ²)). The posterior is the
same as with ``data="raw"`` (one Normal term per row), and the fit time does not grow
with the number of rows. Pointwise log-likelihoods of the fast path are per cell, not
per row.

Parametrisation of the hierarchical model: per connection, ``coef`` is sampled either
centred or non-centred through one raw variable ``coef_raw``: in a centred column
``coef_raw = coef ~ N(bar, τ)``; in a non-centred column ``coef_raw ~ N(0, 1)`` and
``coef = bar + τ·coef_raw``. ``centred="auto"`` chooses centred for a connection when the
data dominate the prior for its typical cell — median(n)·τ̂²/σ̂² > 1, with σ̂² the pooled
within-cell variance and τ̂² the method-of-moments between-cell variance, and at least
10 rows per cell — and non-centred otherwise (e.g. the 3–4 ``associated`` rows of a
religion word). Both give the same posterior; the choice only changes how well NUTS
explores it. It is recorded in ``BiasFit.settings["centred"]`` and enters the model as
data (``constant_data/centred``), as do all the table's statistics and indices: models
of the same level and data mode share one compiled graph whatever the table, so
PyTensor's compile cache is reused across tables and studies.
"""

from typing import Any

from .._deprecation import moved_names
from .batch import FitJob, derived_seed, fit_many, run_fit_job
from .change import CHANGE_ESTIMANDS, ChangeFit, fit_change_model
from .data import cell_statistics, choose_centring, initial_values
from .diagnostics import (
    ESS_MIN,
    RHAT_MAX,
    ConvergenceWarning,
    PredictiveCheck,
    convergence_diagnostics,
    convergence_problems,
    posterior_predictive_check,
)
from .fit import BiasFit, fit_bias_model
from .model import build_model
from .summary import CONTRASTS, summarize_posterior

__all__ = [
    "CHANGE_ESTIMANDS",
    "CONTRASTS",
    "ESS_MIN",
    "RHAT_MAX",
    "BiasFit",
    "ChangeFit",
    "ConvergenceWarning",
    "FitJob",
    "PredictiveCheck",
    "build_model",
    "cell_statistics",
    "choose_centring",
    "convergence_diagnostics",
    "convergence_problems",
    "derived_seed",
    "fit_bias_model",
    "fit_change_model",
    "fit_many",
    "initial_values",
    "posterior_predictive_check",
    "run_fit_job",
    "summarize_posterior",
]

# Names that moved to the layer that runs studies (embias.pipeline): still served from here
# for one release, with a DeprecationWarning naming their new home.
__getattr__: Any = moved_names(__name__, {
    "DEFAULT_MODELS_DIR": "embias.settings",
    "EmbeddingComparison": "embias.pipeline.compare",
    "compare_embeddings": "embias.pipeline.compare",
    "study_jobs": "embias.pipeline.sources",
    "fit_gender_model": "embias.pipeline.study_fits",
    "fit_race_model": "embias.pipeline.study_fits",
    "fit_religion_model": "embias.pipeline.study_fits",
    "fit_study_model": "embias.pipeline.study_fits",
    "load_fit": "embias.pipeline.store",
    "save_fit": "embias.pipeline.store",
})
