"""The PyMC models of a cosine table (dataset, word and hierarchical levels).

See :mod:`embias.bayes` for the models' equations, priors and identification.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_choice, check_number
from ..settings import DATA_MODES, DEFAULT_PRIOR_LOCATION, LEVELS
from .data import choose_centring, row_cells

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = ["build_model"]

Level = Literal["dataset", "word", "hierarchical"]
DataMode = Literal["summary", "raw"]


def build_model(
    cells: pd.DataFrame,
    *,
    level: Level = "hierarchical",
    data: DataMode = "summary",
    table: pd.DataFrame | None = None,
    centred: Sequence[str] | Literal["auto"] = "auto",
    prior_location: float = DEFAULT_PRIOR_LOCATION,
) -> pm.Model:
    """Build (not sample) the PyMC model of a cosine table.

    Parameters
    ----------
    cells
        Output of :func:`cell_statistics` (defines the coordinates and, with
        ``data="summary"``, the likelihood).
    level
        ``"dataset"``, ``"word"`` or ``"hierarchical"`` (see the module notes).
    data
        ``"summary"``: likelihood of the cell sufficient statistics (ȳ and SS);
        ``"raw"``: one Normal term per row of ``table``.
    table
        The cosine table the cells come from; required with ``data="raw"``.
    centred
        Hierarchical level only: connections whose coefficients are sampled centred;
        ``"auto"`` uses :func:`~embias.bayes.data.choose_centring`.
    prior_location
        Location of the priors of the connection means: ``bar ~ N(prior_location, 0.3)``
        (hierarchical), ``m ~ N(prior_location, 0.5)`` (word, dataset). 1.0 for cosine
        distances (default); 0.0 for the paired change model, whose data are differences.
        It enters the model as data, so every location shares one compiled graph.

    Returns
    -------
    pymc.Model
        Coordinates ``protected_word`` and ``connection``; deterministic
        ``connection_mean`` (dims ``connection``) at every level and ``coef`` (dims
        ``protected_word, connection``) at the word and hierarchical levels.
    """
    import pymc as pm
    import pytensor.tensor as pt

    check_choice("level", level, LEVELS)
    check_choice("data", data, DATA_MODES)
    prior_location = check_number("prior_location", prior_location)
    words = list(dict.fromkeys(cells["protected_word"]))
    cons = list(dict.fromkeys(cells["connection"]))
    w_idx = pd.Index(words).get_indexer(cells["protected_word"]).astype(np.int64)
    c_idx = pd.Index(cons).get_indexer(cells["connection"]).astype(np.int64)
    cell_labels = [f"{w}|{c}" for w, c in zip(cells["protected_word"], cells["connection"],
                                              strict=True)]
    coords: dict[str, Any] = {"protected_word": words, "connection": cons, "cell": cell_labels}
    if level == "hierarchical":
        chosen = choose_centring(cells) if centred == "auto" else tuple(centred)
        unknown = sorted(set(chosen) - set(cons))
        if unknown:
            raise ValueError(f"centred={list(chosen)} names connections {unknown} that are not "
                             f"in the table ({cons})")
        centred_mask = np.array([float(c in chosen) for c in cons])
    if data == "raw":
        if table is None:
            raise ValueError("data='raw' needs the table (table=...)")
        row_cell = row_cells(table, cells)
        coords["row"] = np.arange(len(table))

    with pm.Model(coords=coords) as model:
        cell_word = pm.Data("cell_word", w_idx, dims="cell")
        cell_connection = pm.Data("cell_connection", c_idx, dims="cell")
        location = pm.Data("prior_location", np.asarray(prior_location, dtype=float))
        if level == "hierarchical":
            bar = pm.Normal("bar", mu=location, sigma=0.3, dims="connection")
            tau = pm.Exponential("tau", lam=2.0, dims="connection")
            sigma = pm.Exponential("sigma", lam=2.0, dims="connection")
            # one raw variable for both parametrisations: centred columns hold coef itself
            # (~ N(bar, τ)), non-centred columns the standardised offset (~ N(0, 1)) with
            # coef = bar + τ·offset; the mask is data, so every centring choice shares
            # one compiled graph
            centred_ = pm.Data("centred", centred_mask, dims="connection")
            coef_raw = pm.Normal("coef_raw", mu=centred_ * bar,
                                 sigma=centred_ * tau + (1.0 - centred_),
                                 dims=("protected_word", "connection"))
            coef = pm.Deterministic(
                "coef", (1.0 - centred_) * bar + ((1.0 - centred_) * tau + centred_) * coef_raw,
                dims=("protected_word", "connection"))
            pm.Deterministic("connection_mean", bar, dims="connection")
            cell_mu = coef[cell_word, cell_connection]
            cell_sigma = sigma[cell_connection]
        else:
            co = pm.ZeroSumNormal("co", sigma=0.5, dims="connection")
            sigma = pm.HalfCauchy("sigma", beta=1.0)
            if level == "dataset":
                m = pm.Normal("m", mu=location, sigma=0.5)
                pm.Deterministic("connection_mean", m + co, dims="connection")
                cell_mu = m + co[cell_connection]
            else:
                m = pm.Normal("m", mu=location, sigma=0.5, dims="protected_word")
                coef = pm.Deterministic("coef", m[:, None] + co[None, :],
                                        dims=("protected_word", "connection"))
                pm.Deterministic("connection_mean", m.mean() + co, dims="connection")
                cell_mu = coef[cell_word, cell_connection]
            cell_sigma = sigma * pt.ones_like(cell_mu)

        if data == "summary":
            n = cells["n"].to_numpy(dtype=np.int64)
            multi = np.flatnonzero(n >= 2)
            coords_multi = [cell_labels[i] for i in multi]
            model.add_coord("cell_multi", coords_multi)
            cell_n = pm.Data("cell_n", n, dims="cell")
            multi_idx = pm.Data("cell_multi_index", multi, dims="cell_multi")
            pm.Normal("cell_mean", mu=cell_mu, sigma=cell_sigma / pt.sqrt(cell_n),
                      observed=pm.Data("cell_mean_data", cells["mean"].to_numpy(float),
                                       dims="cell"),
                      dims="cell")
            multi_sigma = cell_sigma[multi_idx]
            pm.Gamma("cell_ss", alpha=(cell_n[multi_idx] - 1) / 2.0,
                     beta=1.0 / (2.0 * multi_sigma**2),
                     observed=pm.Data("cell_ss_data", cells["ss"].to_numpy(float)[multi],
                                      dims="cell_multi"),
                     dims="cell_multi")
        else:
            assert table is not None
            row_index = pm.Data("row_cell", row_cell, dims="row")
            pm.Normal("cosine_distance", mu=cell_mu[row_index], sigma=cell_sigma[row_index],
                      observed=pm.Data("cosine_distance_data",
                                       table["cosine_distance"].to_numpy(float), dims="row"),
                      dims="row")
    return model

