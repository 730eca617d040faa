"""r̂ and ESS of every scalar of a posterior, as ArviZ computes them, all scalars at once.

``convergence_diagnostics`` (the table of a fit's posterior) and
``rank_normalized_diagnostics`` (the numbers: rank-normalised split r̂, bulk and tail
ESS of Vehtari et al. 2021, vectorised over the scalars), with their steps: chains split,
ranks' normal scores, r̂ and Geyer's ESS.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["convergence_diagnostics", "rank_normalized_diagnostics"]


def convergence_diagnostics(posterior: DataTree) -> pd.DataFrame:
    """Return r̂ (rank-normalised), bulk and tail ESS of every scalar in the posterior.

    The same numbers as ArviZ's ``rhat(method="rank")``, ``ess(method="bulk")`` and
    ``ess(method="tail")`` (Vehtari et al. 2021; the tail quantiles are ArviZ's
    ``stats.ci_prob`` and 1 − it, 0.11/0.89 by default), computed for all scalars at once
    (``rank_normalized_diagnostics``) instead of one scalar at a time;
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
    z_split, ordered = _z_scale(split)
    low, high = sorted((tail_prob, 1.0 - tail_prob))
    if n_draw % 2 == 0:  # the split chains hold every draw: their sorted values are x's
        q = _sorted_quantiles(ordered, (low, high))
    else:
        q = np.quantile(x.reshape(n_scalar, -1), [low, high], axis=1)
    if n_chain >= 2:
        folded = np.abs(split - _split_median(ordered)[:, None, None])
        r_hat = np.maximum(_rhat(z_split), _rhat(_z_scale(folded)[0]))
    else:
        r_hat = nan.copy()
    ess_bulk = _ess(z_split)
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


def _z_scale(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the normal scores of the ranks over all chains and draws, per scalar.

    Average ranks for ties, Blom's offset 3/8; ``x`` is ``(scalar, chain, draw)``. Also
    each scalar's values in sorted order, ``(scalar, chain · draw)``.
    """
    from scipy.special import ndtri

    n_scalar, n_chain, n_draw = x.shape
    size = n_chain * n_draw
    values = x.reshape(n_scalar, size)
    # a rank is the position in sorted order; equal values share the mean of their
    # positions (scipy.stats.rankdata's "average", computed here for every row at once:
    # NUTS repeats a draw now and then; rankdata along an axis takes 2-4 times as long on a
    # fit's draws, which fits run in batches pay for every fit). Twice a
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
    return z.reshape(x.shape), ordered


def _split_median(ordered: np.ndarray) -> np.ndarray:
    """Return each scalar's median of its split chains' sorted values (as ``np.median``).

    Split chains hold an even number of draws: the mean of the two middle values.
    """
    half = ordered.shape[1] // 2
    return (ordered[:, half - 1] + ordered[:, half]) / 2


def _sorted_quantiles(ordered: np.ndarray, probs: Sequence[float]) -> np.ndarray:
    """Return each row's quantiles ``probs`` of rows already sorted, ``(prob, row)``.

    NumPy's default (linear) method, with its interpolation: the same numbers as
    ``np.quantile(values, probs, axis=1)`` without sorting again.
    """
    size = ordered.shape[1]
    out = []
    for p in probs:
        position = (size - 1) * p
        below = min(int(np.floor(position)), size - 1)
        above = min(below + 1, size - 1)
        t = position - below
        a, b = ordered[:, below], ordered[:, above]
        diff = b - a
        out.append(b - diff * (1 - t) if t >= 0.5 else a + diff * t)
    return np.stack(out)


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
