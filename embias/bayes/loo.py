"""Model comparison: pointwise log-likelihoods of a fit and PSIS-LOO through ArviZ.

Two questions, two pointwise units:

- ``by="row"``: one term per row of the cosine table. PSIS-LOO then estimates how well
  the model predicts *new rows of these same words* (at the crossed level, given each
  compared word's effect u).
- ``by="word"``: one term per compared word, the log density of all of its rows together
  (at the crossed level with that word's u integrated out, in closed form). LOO then
  estimates how well the model predicts the rows of a *new compared word* — the question a
  bias claim about a word list raises.

The log-likelihoods are computed from the posterior draws after sampling (the fast paths
never see the rows), kept in the fit's ``DataTree`` as the group ``log_likelihood``
(variables ``cosine_distance``, per row, and ``compared_word``, per compared word) and
saved with it. PSIS, the comparison, stacking weights
and Pareto-k diagnostics are ArviZ's (:func:`arviz.loo`, :func:`arviz.compare`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_choice
from .data import row_cells
from .diagnostics import _cell_location_scale

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from .fit import BiasFit

__all__ = ["LOG_LIKELIHOOD_VARS", "LOO_UNITS", "compare_models", "pointwise_log_likelihood"]

#: Pointwise units of the log-likelihood (see the module notes).
LOO_UNITS: tuple[str, ...] = ("row", "word")
LooUnit = Literal["row", "word"]
#: The log-likelihood variable of each unit.
LOG_LIKELIHOOD_VARS = {"row": "cosine_distance", "word": "compared_word"}
_LOG_2PI = float(np.log(2.0 * np.pi))


def _row_words(table: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    if "word_to_compare" not in table.columns:
        raise ValueError("the table has no word_to_compare column, so its rows cannot be "
                         "grouped by compared word (by='word'); columns: "
                         f"{list(table.columns)}")
    codes, words = pd.factorize(table["word_to_compare"].astype(str), sort=False)
    return codes.astype(np.int64), [str(w) for w in words]


def pointwise_log_likelihood(fit: BiasFit, *, chunk: int = 500) -> xr.Dataset:
    """Log-likelihood of every row and of every compared word, for every posterior draw.

    Parameters
    ----------
    fit
        A fit at any level.
    chunk
        Draws processed at a time (bounds the memory to ``chunk × rows`` numbers).

    Returns
    -------
    xarray.Dataset
        ``cosine_distance`` (dims ``chain, draw, row``): log N(y | μ, σ) of each row
        (crossed level: μ includes the word's effect u); ``compared_word`` (dims
        ``chain, draw, word_to_compare``):
        the joint log density of each compared word's rows (crossed level: u integrated
        out; other levels: the sum of the word's row terms). Cached in the fit's
        ``DataTree`` as the group ``log_likelihood``.
    """
    import xarray as xr

    tree = fit.posterior
    if "log_likelihood" in tree.children:
        ds = tree["log_likelihood"].to_dataset()
        if set(LOG_LIKELIHOOD_VARS.values()) <= set(ds.data_vars):
            return ds
    table, cells = fit.table, fit.cells
    post = tree["posterior"].to_dataset()
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    mu, sigma = _cell_location_scale(tree, cells)                 # (sample, cell)
    row_cell = row_cells(table, cells)
    row_word, words = _row_words(table)
    y = table["cosine_distance"].to_numpy(float)
    onehot = np.zeros((len(y), len(words)))
    onehot[np.arange(len(y)), row_word] = 1.0
    crossed = "tau_word" in post
    if crossed:
        from .crossed import crossed_design

        design = crossed_design(table, cells)
        if design.words != words:  # pragma: no cover - same factorisation
            raise ValueError("compared words out of order")
        u = post["word_effect"].transpose("chain", "draw", "word_to_compare").values
        u = u.reshape(chains * draws, len(words))
        tau = post["tau_word"].transpose("chain", "draw", "word_kind").sel(
            word_kind=design.kinds).values.reshape(chains * draws, -1)
        tau2 = (tau**2)[:, design.word_kind]
    n_samples = mu.shape[0]
    by_row = np.empty((n_samples, len(y)))
    by_word = np.empty((n_samples, len(words)))
    for start in range(0, n_samples, chunk):
        s = slice(start, start + chunk)
        resid = y[None, :] - mu[s][:, row_cell]
        var = sigma[s][:, row_cell] ** 2
        if crossed:
            cond = resid - u[s][:, row_word]
            by_row[s] = -0.5 * (_LOG_2PI + np.log(var) + cond**2 / var)
            # the word's rows jointly, u ~ N(0, τ²) integrated out (matrix determinant
            # lemma and Sherman–Morrison; embias.bayes.crossed)
            a = (resid**2 / var) @ onehot
            b = (resid / var) @ onehot
            c = (1.0 / var) @ onehot
            log_det = np.log(var) @ onehot
            n_w = onehot.sum(axis=0)[None, :]
            t2 = tau2[s]
            denom = 1.0 + t2 * c
            by_word[s] = -0.5 * (n_w * _LOG_2PI + log_det + np.log(denom) + a
                                 - t2 * b**2 / denom)
        else:
            by_row[s] = -0.5 * (_LOG_2PI + np.log(var) + resid**2 / var)
            by_word[s] = by_row[s] @ onehot
    ds = xr.Dataset(
        {LOG_LIKELIHOOD_VARS["row"]: (("chain", "draw", "row"),
                                      by_row.reshape(chains, draws, len(y))),
         LOG_LIKELIHOOD_VARS["word"]: (("chain", "draw", "word_to_compare"),
                                       by_word.reshape(chains, draws, len(words)))},
        coords={"chain": post["chain"].values, "draw": post["draw"].values,
                "row": np.arange(len(y)), "word_to_compare": words})
    tree["log_likelihood"] = xr.DataTree(ds)
    return ds


def _loo_tree(fit: BiasFit, by: str) -> Any:
    """The DataTree ArviZ reads: the posterior and the chosen log-likelihood."""
    import xarray as xr

    ll = pointwise_log_likelihood(fit)
    return xr.DataTree.from_dict({"posterior": fit.posterior["posterior"].to_dataset(),
                                  "log_likelihood": ll[[LOG_LIKELIHOOD_VARS[by]]]})


def _same_data(fits: Mapping[str, BiasFit]) -> None:
    labels = list(fits)
    first = fits[labels[0]].table
    key_cols = [c for c in ("protected_word", "word_to_compare", "connection",
                            "cosine_distance") if c in first.columns]
    for label in labels[1:]:
        other = fits[label].table
        same = (len(other) == len(first)
                and all(c in other.columns for c in key_cols)
                and all(np.array_equal(first[c].to_numpy(), other[c].to_numpy())
                        for c in key_cols))
        if not same:
            raise ValueError(f"compare_models() compares models of one table, but fit "
                             f"{label!r} was fitted to another table than {labels[0]!r} "
                             f"({len(other)} vs {len(first)} rows, or other words/distances)"
                             "; refit both models on the same table")


def compare_models(
    fits: Mapping[str, BiasFit] | Sequence[BiasFit],
    *,
    by: LooUnit = "row",
) -> pd.DataFrame:
    """PSIS-LOO comparison of models fitted to the same table (ArviZ's ``compare``).

    Parameters
    ----------
    fits
        ``{label: fit}``, or a sequence of fits (labelled by their level; levels must
        then differ).
    by
        ``"row"``: leave one row out (new rows of the same words); ``"word"``: leave one
        compared word out (a new word of the list; the crossed model integrates its u
        out). See the module notes.

    Returns
    -------
    pandas.DataFrame
        One row per model, best first: ``model``, ``rank``, ``elpd`` (expected log
        pointwise predictive density), ``se``, ``elpd_diff`` and ``dse`` (difference to the
        best and its standard error), ``p`` (effective number of parameters), ``weight``
        (stacking), ``looic`` (−2·elpd, the deviance scale of WAIC), ``pareto_k_max``,
        ``pareto_k_bad`` (points with k > 0.7), ``warning`` and ``by``.

    Raises
    ------
    ValueError
        Fewer than two fits, fits of different tables, repeated labels, or a table
        without ``word_to_compare`` with ``by="word"``.
    """
    import arviz as az

    check_choice("by", by, LOO_UNITS)
    if not isinstance(fits, Mapping):
        fits = list(fits)
        labels = [f.level for f in fits]
        if len(set(labels)) != len(labels):
            raise ValueError(f"compare_models() got several fits of the same level {labels}; "
                             "pass {label: fit} to name them")
        fits = dict(zip(labels, fits, strict=True))
    if len(fits) < 2:
        raise ValueError(f"compare_models() needs at least two fits, got {len(fits)}")
    _same_data(fits)
    loos = {}
    for label, fit in fits.items():
        loos[label] = az.loo(_loo_tree(fit, by), pointwise=True,
                             var_name=LOG_LIKELIHOOD_VARS[by])
    table = az.compare(loos, method="stacking", round_to="none")
    out = table.reset_index(names="model")
    out["looic"] = -2.0 * out["elpd"]
    ks = {label: np.asarray(loo.pareto_k) for label, loo in loos.items()}
    out["pareto_k_max"] = [float(np.max(ks[m])) for m in out["model"]]
    out["pareto_k_bad"] = [int((ks[m] > 0.7).sum()) for m in out["model"]]
    out["by"] = by
    keep = ["model", "rank", "elpd", "se", "elpd_diff", "dse", "p", "weight", "looic",
            "pareto_k_max", "pareto_k_bad", "warning", "by"]
    return out[[c for c in keep if c in out.columns]]
