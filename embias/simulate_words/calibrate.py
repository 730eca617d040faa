"""Method-of-moments calibration of the crossed model's parameters on a cosine table.

Least squares with a coefficient per (protected word, connection) cell and an effect per
compared word gives σ, τ_u and τ (:func:`calibrate_word_sampling`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .._validation import check_choice
from ..bayes.crossed import WORD_KIND_OF_CONNECTION, WORD_KINDS
from ..tables import CONNECTIONS
from ._common import design_indices
from .parameters import WordSamplingParameters

#: How :func:`calibrate_word_sampling` treats an attribute word's effect: one for all its
#: rows, or one where it meets its own class and one where it meets the others.
ATTRIBUTE_OFFSETS: tuple[str, ...] = ("shared", "own_and_other")
#: The kind of an attribute word's effect in its different rows (``own_and_other``).
_OTHER_KIND = "attribute (different rows)"


def calibrate_word_sampling(table: pd.DataFrame, *,
                            attribute_offsets: str = "shared") -> WordSamplingParameters:
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

    With ``attribute_offsets="own_and_other"`` an attribute word has two effects in the
    least squares, one in its associated rows and one in its different rows (each set
    summing to zero): ``tau_word["attribute"]`` is the spread of the first,
    ``tau_word_different`` of the second, and ``word_correlation`` their correlation over
    the words (their sample covariance minus the mean sampling covariance of the two
    estimates, over the product of the two sds; clipped to [−1, 1], 0 when an sd is 0);
    all three within the attribute classes, and σ from that least squares' residuals.

    Parameters
    ----------
    table
        Long-form cosine table (e.g. ``embias.study_table("religion", "glove-6b-50d")``).
    attribute_offsets
        ``"shared"`` (the default: one effect per compared word, the crossed model's) or
        ``"own_and_other"`` (the pair above).

    Returns
    -------
    WordSamplingParameters
        The estimates.

    Raises
    ------
    ValueError
        A table that is not a valid cosine table, a compared word in rows of two kinds or
        in a single row, too few residual degrees of freedom per connection to estimate σ,
        fewer than 2 protected words per connection or compared words per kind, an unknown
        ``attribute_offsets``, or ``"own_and_other"`` on a table where fewer than 2
        attribute words have both associated and different rows.

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
    check_choice("attribute_offsets", attribute_offsets, ATTRIBUTE_OFFSETS)
    ix = design_indices(table)
    y = table["cosine_distance"].to_numpy(float)
    kinds = [k for k in WORD_KINDS if k in set(ix["word_kind"])]
    fit = _least_squares(y, ix, kinds)
    sigma = {c: math.sqrt(v) for c, v in fit.sigma2.items()}
    if fit.deficient:
        bar, tau, tau_word = _within_class_spreads(table, ix, y, kinds, fit)
        return _with_attribute_offsets(
            table, ix, y, attribute_offsets,
            WordSamplingParameters(bar=bar, tau=tau, sigma=sigma, tau_word=tau_word))
    n_cells = len(ix["cells"])
    cell_coef, cell_cov = fit.theta[:n_cells], fit.cov[:n_cells, :n_cells]
    # word effects relative to each kind's reference word (a shift per kind, which neither
    # their spread nor the cells' spread sees); the cells hold that shift back
    word_effect, word_cov = fit.word_effects()
    kind_shift = {k: float(word_effect[ix["word_kind"] == k].mean()) for k in kinds}
    cell_con = np.asarray(ix["cells"].get_level_values(1), dtype=str)
    bar, tau = {}, {}
    for con in fit.cons:
        members = np.flatnonzero(cell_con == con)
        bar[con] = float(cell_coef[members].mean()) + kind_shift[WORD_KIND_OF_CONNECTION[con]]
        tau[con] = _spread(cell_coef[members], cell_cov[np.ix_(members, members)])
    tau_word = {}
    for kind in kinds:
        members = np.flatnonzero(ix["word_kind"] == kind)
        tau_word[kind] = _spread(word_effect[members], word_cov[np.ix_(members, members)])
    return _with_attribute_offsets(
        table, ix, y, attribute_offsets,
        WordSamplingParameters(bar=bar, tau=tau, sigma=sigma, tau_word=tau_word))


def _with_attribute_offsets(table: pd.DataFrame, ix: Mapping[str, Any], y: np.ndarray,
                            attribute_offsets: str, shared: WordSamplingParameters
                            ) -> WordSamplingParameters:
    """Return ``shared``, or it with the attribute words' pair (``"own_and_other"``)."""
    if attribute_offsets == "shared":
        return shared
    own_sd, other_sd, rho, split_sigma2 = _attribute_pair(table, ix, y)
    return WordSamplingParameters(bar=shared.bar, tau=shared.tau,
                                  sigma={c: math.sqrt(v) for c, v in split_sigma2.items()},
                                  tau_word={**shared.tau_word, "attribute": own_sd},
                                  tau_word_different=other_sd, word_correlation=rho)


def _within_class_spreads(table: pd.DataFrame, ix: Mapping[str, Any], y: np.ndarray,
                          kinds: Sequence[str], fit: _LeastSquaresFit
                          ) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Return bar, τ and τ_u of a design whose least squares is not identified.

    With two classes, an attribute class's words and the cells they meet (its own
    protected class's associated cells, the other class's different cells) can trade a
    constant: the least-norm solution picks one split. Deviations within a class do not
    depend on it, so τ[con] is the spread of the cell coefficients within each protected
    class and τ_u of the word effects within each attribute class (pooled, their sampling
    covariance taken out); bar[con] is the mean distance of the connection's rows.
    """
    connection = np.asarray(ix["connection"])
    cell_words = np.asarray(ix["cells"].get_level_values(0), dtype=str)
    cell_con = np.asarray(ix["cells"].get_level_values(1), dtype=str)
    protected_class = dict(zip(table["protected_word"].astype(str),
                               table["protected_class"].astype(str), strict=False))
    cell_class = np.array([protected_class[w] for w in cell_words])
    bar, tau = {}, {}
    for con in fit.cons:
        bar[con] = float(y[connection == con].mean())
        members = np.flatnonzero(cell_con == con)
        tau[con] = math.sqrt(max(0.0, _pooled_covariance(
            fit.theta[members], fit.theta[members],
            fit.cov[np.ix_(members, members)], cell_class[members])))
    word_effect, word_cov = fit.word_effects()
    word_class = _word_classes(table, ix)
    tau_word = {}
    for kind in kinds:
        members = np.flatnonzero(ix["word_kind"] == kind)
        groups = word_class[members] if kind == "attribute" else np.zeros(len(members))
        tau_word[kind] = math.sqrt(max(0.0, _pooled_covariance(
            word_effect[members], word_effect[members], word_cov[np.ix_(members, members)],
            groups)))
    return bar, tau, tau_word


def _pooled_covariance(a: np.ndarray, b: np.ndarray, cov_ab: np.ndarray,
                       groups: np.ndarray) -> float:
    """Estimate the covariance of the true values behind paired estimates, within groups.

    The pooled within-group covariance of the estimates (deviations from their group's
    mean, over n − groups) minus the mean sampling covariance of those deviations
    (``cov_ab``: the estimates' sampling covariance).
    """
    centre = _class_centring(np.asarray(groups))
    df = len(a) - len(set(np.asarray(groups).tolist()))
    if df < 1:
        raise ValueError("calibration needs a class with at least 2 words")
    return float((centre @ a) @ (centre @ b) - np.trace(centre @ cov_ab @ centre)) / df


class _LeastSquaresFit(NamedTuple):
    """The calibration's least squares: estimates, their covariance, σ² per connection."""

    design: _LeastSquaresDesign
    theta: np.ndarray
    cov: np.ndarray
    sigma2: dict[str, float]
    cons: list[str]
    deficient: bool

    def word_effects(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the compared words' estimated effects and their covariance."""
        to_words = self.design.word_effects_of_parameters()
        return to_words @ self.theta, to_words @ self.cov @ to_words.T


def _least_squares(y: np.ndarray, ix: Mapping[str, Any], kinds: Sequence[str], *,
                   least_norm: bool = False) -> _LeastSquaresFit:
    """Fit the distances on a coefficient per cell and an effect per compared word.

    ``least_norm`` takes the least-norm solution at once (a design whose blocks are not
    connected); otherwise only when the Gram matrix is singular.
    """
    design = _LeastSquaresDesign(ix, kinds)
    gram = design.weighted_gram(np.ones(len(y)))
    # a design of two classes is not identified (see _within_class_spreads): np.linalg.inv
    # of its Gram matrix need not fail, it returns noise
    deficient = least_norm or np.linalg.matrix_rank(gram, hermitian=True) < len(gram)
    gram_inv = np.linalg.pinv(gram, hermitian=True) if deficient else np.linalg.inv(gram)
    theta = gram_inv @ design.transpose_times(y)
    residual = y - theta[design.cell_col] - design.has_word * theta[design.word_col_safe]
    cons = [c for c in CONNECTIONS if c in set(ix["connection"])]
    sigma2 = _residual_variances(design, gram_inv, residual, ix["connection"], cons)
    row_var = np.array([sigma2[c] for c in ix["connection"]])
    cov = gram_inv @ design.weighted_gram(row_var) @ gram_inv
    return _LeastSquaresFit(design, theta, cov, sigma2, cons, bool(deficient))


def _attribute_pair(table: pd.DataFrame, ix: Mapping[str, Any], y: np.ndarray
                    ) -> tuple[float, float, float, dict[str, float]]:
    """Return the sds of attribute words' own- and other-class effects and their correlation.

    For ``attribute_offsets="own_and_other"``: the least squares with a second word per
    attribute word for its different rows. Each attribute class's own-class effects are
    identified only up to a shift that its associated cells take (the classes' blocks of
    rows are not connected), so the least-norm solution is taken and every spread and the
    covariance are of deviations from the word's attribute-class mean (pooled within
    classes). The residual variances are this least squares' (an attribute word's two
    effects leave less to the residual).
    """
    split, (own, other) = _split_attribute_words(ix)
    kinds = [k for k in (*WORD_KINDS, _OTHER_KIND) if k in set(split["word_kind"])]
    fit = _least_squares(y, split, kinds, least_norm=True)
    effect, cov = fit.word_effects()
    classes = _word_classes(table, ix)[own]
    if len(own) - len(set(classes)) < 1:
        raise ValueError("attribute_offsets='own_and_other' needs an attribute class with "
                         "2 or more words that have associated and different rows")

    def pooled(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
        return _pooled_covariance(a, b, c, classes)

    var_own = max(0.0, pooled(effect[own], effect[own], cov[np.ix_(own, own)]))
    var_other = max(0.0, pooled(effect[other], effect[other], cov[np.ix_(other, other)]))
    rho = 0.0
    if var_own > 0.0 and var_other > 0.0:
        covariance = pooled(effect[own], effect[other], cov[np.ix_(own, other)])
        rho = float(np.clip(covariance / math.sqrt(var_own * var_other), -1.0, 1.0))
    return math.sqrt(var_own), math.sqrt(var_other), rho, fit.sigma2


def _word_classes(table: pd.DataFrame, ix: Mapping[str, Any]) -> np.ndarray:
    """Return each compared word's class (``word_class``), in the order of its code."""
    return (pd.Series(table["word_class"].astype(str).to_numpy())
            .groupby(np.asarray(ix["word_codes"])).first()).to_numpy()


def _class_centring(classes: np.ndarray) -> np.ndarray:
    """Return the matrix that subtracts from each value the mean of its class."""
    same = classes[:, None] == classes[None, :]
    return np.eye(len(classes)) - same / same.sum(axis=1, keepdims=True)


def _split_attribute_words(ix: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[np.ndarray,
                                                                               np.ndarray]]:
    """Give every attribute word a second word of its own for its different rows.

    Returns the indices with the new words (kind :data:`_OTHER_KIND`) and the pairs
    (own word, other word) of the attribute words that have both kinds of rows.
    """
    different = ix["connection"] == "different"
    words = list(ix["words"])
    kinds = list(ix["word_kind"])
    word_codes = np.asarray(ix["word_codes"]).copy()
    other_of: dict[int, int] = {}
    for row in np.flatnonzero(different):
        code = int(word_codes[row])
        if code not in other_of:
            other_of[code] = len(words)
            words.append(f"{words[code]} (different rows)")
            kinds.append(_OTHER_KIND)
        word_codes[row] = other_of[code]
    counts = np.bincount(word_codes, minlength=len(words))
    own = [c for c in other_of if counts[c] >= 2 and counts[other_of[c]] >= 2]
    if len(own) < 2:
        raise ValueError("attribute_offsets='own_and_other' needs at least 2 attribute words "
                         f"with 2 or more associated and 2 or more different rows each, got "
                         f"{len(own)}")
    single = [w for w, n in zip(words, counts, strict=True) if n < 2]
    if single:
        raise ValueError(f"attribute_offsets='own_and_other': attribute word(s) {single[:5]} "
                         "have a single associated or different row; each effect needs rows "
                         "with at least 2 protected words")
    return ({**ix, "word_codes": word_codes, "words": np.asarray(words, dtype=str),
             "word_kind": np.asarray(kinds, dtype=object)},
            (np.asarray(own), np.asarray([other_of[c] for c in own])))


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
