"""How far to trust a fit: r̂, ESS, divergences and the posterior predictive check."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .data import row_cells

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from xarray import DataTree

__all__ = [
    "ESS_MIN",
    "RHAT_MAX",
    "ConvergenceWarning",
    "PredictiveCheck",
    "cell_location_scale",
    "convergence_diagnostics",
    "convergence_problems",
    "count_divergences",
    "diagnostics_overview",
    "observed_distances",
    "posterior_predictive_check",
    "rank_normalized_diagnostics",
]

#: Convergence thresholds: warn when r̂ exceeds RHAT_MAX, when bulk or tail ESS is below
#: ESS_MIN, or on any divergent transition.
RHAT_MAX = 1.01

ESS_MIN = 400



class ConvergenceWarning(UserWarning):
    """The sampler's output fails a convergence check (r̂, ESS or divergences)."""



def convergence_diagnostics(posterior: DataTree) -> pd.DataFrame:
    """Return r̂ (rank-normalised), bulk and tail ESS of every scalar in the posterior.

    The same numbers as ArviZ's ``rhat(method="rank")``, ``ess(method="bulk")`` and
    ``ess(method="tail")`` (Vehtari et al. 2021; the tail quantiles are ArviZ's
    ``stats.ci_prob`` and 1 − it, 0.11/0.89 by default), computed for all scalars at once
    (:func:`rank_normalized_diagnostics`) instead of one scalar at a time;
    tests/test_bayes.py checks them against ArviZ's to 1e-9.

    Parameters
    ----------
    posterior
        A ``DataTree`` with a ``posterior`` group (dims ``chain, draw, …``).

    Returns
    -------
    pandas.DataFrame
        Columns ``parameter`` (e.g. ``coef[jew, associated]``), ``variable``, ``r_hat``,
        ``ess_bulk``, ``ess_tail``; one row per scalar of every posterior variable (raw
        parameters and the deterministic ``connection_mean``/``coef``).

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> mixed = rng.normal(size=(2, 500))          # two chains of one distribution
    >>> stuck = mixed + np.array([[0.0], [3.0]])   # the second chain 3 sds away
    >>> tree = xr.DataTree.from_dict({"posterior": xr.Dataset(
    ...     {"mixed": (("chain", "draw"), mixed), "stuck": (("chain", "draw"), stuck)})})
    >>> from embias.bayes.diagnostics import convergence_diagnostics
    >>> table = convergence_diagnostics(tree)
    >>> print(table.round(2).to_string(index=False))
    parameter variable  r_hat  ess_bulk  ess_tail
        mixed    mixed   1.00    998.53    971.71
        stuck    stuck   1.75      3.08     20.79
    """
    post = posterior["posterior"].to_dataset()
    labels: list[str] = []
    variables: list[str] = []
    columns = []
    for var, da in post.data_vars.items():
        da = da.transpose("chain", "draw", ...)
        dims = da.dims[2:]
        if not dims:
            names = [str(var)]
        else:
            axes = [da[d].values if d in da.coords else range(da.sizes[d]) for d in dims]
            names = [f"{var}[{', '.join(str(v) for v in key)}]"
                     for key in itertools.product(*axes)]
        labels += names
        variables += [str(var)] * len(names)
        columns.append(np.asarray(da.values, dtype=float).reshape(
            da.sizes["chain"], da.sizes["draw"], -1))
    if not columns:
        return pd.DataFrame({"parameter": [], "variable": [], "r_hat": [], "ess_bulk": [],
                             "ess_tail": []})
    r_hat, ess_bulk, ess_tail = rank_normalized_diagnostics(np.concatenate(columns, axis=2))
    return pd.DataFrame({"parameter": labels, "variable": variables, "r_hat": r_hat,
                         "ess_bulk": ess_bulk, "ess_tail": ess_tail})


def rank_normalized_diagnostics(
    draws: np.ndarray, *, tail_prob: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the rank-normalised split r̂, bulk ESS and tail ESS of many scalars at once.

    Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), as ArviZ 1.x computes them
    (``arviz_stats``: same split, ranks, Blom offset, FFT autocovariance, Geyer's initial
    positive and monotone sequences), vectorised over the scalars.

    Parameters
    ----------
    draws
        Array ``(chain, draw, scalar)``.
    tail_prob
        Tail ESS is the smaller ESS of the indicators ``x ≤ q(p)`` and ``x ≤ q(1 − p)``
        with ``p = min(tail_prob, 1 − tail_prob)``; default ArviZ's ``stats.ci_prob``
        (0.89 unless the user changed it).

    Returns
    -------
    (r_hat, ess_bulk, ess_tail)
        One value per scalar; NaN for a scalar with a NaN draw, or with fewer than 4 draws
        (r̂: or fewer than 2 chains), as ArviZ gives.

    Raises
    ------
    ValueError
        ``draws`` is not three-dimensional.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.bayes.diagnostics import rank_normalized_diagnostics
    >>> rng = np.random.default_rng(0)
    >>> mixed = rng.normal(size=(2, 500))
    >>> stuck = mixed + np.array([[0.0], [3.0]])
    >>> r_hat, ess_bulk, ess_tail = rank_normalized_diagnostics(np.stack([mixed, stuck], 2))
    >>> r_hat.round(2), ess_bulk.round()
    (array([1.  , 1.75]), array([999.,   3.]))
    """
    x = np.asarray(draws, dtype=float)
    if x.ndim != 3:
        raise ValueError(f"draws must have shape (chain, draw, scalar), got {x.shape}")
    n_chain, n_draw, n_scalar = x.shape
    nan = np.full(n_scalar, np.nan)
    if n_draw < 4 or n_chain < 1:
        return nan, nan.copy(), nan.copy()
    if tail_prob is None:
        from arviz_base import rcParams

        tail_prob = float(rcParams["stats.ci_prob"])
    # scalars first, each scalar's draws contiguous: (scalar, chain, draw)
    x = np.ascontiguousarray(np.moveaxis(x, 2, 0))
    bad = np.isnan(x).any(axis=(1, 2))
    x[bad] = 0.0
    split = _split_chains(x)
    z_split = _z_scale(split)
    if n_chain >= 2:
        flat = split.reshape(n_scalar, -1)
        folded = np.abs(split - np.median(flat, axis=1)[:, None, None])
        r_hat = np.maximum(_rhat(z_split), _rhat(_z_scale(folded)))
    else:
        r_hat = nan.copy()
    ess_bulk = _ess(z_split)
    low, high = sorted((tail_prob, 1.0 - tail_prob))
    q = np.quantile(x.reshape(n_scalar, -1), [low, high], axis=1)
    ess_tail = np.minimum(_ess(_split_chains((x <= q[0][:, None, None]).astype(float))),
                          _ess(_split_chains((x <= q[1][:, None, None]).astype(float))))
    for values in (r_hat, ess_bulk, ess_tail):
        values[bad] = np.nan
    return r_hat, ess_bulk, ess_tail


def _split_chains(x: np.ndarray) -> np.ndarray:
    """Return each chain's first and last halves as two chains, ``(scalar, chain, draw)``.

    The middle draw of an odd count is dropped.
    """
    half = x.shape[2] // 2
    return np.concatenate((x[:, :, :half], x[:, :, x.shape[2] - half:]), axis=1)


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Return the normal scores of the ranks over all chains and draws, per scalar.

    Average ranks for ties, Blom's offset 3/8; ``x`` is ``(scalar, chain, draw)``.
    """
    from scipy.special import ndtri

    n_scalar, n_chain, n_draw = x.shape
    size = n_chain * n_draw
    values = x.reshape(n_scalar, size)
    # a rank is the position in sorted order; equal values share the mean of their
    # positions (scipy.stats.rankdata's "average", computed here for every row at once —
    # NUTS repeats a draw now and then, and importing scipy.stats takes ≈ 1 s). Twice a
    # run's average rank is an integer: 2·(its first position) + its length + 1
    order = np.argsort(values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    new_run = np.ones((n_scalar, size), dtype=bool)  # each row's first value starts a run
    new_run[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    starts = np.flatnonzero(new_run)
    lengths = np.diff(starts, append=new_run.size)
    twice = np.repeat(2 * (starts % size) + lengths + 1, lengths).reshape(n_scalar, size)
    twice_rank = np.empty((n_scalar, size), dtype=np.int64)
    np.put_along_axis(twice_rank, order, twice, axis=1)
    # the normal score of every possible rank 1, 1.5, …, size, computed once and looked up
    scores = ndtri((np.arange(2, 2 * size + 1) / 2 - 3 / 8) / (size - 2 * 3 / 8 + 1))
    z = scores[twice_rank - 2]
    z[np.isnan(values).any(axis=1)] = np.nan  # as scipy's ranks of a row with a NaN
    return z.reshape(x.shape)


def _rhat(x: np.ndarray) -> np.ndarray:
    """Return the potential scale reduction factor of ``(scalar, chain, draw)``."""
    n = x.shape[2]
    between = n * np.var(x.mean(axis=2), axis=1, ddof=1)
    within = np.mean(np.var(x, axis=2, ddof=1), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def _ess(x: np.ndarray) -> np.ndarray:
    """Return the effective sample size of ``(scalar, chain, draw)`` (chains split).

    Geyer's initial positive then initial monotone sequence of the autocorrelations.
    """
    from scipy.fft import next_fast_len

    n_scalar, n_chain, n_draw = x.shape
    centred = x - x.mean(axis=2, keepdims=True)
    m = next_fast_len(2 * n_draw)
    spectrum = np.fft.rfft(centred, n=m, axis=2)
    spectrum *= np.conjugate(spectrum)
    acov = np.fft.irfft(spectrum, n=m, axis=2)[:, :, :n_draw] / n_draw
    mean_var = acov[:, :, 0].mean(axis=1) * n_draw / (n_draw - 1.0)
    var_plus = mean_var * (n_draw - 1.0) / n_draw
    if n_chain > 1:
        var_plus = var_plus + np.var(x.mean(axis=2), axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (lag, scalar): one row per lag, the sequences below run over lags
        rho = (1.0 - (mean_var[:, None] - acov.mean(axis=1)) / var_plus[:, None]).T
    kept = np.zeros((n_draw, n_scalar))
    kept[0] = 1.0
    kept[1] = rho[1]
    even, odd = np.ones(n_scalar), rho[1].copy()
    t = np.ones(n_scalar, dtype=int)
    active = np.ones(n_scalar, dtype=bool)
    for lag in range(1, n_draw - 3, 2):  # the initial positive sequence
        active &= (even + odd) > 0.0
        if not active.any():
            break
        e, o = rho[lag + 1], rho[lag + 2]
        even, odd = np.where(active, e, even), np.where(active, o, odd)
        keep = active & (e + o >= 0.0)
        kept[lag + 1] = np.where(keep, e, kept[lag + 1])
        kept[lag + 2] = np.where(keep, o, kept[lag + 2])
        t = np.where(active, lag + 2, t)
    max_t = t - 2
    columns = np.arange(n_scalar)
    kept[max_t + 1, columns] = np.where(even > 0, even, kept[max_t + 1, columns])
    for lag in range(1, int(max_t.max(initial=0)) - 1, 2):  # the initial monotone sequence
        before = kept[lag - 1] + kept[lag]
        fix = (lag <= max_t - 2) & (kept[lag + 1] + kept[lag + 2] > before)
        kept[lag + 1] = np.where(fix, before / 2.0, kept[lag + 1])
        kept[lag + 2] = np.where(fix, before / 2.0, kept[lag + 2])
    lags = np.arange(n_draw)[:, None]
    tau = (-1.0 + 2.0 * np.where(lags < max_t + 1, kept, 0.0).sum(axis=0)
           + kept[max_t + 1, columns])
    size = n_chain * n_draw
    tau = np.maximum(tau, 1.0 / np.log10(size))
    ess = size / tau
    ess[np.isnan(kept).any(axis=0)] = np.nan
    constant = (x.max(axis=(1, 2)) - x.min(axis=(1, 2))) < np.finfo(float).resolution
    ess[constant] = size
    return ess



def count_divergences(posterior: DataTree) -> int:
    """Return the number of divergent transitions after tuning.

    Parameters
    ----------
    posterior
        A fit's ``DataTree`` (group ``sample_stats``, variable ``diverging``).

    Returns
    -------
    int
        Divergences; 0 when the sampler records none.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from embias.bayes.diagnostics import count_divergences
    >>> diverging = np.array([[False, True, False], [True, True, False]])
    >>> count_divergences(xr.DataTree.from_dict({"sample_stats": xr.Dataset(
    ...     {"diverging": (("chain", "draw"), diverging)})}))
    3
    """
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
    chains: int | None = None,
) -> list[str]:
    """Return the convergence problems in words (an empty list when all checks pass).

    Checks r̂ > ``r_hat_max``, bulk or tail ESS < ``ess_min`` and divergences > 0.

    Parameters
    ----------
    diagnostics
        :func:`convergence_diagnostics`'s table.
    divergences
        Divergent transitions after tuning.
    r_hat_max, ess_min
        The thresholds.
    chains
        Chains of the fit. r̂ compares chains: with one chain it is not computed, and the
        problem says so (instead of a NaN r̂ for every parameter).

    Returns
    -------
    list of str
        One sentence per failed check, naming the worst parameter.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> mixed = rng.normal(size=(2, 500))          # two chains of one distribution
    >>> stuck = mixed + np.array([[0.0], [3.0]])   # the second chain 3 sds away
    >>> tree = xr.DataTree.from_dict({"posterior": xr.Dataset(
    ...     {"mixed": (("chain", "draw"), mixed), "stuck": (("chain", "draw"), stuck)})})
    >>> from embias.bayes.diagnostics import convergence_diagnostics, convergence_problems
    >>> for problem in convergence_problems(convergence_diagnostics(tree), 2):
    ...     print(problem)
    r_hat > 1.01 for 1 parameter(s) (worst stuck: 1.747)
    ess_bulk < 400 for 1 parameter(s) (worst stuck: 3); draw more samples
    ess_tail < 400 for 1 parameter(s) (worst stuck: 21); draw more samples
    2 divergent transition(s); raise target_accept or treat the intervals with caution
    """
    problems = []
    r_hat = diagnostics["r_hat"]
    if chains is not None and chains < 2:
        problems.append(f"r_hat not computed: it compares chains and the fit has {chains}; "
                        "convergence is unchecked — fit with chains ≥ 2")
    else:
        bad_rhat = diagnostics[r_hat > r_hat_max]
        if not bad_rhat.empty:
            worst = bad_rhat.sort_values("r_hat", ascending=False).iloc[0]
            problems.append(f"r_hat > {r_hat_max} for {len(bad_rhat)} parameter(s) (worst "
                            f"{worst['parameter']}: {worst['r_hat']:.3f})")
        undefined = diagnostics[r_hat.isna()]
        if not undefined.empty:
            problems.append(f"r_hat is undefined (NaN) for {len(undefined)} parameter(s) "
                            f"(e.g. {undefined['parameter'].iloc[0]}): their draws hold NaN, "
                            "or there are fewer than 2 chains or 4 draws")
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
    """Return the worst r̂, the smallest bulk/tail ESS and the divergences, as one record.

    Parameters
    ----------
    diagnostics
        :func:`convergence_diagnostics`'s table.
    divergences
        Divergent transitions after tuning.

    Returns
    -------
    dict
        ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail`` and ``divergences``.

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.bayes.diagnostics import diagnostics_overview
    >>> table = pd.DataFrame({"r_hat": [1.002, 1.03], "ess_bulk": [900.0, 350.0],
    ...                       "ess_tail": [800.0, 420.0]})
    >>> diagnostics_overview(table, 0)
    {'max_r_hat': 1.03, 'min_ess_bulk': 350.0, 'min_ess_tail': 420.0, 'divergences': 0}
    """
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
        """Plot observed vs predictive distances per connection.

        See :func:`embias.plots.plot_predictive_check`.
        """
        from ..plots import plot_predictive_check

        return plot_predictive_check(self)



def cell_location_scale(posterior: DataTree, cells: pd.DataFrame, *,
                         new_words: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return the posterior draws (sample × cell) of each cell's mean and residual sd.

    Parameters
    ----------
    posterior
        A fit's ``DataTree``: ``connection_mean`` or ``coef``, and ``sigma``.
    cells
        The fitted table's cell statistics.
    new_words
        At the crossed level, the sd of a new row that comes with a new compared word of
        the cell's kind, √(σ² + τ_u²), instead of σ.

    Returns
    -------
    (mu, sigma)
        Arrays ``(chain × draw, cell)``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.diagnostics import cell_location_scale
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.8, 1.0], [0.7, 0.9]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1, 0.2]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> cells = pd.DataFrame({"protected_word": ["he", "he", "she"],
    ...                       "connection": ["associated", "none", "none"]})
    >>> mu, sigma = cell_location_scale(xr.DataTree.from_dict({"posterior": post}), cells)
    >>> mu
    array([[0.8, 1. , 1. ],
           [0.7, 0.9, 0.9]])
    >>> sigma
    array([[0.1, 0.1, 0.1],
           [0.2, 0.2, 0.2]])
    """
    import xarray as xr

    post = posterior["posterior"].to_dataset()
    words = xr.DataArray(cells["protected_word"].to_numpy(), dims="cell")
    cons = xr.DataArray(cells["connection"].to_numpy(), dims="cell")
    if "coef" in post:
        mu = post["coef"].sel(protected_word=words, connection=cons)
    else:
        mu = post["connection_mean"].sel(connection=cons)
    sigma: Any = post["sigma"]  # a DataArray (numpy ufuncs keep it one)
    sigma = sigma.sel(connection=cons) if "connection" in sigma.dims else \
        sigma.expand_dims(cell=len(cells))
    if new_words and "tau_word" in post:
        # crossed level: a new row comes with a new compared word of the cell's kind
        from .crossed import WORD_KIND_OF_CONNECTION

        kinds = xr.DataArray([WORD_KIND_OF_CONNECTION[str(c)] for c in cells["connection"]],
                             dims="cell")
        sigma = np.sqrt(sigma**2 + post["tau_word"].sel(word_kind=kinds) ** 2)
    return (mu.stack(sample=("chain", "draw")).transpose("sample", "cell").values,
            sigma.stack(sample=("chain", "draw")).transpose("sample", "cell").values)



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
