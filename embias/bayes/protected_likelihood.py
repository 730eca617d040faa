"""The log density of all the rows of a protected word, its own parameters integrated out.

``protected_word_log_likelihood`` gives what the importance weights of word influence
divide out when a protected word is left out (:mod:`embias.bayes.influence`).

Leaving protected word p out sends its own parameters back to their prior, so its rows'
term is their marginal over those parameters: coef[p, ·] ~ N(bar, τ) at the hierarchical
and crossed levels (per cell, ȳ ~ N(bar, τ² + σ²/n) times the within-cell term of SS; at
the crossed level on y − u), m[p] ~ N(prior_location, 0.5) at the word level (the rows
jointly Normal, Sherman–Morrison); the plain sum of its rows at the dataset level. One
function per model level: a new level adds its own here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .crossed import crossed_design

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from .fit import BiasFit

__all__ = ["WORD_PRIOR_SD", "protected_word_log_likelihood"]

#: Prior sd of a protected word's mean m[pw] at the word level (embias.bayes.model).
WORD_PRIOR_SD = 0.5
_LOG_2PI = float(np.log(2.0 * np.pi))


def _cell_grid(fit: BiasFit) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """Return the protected words, connections, and every cell's (word, connection) index."""
    cells = fit.cells
    words = [str(w) for w in dict.fromkeys(cells["protected_word"])]
    cons = [str(c) for c in dict.fromkeys(cells["connection"])]
    w_idx = pd.Index(words).get_indexer(cells["protected_word"].astype(str))
    c_idx = pd.Index(cons).get_indexer(cells["connection"].astype(str))
    return words, cons, w_idx, c_idx


def _draws(post: xr.Dataset, name: str, *dims: str, **sel: Sequence[str]) -> np.ndarray:
    """Return the posterior draws of ``name`` as (sample, *dims)."""
    da = post[name]
    if sel:
        da = da.sel(sel)
    da = da.transpose("chain", "draw", *dims)
    return da.values.reshape(-1, *da.shape[2:])


def _integrated_cells(n: np.ndarray, mean: np.ndarray, ss: np.ndarray, bar: np.ndarray,
                      tau2: np.ndarray, sigma2: np.ndarray) -> np.ndarray:
    """Return log p(rows of the cells | bar, τ, σ), each cell's coefficient integrated out.

    Each coefficient ~ N(bar, τ²); arrays broadcast to (sample, cell), summed over cells.
    """
    within = -0.5 * ((n - 1.0) * (_LOG_2PI + np.log(sigma2)) + np.log(n) + ss / sigma2)
    var = tau2 + sigma2 / n
    between = -0.5 * (_LOG_2PI + np.log(var) + (mean - bar) ** 2 / var)
    return np.sum(within + between, axis=-1)


def protected_word_log_likelihood(fit: BiasFit) -> xr.DataArray:
    """Return the log density of each protected word's rows, its own parameters integrated.

    For every posterior draw (see the module notes). Importance weights 1/p(y_p | θ) turn
    the fit's posterior into the posterior without protected word p: at the hierarchical
    and crossed levels coef[p, ·] ~ N(bar, τ) is integrated out (crossed: given the
    compared words' effects u), at the word level m[p] ~ N(prior_location, 0.5); at the
    dataset level it is the sum of the rows' terms.

    Parameters
    ----------
    fit
        A fit (anything with a fit's ``posterior``, ``table``, ``cells``, ``level`` and
        ``settings``).

    Returns
    -------
    xarray.DataArray
        Dims ``chain, draw, protected_word``.

    Examples
    --------
    At the dataset level a protected word's term is the sum of its rows' Normal terms:

    >>> from types import SimpleNamespace
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from scipy import stats
    >>> from embias.bayes import cell_statistics
    >>> from embias.bayes.protected_likelihood import protected_word_log_likelihood
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.7, 1.0, 0.85, 0.9]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.75, 0.95]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> fit = SimpleNamespace(posterior=xr.DataTree.from_dict({"posterior": post}),
    ...                       table=table, cells=cell_statistics(table), level="dataset",
    ...                       settings={})
    >>> protected_word_log_likelihood(fit).sel(protected_word="she").item()
    2.1422...
    >>> float(stats.norm.logpdf([0.85, 0.9], [0.75, 0.95], 0.1).sum())
    2.1422...
    """
    import xarray as xr

    post = fit.posterior["posterior"].to_dataset()
    words, cons, w_idx, c_idx = _cell_grid(fit)
    grid = np.zeros((3, len(words), len(cons)))
    for k, col in enumerate(("n", "mean", "ss")):
        grid[k, w_idx, c_idx] = fit.cells[col].to_numpy(float)
    terms = {"dataset": _dataset_terms, "word": _word_terms}.get(fit.level,
                                                                 _hierarchical_terms)
    out = terms(fit, post, cons, grid)
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    return xr.DataArray(out.reshape(chains, draws, len(words)),
                        dims=("chain", "draw", "protected_word"),
                        coords={"chain": post["chain"].values, "draw": post["draw"].values,
                                "protected_word": words})


def _dataset_terms(fit: BiasFit, post: xr.Dataset, cons: list[str],
                   grid: np.ndarray) -> np.ndarray:
    """Return the dataset level's (sample, protected word) terms: sums of the rows'."""
    n, ybar, ss = grid
    mu = _draws(post, "connection_mean", "connection", connection=cons)       # (S, C)
    s2 = _draws(post, "sigma")[:, None, None] ** 2
    return -0.5 * np.sum(n * (_LOG_2PI + np.log(s2))
                         + (ss + n * (ybar - mu[:, None, :]) ** 2) / s2, axis=-1)


def _word_terms(fit: BiasFit, post: xr.Dataset, cons: list[str],
                grid: np.ndarray) -> np.ndarray:
    """Return the word level's terms: the rows jointly Normal, m[p] integrated out."""
    n, ybar, ss = grid
    co = _draws(post, "co", "connection", connection=cons)                    # (S, C)
    s2 = _draws(post, "sigma")[:, None] ** 2                                    # (S, 1)
    loc = float(fit.settings.get("prior_location", 1.0))
    t2 = WORD_PRIOR_SD**2
    d = ybar[None] - loc - co[:, None, :]                                       # (S, W, C)
    sum_r2 = np.sum(ss[None] + n[None] * d**2, axis=-1)
    sum_r = np.sum(n[None] * d, axis=-1)
    rows = n.sum(axis=1)[None, :]
    denom = 1.0 + t2 * rows / s2
    return -0.5 * (rows * (_LOG_2PI + np.log(s2)) + np.log(denom) + sum_r2 / s2
                   - t2 * (sum_r / s2) ** 2 / denom)


def _hierarchical_terms(fit: BiasFit, post: xr.Dataset, cons: list[str],
                        grid: np.ndarray) -> np.ndarray:
    """Return the hierarchical and crossed levels' terms: coef[p, ·] integrated out.

    At the crossed level on the rows less their compared words' effects u.
    """
    n, ybar, ss = grid
    n_w, n_c = n.shape
    bar = _draws(post, "bar", "connection", connection=cons)
    tau2 = _draws(post, "tau", "connection", connection=cons) ** 2
    s2 = _draws(post, "sigma", "connection", connection=cons) ** 2
    out = np.empty((bar.shape[0], n_w))
    if fit.level != "crossed":
        for p in range(n_w):
            out[:, p] = _integrated_cells(n[p], ybar[p], ss[p], bar, tau2, s2)
        return out
    table, words = fit.table, [str(w) for w in dict.fromkeys(fit.cells["protected_word"])]
    design = crossed_design(table, fit.cells)
    u = _draws(post, "word_effect", "word_to_compare", word_to_compare=design.words)
    y = table["cosine_distance"].to_numpy(float)
    row_pw = pd.Index(words).get_indexer(table["protected_word"].astype(str))
    row_con = pd.Index(cons).get_indexer(table["connection"].astype(str))
    for p in range(n_w):
        rows = np.flatnonzero(row_pw == p)
        onehot = np.zeros((len(rows), n_c))
        onehot[np.arange(len(rows)), row_con[rows]] = 1.0
        r = y[rows][None, :] - u[:, design.row_word[rows]]                     # (S, rows)
        total = r @ onehot
        mean = total / n[p]
        dev2 = (r - mean[:, row_con[rows]]) ** 2 @ onehot
        out[:, p] = _integrated_cells(n[p], mean, dev2, bar, tau2, s2)
    return out
