"""Bayesian multilevel models of the long-form cosine table (DESIGN §5).

:func:`fit_bias_model` fits one of three PyMC models to any long-form cosine table (from
:func:`embias.cosine_table` or :func:`embias.load_published_table`) and returns a
:class:`BiasFit`: the posterior draws (an ArviZ ``DataTree``), a tidy interval table
(:meth:`BiasFit.summary`), convergence diagnostics, a posterior predictive check and
plots, next to the classic MAC/WEAT figures of the same table.

y = cosine distance of one (protected word, compared word) row; ``pw`` = protected
word, ``con`` = connection (associated, different, human, none).

``level="dataset"``
    y ~ Normal(m + co[con], σ); m ~ N(1, 0.5); co ~ ZeroSumNormal(0.5) over the
    connections; σ ~ HalfCauchy(1).
``level="word"``
    y ~ Normal(m[pw] + co[con], σ); m[pw] ~ N(1, 0.5); co ~ ZeroSumNormal(0.5);
    σ ~ HalfCauchy(1).
``level="hierarchical"`` (default; the authors' published model)
    y ~ Normal(coef[pw, con], σ[con]); coef[pw, con] ~ N(bar[con], τ[con]);
    bar ~ N(1, 0.3); τ ~ Exponential(2); σ ~ Exponential(2).

Identification: the slides' ``m + co[con]`` with independent ``co ~ N(0, 0.5)`` is
identified only through the priors (r̂ up to 1.3 on the raw ``co``). Here ``co`` is a
``ZeroSumNormal`` (the connection effects sum to zero), so every raw parameter is
identified: ``m`` is the unweighted mean over connections of the connection means
(dataset level) or the word's own mean over connections (word level). The reported
quantities do not depend on this choice: ``connection_mean`` (m + co[con], or the mean of
m over words + co[con]) and ``coef`` (m[pw] + co[con]) are the cell means, and they are
what the contrasts are built from. Note that ``ZeroSumNormal(σ=0.5)`` gives each
``co[con]`` a marginal prior sd of 0.5·√(1 − 1/K) for K connections.

Fast path (``data="summary"``, the default): with a Normal likelihood the posterior
depends on each (pw, con) cell only through n, the mean ȳ and the sum of squared
deviations SS. Per cell, observed ȳ ~ Normal(μ, σ/√n) and, for n ≥ 2, observed
SS ~ Gamma((n − 1)/2, rate = 1/(2σ²)); the product is proportional, as a function of
(μ, σ), to the raw likelihood σ^(−n)·exp(−(SS + n(ȳ − μ)²)/(2σ²)). The posterior is the
same as with ``data="raw"`` (one Normal term per row), and the fit time no longer grows
with the number of rows. Pointwise log-likelihoods of the fast path are per cell, not
per row.

Parametrisation of the hierarchical model: per connection, ``coef`` is sampled either
centred or non-centred through one raw variable ``coef_raw``: in a centred column
``coef_raw = coef ~ N(bar, τ)``; in a non-centred column ``coef_raw ~ N(0, 1)`` and
``coef = bar + τ·coef_raw``. ``centred="auto"`` chooses centred for a connection when the
data dominate the prior for its typical cell — median(n)·τ̂²/σ̂² > 1, with σ̂² the pooled
within-cell variance and τ̂² the method-of-moments between-cell variance, and at least
10 rows per cell — and non-centred otherwise (e.g. the 3–4 ``associated`` rows of a
religion word). Both give the same posterior; the choice only changes how well NUTS
explores it. It is recorded in ``BiasFit.settings["centred"]`` and enters the model as
data (``constant_data/centred``), as do all the table's statistics and indices: models
of the same level and data mode share one compiled graph whatever the table, so
PyTensor's compile cache is reused across tables and studies.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .classic import mac, weat_effect_size
from .report import interval_table, plot_forest, validate_interval_table
from .tables import CONNECTIONS, validate_table

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm
    from matplotlib.figure import Figure
    from xarray import DataTree

__all__ = [
    "CONTRASTS",
    "DATA_MODES",
    "DEFAULT_CI_PROB",
    "DEFAULT_ROPE",
    "ESS_MIN",
    "LEVELS",
    "RHAT_MAX",
    "SAMPLERS",
    "BiasFit",
    "ConvergenceWarning",
    "PredictiveCheck",
    "build_model",
    "cell_statistics",
    "choose_centring",
    "classic_scores",
    "convergence_diagnostics",
    "convergence_problems",
    "fit_bias_model",
    "initial_values",
    "plot_bias_fit",
    "plot_predictive_check",
    "posterior_predictive_check",
    "rope_decision",
    "summarize_posterior",
]

Level = Literal["dataset", "word", "hierarchical"]
DataMode = Literal["summary", "raw"]
CiKind = Literal["hdi", "eti"]

#: Model levels understood by :func:`fit_bias_model`.
LEVELS: tuple[str, ...] = ("dataset", "word", "hierarchical")
#: ``data=`` modes: cell sufficient statistics (fast, default) or one term per row.
DATA_MODES: tuple[str, ...] = ("summary", "raw")
#: NUTS implementations accepted by ``sampler=`` (passed to ``pm.sample(nuts_sampler=)``).
SAMPLERS: tuple[str, ...] = ("pymc", "nutpie", "numpyro", "blackjax")
#: Interval kinds accepted by :meth:`BiasFit.summary` (``ci_kind=``).
CI_KINDS_BAYES: tuple[str, ...] = ("hdi", "eti")
#: Default posterior interval probability (McElreath's 89%).
DEFAULT_CI_PROB = 0.89
#: Default half-width of the region of practical equivalence for contrasts, in cosine
#: distance units: differences within ±0.02 count as practically zero.
DEFAULT_ROPE = 0.02
#: Contrasts reported by :meth:`BiasFit.summary` (first minus second), when both
#: connections are present.
CONTRASTS: tuple[tuple[str, str], ...] = (
    ("associated", "none"),
    ("associated", "different"),
    ("different", "none"),
    ("human", "none"),
)
#: Convergence thresholds: warn when r̂ exceeds RHAT_MAX, when bulk or tail ESS is below
#: ESS_MIN, or on any divergent transition.
RHAT_MAX = 1.01
ESS_MIN = 400
#: Defaults of :func:`fit_bias_model` (chosen so that every reported quantity of the
#: hierarchical model of a religion table has bulk and tail ESS ≥ 1000; see
#: ``benchmarks/bench_bayes.py``).
DEFAULT_DRAWS = 3000
DEFAULT_TUNE = 1000
DEFAULT_CHAINS = 2
DEFAULT_TARGET_ACCEPT = 0.9
#: Fewest rows per cell (median over the connection's cells) for centred sampling.
CENTRED_MIN_ROWS = 10


class ConvergenceWarning(UserWarning):
    """The sampler's output fails a convergence check (r̂, ESS or divergences)."""


# =========================================================================== data
def cell_statistics(table: pd.DataFrame) -> pd.DataFrame:
    """Sufficient statistics of each (protected word, connection) cell of a cosine table.

    Parameters
    ----------
    table
        Long-form cosine table (columns ``protected_word``, ``connection``,
        ``cosine_distance``; ``protected_class`` is used when present).

    Returns
    -------
    pandas.DataFrame
        One row per cell, protected words grouped by class (in order of appearance) and
        connections in :data:`embias.tables.CONNECTIONS` order: ``protected_word``,
        ``protected_class``, ``connection``, ``n``, ``mean`` (ȳ) and ``ss`` (Σ(y − ȳ)²,
        computed in two passes). One pass over the rows: the cost grows linearly with
        them and stays far below the sampling time even at a million rows.

    Raises
    ------
    ValueError
        Any problem :func:`fit_bias_model` refuses: missing columns, NaN distances,
        unknown or empty connection levels, empty (protected word, connection) cells, a
        single protected word or a single connection.
    """
    what = "table given to fit_bias_model()"
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"{what} must be a pandas DataFrame (a long-form cosine table), "
                         f"got {type(table).__name__}")
    validate_table(table, what=what)
    connection = table["connection"]
    if isinstance(connection.dtype, pd.CategoricalDtype):
        counts = connection.value_counts()
        empty = [str(c) for c in connection.cat.categories if counts.get(c, 0) == 0]
        if empty:
            raise ValueError(f"{what}: connection level(s) {empty} have no rows; drop the "
                             "unused categories (table['connection'].cat."
                             "remove_unused_categories()) or add their rows")
    word_codes, word_levels = pd.factorize(table["protected_word"], sort=False)
    word_levels = np.asarray([str(w) for w in word_levels], dtype=object)
    if len(word_levels) < 2:
        raise ValueError(f"{what} has a single protected word {list(word_levels)}; the models "
                         "need at least 2 protected words (word-level effects and the "
                         "connection means are not separable with one)")
    con_codes_raw, con_raw = pd.factorize(connection, sort=False)
    con_raw = [str(c) for c in con_raw]
    con_levels = [c for c in CONNECTIONS if c in con_raw]
    if len(con_levels) < 2:
        raise ValueError(f"{what} has a single connection {con_levels}; the models need at "
                         f"least 2 of {list(CONNECTIONS)} to compare")
    con_codes = np.array([con_levels.index(c) for c in con_raw])[con_codes_raw]
    first_row = np.unique(word_codes, return_index=True)[1]
    if "protected_class" in table.columns:
        class_of_word = np.asarray(table["protected_class"].to_numpy()[first_row], dtype=str)
    else:
        class_of_word = np.full(len(word_levels), "")
    class_order = list(dict.fromkeys(class_of_word))
    word_order = sorted(range(len(word_levels)),
                        key=lambda i: (class_order.index(class_of_word[i]), i))
    n_con = len(con_levels)
    rank = np.empty(len(word_levels), dtype=np.int64)
    rank[word_order] = np.arange(len(word_levels))
    cell = rank[word_codes] * n_con + con_codes
    n_cells = len(word_levels) * n_con
    y = table["cosine_distance"].to_numpy(dtype=float)
    n = np.bincount(cell, minlength=n_cells)
    words_sorted = word_levels[word_order]
    if (n == 0).any():
        empty_cells = [(str(words_sorted[i // n_con]), con_levels[i % n_con])
                       for i in np.flatnonzero(n == 0)]
        raise ValueError(f"{what}: connection level(s) with no rows for some protected words: "
                         f"{len(empty_cells)} empty (protected_word, connection) cells, e.g. "
                         f"{empty_cells[:5]}; every protected word needs rows in every "
                         "connection of the table")
    mean = np.bincount(cell, weights=y, minlength=n_cells) / n
    ss = np.bincount(cell, weights=(y - mean[cell]) ** 2, minlength=n_cells)
    return pd.DataFrame({
        "protected_word": np.repeat(words_sorted, n_con),
        "protected_class": np.repeat(class_of_word[word_order], n_con),
        "connection": np.tile(np.asarray(con_levels, dtype=object), len(word_levels)),
        "n": n.astype(np.int64),
        "mean": mean,
        "ss": ss,
    }).astype({"protected_word": str, "protected_class": str, "connection": str})


def _row_cells(table: pd.DataFrame, cells: pd.DataFrame) -> np.ndarray:
    """Index into ``cells`` of every row of ``table``."""
    key = pd.MultiIndex.from_frame(cells[["protected_word", "connection"]])
    rows = pd.MultiIndex.from_arrays([table["protected_word"].astype(str),
                                      table["connection"].astype(str)])
    idx = key.get_indexer(rows)
    if (idx < 0).any():  # pragma: no cover - cells come from the same table
        raise ValueError("table rows do not match the cell statistics")
    return idx.astype(np.int64)


def choose_centring(cells: pd.DataFrame) -> tuple[str, ...]:
    """Connections whose word coefficients are sampled centred (see the module notes).

    Centred when the data of a typical cell outweigh the prior, median(n)·τ̂²/σ̂² > 1,
    and the cells have at least :data:`CENTRED_MIN_ROWS` rows (with fewer, τ̂ is too
    uncertain to trust and the posterior of τ reaches towards 0, where the centred form
    has a funnel). σ̂² = Σ SS / Σ(n − 1) is the pooled within-cell variance and
    τ̂² = var(cell means) − mean(σ̂²/n) the method-of-moments between-cell variance; a
    connection with τ̂² ≤ 0 stays non-centred.
    """
    moments = _connection_moments(cells)
    n_median = cells.groupby("connection", sort=False)["n"].median()
    centred = []
    for con, row in moments.iterrows():
        n_med = float(n_median[con])
        if n_med >= CENTRED_MIN_ROWS and row["words"] >= 2 and row["s2"] > 0 \
                and row["tau2"] > 0 and n_med * row["tau2"] / row["s2"] > 1:
            centred.append(str(con))
    return tuple(centred)


def _connection_moments(cells: pd.DataFrame) -> pd.DataFrame:
    """Per connection: rows, pooled within-cell variance s2, row-weighted mean, mean and
    variance of the cell means, and the method-of-moments between-cell variance tau2."""
    out = []
    for con, part in cells.groupby("connection", sort=False):
        n = part["n"].to_numpy(float)
        ybar = part["mean"].to_numpy(float)
        dof = float((n - 1).sum())
        spread = float(ybar.var(ddof=1)) if len(part) > 1 else 0.0
        s2 = float(part["ss"].sum()) / dof if dof > 0 else max(spread, 0.04)
        out.append({"connection": con, "rows": float(n.sum()), "s2": s2,
                    "weighted_mean": float((n * ybar).sum() / n.sum()),
                    "mean_of_means": float(ybar.mean()), "words": float(len(part)),
                    "tau2": spread - float((s2 / n).mean())})
    return pd.DataFrame(out).set_index("connection")


def initial_values(
    cells: pd.DataFrame,
    *,
    level: Level,
    centred: Sequence[str] = (),
    chains: int,
    random_seed: int,
) -> list[dict[str, np.ndarray]]:
    """Starting points of the chains: moment estimates from the cell statistics, each
    moved by about one approximate posterior sd (uniform, seeded) so the chains start
    apart.

    Starting near the posterior keeps the warm-up cost from growing with the data: with
    PyMC's default start (the prior's centre jittered by ±1 on the unconstrained scale) a
    table of a million rows starts thousands of posterior sds away and the early warm-up
    needs very long trajectories.

    Returns
    -------
    list of dict
        One ``{variable: value}`` per chain, for ``pm.sample(initvals=...)``.
    """
    rng = np.random.default_rng([int(random_seed), 7919])
    moments = _connection_moments(cells)
    cons = list(moments.index)
    words = list(dict.fromkeys(cells["protected_word"]))
    shape = (len(words), len(cons))
    n = cells["n"].to_numpy(float).reshape(shape)
    ybar = cells["mean"].to_numpy(float).reshape(shape)
    total = float(n.sum())
    points = []
    for _ in range(chains):
        def move(value: np.ndarray | float, sd: np.ndarray | float) -> np.ndarray:
            return np.asarray(value + rng.uniform(-1.0, 1.0, np.shape(value)) * sd, dtype=float)

        if level == "hierarchical":
            s2 = moments["s2"].to_numpy()
            tau = np.sqrt(np.maximum(moments["tau2"].to_numpy(), 0.02**2))
            bar = moments["mean_of_means"].to_numpy()
            precision = n / s2 + 1.0 / tau**2
            coef = (n / s2 * ybar + bar / tau**2) / precision
            bar = move(bar, tau / np.sqrt(len(words)))
            tau = tau * np.exp(rng.uniform(-1.0, 1.0, tau.shape) / np.sqrt(2.0 * len(words)))
            sigma = np.sqrt(s2) * np.exp(rng.uniform(-1.0, 1.0, s2.shape)
                                         / np.sqrt(2.0 * moments["rows"].to_numpy()))
            coef = move(coef, 1.0 / np.sqrt(precision))
            mask = np.array([float(c in centred) for c in cons])
            points.append({"bar": bar, "tau": tau, "sigma": sigma,
                           "coef_raw": mask * coef + (1.0 - mask) * (coef - bar) / tau})
            continue
        con_mean = moments["weighted_mean"].to_numpy()
        co = con_mean - con_mean.mean()
        if level == "dataset":
            m = np.asarray(con_mean.mean())
            fitted = m + co[None, :]
        else:
            m = ((n * (ybar - co[None, :])).sum(axis=1) / n.sum(axis=1))
            fitted = m[:, None] + co[None, :]
        residual = float(cells["ss"].sum() + (n * (ybar - fitted) ** 2).sum()) / total
        sigma = np.sqrt(max(residual, 1e-8))
        con_rows = moments["rows"].to_numpy()
        co = move(co, sigma / np.sqrt(con_rows))
        co = co - co.mean()  # ZeroSumNormal: start on the constraint
        m_sd = sigma / np.sqrt(total) if level == "dataset" else sigma / np.sqrt(n.sum(axis=1))
        points.append({"m": move(m, m_sd), "co": co,
                       "sigma": np.asarray(sigma * np.exp(rng.uniform(-1, 1)
                                                          / np.sqrt(2.0 * total)))})
    return points


# =========================================================================== model
def build_model(
    cells: pd.DataFrame,
    *,
    level: Level = "hierarchical",
    data: DataMode = "summary",
    table: pd.DataFrame | None = None,
    centred: Sequence[str] | Literal["auto"] = "auto",
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
        ``"auto"`` uses :func:`choose_centring`.

    Returns
    -------
    pymc.Model
        Coordinates ``protected_word`` and ``connection``; deterministic
        ``connection_mean`` (dims ``connection``) at every level and ``coef`` (dims
        ``protected_word, connection``) at the word and hierarchical levels.
    """
    import pymc as pm
    import pytensor.tensor as pt

    _check_choice("level", level, LEVELS)
    _check_choice("data", data, DATA_MODES)
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
        row_cell = _row_cells(table, cells)
        coords["row"] = np.arange(len(table))

    with pm.Model(coords=coords) as model:
        cell_word = pm.Data("cell_word", w_idx, dims="cell")
        cell_connection = pm.Data("cell_connection", c_idx, dims="cell")
        if level == "hierarchical":
            bar = pm.Normal("bar", mu=1.0, sigma=0.3, dims="connection")
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
                m = pm.Normal("m", mu=1.0, sigma=0.5)
                pm.Deterministic("connection_mean", m + co, dims="connection")
                cell_mu = m + co[cell_connection]
            else:
                m = pm.Normal("m", mu=1.0, sigma=0.5, dims="protected_word")
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


def _check_choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not one of {list(allowed)}")


def _check_positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


# =========================================================================== fitting
def fit_bias_model(
    table: pd.DataFrame,
    *,
    level: Level = "hierarchical",
    data: DataMode = "summary",
    draws: int = DEFAULT_DRAWS,
    tune: int = DEFAULT_TUNE,
    chains: int = DEFAULT_CHAINS,
    cores: int | None = None,
    random_seed: int | None = None,
    sampler: str = "pymc",
    target_accept: float = DEFAULT_TARGET_ACCEPT,
    centred: Sequence[str] | Literal["auto"] = "auto",
    progressbar: bool = True,
    warn: bool = True,
) -> BiasFit:
    """Fit a Bayesian model of cosine distances to a long-form table.

    Parameters
    ----------
    table
        Long-form cosine table from :func:`embias.cosine_table` or
        :func:`embias.load_published_table` (or any frame with ``protected_word``,
        ``word_to_compare``, ``connection`` and ``cosine_distance``).
    level
        ``"hierarchical"`` (default; coefficient per protected word × connection,
        partially pooled around connection means, residual sd per connection),
        ``"word"`` (m[pw] + co[con]) or ``"dataset"`` (m + co[con]); ``co`` is a
        ZeroSumNormal at the word and dataset levels (see the module notes).
    data
        ``"summary"`` (default): fit on the cell sufficient statistics — the same
        posterior as ``"raw"`` (one likelihood term per row), in time independent of the
        number of rows.
    draws, tune, chains
        Posterior draws per chain, tuning steps per chain, number of chains. The
        defaults (3000, 1000, 2) give bulk and tail ESS ≥ 1000 for every reported
        quantity of the hierarchical religion model.
    cores
        Chains run in parallel; default ``min(chains, os.cpu_count())`` (PyMC's own
        default runs chains one after another on 2-core machines).
    random_seed
        Seed of the sampler; ``None`` draws one and records it in ``settings``.
    sampler
        NUTS implementation, one of :data:`SAMPLERS` (``"pymc"`` by default; the others
        need their packages installed).
    target_accept
        NUTS target acceptance rate, in (0, 1).
    centred
        Hierarchical level: connections sampled centred, or ``"auto"`` (see
        :func:`choose_centring`).
    progressbar
        Show PyMC's progress bar.
    warn
        Emit a :class:`ConvergenceWarning` when r̂ > 1.01, ESS < 400 or any divergence.

    Returns
    -------
    BiasFit

    Raises
    ------
    ValueError
        A bad table (missing columns, NaN distances, a connection level without rows, a
        single protected word …) or a bad option; the message names it.
    """
    t_start = time.perf_counter()
    _check_choice("level", level, LEVELS)
    _check_choice("data", data, DATA_MODES)
    _check_choice("sampler", sampler, SAMPLERS)
    draws = _check_positive_int("draws", draws)
    tune = _check_positive_int("tune", tune, minimum=0)
    chains = _check_positive_int("chains", chains)
    cores = min(chains, os.cpu_count() or 1) if cores is None else _check_positive_int(
        "cores", cores)
    if not (isinstance(target_accept, float | int) and 0.0 < float(target_accept) < 1.0):
        raise ValueError(f"target_accept must be in (0, 1), got {target_accept!r}")
    if random_seed is None:
        random_seed = int(np.random.SeedSequence().entropy % (2**31))
    elif isinstance(random_seed, bool) or not isinstance(random_seed, int | np.integer) \
            or random_seed < 0:
        raise ValueError(f"random_seed must be a non-negative integer or None, got "
                         f"{random_seed!r}")
    cells = cell_statistics(table)
    if data == "summary":
        flat = cells[(cells["n"] >= 2) & (cells["ss"] <= 0)]
        if not flat.empty:
            ex = list(zip(flat["protected_word"], flat["connection"], strict=True))[:5]
            raise ValueError(f"cells {ex} have n ≥ 2 identical cosine distances (SS = 0); "
                             "the sufficient-statistics likelihood needs SS > 0 — use "
                             "data='raw'")
    centred_cons = (choose_centring(cells) if centred == "auto" else tuple(centred)) \
        if level == "hierarchical" else ()
    model = build_model(cells, level=level, data=data, table=table, centred=centred_cons)

    import pymc as pm

    t_built = time.perf_counter()
    start: dict[str, Any] = {}
    if sampler == "pymc":  # the external samplers take no per-chain starting points
        start = {"init": "adapt_diag",
                 "initvals": initial_values(cells, level=level, centred=centred_cons,
                                            chains=chains, random_seed=int(random_seed))}
    posterior = pm.sample(
        draws=draws,
        tune=tune,
        chains=chains,
        cores=cores,
        random_seed=int(random_seed),
        nuts_sampler=sampler,  # type: ignore[arg-type]
        nuts={"target_accept": float(target_accept)},
        progressbar=progressbar,
        compute_convergence_checks=False,
        model=model,
        **start,
    )
    t_sampled = time.perf_counter()
    settings = {
        "level": level,
        "data": data,
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "cores": cores,
        "random_seed": int(random_seed),
        "sampler": sampler,
        "target_accept": float(target_accept),
        "centred": list(centred_cons),
        "rows": len(table),
        "cells": len(cells),
        "study": str(table.attrs.get("study", "")),
        "embedding": (str(table["embedding"].iloc[0]) if "embedding" in table.columns
                      else ""),
    }
    fit = BiasFit(
        posterior=posterior,
        table=table,
        cells=cells,
        settings=settings,
        classic=classic_scores(table),
        timings={"build_seconds": t_built - t_start,
                 "sample_seconds": t_sampled - t_built,
                 "total_seconds": time.perf_counter() - t_start},
    )
    if warn:
        fit.warn_if_unconverged(stacklevel=3)
    return fit


# =========================================================================== summaries
def _interval(ds: xr.Dataset, ci_prob: float, ci_kind: str) -> xr.Dataset:
    import arviz as az

    if ci_kind == "hdi":
        return az.hdi(ds, prob=ci_prob)
    return az.eti(ds, prob=ci_prob)


def _contrast_draws(connection_mean: xr.DataArray, *, dim: str = "connection"
                    ) -> xr.DataArray | None:
    present = [str(c) for c in connection_mean[dim].values]
    pairs = [(a, b) for a, b in CONTRASTS if a in present and b in present]
    if not pairs:
        return None
    parts = [connection_mean.sel({dim: a}, drop=True) - connection_mean.sel({dim: b},
                                                                            drop=True)
             for a, b in pairs]
    return xr.concat(parts, dim="contrast").assign_coords(
        contrast=[f"{a} - {b}" for a, b in pairs])


def rope_decision(lower: np.ndarray | float, upper: np.ndarray | float, rope: float
                  ) -> np.ndarray:
    """Kruschke's interval + ROPE decision for a difference (ROPE = [−rope, rope]).

    Returns, element-wise, ``"different"`` when the interval lies entirely outside the
    ROPE (credibly non-zero), ``"equivalent"`` when it lies entirely inside (practically
    zero) and ``"undecided"`` otherwise.
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    outside = (lower > rope) | (upper < -rope)
    inside = (lower >= -rope) & (upper <= rope)
    return np.where(outside, "different", np.where(inside, "equivalent", "undecided"))


def summarize_posterior(
    posterior: DataTree,
    cells: pd.DataFrame,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    ci_kind: CiKind = "hdi",
    rope: float = DEFAULT_ROPE,
) -> pd.DataFrame:
    """Interval table of a fitted model (see :meth:`BiasFit.summary`)."""
    _check_choice("ci_kind", ci_kind, CI_KINDS_BAYES)
    if not (isinstance(ci_prob, float | int) and 0.0 < float(ci_prob) < 1.0):
        raise ValueError(f"ci_prob must be in (0, 1), got {ci_prob!r}")
    if not (isinstance(rope, float | int) and float(rope) >= 0.0):
        raise ValueError(f"rope must be a non-negative half-width, got {rope!r}")
    post = posterior["posterior"].to_dataset()
    class_of = dict(zip(cells["protected_word"], cells["protected_class"], strict=True))
    derived = {"connection_mean": post["connection_mean"]}
    contrast = _contrast_draws(post["connection_mean"])
    if contrast is not None:
        derived["connection_contrast"] = contrast
    has_words = "coef" in post
    hierarchical = "bar" in post
    if has_words:
        derived["coef"] = post["coef"]
        if hierarchical:
            word_contrast = _contrast_draws(post["coef"])
            if word_contrast is not None:
                derived["word_contrast"] = word_contrast
    ds = xr.Dataset(derived)
    ci = _interval(ds, float(ci_prob), ci_kind)
    mean = ds.mean(("chain", "draw"))
    rows: list[dict[str, Any]] = []

    def base(estimand: str, group: str, var: str, sel: dict[str, str]) -> dict[str, Any]:
        return {
            "estimand": estimand,
            "group": group,
            "estimate": float(mean[var].sel(sel)),
            "lower": float(ci[var].sel(sel).sel(ci_bound="lower")),
            "upper": float(ci[var].sel(sel).sel(ci_bound="upper")),
        }

    def contrast_extra(var: str, sel: dict[str, str]) -> dict[str, Any]:
        draws_ = ds[var].sel(sel)
        return {"prob_gt_0": float((draws_ > 0).mean()),
                "prob_in_rope": float((abs(draws_) <= rope).mean()),
                "rope": float(rope)}

    for con in post["connection"].values:
        con = str(con)
        rows.append({**base("connection_mean", con, "connection_mean", {"connection": con}),
                     "connection": con, "protected_word": "", "protected_class": "",
                     "contrast": ""})
    if contrast is not None:
        for name in contrast["contrast"].values:
            name = str(name)
            sel = {"contrast": name}
            rows.append({**base("contrast", name, "connection_contrast", sel),
                         "connection": "", "protected_word": "", "protected_class": "",
                         "contrast": name, **contrast_extra("connection_contrast", sel)})
    if has_words:
        for word in post["protected_word"].values:
            word = str(word)
            for con in post["connection"].values:
                con = str(con)
                sel = {"protected_word": word, "connection": con}
                rows.append({**base("word_coefficient", word, "coef", sel),
                             "connection": con, "protected_word": word,
                             "protected_class": class_of.get(word, ""), "contrast": ""})
        if "word_contrast" in ds:
            for word in post["protected_word"].values:
                word = str(word)
                for name in ds["word_contrast"]["contrast"].values:
                    name = str(name)
                    sel = {"protected_word": word, "contrast": name}
                    rows.append({**base("word_contrast", word, "word_contrast", sel),
                                 "connection": "", "protected_word": word,
                                 "protected_class": class_of.get(word, ""), "contrast": name,
                                 **contrast_extra("word_contrast", sel)})
    table = interval_table(rows, ci_prob=float(ci_prob), ci_kind=ci_kind)
    is_contrast = table["estimand"].isin(["contrast", "word_contrast"]).to_numpy()
    decision = np.where(is_contrast,
                        rope_decision(table["lower"], table["upper"], float(rope)), "")
    table["rope_decision"] = decision
    return table


# =========================================================================== diagnostics
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


def _divergences(posterior: DataTree) -> int:
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


# =========================================================================== classic
def _table_weat(table: pd.DataFrame) -> list[dict[str, Any]]:
    """WEAT effect size of every pair of protected classes, from the table's attribute
    rows (``associated``/``different``)."""
    if "protected_class" not in table.columns:
        return []
    assoc = table[table["connection"] == "associated"]
    attr_of = assoc.groupby("protected_class")["word_class"].first().to_dict()
    classes = [c for c in table["protected_class"].unique() if c in attr_of]
    if "cosine_similarity" in table.columns:
        sim = table["cosine_similarity"].astype(float)
    else:
        sim = 1.0 - table["cosine_distance"].astype(float)
    attrs = table[table["word_class"].isin(set(attr_of.values()))].assign(sim=sim)
    mean_sim = attrs.groupby(["protected_word", "word_class"])["sim"].mean()
    word_class = table.groupby("protected_word")["protected_class"].first()
    rows = []
    for i, cx in enumerate(classes):
        for cy in classes[i + 1:]:
            a, b = attr_of[cx], attr_of[cy]
            x = [w for w in word_class.index if word_class[w] == cx]
            y = [w for w in word_class.index if word_class[w] == cy]
            try:
                s_x = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in x])
                s_y = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in y])
                effect = weat_effect_size(s_x, s_y)
            except (KeyError, ValueError):
                continue
            rows.append({"estimand": "weat_effect_size", "group": f"{cx} vs {cy}",
                         "estimate": float(effect), "lower": np.nan, "upper": np.nan})
    return rows


def classic_scores(table: pd.DataFrame, *, ci_prob: float = 0.95) -> pd.DataFrame:
    """The classic pre-averaged scores of the same table, as interval-table rows.

    MAC overall and per connection (:func:`embias.mac`, Student-t intervals) and, when
    the table has ``protected_class``, the WEAT effect size of every pair of protected
    classes computed from the table's rows (X, Y = the two classes' protected words,
    A, B = their associated attribute classes; no interval: the permutation test needs
    the embeddings, see :func:`embias.weat_pairs`). Empty when the table has no
    ``word_class`` column.
    """
    parts = []
    if "word_class" not in table.columns:  # MAC and WEAT need the attribute classes
        return interval_table([], ci_prob=None, ci_kind="none")
    attr = table[table["connection"].isin(["associated", "different"])]
    if not attr.empty:  # MAC reads only the attribute rows
        parts.append(mac(attr).to_interval_table(ci_prob=ci_prob))
    weat_rows = _table_weat(attr)
    if weat_rows:
        parts.append(interval_table(weat_rows, ci_prob=None, ci_kind="none"))
    if not parts:
        return interval_table([], ci_prob=None, ci_kind="none")
    return pd.concat(parts, ignore_index=True)


# =========================================================================== results
@dataclass(frozen=True, eq=False)
class BiasFit:
    """A fitted model of a cosine table.

    Attributes
    ----------
    posterior
        The ArviZ ``DataTree`` returned by ``pm.sample`` (groups ``posterior``,
        ``sample_stats``, ``observed_data``, ``constant_data``); also available as
        :attr:`draws`.
    table
        The long-form cosine table that was fitted.
    cells
        Its sufficient statistics (:func:`cell_statistics`).
    settings
        What produced the fit: level, data mode, draws, tune, chains, seed, sampler,
        target_accept, centred connections, rows, study, embedding.
    classic
        MAC/WEAT of the same table (:func:`classic_scores`).
    timings
        Seconds spent building the model, sampling, and in total.
    path
        Where the fit is saved, if it is.
    """

    posterior: DataTree = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    cells: pd.DataFrame = field(repr=False)
    settings: Mapping[str, Any]
    classic: pd.DataFrame = field(repr=False)
    timings: Mapping[str, float] = field(default_factory=dict)
    path: str | None = None

    # ------------------------------------------------------------------ views
    @property
    def draws(self) -> DataTree:
        """The posterior ``DataTree`` (same object as :attr:`posterior`)."""
        return self.posterior

    @property
    def level(self) -> str:
        return str(self.settings["level"])

    def summary(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: CiKind = "hdi",
        rope: float = DEFAULT_ROPE,
    ) -> pd.DataFrame:
        """Tidy interval table (the shared reporting layer) of the fit.

        Rows (``estimand``): ``connection_mean`` per connection (``bar`` of the
        hierarchical model; m + co[con] or mean_pw m[pw] + co[con] otherwise);
        ``contrast`` per pair of :data:`CONTRASTS` (associated − none, associated −
        different, different − none, human − none); ``word_coefficient`` per protected
        word × connection (word and hierarchical levels) and ``word_contrast`` per
        protected word × contrast (hierarchical level).

        Parameters
        ----------
        ci_prob
            Interval probability (default 0.89).
        ci_kind
            ``"hdi"`` (highest posterior density, default) or ``"eti"`` (equal-tailed,
            e.g. the 5.5–94.5% percentile interval at 0.89).
        rope
            Half-width of the region of practical equivalence around 0 for contrasts,
            in cosine-distance units (default :data:`DEFAULT_ROPE` = 0.02).

        Returns
        -------
        pandas.DataFrame
            Interval table with extra columns ``connection``, ``protected_word``,
            ``protected_class``, ``contrast``, ``prob_gt_0`` (posterior P(contrast > 0)),
            ``prob_in_rope``, ``rope`` and ``rope_decision`` (``"different"``: the
            interval lies outside the ROPE; ``"equivalent"``: inside; ``"undecided"``).
        """
        return summarize_posterior(self.posterior, self.cells, ci_prob=ci_prob,
                                   ci_kind=ci_kind, rope=rope)

    def diagnostics(self) -> pd.DataFrame:
        """r̂ and bulk/tail ESS of every posterior scalar (:func:`convergence_diagnostics`)."""
        return convergence_diagnostics(self.posterior)

    @property
    def divergences(self) -> int:
        """Number of divergent transitions after tuning."""
        return _divergences(self.posterior)

    def problems(self) -> list[str]:
        """Convergence problems: r̂ > 1.01, ESS < 400, divergences (empty when fine)."""
        return convergence_problems(self.diagnostics(), self.divergences)

    def diagnostics_overview(self) -> pd.DataFrame:
        """One row: worst r̂, smallest bulk/tail ESS and the divergence count."""
        diag = self.diagnostics()
        return pd.DataFrame([{
            "max_r_hat": float(diag["r_hat"].max()),
            "min_ess_bulk": float(diag["ess_bulk"].min()),
            "min_ess_tail": float(diag["ess_tail"].min()),
            "divergences": self.divergences,
            "draws": int(self.settings["draws"]),
            "chains": int(self.settings["chains"]),
        }])

    def warn_if_unconverged(self, *, stacklevel: int = 2) -> list[str]:
        """Emit one :class:`ConvergenceWarning` listing the problems; return them."""
        problems = self.problems()
        if problems:
            warnings.warn(f"{self.level} model of {self.settings.get('study') or 'the table'}"
                          f" ({self.settings.get('embedding') or 'custom'}): "
                          + "; ".join(problems), ConvergenceWarning, stacklevel=stacklevel)
        return problems

    # ------------------------------------------------------------------ checks, plots
    def predictive_check(
        self,
        *,
        ci_probs: Sequence[float] = (0.89, 0.5),
        random_seed: int = 0,
    ) -> PredictiveCheck:
        """Posterior predictive check (:func:`posterior_predictive_check`)."""
        return posterior_predictive_check(self, ci_probs=ci_probs, random_seed=random_seed)

    def plot(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: CiKind = "hdi",
        rope: float = DEFAULT_ROPE,
        title: str | None = None,
    ) -> Figure:
        """Forest plot of :meth:`summary` with the classic MAC/WEAT alongside
        (:func:`plot_bias_fit`)."""
        if title is None:
            title = " / ".join(str(v) for v in (self.settings.get("study"),
                                                self.settings.get("embedding"), self.level)
                               if v)
        return plot_bias_fit(self.summary(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope),
                             classic=self.classic, title=title)

    def __repr__(self) -> str:
        s = self.settings
        return (f"BiasFit(level={s['level']!r}, data={s['data']!r}, study={s.get('study')!r}, "
                f"embedding={s.get('embedding')!r}, rows={s.get('rows')}, "
                f"draws={s['draws']}×{s['chains']}, path={self.path!r})")


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
        """Observed vs predictive distances per connection (:func:`plot_predictive_check`)."""
        return plot_predictive_check(self)


def _cell_location_scale(posterior: DataTree, cells: pd.DataFrame
                         ) -> tuple[np.ndarray, np.ndarray]:
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
    mu = mu.stack(sample=("chain", "draw")).transpose("sample", "cell").values
    sigma = sigma.stack(sample=("chain", "draw")).transpose("sample", "cell").values
    return mu, sigma


def posterior_predictive_check(
    fit: BiasFit,
    *,
    ci_probs: Sequence[float] = (0.89, 0.5),
    random_seed: int = 0,
    min_predictive_draws: int = 20_000,
) -> PredictiveCheck:
    """Share of observed distances inside their cell's posterior predictive intervals.

    A new distance in cell (pw, con) is drawn as y* ~ Normal(μ_cell, σ_cell) for every
    posterior draw (repeated until there are at least ``min_predictive_draws`` per cell);
    the equal-tailed ``ci_probs`` intervals of y* are compared with every observed row
    of the cell. A well-calibrated model covers about ``ci_prob`` of the rows.

    Parameters
    ----------
    fit
        The fit to check.
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
    mu, sigma = _cell_location_scale(fit.posterior, cells)
    reps = max(1, math.ceil(min_predictive_draws / mu.shape[0]))
    y_rep = mu[None] + sigma[None] * rng.standard_normal((reps, *mu.shape))
    y_rep = y_rep.reshape(-1, mu.shape[1])
    table = fit.table
    row_cell = _row_cells(table, cells)
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


# =========================================================================== plots
def plot_bias_fit(
    summary: pd.DataFrame,
    *,
    classic: pd.DataFrame | None = None,
    title: str | None = None,
) -> Figure:
    """Forest plots of a fit's interval table, with the classic scores alongside.

    Left column: connection means (MAC of the same table as hollow diamonds), contrasts
    (ROPE shaded, taken from the table's ``rope`` column) and the classic WEAT effect
    sizes. Right column (word and hierarchical levels): one panel per protected class,
    each word's coefficients per connection side by side.

    Parameters
    ----------
    summary
        Output of :meth:`BiasFit.summary` (never recomputed here).
    classic
        Output of :func:`classic_scores` (``BiasFit.classic``), or None.
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    validate_interval_table(summary)
    words = summary[summary["estimand"] == "word_coefficient"]
    classes = list(dict.fromkeys(words["protected_class"])) if not words.empty else []
    weat = (classic[classic["estimand"] == "weat_effect_size"]
            if classic is not None and not classic.empty else None)
    left = ["connection_mean", "contrast"] + (["weat"] if weat is not None and len(weat) else [])
    n_left, n_right = len(left), len(classes)
    n_rows = n_left * max(n_right, 1)
    fig = plt.figure(figsize=(13 if n_right else 7.5, max(7.0, 2.6 * max(n_left, n_right))))
    grid = fig.add_gridspec(n_rows, 2 if n_right else 1)
    span_l = n_rows // n_left
    for i, panel in enumerate(left):
        ax = fig.add_subplot(grid[i * span_l:(i + 1) * span_l, 0])
        if panel == "connection_mean":
            markers = None
            if classic is not None and not classic.empty:
                macs = classic[(classic["estimand"] == "mac")
                               & classic["group"].isin(summary["group"])]
                markers = pd.DataFrame({"estimand": "connection_mean",
                                        "group": macs["group"].to_numpy(),
                                        "value": macs["estimate"].to_numpy(),
                                        "label": "MAC"})
            plot_forest(summary, estimands=["connection_mean"], markers=markers, ax=ax,
                        title="connection means (◇ = classic MAC)")
        elif panel == "contrast":
            contrasts = summary[summary["estimand"] == "contrast"]
            if contrasts.empty:
                ax.set_axis_off()
                continue
            rope = float(contrasts["rope"].iloc[0])
            ax.axvspan(-rope, rope, color="grey", alpha=0.15, lw=0)
            plot_forest(contrasts, reference=0.0, ax=ax,
                        title=f"contrasts (shaded: ROPE ±{rope:g})")
        else:
            assert weat is not None
            plot_forest(weat, reference=0.0, ax=ax,
                        title="classic WEAT effect sizes of the same table")
    if n_right:
        span_r = n_rows // n_right
        word_axes = []
        for j, cls in enumerate(classes):
            ax = fig.add_subplot(grid[j * span_r:(j + 1) * span_r, 1])
            part = words[words["protected_class"] == cls].assign(estimand="")
            plot_forest(part, by="connection", ax=ax,
                        title=f"{cls or 'protected words'}: word-level coefficients")
            word_axes.append(ax)
        low = min(ax.get_xlim()[0] for ax in word_axes)
        high = max(ax.get_xlim()[1] for ax in word_axes)
        for ax in word_axes:  # one scale, so classes can be compared by eye
            ax.set_xlim(low, high)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_predictive_check(check: PredictiveCheck) -> Figure:
    """Observed vs posterior predictive distances per connection, with coverage.

    Parameters
    ----------
    check
        Output of :func:`posterior_predictive_check` (never recomputed here).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    cons = [c for c in dict.fromkeys(check.coverage["connection"]) if c != "all"]
    fig, axes = plt.subplots(1, len(cons), figsize=(3.2 * len(cons), 3.2), squeeze=False)
    for ax, con in zip(axes[0], cons, strict=True):
        obs = check.observed.loc[check.observed["connection"] == con, "cosine_distance"]
        pred = check.predictive.loc[check.predictive["connection"] == con, "cosine_distance"]
        bins = np.linspace(min(obs.min(), pred.quantile(0.001)),
                           max(obs.max(), pred.quantile(0.999)), 30)
        ax.hist(obs, bins=bins, density=True, alpha=0.5, label="observed")
        ax.hist(pred, bins=bins, density=True, histtype="step", lw=1.5, color="black",
                label="posterior predictive")
        cov = check.coverage[check.coverage["connection"] == con]
        text = ", ".join(f"{p:.0%} PI: {v:.0%}" for p, v in zip(cov["ci_prob"], cov["inside"],
                                                                 strict=True))
        ax.set_title(f"{con} (n={int(cov['rows'].iloc[0])})\ninside {text}", fontsize=9)
        ax.set_xlabel("cosine distance")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig
