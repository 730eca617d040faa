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
and its different rows. Every simulated table draws new coefficients, new word effects
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
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._progress import progress_wanted
from ._validation import (
    check_choice,
    check_columns,
    check_int,
    check_probability,
    check_rope,
    check_seed,
)
from .bayes.crossed import WORD_KIND_OF_CONNECTION, WORD_KINDS
from .settings import (
    BATCH_DRAWS,
    BATCH_TUNE,
    DEFAULT_CHAINS,
    DEFAULT_CI_PROB,
    DEFAULT_ROPE,
    SAMPLERS,
)
from .tables import CONNECTIONS, validate_table

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "NULL_CONTRASTS",
    "PUBLISHED_REFIT_EMBEDDINGS",
    "PUBLISHED_REFIT_STUDIES",
    "WORD_SAMPLING_LEVELS",
    "WordSamplingParameters",
    "WordSamplingSimulation",
    "calibrate_word_sampling",
    "plot_published_refits",
    "plot_word_sampling",
    "published_conclusions",
    "refit_published_tables",
    "simulate_word_sampling",
    "simulate_word_table",
    "summarize_word_sampling",
    "word_effect_shares",
]

#: The models compared by default: the published one and the one with compared words as a
#: random sample.
WORD_SAMPLING_LEVELS: tuple[str, ...] = ("hierarchical", "crossed")
#: The contrasts whose truth is 0 under the null of :func:`simulate_word_sampling`: an
#: interval of one of them that excludes 0 is a false claim of bias.
NULL_CONTRASTS: tuple[str, ...] = ("associated - none", "associated - different",
                                   "different - none")
#: Columns of :func:`summarize_word_sampling`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "level", "estimand", "group", "n_tables", "truth", "mean_estimate", "coverage",
    "coverage_se", "excludes_zero", "excludes_zero_se", "credible_difference",
    "credible_difference_se", "mean_width", "null", "failed_fits")
#: Columns of the design that a simulated table keeps (its values are replaced).
_DESIGN_COLUMNS = ("protected_word", "protected_class", "word_to_compare", "word_class",
                   "connection")


# =========================================================================== measures
def word_effect_shares(table: pd.DataFrame) -> pd.Series:
    """Measure the share of the residual variance that is the compared words' own effect.

    Residuals are the cosine distances minus their (protected word, connection) cell mean;
    the share is the variance (ddof=1) of the compared words' mean residuals over the
    variance (ddof=1) of the residuals, within each connection. 0 when the compared words
    are exchangeable, near 1 when a word's distance to every protected word is mostly the
    word itself. On the religion table (GloVe 6B 50d): associated .88, different .67,
    human .50, none .65.

    Parameters
    ----------
    table
        Long-form cosine table.

    Returns
    -------
    pandas.Series
        The share per connection (in :data:`embias.tables.CONNECTIONS` order).

    Raises
    ------
    ValueError
        ``table`` is not a valid cosine table (:func:`embias.tables.validate_table`).

    Examples
    --------
    >>> import embias
    >>> table = embias.study_table("religion", "glove-6b-50d")
    >>> word_effect_shares(table).round(2).to_dict()
    {'associated': 0.88, 'different': 0.67, 'human': 0.5, 'none': 0.65}
    """
    validate_table(table)
    distance = table["cosine_distance"].astype(float)
    keys = [table["protected_word"].astype(str), table["connection"].astype(str)]
    residual = distance - distance.groupby(keys).transform("mean")
    frame = pd.DataFrame({"connection": table["connection"].astype(str).to_numpy(),
                          "word": table["word_to_compare"].astype(str).to_numpy(),
                          "residual": residual.to_numpy()})
    shares = {}
    for con, rows in frame.groupby("connection", sort=False):
        word_means = rows.groupby("word")["residual"].mean()
        shares[con] = float(word_means.var(ddof=1) / rows["residual"].var(ddof=1))
    order = [c for c in CONNECTIONS if c in shares]
    return pd.Series([shares[c] for c in order], index=pd.Index(order, name="connection"),
                     name="word_share")


# =========================================================================== parameters
@dataclass(frozen=True)
class WordSamplingParameters:
    """Parameters of the crossed model that :func:`simulate_word_table` draws tables from.

    Attributes
    ----------
    bar
        Population mean cosine distance per connection (``bar[con]``).
    tau
        Sd of the protected words' coefficients around ``bar`` per connection.
    sigma
        Residual sd per connection.
    tau_word
        Sd of the compared words' effects per word kind (attribute, neutral, human).
    """

    bar: Mapping[str, float]
    tau: Mapping[str, float]
    sigma: Mapping[str, float]
    tau_word: Mapping[str, float]

    def __post_init__(self) -> None:
        """Check every value and the names of the connections and word kinds."""
        for name in ("bar", "tau", "sigma", "tau_word"):
            values = getattr(self, name)
            if not isinstance(values, Mapping) or not values:
                raise ValueError(f"WordSamplingParameters.{name} must be a non-empty mapping, "
                                 f"got {values!r}")
            checked = {}
            for key, value in values.items():
                number = float(value)
                if not math.isfinite(number) or (name != "bar" and number < 0):
                    raise ValueError(f"WordSamplingParameters.{name}[{key!r}] must be a "
                                     f"finite{'' if name == 'bar' else ' non-negative'} "
                                     f"number, got {value!r}")
                checked[str(key)] = number
            object.__setattr__(self, name, checked)
        cons = set(self.bar)
        unknown = sorted(cons - set(CONNECTIONS))
        if unknown:
            raise ValueError(f"unknown connection(s) {unknown}; allowed: {list(CONNECTIONS)}")
        for name in ("tau", "sigma"):
            if set(getattr(self, name)) != cons:
                raise ValueError(f"WordSamplingParameters.{name} must name the connections of "
                                 f"bar {sorted(cons)}, got {sorted(getattr(self, name))}")
        kinds = {WORD_KIND_OF_CONNECTION[c] for c in cons}
        if set(self.tau_word) != kinds:
            raise ValueError(f"WordSamplingParameters.tau_word must name the word kinds "
                             f"{sorted(kinds)}, got {sorted(self.tau_word)}")

    def without_association(self) -> WordSamplingParameters:
        """Return the null of :func:`simulate_word_sampling`: no association difference.

        ``bar[associated]`` and ``bar[different]`` set to ``bar[none]`` (an attribute word
        is, on average over the populations of attribute and protected words, as far from
        a protected word as a neutral word is, whichever class it belongs to); everything
        else unchanged.
        """
        if "none" not in self.bar:
            raise ValueError("without_association() needs a 'none' connection to equal, got "
                             f"{sorted(self.bar)}")
        bar = dict(self.bar)
        for con in ("associated", "different"):
            if con in bar:
                bar[con] = bar["none"]
        return WordSamplingParameters(bar=bar, tau=self.tau, sigma=self.sigma,
                                      tau_word=self.tau_word)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per connection: ``bar``, ``tau``, ``sigma``, kind, ``tau_word``.

        ``word_kind`` is the connection's kind of compared word, ``tau_word`` that kind's sd.
        """
        rows = [{"connection": c, "bar": self.bar[c], "tau": self.tau[c],
                 "sigma": self.sigma[c], "word_kind": WORD_KIND_OF_CONNECTION[c],
                 "tau_word": self.tau_word[WORD_KIND_OF_CONNECTION[c]]}
                for c in CONNECTIONS if c in self.bar]
        return pd.DataFrame(rows)

    def contrast_truth(self, contrast: str) -> float:
        """Return the true value of a contrast named ``"a - b"``: bar[a] − bar[b]."""
        a, _, b = contrast.partition(" - ")
        return self.bar[a] - self.bar[b]


def _design_indices(table: pd.DataFrame) -> dict[str, Any]:
    """Index a design table: its cells, compared words and their kinds (checked)."""
    validate_table(table)
    protected = table["protected_word"].astype(str)
    connection = table["connection"].astype(str)
    cell_codes, cells = pd.factorize(pd.MultiIndex.from_arrays([protected, connection]))
    word_codes, words = pd.factorize(table["word_to_compare"].astype(str))
    kind_codes = pd.Index(WORD_KINDS).get_indexer(connection.map(WORD_KIND_OF_CONNECTION))
    lowest = np.full(len(words), len(WORD_KINDS))
    highest = np.full(len(words), -1)
    np.minimum.at(lowest, word_codes, kind_codes)
    np.maximum.at(highest, word_codes, kind_codes)
    mixed_words = np.flatnonzero(lowest != highest)
    if mixed_words.size:
        mixed = [(str(words[w]), sorted({WORD_KINDS[k] for k in kind_codes[word_codes == w]}))
                 for w in mixed_words[:3]]
        raise ValueError(f"compared word(s) in rows of two kinds, e.g. {mixed}; a word is "
                         "an attribute, a neutral or a human word")
    counts = np.bincount(word_codes, minlength=len(words))
    if (counts < 2).any():
        single = [str(w) for w in np.asarray(words)[counts < 2]][:5]
        raise ValueError(f"compared word(s) {single} have a single row; a word's own effect "
                         "needs rows with at least 2 protected words")
    return {"cell_codes": cell_codes, "cells": cells, "word_codes": word_codes,
            "words": np.asarray(words, dtype=str),
            "word_kind": np.array(WORD_KINDS, dtype=object)[lowest],
            "connection": connection.to_numpy()}


def calibrate_word_sampling(table: pd.DataFrame) -> WordSamplingParameters:
    """Method-of-moments estimates of the crossed model's parameters from a cosine table.

    Least squares of the distances on a coefficient per (protected word, connection) cell
    and an effect per compared word (summing to zero within its kind):

    * σ[con]: from the residual sums of squares per connection, unbiased for a residual
      variance per connection (their expectations are a linear function of the σ²s through
      the hat matrix, which is solved for);
    * τ_u[kind]: the variance (ddof=1) of the kind's estimated word effects minus the mean
      sampling variance of those estimates (exact, from the fitted σ), floored at 0;
    * τ[con] likewise from the estimated cell coefficients across protected words;
    * bar[con]: the mean estimated cell coefficient of the connection (the mean over these
      protected words, with the compared words' in-sample mean effect).

    Parameters
    ----------
    table
        Long-form cosine table (e.g. ``embias.study_table("religion", "glove-6b-50d")``).

    Returns
    -------
    WordSamplingParameters
        The estimates.

    Raises
    ------
    ValueError
        A table that is not a valid cosine table, a compared word in rows of two kinds or
        in a single row, too few residual degrees of freedom per connection to estimate σ,
        or fewer than 2 protected words per connection or compared words per kind.

    Examples
    --------
    >>> import embias
    >>> table = embias.study_table("religion", "glove-6b-50d")
    >>> calibrate_word_sampling(table).to_frame().round(2)
       connection   bar   tau  sigma  word_kind  tau_word
    0  associated  0.78  0.09   0.09  attribute      0.12
    1   different  0.85  0.08   0.09  attribute      0.12
    2       human  0.80  0.07   0.09      human      0.08
    3        none  0.94  0.04   0.10    neutral      0.13
    """
    ix = _design_indices(table)
    y = table["cosine_distance"].to_numpy(float)
    kinds = [k for k in WORD_KINDS if k in set(ix["word_kind"])]
    design = _LeastSquaresDesign(ix, kinds)
    gram = design.weighted_gram(np.ones(len(y)))
    try:
        gram_inv = np.linalg.inv(gram)
    except np.linalg.LinAlgError:  # words or cells not connected: least-norm solution
        gram_inv = np.linalg.pinv(gram, hermitian=True)
    theta = gram_inv @ design.transpose_times(y)
    residual = y - theta[design.cell_col] - design.has_word * theta[design.word_col_safe]
    cons = [c for c in CONNECTIONS if c in set(ix["connection"])]
    sigma2 = _residual_variances(design, gram_inv, residual, ix["connection"], cons)
    row_var = np.array([sigma2[c] for c in ix["connection"]])
    cov = gram_inv @ design.weighted_gram(row_var) @ gram_inv
    n_cells = len(ix["cells"])
    cell_coef, cell_cov = theta[:n_cells], cov[:n_cells, :n_cells]
    # word effects relative to each kind's reference word (a shift per kind, which neither
    # their spread nor the cells' spread sees); the cells hold that shift back
    to_words = design.word_effects_of_parameters()
    word_effect = to_words @ theta
    word_cov = to_words @ cov @ to_words.T
    kind_shift = {k: float(word_effect[ix["word_kind"] == k].mean()) for k in kinds}
    cell_con = np.asarray(ix["cells"].get_level_values(1), dtype=str)
    bar, tau = {}, {}
    for con in cons:
        members = np.flatnonzero(cell_con == con)
        bar[con] = float(cell_coef[members].mean()) + kind_shift[WORD_KIND_OF_CONNECTION[con]]
        tau[con] = _spread(cell_coef[members], cell_cov[np.ix_(members, members)])
    tau_word = {}
    for kind in kinds:
        members = np.flatnonzero(ix["word_kind"] == kind)
        tau_word[kind] = _spread(word_effect[members], word_cov[np.ix_(members, members)])
    return WordSamplingParameters(bar=bar, tau=tau, sigma={c: math.sqrt(v)
                                                           for c, v in sigma2.items()},
                                  tau_word=tau_word)


class _LeastSquaresDesign:
    """The design matrix X of the calibration's least squares, held as column indices.

    Columns: one per (protected word, connection) cell, then one per compared word but the
    last of each kind (its effect is the kind's reference, 0). Every row has a 1 in its
    cell's column and one in its word's column (none for a reference word), so every
    product with X is a gather.
    """

    def __init__(self, ix: Mapping[str, Any], kinds: Sequence[str]) -> None:
        n_params = len(ix["cells"])
        self.word_column = np.full(len(ix["words"]), -1)
        for kind in kinds:
            members = np.flatnonzero(ix["word_kind"] == kind)
            self.word_column[members[:-1]] = n_params + np.arange(len(members) - 1)
            n_params += len(members) - 1
        self.n_params = n_params
        self.cell_col = np.asarray(ix["cell_codes"], dtype=np.int64)
        self.word_col = self.word_column[ix["word_codes"]]
        self.has_word = self.word_col >= 0
        self.word_col_safe = np.where(self.has_word, self.word_col, 0)

    def weighted_gram(self, weights: np.ndarray) -> np.ndarray:
        """Return Σ_r weights_r x_r x_rᵀ."""
        gram = np.zeros((self.n_params, self.n_params))
        np.add.at(gram, (self.cell_col, self.cell_col), weights)
        w, c, k = (weights[self.has_word], self.cell_col[self.has_word],
                   self.word_col[self.has_word])
        np.add.at(gram, (c, k), w)
        np.add.at(gram, (k, c), w)
        np.add.at(gram, (k, k), w)
        return gram

    def quadratic(self, matrix: np.ndarray) -> np.ndarray:
        """Return x_rᵀ M x_r of every row."""
        cell, word = self.cell_col, self.word_col_safe
        return (matrix[cell, cell] + self.has_word * (
            2 * matrix[cell, word] + matrix[word, word]))

    def transpose_times(self, y: np.ndarray) -> np.ndarray:
        """Return Xᵀ y."""
        return np.bincount(self.cell_col, weights=y, minlength=self.n_params) + np.bincount(
            self.word_col[self.has_word], weights=y[self.has_word], minlength=self.n_params)

    def word_effects_of_parameters(self) -> np.ndarray:
        """Return the (words × parameters) map from the parameters to the word effects."""
        to_words = np.zeros((len(self.word_column), self.n_params))
        estimated = self.word_column >= 0
        to_words[np.flatnonzero(estimated), self.word_column[estimated]] = 1.0
        return to_words


def _residual_variances(design: _LeastSquaresDesign, gram_inv: np.ndarray,
                        residual: np.ndarray, connection: np.ndarray, cons: list[str]
                        ) -> dict[str, float]:
    """Estimate σ² per connection, unbiased, from the residual sums of squares.

    E[SS_e of connection c] = Σ_c' A[c, c'] σ²[c'] with A[c, c'] = Σ_{r ∈ c} Σ_{s ∈ c'}
    (I − H)²_rs = Σ_{r ∈ c} (1{c = c'}(1 − 2 h_rr) + x_rᵀ G X_c'ᵀ X_c' G x_r), H the hat
    matrix and G = (XᵀX)⁺: solved for the σ² (heteroscedastic), without the rows × rows
    hat matrix.
    """
    member = np.array([connection == c for c in cons])          # (connection, row)
    leverage = design.quadratic(gram_inv)
    moments = np.empty((len(cons), len(cons)))
    for j, rows_j in enumerate(member):
        quad = design.quadratic(gram_inv @ design.weighted_gram(rows_j.astype(float))
                                @ gram_inv)
        for i, rows_i in enumerate(member):
            moments[i, j] = quad[rows_i].sum() + (i == j) * (1 - 2 * leverage[rows_i]).sum()
    ss = np.array([np.sum(residual[rows] ** 2) for rows in member])
    try:
        solved = np.linalg.solve(moments, ss)
    except np.linalg.LinAlgError:
        solved = np.full(len(cons), np.nan)
    if not np.all(np.isfinite(solved) & (solved > 0)):
        raise ValueError("the table has too few residual degrees of freedom per connection "
                         "to estimate σ from")
    return dict(zip(cons, solved.tolist(), strict=True))


def _spread(values: np.ndarray, covariance: np.ndarray) -> float:
    """Estimate the sd of the true values behind estimates with the given covariance.

    The variance (ddof=1) of the estimates minus the mean sampling variance of their
    deviations from their mean, floored at 0.
    """
    n = len(values)
    if n < 2:
        raise ValueError("calibration needs at least 2 protected words per connection and "
                         "2 compared words per kind")
    centre = np.eye(n) - 1.0 / n
    noise = float(np.trace(centre @ covariance @ centre)) / (n - 1)
    return math.sqrt(max(0.0, float(np.var(values, ddof=1)) - noise))


# =========================================================================== one table
def simulate_word_table(
    design: pd.DataFrame,
    parameters: WordSamplingParameters,
    *,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """One table drawn from the crossed model with the rows of ``design``.

    Every protected word gets new coefficients coef[p, con] ~ Normal(bar[con], τ[con]),
    every compared word a new effect u[w] ~ Normal(0, τ_u[kind(w)]) (one u for all its
    rows), every row new noise Normal(0, σ[con]);
    ``cosine_distance = coef + u + noise`` — a row outside [0, 2], the range of a cosine
    distance, draws its noise again — and ``cosine_similarity = 1 − cosine_distance``.

    Parameters
    ----------
    design
        Cosine table whose rows (protected word, compared word, connection, classes) the
        simulated table keeps; its distances are not used.
    parameters
        The model's parameters (e.g. ``calibrate_word_sampling(design)``); must name every
        connection of the design.
    random_seed
        Seed or ``numpy.random.Generator``; ``None`` (the default) draws a seed from the
        OS entropy. The seed used is ``attrs["random_seed"]`` (None for a Generator):
        passing it back draws the same table.

    Returns
    -------
    pandas.DataFrame
        Columns of :data:`embias.tables.TABLE_COLUMNS` (``embedding="simulated"``);
        ``attrs["truth"]`` holds the drawn ``coef`` (protected word × connection frame) and
        ``word_effect`` (Series by compared word), ``attrs["random_seed"]`` the seed.

    Raises
    ------
    ValueError
        A design that is not a valid cosine table or has a compared word in rows of two
        kinds or in a single row, parameters without a connection of the design, or
        parameters that put rows far outside [0, 2].

    Examples
    --------
    Four protected words in two classes, two attribute words per class and two neutral
    words: 4 × 6 rows. Each row is coef + u + noise; with the word effects and the noise
    set to 0 a row's distance is its protected word's coefficient, whose mean over the
    words is near ``bar`` (sd τ = 0.05, 4 words):

    >>> from embias.design import design_table
    >>> rows = design_table({"a": 2, "b": 2}, {"a": 2, "b": 2}, {"a": "a", "b": "b"},
    ...                     neutral=2)
    >>> parameters = WordSamplingParameters(
    ...     bar={"associated": 0.6, "different": 0.8, "none": 0.9},
    ...     tau={"associated": 0.05, "different": 0.05, "none": 0.05},
    ...     sigma={"associated": 0.0, "different": 0.0, "none": 0.0},
    ...     tau_word={"attribute": 0.0, "neutral": 0.0})
    >>> table = simulate_word_table(rows, parameters, random_seed=1)
    >>> table.shape, table.attrs["truth"]["coef"].shape
    ((24, 8), (4, 3))
    >>> coef = table.attrs["truth"]["coef"]
    >>> bool((table.groupby(["protected_word", "connection"])["cosine_distance"].mean()
    ...       == coef.stack()).all())
    True
    """
    from ._validation import resolve_rng

    rng, seed = resolve_rng(random_seed)
    ix = _design_indices(design)
    missing = sorted(set(ix["connection"]) - set(parameters.bar))
    if missing:
        raise ValueError(f"parameters have no value for connection(s) {missing} of the design")
    cells = ix["cells"]
    cell_con = np.asarray(cells.get_level_values(1), dtype=str)
    coef = (np.array([parameters.bar[c] for c in cell_con])
            + np.array([parameters.tau[c] for c in cell_con]) * rng.standard_normal(len(cells)))
    tau_u = np.array([parameters.tau_word[k] for k in ix["word_kind"]])
    u = tau_u * rng.standard_normal(len(ix["words"]))
    sigma = np.array([parameters.sigma[c] for c in ix["connection"]])
    location = coef[ix["cell_codes"]] + u[ix["word_codes"]]
    distance = location + sigma * rng.standard_normal(len(design))
    # a cosine distance lies in [0, 2]: a row's noise outside it is drawn again (the
    # model's Normal truncated to the possible range; rare: 2 of 4,815 rows in one table of
    # a 400-table run with the religion design, at distances near 0)
    for _ in range(100):
        outside = np.flatnonzero((distance < 0.0) | (distance > 2.0))
        if not outside.size:
            break
        distance[outside] = location[outside] + sigma[outside] * rng.standard_normal(
            outside.size)
    else:  # pragma: no cover - a row whose location is far outside [0, 2]
        raise ValueError(f"the word-sampling parameters put rows far outside [0, 2] "
                         f"(e.g. a location of {location[outside[0]]:.3f}); check them")
    table = design.loc[:, list(_DESIGN_COLUMNS)].astype(str).reset_index(drop=True)
    table.insert(5, "cosine_similarity", 1.0 - distance)
    table.insert(6, "cosine_distance", distance)
    table["embedding"] = "simulated"
    coef_frame = pd.Series(coef, index=cells).unstack()
    table.attrs = {
        "study": f"simulated ({design.attrs.get('study', 'design')})",
        "truth": {"coef": coef_frame,
                  "word_effect": pd.Series(u, index=pd.Index(ix["words"],
                                                             name="word_to_compare"))},
        "random_seed": seed,
    }
    return table


# =========================================================================== simulation
@dataclass(frozen=True)
class WordSamplingSimulation:
    """Result of :func:`simulate_word_sampling`.

    Attributes
    ----------
    results
        One row per simulated table × model × estimand: ``table`` (index), ``level``,
        ``estimand`` (``connection_mean`` or ``contrast``), ``group`` (connection or
        ``"a - b"``), ``truth``, ``estimate`` (posterior mean), ``lower``/``upper`` (the
        ``ci_prob`` HDI), ``covered`` (the interval contains the truth), ``excludes_zero``,
        ``rope_decision``, the fit's diagnostics ``max_r_hat``, ``min_ess_bulk``,
        ``min_ess_tail``, ``divergences`` (over all of its scalars) and ``problems``
        (:meth:`embias.BiasFit.problems`, joined by ``"; "``; empty when the fit passed),
        and the fit's own ``random_seed`` (derived from the run's seed, the table and the
        level).
    tables
        One row per simulated table: ``table``, ``seed``, the word-effect shares
        (:func:`word_effect_shares`, ``share_<connection>``), the in-sample mean word
        effect per kind (``mean_u_<kind>``: what a model that treats the words as fixed
        takes for part of the connection means) and the in-sample mean of the protected
        words' coefficients per connection (``mean_coef_<connection>``).
    parameters
        The parameters the tables were drawn from (the truth).
    design_shares
        :func:`word_effect_shares` of the design table (the calibration target).
    settings
        Sampler and reporting settings.
    seconds
        Wall-clock seconds of the fits.
    """

    results: pd.DataFrame = field(repr=False)
    tables: pd.DataFrame = field(repr=False)
    parameters: WordSamplingParameters
    design_shares: pd.Series = field(repr=False)
    settings: Mapping[str, Any]
    seconds: float

    def summary(self) -> pd.DataFrame:
        """Return :func:`summarize_word_sampling` of :attr:`results`."""
        return summarize_word_sampling(self.results)

    def failures(self) -> pd.DataFrame:
        """Return the fits that failed a convergence check: ``table``, ``level``, ``problems``."""
        fits = self.results.drop_duplicates(["table", "level"])
        return fits.loc[fits["problems"] != "", ["table", "level", "problems"]].reset_index(
            drop=True)

    def share_check(self) -> pd.DataFrame:
        """Compare the design table's word-effect shares with the simulated tables'.

        Per connection: the design's share next to the mean over the simulated tables and
        its Monte Carlo se.
        """
        rows = []
        for con, share in self.design_shares.items():
            sim = self.tables[f"share_{con}"]
            rows.append({"connection": con, "design": float(share),
                         "simulated_mean": float(sim.mean()),
                         "simulated_se": float(sim.std(ddof=1) / math.sqrt(len(sim)))
                         if len(sim) > 1 else math.nan})
        return pd.DataFrame(rows)


def _fit_rows(fit: Any, *, index: int, level: str, parameters: WordSamplingParameters,
              ci_prob: float, rope: float) -> list[dict[str, Any]]:
    """Compare one fit's connection means and contrasts with the truth they were drawn from.

    With the fit's convergence record (:func:`embias.calibration.fit_intervals`).
    """
    from .calibration import fit_intervals

    summary, record = fit_intervals(fit, ci_prob=ci_prob, rope=rope)
    rows = []
    for r in summary.itertuples(index=False):
        group = str(r.group)
        truth = (parameters.bar[group] if r.estimand == "connection_mean"
                 else parameters.contrast_truth(group))
        rows.append({
            "table": index, "level": level, "estimand": str(r.estimand), "group": group,
            "truth": truth, "estimate": float(r.estimate), "lower": float(r.lower),
            "upper": float(r.upper), "covered": bool(r.lower <= truth <= r.upper),
            "excludes_zero": bool(r.lower > 0 or r.upper < 0),
            "rope_decision": str(r.rope_decision) if r.estimand == "contrast" else "",
            **record, "random_seed": fit.settings.get("random_seed"),
        })
    return rows


def _table_row(table: pd.DataFrame, index: int, seed: int) -> dict[str, Any]:
    """Describe one simulated table's truth.

    Each connection's share of the residual variance carried by word effects, the mean
    word effect per kind and the mean coefficient per connection.
    """
    shares = word_effect_shares(table)
    effects = table.attrs["truth"]["word_effect"]
    kind_of = (table.drop_duplicates("word_to_compare").set_index("word_to_compare")
               ["connection"].map(WORD_KIND_OF_CONNECTION))
    mean_u = effects.groupby(kind_of.reindex(effects.index)).mean()
    mean_coef = table.attrs["truth"]["coef"].mean(axis=0)
    return {"table": index, "seed": f"({seed}, {index})",
            **{f"share_{c}": float(s) for c, s in shares.items()},
            **{f"mean_u_{k}": float(mean_u[k]) for k in WORD_KINDS if k in mean_u.index},
            **{f"mean_coef_{c}": float(mean_coef[c]) for c in CONNECTIONS
               if c in mean_coef.index}}


#: Tables whose fits run together in one :func:`embias.fit_many` call.
TABLES_PER_BATCH = 128


def simulate_word_sampling(
    design: pd.DataFrame | None = None,
    *,
    n_tables: int = 200,
    parameters: WordSamplingParameters | None = None,
    levels: Sequence[str] = WORD_SAMPLING_LEVELS,
    draws: int = BATCH_DRAWS,
    tune: int = BATCH_TUNE,
    chains: int = DEFAULT_CHAINS,
    sampler: str = "auto",
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = DEFAULT_ROPE,
    first_table: int = 0,
    random_seed: int | None = None,
    progress: bool = True,
) -> WordSamplingSimulation:
    """Measure false claims of bias and coverage when the compared words are a sample.

    Draws ``n_tables`` tables from the crossed model with the design's rows
    (:func:`simulate_word_table`), fits every model of ``levels`` to each, and records
    every connection mean's and contrast's ``ci_prob`` HDI against the truth.

    **No true association difference** (the default, ``parameters=None``): the parameters
    are :func:`calibrate_word_sampling` of the design with
    ``bar[associated] = bar[different] = bar[none]``
    (:meth:`WordSamplingParameters.without_association`): averaged over the populations of
    protected words and of compared words, a stereotype attribute is exactly as far from a
    protected word as an attribute of another class and as a neutral word. Any single table
    still differs — its protected words' coefficients scatter around ``bar`` with sd τ, and
    its few attribute words' effects rarely average to 0 — and that is what a model which
    takes the words as fixed mistakes for bias. The human words keep their own calibrated
    mean; the true associated − none, associated − different and different − none are 0,
    so an interval of theirs that excludes 0 is a false claim; human − none is not 0.

    Parameters
    ----------
    design
        Cosine table whose rows every simulated table keeps; default the religion table on
        GloVe 6B 50d (``embias.study_table("religion", "glove-6b-50d")``).
    n_tables
        Simulated tables (≥ 1).
    parameters
        The truth to draw from; default the null above.
    levels
        Models to fit (default hierarchical and crossed).
    draws, tune, chains
        Sampler settings of every fit (default the batch settings,
        :meth:`embias.FitSettings.for_batch`: 2 × (500 + 1000)).
    sampler
        NUTS implementation (default ``"auto"``: the tables share the design's shape, so
        their fits run together as lanes of one compiled program, :func:`embias.fit_many`).
    ci_prob
        HDI probability (default 0.89).
    rope
        ROPE half-width of the contrasts' decisions.
    first_table
        Index of the first table: table i is drawn from seed ``(random_seed, i)`` and
        fitted with seeds derived from (``random_seed``, i, level), so any slice of a run
        can be recomputed alone (``first_table=k, n_tables=m`` gives tables k … k+m−1).
    random_seed
        Non-negative integer seed of everything; ``None`` (the default) draws one from the
        OS entropy. The seed used is ``settings["random_seed"]`` of the result (shown in
        its repr): passing it back draws the same tables and gives the fits the same
        seeds.
    progress
        Show a progress bar over the tables.

    Returns
    -------
    WordSamplingSimulation
        Per-table rows (:attr:`~WordSamplingSimulation.results`), with
        :meth:`~WordSamplingSimulation.summary` for the rates and their Monte Carlo
        standard errors.

    Raises
    ------
    ValueError
        A bad ``n_tables``, ``first_table``, seed, ``ci_prob`` or ``rope``, an unknown
        sampler or level, no level, parameters that are not
        :class:`WordSamplingParameters`, or a design the calibration refuses.

    Examples
    --------
    A run fits ``n_tables`` × ``levels`` models; its options are checked before any:

    >>> simulate_word_sampling(n_tables=0)
    Traceback (most recent call last):
    ...
    ValueError: n_tables must be an integer ≥ 1, got 0
    """
    from .settings import FitSettings

    n_tables = check_int("n_tables", n_tables, minimum=1)
    first_table = check_int("first_table", first_table, minimum=0)
    seed = check_seed(random_seed)
    ci_prob = check_probability("ci_prob", ci_prob)
    rope = check_rope(rope)
    check_choice("sampler", sampler, SAMPLERS)
    if isinstance(levels, str):
        levels = (levels,)
    levels = tuple(check_choice("levels", lv, ("hierarchical", "crossed", "word", "dataset"))
                   for lv in levels)
    if not levels:
        raise ValueError("levels must name at least one model level, got none")
    if design is None:
        from .tables import study_table

        design = study_table("religion", "glove-6b-50d")
    if parameters is None:
        parameters = calibrate_word_sampling(design).without_association()
    elif not isinstance(parameters, WordSamplingParameters):
        raise ValueError(f"parameters must be a WordSamplingParameters, got "
                         f"{type(parameters).__name__}")
    settings = {lv: FitSettings.for_batch(level=lv, sampler=sampler, draws=draws, tune=tune,
                                          chains=chains, random_seed=0) for lv in levels}
    start = time.perf_counter()
    rows, table_rows = _fit_tables(design, parameters, levels, settings,
                                   list(range(first_table, first_table + n_tables)),
                                   seed=seed, ci_prob=ci_prob, rope=rope, progress=progress)
    return WordSamplingSimulation(
        results=pd.DataFrame(rows), tables=pd.DataFrame(table_rows), parameters=parameters,
        design_shares=word_effect_shares(design),
        settings={"levels": list(levels), "draws": draws, "tune": tune, "chains": chains,
                  "sampler": sampler, "ci_prob": ci_prob, "ci_kind": "hdi", "rope": rope,
                  "random_seed": seed, "first_table": first_table, "n_tables": n_tables},
        seconds=time.perf_counter() - start)


def _fit_tables(design: pd.DataFrame, parameters: WordSamplingParameters,
                levels: Sequence[str], settings: Mapping[str, Any], indices: list[int], *,
                seed: int, ci_prob: float, rope: float, progress: bool
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Draw and fit the tables ``indices``; return the fits' rows and the tables' rows.

    Table i is drawn from seed (seed, i) and fitted at each of ``levels`` (with
    ``settings[level]``) with the seed derived from (seed, i, level). The tables go in blocks of
    :data:`TABLES_PER_BATCH`: a block's fits run together (one compiled program per
    level).
    """
    from tqdm import tqdm

    from .bayes import FitJob, derived_seed, fit_many
    from .settings import FitSettings

    rows: list[dict[str, Any]] = []
    table_rows: list[dict[str, Any]] = []
    with tqdm(total=len(indices), desc="tables", unit="table",
              disable=not progress_wanted(progress)) as bar:
        for k in range(0, len(indices), TABLES_PER_BATCH):
            block = indices[k:k + TABLES_PER_BATCH]
            tables = {i: simulate_word_table(design, parameters,
                                             random_seed=np.random.default_rng([seed, i]))
                      for i in block}
            jobs = [FitJob(tables[i], FitSettings.build(settings[lv], random_seed=derived_seed(
                        seed, str(i), lv)), label=f"table {i} {lv}")
                    for i in block for lv in levels]
            fits = iter(fit_many(jobs, progress=False, warn=False))
            for i in block:
                for lv in levels:
                    rows += _fit_rows(next(fits), index=i, level=lv, parameters=parameters,
                                      ci_prob=ci_prob, rope=rope)
                table_rows.append(_table_row(tables[i], i, seed))
            bar.update(len(block))
    return rows, table_rows


# =========================================================================== summary
def summarize_word_sampling(results: pd.DataFrame, *, converged_only: bool = False
                            ) -> pd.DataFrame:
    """Summarize the rates over the simulated tables, with binomial Monte Carlo errors.

    Parameters
    ----------
    results
        :attr:`WordSamplingSimulation.results` (or the same frame read back from a CSV).
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        One row per model × estimand × group: ``n_tables``, ``truth``, ``mean_estimate``,
        ``coverage`` and ``coverage_se`` (share of intervals containing the truth),
        ``excludes_zero`` and ``excludes_zero_se`` (for a contrast whose truth is 0 — see
        ``null`` — the rate of false claims of bias; nominal 1 − ci_prob),
        ``credible_difference`` and its se (contrasts: the ROPE decision), ``mean_width``,
        ``null`` (the truth is 0) and ``failed_fits`` (fits with a convergence problem
        among those counted).

    Raises
    ------
    ValueError
        ``results`` lacks a column the summary reads.

    Examples
    --------
    Four null tables: the interval of associated − none excludes 0 in one of them, a
    false-claim rate of 0.25 with se √(0.25 · 0.75 / 4) = 0.217:

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "table": [0, 1, 2, 3], "level": "crossed", "estimand": "contrast",
    ...     "group": "associated - none", "truth": 0.0,
    ...     "estimate": [0.01, -0.02, 0.05, 0.0], "lower": [-0.03, -0.06, 0.01, -0.04],
    ...     "upper": [0.05, 0.02, 0.09, 0.04], "covered": [True, True, False, True],
    ...     "excludes_zero": [False, False, True, False],
    ...     "rope_decision": ["undecided", "undecided", "credible difference", "undecided"],
    ...     "problems": ""})
    >>> summary = summarize_word_sampling(results)
    >>> summary[["group", "excludes_zero", "excludes_zero_se", "coverage", "null"]]
                   group  excludes_zero  excludes_zero_se  coverage  null
    0  associated - none           0.25          0.216506      0.75  True
    """
    from .calibration import interval_rates

    check_columns(results, ("table", "level", "estimand", "group", "truth", "estimate",
                            "lower", "upper", "covered", "excludes_zero", "rope_decision",
                            "problems"),
                  name="results", hint="pass WordSamplingSimulation.results")
    credible = results["rope_decision"].fillna("").astype(str) == "credible difference"
    rates = interval_rates(
        results.assign(credible_difference=credible), unit="table",
        shares={"coverage": "covered", "excludes_zero": "excludes_zero",
                "credible_difference": "credible_difference"},
        sort_by=("estimand", "group", "level"), levels=WORD_SAMPLING_LEVELS,
        converged_only=converged_only)
    if rates.empty:
        return pd.DataFrame(columns=list(SUMMARY_COLUMNS))
    # a connection mean has no ROPE decision
    rates.loc[rates["estimand"] != "contrast",
              ["credible_difference", "credible_difference_se"]] = math.nan
    rates["null"] = rates["truth"].abs() < 1e-12
    return rates.rename(columns={"n": "n_tables"})[list(SUMMARY_COLUMNS)]


# =========================================================================== published
#: The authors' released tables refitted by :func:`refit_published_tables` by default.
PUBLISHED_REFIT_STUDIES: tuple[str, ...] = ("religion", "race", "gender")
PUBLISHED_REFIT_EMBEDDINGS: tuple[str, ...] = ("reddit", "google", "glove")


def refit_published_tables(
    studies: Sequence[str] = PUBLISHED_REFIT_STUDIES,
    embeddings: Sequence[str] = PUBLISHED_REFIT_EMBEDDINGS,
    *,
    levels: Sequence[str] = WORD_SAMPLING_LEVELS,
    settings: Any = None,
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = DEFAULT_ROPE,
    progress: bool = True,
) -> pd.DataFrame:
    """Fit the authors' published tables with each model; report their intervals side by side.

    The connection means and contrasts of every model, one row each.

    Parameters
    ----------
    studies, embeddings
        Which of :func:`embias.load_published_table`'s tables (every pair is fitted); the
        tables are loaded as published (duplicate rows kept, rows coded missing dropped;
        the counts are in the result).
    levels
        Models (default hierarchical — the published one — and crossed).
    settings
        :class:`~embias.FitSettings` of every fit (level replaced per model); default
        ``FitSettings()`` (the library's sampler and draws). Without a ``random_seed``
        one is drawn from the OS entropy and shared by every fit; the seed used is the
        result's ``random_seed`` column (and ``attrs["random_seed"]``): passing it back
        (``FitSettings(random_seed=…)``) repeats the fits on the same machine.
    ci_prob, rope
        HDI probability and ROPE half-width of the decisions.
    progress
        Progress bar over the fits.

    Returns
    -------
    pandas.DataFrame
        One row per study × embedding × model × estimand (``connection_mean``,
        ``contrast``) × group: ``estimate``, ``lower``, ``upper``, ``prob_gt_0``,
        ``rope_decision``, ``excludes_zero``, the fit's ``max_r_hat``, ``min_ess_bulk``,
        ``min_ess_tail``, ``divergences`` and ``problems`` (:meth:`embias.BiasFit.problems`),
        the table's ``rows``, ``duplicate_rows`` and ``missing_rows``, and the
        sampler settings (``random_seed`` included).

    Raises
    ------
    ValueError
        A bad ``ci_prob``, ``rope`` or settings, an unknown level, or no table.

    Examples
    --------
    Every pair of study and embedding is fitted with every model (nine tables and two
    models by default); the options are checked first:

    >>> refit_published_tables(levels=["pooled"])
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: levels='pooled' is not one of ['hierarchical',
    'crossed', 'word', 'dataset']
    """
    import warnings

    from .bayes import FitJob, fit_many
    from .settings import FitSettings
    from .tables import load_published_table

    ci_prob = check_probability("ci_prob", ci_prob)
    rope = check_rope(rope)
    if isinstance(levels, str):
        levels = (levels,)
    levels = tuple(check_choice("levels", lv, ("hierarchical", "crossed", "word", "dataset"))
                   for lv in levels)
    settings = FitSettings.build(settings) if settings is not None else FitSettings()
    if settings.random_seed is None:  # the seed policy: draw one, record it in every row
        settings = FitSettings.build(settings, random_seed=check_seed(None))
    if isinstance(studies, str):
        studies = (studies,)
    if isinstance(embeddings, str):
        embeddings = (embeddings,)
    tables, jobs = {}, []
    for study in studies:
        for embedding in embeddings:
            with warnings.catch_warnings():
                # duplicates and rows coded missing: counted in the result instead
                warnings.simplefilter("ignore", UserWarning)
                table = load_published_table(study, embedding)
            tables[study, embedding] = table
            jobs += [FitJob(table, FitSettings.build(settings, level=lv),
                            label=f"{study}/{embedding} {lv}") for lv in levels]
    if not jobs:
        raise ValueError("studies and embeddings must name at least one published table")
    fits = iter(fit_many(jobs, progress=progress, warn=False))
    rows = []
    for (study, embedding), table in tables.items():
        missing = sum(v["coded_missing"] for v in table.attrs.get("missing", {}).values())
        about = {"rows": len(table), "duplicate_rows": int(table.attrs.get("duplicates", 0)),
                 "missing_rows": int(missing), "sampler": settings.sampler,
                 "draws": settings.draws, "tune": settings.tune, "chains": settings.chains}
        for level in levels:
            rows += _refit_rows(next(fits), study=study, embedding=embedding, level=level,
                                about=about, ci_prob=ci_prob, rope=rope)
    result = pd.DataFrame(rows)
    result.attrs["random_seed"] = settings.random_seed
    return result


def _refit_rows(fit: Any, *, study: str, embedding: str, level: str, about: Mapping[str, Any],
                ci_prob: float, rope: float) -> list[dict[str, Any]]:
    """Return one refit's connection means and contrasts, with its diagnostics and ``about``.

    ``about`` describes the table and the sampler settings (the same for every row).
    """
    summary = fit.to_interval_table(ci_prob=ci_prob, ci_kind="hdi", rope=rope)
    summary = summary[summary["estimand"].isin(["connection_mean", "contrast"])]
    overview = fit.diagnostics_overview().iloc[0]
    problems = "; ".join(fit.problems())
    rows = []
    for r in summary.itertuples(index=False):
        contrast = r.estimand == "contrast"
        rows.append({
            "study": study, "embedding": embedding, "level": level,
            "estimand": str(r.estimand), "group": str(r.group),
            "estimate": float(r.estimate), "lower": float(r.lower), "upper": float(r.upper),
            "prob_gt_0": float(r.prob_gt_0) if contrast else math.nan,
            "rope_decision": str(r.rope_decision) if contrast else "",
            "excludes_zero": bool(r.lower > 0 or r.upper < 0),
            "max_r_hat": float(overview["max_r_hat"]),
            "min_ess_bulk": float(overview["min_ess_bulk"]),
            "min_ess_tail": float(overview["min_ess_tail"]),
            "divergences": int(overview["divergences"]), "problems": problems, **about,
            "random_seed": fit.settings["random_seed"], "ci_prob": ci_prob, "rope": rope,
        })
    return rows


def published_conclusions(refits: pd.DataFrame, *, reference: str = "hierarchical",
                          other: str = "crossed") -> pd.DataFrame:
    """Tell which conclusions of the published model survive the other model.

    One row per study × embedding × contrast of :func:`refit_published_tables`.

    Parameters
    ----------
    refits
        :func:`refit_published_tables`'s result (or the same rows read back from a CSV).
    reference, other
        The two models compared (levels of ``refits``).

    Returns
    -------
    pandas.DataFrame
        Columns ``study``, ``embedding``, ``contrast``; per model ``<level>`` (posterior
        mean and HDI as text), ``<level>_excludes_zero`` and ``<level>_decision`` (ROPE
        decision); ``same_decision`` (the two ROPE decisions agree); and ``verdict``:
        ``"survives"`` (the reference model's HDI excludes 0 and the other's excludes it
        on the same side), ``"lost"`` (the reference claims a difference, the other does
        not), ``"no claim"`` (neither claims one) or ``"new claim"`` (only the other).

    Raises
    ------
    ValueError
        ``refits`` lacks a column read, or ``reference`` or ``other`` is not one of its
        models.

    Examples
    --------
    Both intervals lie below 0, so the claim survives, though only the published model's
    lies outside the ROPE:

    >>> import pandas as pd
    >>> refits = pd.DataFrame({
    ...     "study": "religion", "embedding": "glove", "level": ["hierarchical", "crossed"],
    ...     "estimand": "contrast", "group": "associated - none", "estimate": -0.16,
    ...     "lower": [-0.2, -0.26], "upper": [-0.12, -0.06],
    ...     "rope_decision": ["credible difference", "undecided"], "excludes_zero": True})
    >>> conclusions = published_conclusions(refits)
    >>> conclusions[["crossed", "same_decision", "verdict"]]
                       crossed  same_decision   verdict
    0  -0.160 [-0.260, -0.060]          False  survives
    """
    check_columns(refits, ("study", "embedding", "level", "estimand", "group", "estimate",
                           "lower", "upper", "rope_decision", "excludes_zero"),
                  name="refits", hint="pass refit_published_tables()'s result")
    present = set(refits["level"])
    for name, level in (("reference", reference), ("other", other)):
        if level not in present:
            raise ValueError(f"{name}={level!r} is not a model of the refits "
                             f"({sorted(present)})")
    contrasts = refits[refits["estimand"] == "contrast"]
    out = []
    for (study, embedding, group), rows in contrasts.groupby(
            ["study", "embedding", "group"], sort=False):
        by = rows.set_index("level")
        row: dict[str, Any] = {"study": study, "embedding": embedding, "contrast": group}
        for level in (reference, other):
            r = by.loc[level]
            row[level] = f"{r['estimate']:+.3f} [{r['lower']:+.3f}, {r['upper']:+.3f}]"
            row[f"{level}_excludes_zero"] = bool(r["excludes_zero"])
            row[f"{level}_decision"] = str(r["rope_decision"])
        ref, oth = by.loc[reference], by.loc[other]
        row["same_decision"] = ref["rope_decision"] == oth["rope_decision"]
        if ref["excludes_zero"]:
            same_side = oth["excludes_zero"] and (oth["lower"] > 0) == (ref["lower"] > 0)
            row["verdict"] = "survives" if same_side else "lost"
        else:
            row["verdict"] = "new claim" if oth["excludes_zero"] else "no claim"
        out.append(row)
    return pd.DataFrame(out)


# =========================================================================== plot
def plot_word_sampling(
    summary: pd.DataFrame,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    ax: Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Plot the rate of false claims of bias and the coverage of the connection means.

    Two panels from :func:`summarize_word_sampling`: the share of intervals of null
    contrasts that exclude 0 and the coverage of the connection means, per model, with ±2
    Monte Carlo standard errors and the nominal rates dashed.

    Parameters
    ----------
    summary
        :func:`summarize_word_sampling`'s result.
    ci_prob
        The intervals' probability: nominal coverage ``ci_prob``, nominal false-claim
        rate 1 − ``ci_prob``.
    ax
        Two matplotlib Axes to draw on (default a new figure).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the two panels.

    Raises
    ------
    ValueError
        A ``ci_prob`` outside (0, 1), or ``ax`` that is not two Axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "table": [0, 1, 0, 1], "level": "crossed",
    ...     "estimand": ["contrast", "contrast", "connection_mean", "connection_mean"],
    ...     "group": ["associated - none", "associated - none", "none", "none"],
    ...     "truth": [0.0, 0.0, 0.9, 0.9], "estimate": [0.01, -0.02, 0.9, 0.91],
    ...     "lower": [-0.03, -0.06, 0.85, 0.86], "upper": [0.05, 0.02, 0.95, 0.96],
    ...     "covered": True, "excludes_zero": [False, False, True, True],
    ...     "rope_decision": ["undecided", "undecided", "", ""], "problems": ""})
    >>> fig = plot_word_sampling(summarize_word_sampling(results))
    >>> [axis.get_ylabel() for axis in fig.axes]
    ['HDI excludes 0 (false claim of bias)', 'HDI covers the population mean']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    ci_prob = check_probability("ci_prob", ci_prob)
    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    else:
        axes = list(ax)
        if len(axes) != 2:
            raise ValueError(f"ax must be two matplotlib Axes, got {len(axes)}")
        fig = axes[0].figure
    levels = [lv for lv in WORD_SAMPLING_LEVELS if lv in set(summary["level"])]
    levels += sorted(set(summary["level"]) - set(levels))
    panels = [
        (summary[(summary["estimand"] == "contrast") & summary["null"]], "excludes_zero",
         1 - ci_prob, "HDI excludes 0 (false claim of bias)"),
        (summary[summary["estimand"] == "connection_mean"], "coverage", ci_prob,
         "HDI covers the population mean"),
    ]
    width = 0.8 / max(len(levels), 1)
    for axis, (rows, column, nominal, label) in zip(axes, panels, strict=True):
        groups = list(dict.fromkeys(rows["group"]))
        for j, level in enumerate(levels):
            sub = rows[rows["level"] == level].set_index("group").reindex(groups)
            x = np.arange(len(groups)) + (j - (len(levels) - 1) / 2) * width
            axis.bar(x, sub[column], width=width * 0.9, label=level,
                     yerr=2 * sub[f"{column}_se"], capsize=3)
        axis.axhline(nominal, color="0.3", linestyle="--", linewidth=1)
        axis.set_xticks(np.arange(len(groups)), groups, rotation=15)
        axis.set_ylim(0, 1)
        axis.set_ylabel(label)
    axes[0].legend(title="model", frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_published_refits(
    refits: pd.DataFrame,
    *,
    contrasts: Sequence[str] = ("associated - none", "associated - different"),
    title: str | None = None,
) -> Figure:
    """Draw a forest plot of :func:`refit_published_tables`, one panel per contrast.

    One row per published table, the models' HDIs side by side
    (:func:`embias.plot_forest`; the grey line is 0).

    Parameters
    ----------
    refits
        :func:`refit_published_tables`'s result.
    contrasts
        The contrasts drawn, one panel each.
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the panels.

    Raises
    ------
    ValueError
        A contrast that is not in ``refits``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> refits = pd.DataFrame({
    ...     "study": "religion", "embedding": "glove", "level": ["hierarchical", "crossed"],
    ...     "estimand": "contrast", "group": "associated - none", "estimate": -0.16,
    ...     "lower": [-0.2, -0.26], "upper": [-0.12, -0.06], "ci_prob": 0.89})
    >>> fig = plot_published_refits(refits, contrasts=["associated - none"])
    >>> [axis.get_title() for axis in fig.axes]
    ['associated - none (89% HDI)']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    from .plots import plot_forest
    from .report import interval_table

    if isinstance(contrasts, str):
        contrasts = (contrasts,)
    rows = refits[(refits["estimand"] == "contrast") & refits["group"].isin(contrasts)]
    unknown = sorted(set(contrasts) - set(rows["group"]))
    if unknown:
        raise ValueError(f"contrast(s) {unknown} are not in the refits; they have "
                         f"{sorted(set(refits.loc[refits['estimand'] == 'contrast', 'group']))}")
    ci_prob = float(rows["ci_prob"].iloc[0]) if "ci_prob" in rows else DEFAULT_CI_PROB
    levels = list(dict.fromkeys(rows["level"]))
    fig, axes = plt.subplots(1, len(contrasts), figsize=(5.5 * len(contrasts), 4.8),
                             squeeze=False, sharey=True)
    for axis, contrast in zip(axes[0], contrasts, strict=True):
        sub = rows[rows["group"] == contrast]
        table = interval_table(
            [{"estimand": "contrast", "group": f"{r.study} / {r.embedding}",
              "estimate": r.estimate, "lower": r.lower, "upper": r.upper, "level": r.level}
             for r in sub.itertuples()], ci_prob=ci_prob, ci_kind="hdi")
        plot_forest(table, by="level", by_order=levels, reference=0.0, ax=axis,
                    title=contrast, legend=axis is axes[0][0])
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
