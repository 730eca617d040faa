"""The likelihood of the dataset, word and hierarchical levels: cells or rows.

On the cell sufficient statistics (``cell_likelihood``) or one term per row
(``row_likelihood``, with ``table_rows`` refusing a missing table). The crossed levels'
likelihood is in :mod:`embias.bayes.crossed_terms`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..data import row_cells
from .layout import CellLayout

__all__ = ["cell_likelihood", "row_likelihood", "table_rows"]


def table_rows(table: pd.DataFrame | None, cells: pd.DataFrame, *, level: str,
               data: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Return the table a model of its rows needs (refused when missing), and row cells.

    Parameters
    ----------
    table
        The cosine table the cells come from, or ``None``.
    cells
        Its cell statistics (:func:`~embias.bayes.data.cell_statistics`).
    level, data
        The model's level and data mode (named in the error).

    Returns
    -------
    (table, row_cell)
        The table and the index into ``cells`` of every row
        (:func:`~embias.bayes.data.row_cells`).

    Raises
    ------
    ValueError
        ``table`` is ``None``.
    """
    if table is None:
        raise ValueError(f"data={data!r} at level={level!r} needs the table (table=...)")
    return table, row_cells(table, cells)


def cell_likelihood(cells: pd.DataFrame, layout: CellLayout, cell_mu: Any,
                    cell_sigma: Any) -> None:
    """Add the likelihood of the cell sufficient statistics (inside the model context).

    Each cell's mean ȳ ~ N(μ, σ/√n) and, for a cell of two rows or more,
    SS ~ Gamma((n − 1)/2, 1/(2σ²)).

    Parameters
    ----------
    cells
        The cell statistics (``n``, ``mean``, ``ss``).
    layout
        Their :class:`CellLayout` (the labels of the cells).
    cell_mu, cell_sigma
        Each cell's mean and residual sd (PyTensor, dims ``cell``).
    """
    import pymc as pm
    import pytensor.tensor as pt

    model = pm.modelcontext(None)
    n = cells["n"].to_numpy(dtype=np.int64)
    multi = np.flatnonzero(n >= 2)
    model.add_coord("cell_multi", [layout.cell_labels[i] for i in multi])
    cell_n = pm.Data("cell_n", n, dims="cell")
    multi_idx = pm.Data("cell_multi_index", multi, dims="cell_multi")
    pm.Normal("cell_mean", mu=cell_mu, sigma=cell_sigma / pt.sqrt(cell_n),
              observed=pm.Data("cell_mean_data", cells["mean"].to_numpy(float), dims="cell"),
              dims="cell")
    multi_sigma = cell_sigma[multi_idx]
    pm.Gamma("cell_ss", alpha=(cell_n[multi_idx] - 1) / 2.0,
             beta=1.0 / (2.0 * multi_sigma**2),
             observed=pm.Data("cell_ss_data", cells["ss"].to_numpy(float)[multi],
                              dims="cell_multi"),
             dims="cell_multi")


def row_likelihood(table: pd.DataFrame, row_cell: np.ndarray, cell_mu: Any,
                   cell_sigma: Any) -> None:
    """Add one Normal term per row, with its cell's μ and σ (inside the model context).

    Parameters
    ----------
    table
        The cosine table (``cosine_distance``).
    row_cell
        The index into the cells of every row.
    cell_mu, cell_sigma
        Each cell's mean and residual sd (PyTensor, dims ``cell``).
    """
    import pymc as pm

    row_index = pm.Data("row_cell", row_cell, dims="row")
    pm.Normal("cosine_distance", mu=cell_mu[row_index], sigma=cell_sigma[row_index],
              observed=pm.Data("cosine_distance_data",
                               table["cosine_distance"].to_numpy(float), dims="row"),
              dims="row")
