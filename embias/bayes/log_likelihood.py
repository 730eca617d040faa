"""Pointwise log-likelihoods of a fit's draws, by row and by compared word.

The two pointwise units of :mod:`embias.bayes.loo`: one term per row of the cosine table
(``by="row"``), and one per compared word, the log density of all of its rows together
(``by="word"``; at the crossed level with that word's u integrated out, in closed form).

The log-likelihoods are computed from the posterior draws after sampling (the fast paths
never see the rows). The one per compared word is the fit's ``DataTree``'s group
``log_likelihood`` (variable ``compared_word``), made with the fit and saved with it, so
ArviZ's own :func:`arviz.loo` works on ``fit.posterior`` (leave one compared word out);
the one per row (variable ``cosine_distance``, rows × draws numbers) is computed when asked
for and kept with the fit object only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._progress import progress_wanted
from .data import row_cells
from .diagnostics import cell_location_scale

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr
    from xarray import DataTree

    from .fit import BiasFit

__all__ = [
    "LOG_LIKELIHOOD_VARS",
    "pointwise_log_likelihood",
    "row_words",
    "word_log_likelihood",
]

#: The log-likelihood variable of each unit.
LOG_LIKELIHOOD_VARS = {"row": "cosine_distance", "word": "compared_word"}
_LOG_2PI = float(np.log(2.0 * np.pi))


def row_words(table: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Return each row's compared word as an index, and the compared words.

    Parameters
    ----------
    table
        A long-form cosine table.

    Returns
    -------
    (codes, words)
        The index of every row's compared word (int64) and the compared words in order of
        first appearance.

    Raises
    ------
    ValueError
        The table has no ``word_to_compare`` column (the message names its columns).

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.bayes.loo import row_words
    >>> row_words(pd.DataFrame({"word_to_compare": ["doctor", "chair", "doctor"]}))
    (array([0, 1, 0]), ['doctor', 'chair'])
    """
    if "word_to_compare" not in table.columns:
        raise ValueError("the table has no word_to_compare column, so its rows cannot be "
                         "grouped by compared word (by='word'); columns: "
                         f"{list(table.columns)}")
    codes, words = pd.factorize(table["word_to_compare"].astype(str), sort=False)
    return codes.astype(np.int64), [str(w) for w in words]


def _log_likelihoods(tree: DataTree, table: pd.DataFrame, cells: pd.DataFrame, *,
                     rows: bool, chunk: int = 500,
                     progress: bool = False) -> dict[str, np.ndarray]:
    """Return the pointwise log-likelihoods of a fit's draws, shape (sample, unit).

    Per row (``rows=True``) and per compared word (when the table has
    ``word_to_compare``).

    Draws run along the last axis of the working arrays (rows × draws), so a compared
    word's sums over its rows are one sparse product; the sums that depend on a row's cell
    only (Σ log σ², Σ 1/σ²) come from the words' cell counts.
    """
    from scipy import sparse

    from .crossed import crossed_design, row_template_effects

    post = tree["posterior"].to_dataset()
    mu, sigma = cell_location_scale(tree, cells)                 # (sample, cell)
    row_cell = row_cells(table, cells)
    y = table["cosine_distance"].to_numpy(float)[:, None]
    by_words = "word_to_compare" in table.columns
    if by_words:
        row_word, words = row_words(table)
        word_rows = sparse.csr_array((np.ones(len(y)), (row_word, np.arange(len(y)))),
                                     shape=(len(words), len(y)))   # (word, row) → 1
        counts = np.zeros((len(words), len(cells)))                # (word, cell) → rows
        np.add.at(counts, (row_word, row_cell), 1.0)
        n_w = counts.sum(axis=1)[:, None]
    crossed = "tau_word" in post
    template = row_template_effects(tree, table, cells) if crossed else None
    if crossed:
        design = crossed_design(table, cells)
        if design.words != words:  # pragma: no cover - same factorisation
            raise ValueError("compared words out of order")
        u = post["word_effect"].transpose("chain", "draw", "word_to_compare").values
        u = u.reshape(-1, len(words))
        tau = post["tau_word"].transpose("chain", "draw", "word_kind").sel(
            word_kind=design.kinds).values.reshape(u.shape[0], -1)
        tau2 = (tau**2)[:, design.word_kind]
    n_samples = mu.shape[0]
    out: dict[str, np.ndarray] = {}
    if rows:
        out["row"] = np.empty((n_samples, len(y)))
    if by_words:
        out["word"] = np.empty((n_samples, len(words)))
    for start in _chunks(n_samples, chunk, progress=progress):
        s = slice(start, start + chunk)
        var_cell = np.ascontiguousarray(sigma[s].T) ** 2           # (cell, draw)
        resid = y - np.ascontiguousarray(mu[s].T)[row_cell]        # (row, draw)
        if template is not None:  # a sentence table: the rows' template effects
            resid -= template[s].T
        inv_var = (1.0 / var_cell)[row_cell]
        weighted = resid * inv_var
        scaled = resid * weighted                                  # r²/σ²
        if crossed:
            if rows:
                cond = resid - np.ascontiguousarray(u[s].T)[row_word]
                out["row"][s] = -0.5 * (_LOG_2PI - np.log(inv_var) + cond**2 * inv_var).T
            # the word's rows jointly, u ~ N(0, τ²) integrated out (matrix determinant
            # lemma and Sherman–Morrison; embias.bayes.crossed)
            a = word_rows @ scaled                                 # (word, draw)
            b = word_rows @ weighted
            c = counts @ (1.0 / var_cell)
            log_det = counts @ np.log(var_cell)
            t2 = tau2[s].T
            denom = 1.0 + t2 * c
            out["word"][s] = -0.5 * (n_w * _LOG_2PI + log_det + np.log(denom) + a
                                     - t2 * b**2 / denom).T
        else:
            if rows:
                out["row"][s] = -0.5 * (_LOG_2PI + np.log(var_cell)[row_cell] + scaled).T
            if by_words:
                out["word"][s] = -0.5 * (n_w * _LOG_2PI + counts @ np.log(var_cell)
                                         + word_rows @ scaled).T
    return out


def _chunks(n: int, chunk: int, *, progress: bool) -> Any:
    """Return the start of every chunk of draws, with a tqdm bar when ``progress``."""
    starts = range(0, n, chunk)
    if not progress:
        return starts
    from tqdm import tqdm

    return tqdm(starts, desc="log-likelihood", unit="chunk", disable=not progress_wanted(True),
                leave=False)


def word_log_likelihood(tree: DataTree, table: pd.DataFrame,
                        cells: pd.DataFrame) -> xr.Dataset:
    """Return the log-likelihood group a fit's ``DataTree`` carries, for :func:`arviz.loo`.

    Parameters
    ----------
    tree
        The fit's draws (group ``posterior``).
    table, cells
        The fitted table and its cell statistics.

    Returns
    -------
    xarray.Dataset
        ``compared_word`` (dims ``chain, draw, word_to_compare``): the joint log density of
        each compared word's rows (crossed level: its u integrated out), so
        ``az.loo(fit.posterior)`` leaves one compared word out (``by="word"``); a table
        without ``word_to_compare`` gets ``cosine_distance`` per row instead. The
        per-row terms of every table (:func:`pointwise_log_likelihood`) are not kept in
        the ``DataTree``: they have rows × draws numbers (230 MB for religion/GloVe).

    Examples
    --------
    One draw of a dataset-level model: each compared word's rows are independent Normal
    terms around their connection's mean:

    >>> import pandas as pd
    >>> import xarray as xr
    >>> from scipy import stats
    >>> from embias.bayes import cell_statistics
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.7, 1.0, 0.85, 0.9]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.75, 0.95]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> from embias.bayes.loo import word_log_likelihood
    >>> ll = word_log_likelihood(tree, table, cell_statistics(table))
    >>> round(ll["compared_word"].sel(word_to_compare="doctor").item(), 6)
    2.142293
    >>> round(float(stats.norm.logpdf([0.7, 0.85], 0.75, 0.1).sum()), 6)
    2.142293
    """
    import xarray as xr

    post = tree["posterior"].to_dataset()
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    coords: dict[str, Any] = {"chain": post["chain"].values, "draw": post["draw"].values}
    if "word_to_compare" not in table.columns:
        row = _log_likelihoods(tree, table, cells, rows=True)["row"]
        coords["row"] = np.arange(len(table))
        return xr.Dataset({LOG_LIKELIHOOD_VARS["row"]: (
            ("chain", "draw", "row"), row.reshape(chains, draws, -1))}, coords=coords)
    word = _log_likelihoods(tree, table, cells, rows=False)["word"]
    coords["word_to_compare"] = row_words(table)[1]
    return xr.Dataset({LOG_LIKELIHOOD_VARS["word"]: (
        ("chain", "draw", "word_to_compare"), word.reshape(chains, draws, -1))},
        coords=coords)


def pointwise_log_likelihood(fit: BiasFit, *, chunk: int = 500,
                             progress: bool = False) -> xr.Dataset:
    """Return the log-likelihood of every row and of every compared word, for every draw.

    Parameters
    ----------
    fit
        A fit at any level (a crossed fit of a sentence table includes each row's
        template effect); anything with a fit's ``posterior``, ``table`` and ``cells``.
    chunk
        Draws processed at a time (bounds the memory to ``chunk × rows`` numbers).
    progress
        Show a tqdm bar over the chunks (only in a terminal).

    Returns
    -------
    xarray.Dataset
        ``cosine_distance`` (dims ``chain, draw, row``): log N(y | μ, σ) of each row
        (crossed level: μ includes the word's effect u); ``compared_word`` (dims
        ``chain, draw, word_to_compare``):
        the joint log density of each compared word's rows (crossed level: u integrated
        out; other levels: the sum of the word's row terms). Computed once per fit and
        kept with it (not saved); ``compared_word`` is also the fit's ``DataTree``'s
        ``log_likelihood`` group (:func:`word_log_likelihood`), which is saved.

    Raises
    ------
    ValueError
        The fit's table has no ``word_to_compare`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from scipy import stats
    >>> from embias.bayes import cell_statistics
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.7, 1.0, 0.85, 0.9]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.75, 0.95]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> from types import SimpleNamespace
    >>> from embias.bayes.loo import pointwise_log_likelihood
    >>> fit = SimpleNamespace(posterior=tree, table=table, cells=cell_statistics(table))
    >>> pointwise_log_likelihood(fit)["cosine_distance"].values.round(4)
    array([[[1.2586, 1.2586, 0.8836, 1.2586]]])
    >>> stats.norm.logpdf([0.7, 1.0, 0.85, 0.9], [0.75, 0.95, 0.75, 0.95], 0.1).round(4)
    array([1.2586, 1.2586, 0.8836, 1.2586])
    """
    import xarray as xr

    kept = fit.__dict__.get("_pointwise_log_likelihood")
    if kept is not None:
        return kept
    tree = fit.posterior
    post = tree["posterior"].to_dataset()
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    values = _log_likelihoods(tree, fit.table, fit.cells, rows=True, chunk=chunk,
                              progress=progress)
    _, words = row_words(fit.table)
    ds = xr.Dataset(
        {LOG_LIKELIHOOD_VARS["row"]: (("chain", "draw", "row"),
                                      values["row"].reshape(chains, draws, -1)),
         LOG_LIKELIHOOD_VARS["word"]: (("chain", "draw", "word_to_compare"),
                                       values["word"].reshape(chains, draws, -1))},
        coords={"chain": post["chain"].values, "draw": post["draw"].values,
                "row": np.arange(len(fit.table)), "word_to_compare": words})
    fit.__dict__["_pointwise_log_likelihood"] = ds
    return ds
