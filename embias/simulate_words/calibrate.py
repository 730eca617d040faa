"""Method-of-moments calibration of the crossed model's parameters on a cosine table.

Least squares with a coefficient per (protected word, connection) cell and an effect per
compared word gives σ, τ_u and τ (:func:`calibrate_word_sampling`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..bayes.crossed import WORD_KIND_OF_CONNECTION, WORD_KINDS
from ..tables import CONNECTIONS
from ._common import design_indices
from .parameters import WordSamplingParameters


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
    ix = design_indices(table)
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
