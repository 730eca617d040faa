"""How far to trust a fit: r̂, ESS, divergences and the posterior predictive check."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from .data import row_cells

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from xarray import DataTree

__all__ = ["ESS_MIN", "RHAT_MAX", "ConvergenceWarning", "PredictiveCheck",
           "convergence_diagnostics", "convergence_problems", "count_divergences",
           "diagnostics_overview", "posterior_predictive_check"]

#: Convergence thresholds: warn when r̂ exceeds RHAT_MAX, when bulk or tail ESS is below
#: ESS_MIN, or on any divergent transition.
RHAT_MAX = 1.01

ESS_MIN = 400



class ConvergenceWarning(UserWarning):
    """The sampler's output fails a convergence check (r̂, ESS or divergences)."""



def convergence_diagnostics(posterior: DataTree) -> pd.DataFrame:
    """r̂ (rank-normalised), bulk and tail ESS of every scalar in the posterior.

    Returns
    -------
    pandas.DataFrame
        Columns ``parameter`` (e.g. ``coef[jew, associated]``), ``variable``, ``r_hat``,
        ``ess_bulk``, ``ess_tail``; one row per scalar of every posterior variable (raw
        parameters and the deterministic ``connection_mean``/``coef``).
    """
    import arviz as az

    post = posterior["posterior"].to_dataset()
    rhat = az.rhat(post)
    ess_bulk = az.ess(post, method="bulk")
    ess_tail = az.ess(post, method="tail")
    frames = []
    for var in post.data_vars:
        da = rhat[var]
        if da.ndim == 0:
            labels = [str(var)]
        else:
            index = da.stack(_flat=da.dims)["_flat"].values
            keys = [ix if isinstance(ix, tuple) else (ix,) for ix in index]
            labels = [f"{var}[{', '.join(str(v) for v in key)}]" for key in keys]
        frames.append(pd.DataFrame({
            "parameter": labels,
            "variable": str(var),
            "r_hat": np.ravel(rhat[var].values),
            "ess_bulk": np.ravel(ess_bulk[var].values),
            "ess_tail": np.ravel(ess_tail[var].values),
        }))
    return pd.concat(frames, ignore_index=True)



def count_divergences(posterior: DataTree) -> int:
    """Divergent transitions after tuning (0 when the sampler records none)."""
    stats = posterior["sample_stats"].to_dataset()
    if "diverging" not in stats:
        return 0
    return int(stats["diverging"].sum())



def convergence_problems(
    diagnostics: pd.DataFrame,
    divergences: int,
    *,
    r_hat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
) -> list[str]:
    """Human-readable convergence problems (empty list when all checks pass).

    Checks r̂ > ``r_hat_max``, bulk or tail ESS < ``ess_min`` and divergences > 0.
    """
    problems = []
    bad_rhat = diagnostics[~(diagnostics["r_hat"] <= r_hat_max)]
    if not bad_rhat.empty:
        worst = bad_rhat.sort_values("r_hat", ascending=False).iloc[0]
        problems.append(f"r_hat > {r_hat_max} for {len(bad_rhat)} parameter(s) (worst "
                        f"{worst['parameter']}: {worst['r_hat']:.3f})")
    for col in ("ess_bulk", "ess_tail"):
        low = diagnostics[~(diagnostics[col] >= ess_min)]
        if not low.empty:
            worst = low.sort_values(col).iloc[0]
            problems.append(f"{col} < {ess_min:g} for {len(low)} parameter(s) (worst "
                            f"{worst['parameter']}: {worst[col]:.0f}); draw more samples")
    if divergences > 0:
        problems.append(f"{divergences} divergent transition(s); raise target_accept or "
                        "treat the intervals with caution")
    return problems



def diagnostics_overview(diagnostics: pd.DataFrame, divergences: int) -> dict[str, float]:
    """Worst r̂, smallest bulk/tail ESS and the divergence count, as one record."""
    return {"max_r_hat": float(diagnostics["r_hat"].max()),
            "min_ess_bulk": float(diagnostics["ess_bulk"].min()),
            "min_ess_tail": float(diagnostics["ess_tail"].min()),
            "divergences": int(divergences)}


# =========================================================================== PPC
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
        """Observed vs predictive distances per connection
        (:func:`embias.plots.plot_predictive_check`)."""
        from ..plots import plot_predictive_check

        return plot_predictive_check(self)



def _cell_location_scale(posterior: DataTree, cells: pd.DataFrame, *,
                         new_words: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Posterior draws (sample × cell) of each cell's mean and residual sd."""
    post = posterior["posterior"].to_dataset()
    words = xr.DataArray(cells["protected_word"].to_numpy(), dims="cell")
    cons = xr.DataArray(cells["connection"].to_numpy(), dims="cell")
    if "coef" in post:
        mu = post["coef"].sel(protected_word=words, connection=cons)
    else:
        mu = post["connection_mean"].sel(connection=cons)
    sigma = post["sigma"]
    sigma = sigma.sel(connection=cons) if "connection" in sigma.dims else \
        sigma.expand_dims(cell=len(cells))
    if new_words and "tau_word" in post:
        # crossed level: a new row comes with a new compared word of the cell's kind
        from .crossed import WORD_KIND_OF_CONNECTION

        kinds = xr.DataArray([WORD_KIND_OF_CONNECTION[str(c)] for c in cells["connection"]],
                             dims="cell")
        sigma = np.sqrt(sigma**2 + post["tau_word"].sel(word_kind=kinds) ** 2)
    mu = mu.stack(sample=("chain", "draw")).transpose("sample", "cell").values
    sigma = sigma.stack(sample=("chain", "draw")).transpose("sample", "cell").values
    return mu, sigma



def posterior_predictive_check(
    fit: Any,
    *,
    ci_probs: Sequence[float] = (0.89, 0.5),
    random_seed: int = 0,
    min_predictive_draws: int = 20_000,
) -> PredictiveCheck:
    """Share of observed distances inside their cell's posterior predictive intervals.

    A new distance in cell (pw, con) is drawn as y* ~ Normal(μ_cell, σ_cell) for every
    posterior draw (repeated until there are at least ``min_predictive_draws`` per cell);
    the equal-tailed ``ci_probs`` intervals of y* are compared with every observed row
    of the cell. A well-calibrated model covers about ``ci_prob`` of the rows. At the
    crossed level the new row comes with a new compared word of the cell's kind:
    y* ~ Normal(μ_cell, √(σ² + τ_u²)).

    Parameters
    ----------
    fit
        The fit to check (a :class:`~embias.BiasFit`: its ``posterior``, ``cells`` and
        ``table``).
    ci_probs
        Interval probabilities, default 89% and 50%.
    random_seed
        Seed of the predictive draws.
    min_predictive_draws
        Predictive draws per cell (at least one per posterior draw).

    Returns
    -------
    PredictiveCheck
    """
    probs = [float(p) for p in ci_probs]
    if not probs or any(not 0 < p < 1 for p in probs):
        raise ValueError(f"ci_probs must be probabilities in (0, 1), got {list(ci_probs)!r}")
    rng = np.random.default_rng(random_seed)
    cells = fit.cells
    mu, sigma = _cell_location_scale(fit.posterior, cells, new_words=True)
    reps = max(1, math.ceil(min_predictive_draws / mu.shape[0]))
    y_rep = mu[None] + sigma[None] * rng.standard_normal((reps, *mu.shape))
    y_rep = y_rep.reshape(-1, mu.shape[1])
    table = fit.table
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
    # predictive draws for plotting: per connection, its cells weighted by their rows
    n_plot = 10_000
    parts = []
    for con in dict.fromkeys(cells["connection"]):
        members = np.flatnonzero(cells["connection"].to_numpy() == con)
        weights = cells["n"].to_numpy(float)[members]
        pick_cell = rng.choice(members, size=n_plot, p=weights / weights.sum())
        pick_draw = rng.integers(0, y_rep.shape[0], size=n_plot)
        parts.append(pd.DataFrame({"connection": con,
                                   "cosine_distance": y_rep[pick_draw, pick_cell]}))
    predictive = pd.concat(parts, ignore_index=True)
    observed = pd.DataFrame({"connection": row_con, "cosine_distance": y})
    return PredictiveCheck(coverage=pd.DataFrame(cov_rows),
                           cell_intervals=pd.concat(int_rows, ignore_index=True),
                           predictive=predictive, observed=observed)

