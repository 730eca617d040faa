"""Does treating the compared words as fixed matter? The simulation that shows it.

Every compared word (attribute, neutral or human word) of a cosine table appears in a row
with every protected word, and its own position in the embedding moves all those rows
together. The hierarchical model of the published analysis treats the compared words as
fixed — its connection means are the means of *these* words — while the crossed model
(:mod:`embias.bayes.crossed`) treats them as a sample from a population of words. This
module simulates tables with the design of a real one (by default the religion table on
GloVe 6B 50d: 15 protected words in 3 classes, 11 attribute, 225 neutral and 85 human
words), with compared-word effects of the size measured on it and **no** true association
difference, fits both models to every table and reports how often each one claims a bias
that is not there, and how often its intervals cover the population connection means.

The generating model (the crossed model's, :func:`simulate_word_table`)::

    y[p, w]     = coef[p, con(p, w)] + u[w] + ε,    ε ~ Normal(0, σ[con])
    coef[p, con] ~ Normal(bar[con], τ[con])          (protected words redrawn per table)
    u[w]        ~ Normal(0, τ_u[kind(w)])             (compared words redrawn per table)

with kind ∈ {attribute, neutral, human}; an attribute word keeps one u in its associated
and its different rows — or, for a richer truth than the model's (parameters with
``tau_word_different`` and ``word_correlation``, measured by
``calibrate_word_sampling(..., attribute_offsets="own_and_other")``), takes a second,
correlated effect in its different rows: real attribute words are not equally far from
every class. Every simulated table draws new coefficients, new word effects
and new noise, so the population connection means ``bar`` are the truth an interval has to
cover when the words are redrawn.

Calibration (:func:`calibrate_word_sampling`) is by the method of moments on the design
table: least squares with a coefficient per (protected word, connection) cell and an effect
per compared word (summing to zero within its kind) gives σ[con] from the residual sums of
squares (unbiased for one residual variance per connection), τ_u[kind] from
the spread of the estimated word effects minus their sampling variance, and τ[con] from the
spread of the estimated cell coefficients across protected words minus theirs (exact
sampling covariances under the fitted σ). :func:`word_effect_shares` is the measure the
calibration is checked with: per connection, the variance of the compared words' mean
residuals over the variance of the residuals, residuals taken from the (protected word,
connection) cell means (religion/GloVe: associated .88, different .67, human .50, none
.65; the authors' Reddit table .86, .76, .58, .60).

Measured (``benchmarks/bench_word_sampling.py``: 200 tables, nutpie, 2 × (1000 + 3000)
draws, every fit r̂ ≤ 1.01 and ESS ≥ 400): the hierarchical model's 89% HDI excludes 0 for
associated − none in 31.5% ± 3.3% of the null tables and for different − none in 34.0% ±
3.3%, the crossed model's in 10.5% ± 2.2% and 10.0% ± 2.1% (nominal 11%); associated −
different 8.0% ± 1.9% and 11.5% ± 2.3% (an attribute word's own offset enters both sides
and cancels). Coverage of the connection means: hierarchical 59–88%, crossed 87–92.5%.
The null tables give the associated rows a word share of .71 (the real table .88): the
real table also has word-specific associations (an attribute word × own-class effect),
which neither model nor this simulation includes.

The package, one module per idea (every name is also importable from
``embias.simulate_words``):

- :mod:`~embias.simulate_words.parameters` — the crossed model's parameters, the null
  contrasts and the models compared;
- :mod:`~embias.simulate_words.shares` — the compared words' share of the residual variance;
- :mod:`~embias.simulate_words.calibrate` — the method-of-moments calibration on a table;
- :mod:`~embias.simulate_words.draw` — one table drawn from the crossed model;
- :mod:`~embias.simulate_words.simulation` — the run: draw tables, fit them, record intervals;
- :mod:`~embias.simulate_words.summary` — the rates over the tables, with Monte Carlo errors;
- :mod:`~embias.simulate_words.published` — the published tables refitted with each model;
- :mod:`~embias.simulate_words.plots` — the figures' old import path (deprecated): the
  figures of the simulation and of the refits are in :mod:`embias.plots.word_sampling`;
- :mod:`~embias.simulate_words._common` — the indices of a design table (private).
"""

from typing import Any

# Names imported ``X as X`` are importable from here, as from the module
# embias.simulate_words was, but not in __all__.
from .._deprecation import moved_names
from .calibrate import calibrate_word_sampling
from .draw import simulate_word_table
from .parameters import NULL_CONTRASTS, WORD_SAMPLING_LEVELS, WordSamplingParameters
from .published import (
    PUBLISHED_REFIT_EMBEDDINGS,
    PUBLISHED_REFIT_STUDIES,
    published_conclusions,
    refit_published_tables,
)
from .shares import word_effect_shares
from .simulation import TABLES_PER_BATCH as TABLES_PER_BATCH
from .simulation import WordSamplingSimulation, simulate_word_sampling
from .summary import SUMMARY_COLUMNS as SUMMARY_COLUMNS
from .summary import summarize_word_sampling

__all__ = [
    "NULL_CONTRASTS",
    "PUBLISHED_REFIT_EMBEDDINGS",
    "PUBLISHED_REFIT_STUDIES",
    "WORD_SAMPLING_LEVELS",
    "WordSamplingParameters",
    "WordSamplingSimulation",
    "calibrate_word_sampling",
    "published_conclusions",
    "refit_published_tables",
    "simulate_word_sampling",
    "simulate_word_table",
    "summarize_word_sampling",
    "word_effect_shares",
]

__getattr__: Any = moved_names(__name__, {
    "plot_published_refits": "embias.plots.word_sampling",
    "plot_word_sampling": "embias.plots.word_sampling",
})
