"""The posterior predictive check: observed distances against their cells' intervals.

``posterior_predictive_check`` and its result :class:`PredictiveCheck` (coverage per
connection, the cells' intervals, draws for plotting), ``observed_distances`` (the
observed side) and the default interval probabilities :data:`DEFAULT_CHECK_PROBS`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..data import row_cells
from .cell_draws import cell_location_scale

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_CHECK_PROBS", "PredictiveCheck", "observed_distances",
           "posterior_predictive_check"]


@dataclass(frozen=True, eq=False)
class PredictiveCheck:
    """Posterior predictive check of a fit.

    Attributes
    ----------
    coverage
        Share of observed distances inside the equal-tailed posterior predictive
        interval of their cell: columns ``connection`` (plus ``"all"``), ``ci_prob``,
        ``inside`` (share), ``rows``.
    cell_intervals
        The predictive intervals per cell: ``protected_word``, ``connection``,
        ``ci_prob``, ``lower``, ``upper``.
    predictive
        Predictive draws for plotting: ``connection``, ``cosine_distance`` (10,000 per
        connection, each cell represented in proportion to its rows).
    observed
        The observed ``connection`` and ``cosine_distance`` columns.
    """

    coverage: pd.DataFrame
    cell_intervals: pd.DataFrame = field(repr=False)
    predictive: pd.DataFrame = field(repr=False)
    observed: pd.DataFrame = field(repr=False)

    def plot(self) -> Figure:
        """Plot observed vs predictive distances per connection.

        See :func:`embias.plots.plot_predictive_check`.
        """
        from ...plots import plot_predictive_check

        return plot_predictive_check(self)


def observed_distances(table: pd.DataFrame) -> pd.DataFrame:
    """Return the observed side of a predictive check: each row's connection and distance.

    Parameters
    ----------
    table
        A long-form cosine table.

    Returns
    -------
    pandas.DataFrame
        Columns ``connection`` (str) and ``cosine_distance`` (float).

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.bayes.diagnostics import observed_distances
    >>> table = pd.DataFrame({"protected_word": ["he", "she"], "connection": ["none", "none"],
    ...                       "cosine_distance": [0.9, 1.1]})
    >>> print(observed_distances(table).to_string(index=False))
    connection  cosine_distance
          none              0.9
          none              1.1
    """
    return pd.DataFrame({"connection": table["connection"].astype(str).to_numpy(),
                         "cosine_distance": table["cosine_distance"].to_numpy(dtype=float)})


#: Interval probabilities of the default posterior predictive check (saved with a fit).
DEFAULT_CHECK_PROBS: tuple[float, ...] = (0.89, 0.5)


def posterior_predictive_check(
    fit: Any,
    *,
    ci_probs: Sequence[float] = DEFAULT_CHECK_PROBS,
    random_seed: int = 0,
    min_predictive_draws: int = 20_000,
) -> PredictiveCheck:
    """Return the share of observed distances inside their cell's predictive intervals.

    A new distance in cell (pw, con) is drawn as y* ~ Normal(μ_cell, σ_cell) for every
    posterior draw (repeated until there are at least ``min_predictive_draws`` per cell);
    the equal-tailed ``ci_probs`` intervals of y* are compared with every observed row
    of the cell. A well-calibrated model covers about ``ci_prob`` of the rows. At the
    crossed level the new row comes with a new compared word of the cell's kind:
    y* ~ Normal(μ_cell, √(σ² + τ_u²)).

    Parameters
    ----------
    fit
        The fit to check (a :class:`~embias.BiasFit`, or anything with its
        ``posterior``, ``cells`` and ``table``).
    ci_probs
        Interval probabilities, default 89% and 50%.
    random_seed
        Seed of the predictive draws.
    min_predictive_draws
        Predictive draws per cell (at least one per posterior draw).

    Returns
    -------
    PredictiveCheck
        The coverage per connection, the cells' intervals and draws for plotting.

    Raises
    ------
    ValueError
        ``ci_probs`` empty or not all in (0, 1).

    Examples
    --------
    Every observed distance at its cell's posterior mean lies inside every central
    interval:

    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes import cell_statistics, posterior_predictive_check
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.8, 1.0, 0.8, 1.0]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        np.tile([0.8, 1.0], (1, 100, 1))),
    ...                    "sigma": (("chain", "draw"), np.full((1, 100), 0.1))},
    ...                   coords={"connection": ["associated", "none"]})
    >>> fit = SimpleNamespace(posterior=xr.DataTree.from_dict({"posterior": post}),
    ...                       table=table, cells=cell_statistics(table))
    >>> check = posterior_predictive_check(fit, ci_probs=[0.5])
    >>> print(check.coverage.to_string(index=False))
    connection  ci_prob  inside  rows
    associated      0.5     1.0     2
          none      0.5     1.0     2
           all      0.5     1.0     4
    >>> try:
    ...     posterior_predictive_check(fit, ci_probs=[0.89, 1.5])
    ... except ValueError as error:
    ...     print(error)
    ci_probs must be probabilities in (0, 1), got [0.89, 1.5]
    """
    probs = [float(p) for p in ci_probs]
    if not probs or any(not 0 < p < 1 for p in probs):
        raise ValueError(f"ci_probs must be probabilities in (0, 1), got {list(ci_probs)!r}")
    rng = np.random.default_rng(random_seed)
    cells = fit.cells
    mu, sigma = cell_location_scale(fit.posterior, cells, new_words=True)
    reps = max(1, math.ceil(min_predictive_draws / mu.shape[0]))
    y_rep = mu[None] + sigma[None] * rng.standard_normal((reps, *mu.shape))
    y_rep = y_rep.reshape(-1, mu.shape[1])
    coverage, intervals = _coverage(y_rep, fit.table, cells, probs)
    return PredictiveCheck(coverage=coverage, cell_intervals=intervals,
                           predictive=_plot_draws(y_rep, cells, rng),
                           observed=observed_distances(fit.table))


def _coverage(y_rep: np.ndarray, table: pd.DataFrame, cells: pd.DataFrame,
              probs: Sequence[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the coverage per connection (and ``"all"``) and the cells' intervals."""
    row_cell = row_cells(table, cells)
    y = table["cosine_distance"].to_numpy(dtype=float)
    row_con = table["connection"].astype(str).to_numpy()
    cov_rows, int_rows = [], []
    for p in probs:
        lo, hi = np.quantile(y_rep, [(1 - p) / 2, (1 + p) / 2], axis=0)
        inside = (y >= lo[row_cell]) & (y <= hi[row_cell])
        for con in [*dict.fromkeys(cells["connection"]), "all"]:
            mask = np.ones_like(inside) if con == "all" else row_con == con
            cov_rows.append({"connection": con, "ci_prob": p,
                             "inside": float(inside[mask].mean()), "rows": int(mask.sum())})
        int_rows.append(pd.DataFrame({"protected_word": cells["protected_word"],
                                      "connection": cells["connection"], "ci_prob": p,
                                      "lower": lo, "upper": hi}))
    return pd.DataFrame(cov_rows), pd.concat(int_rows, ignore_index=True)


def _plot_draws(y_rep: np.ndarray, cells: pd.DataFrame, rng: np.random.Generator,
                n_plot: int = 10_000) -> pd.DataFrame:
    """Return predictive draws for plotting: per connection, its cells weighted by rows."""
    parts = []
    for con in dict.fromkeys(cells["connection"]):
        members = np.flatnonzero(cells["connection"].to_numpy() == con)
        weights = cells["n"].to_numpy(float)[members]
        pick_cell = rng.choice(members, size=n_plot, p=weights / weights.sum())
        pick_draw = rng.integers(0, y_rep.shape[0], size=n_plot)
        parts.append(pd.DataFrame({"connection": con,
                                   "cosine_distance": y_rep[pick_draw, pick_cell]}))
    return pd.concat(parts, ignore_index=True)
