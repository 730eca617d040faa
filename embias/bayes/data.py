"""Data preparation for the Bayesian models: cell sufficient statistics, centring, starts.

With a Normal likelihood the posterior depends on each (protected word, connection) cell
only through n, the mean ȳ and the sum of squared deviations SS
(:func:`cell_statistics`); :func:`choose_centring` picks the parametrisation of each
connection of the hierarchical model and :func:`initial_values` the chains' starting
points (moment estimates of the cell statistics).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from ..tables import CONNECTIONS, validate_table

__all__ = ["CENTRED_MIN_ROWS", "TAU_WORD_LOG_SD", "approximate_posterior_sd",
           "cell_statistics", "choose_centring", "initial_values", "row_cells"]

Level = Literal["dataset", "word", "hierarchical", "crossed"]

#: Fewest rows per cell (median over the connection's cells) for centred sampling.
CENTRED_MIN_ROWS = 10



def cell_statistics(table: pd.DataFrame) -> pd.DataFrame:
    """Return the sufficient statistics of each (protected word, connection) cell.

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
        Any problem :func:`fit_bias_model` refuses: any :func:`embias.tables.validate_table`
        refuses (missing columns, values that are not numbers, NaN distances, repeated
        rows …), unknown or empty connection levels, ``different`` rows without any
        ``associated`` row (a study without associations), empty (protected word,
        connection) cells, a single protected word or a single connection.

    Examples
    --------
    The cell (he, associated) holds 0.6 and 0.8: n = 2, ȳ = 0.7, SS = 0.1² + 0.1².

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> from embias.bayes import cell_statistics
    >>> cell_statistics(table)
      protected_word protected_class  connection  n  mean    ss
    0             he                  associated  2   0.7  0.02
    1             he                        none  2   1.0  0.02
    2            she                  associated  2   0.8  0.02
    3            she                        none  2   1.0  0.00
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
    if "different" in con_levels and "associated" not in con_levels:
        raise ValueError(
            f"{what} has 'different' rows but no 'associated' row: every attribute row says "
            "the attribute belongs to another protected class, as in a table of a study "
            "without associations, and a fit would report 'different' against the controls "
            "as if nothing were missing. Give the study its associations (associations.txt "
            "in its folder, lines '<protected class> <attribute class>', or "
            "Study.from_dicts(..., associations={...})) and build the table again")
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



def row_cells(table: pd.DataFrame, cells: pd.DataFrame) -> np.ndarray:
    """Return the index into ``cells`` of every row of ``table``.

    Parameters
    ----------
    table
        A long-form cosine table.
    cells
        Its :func:`cell_statistics`.

    Returns
    -------
    numpy.ndarray
        One cell index per row (int64).

    Raises
    ------
    ValueError
        A row whose (protected word, connection) is not one of ``cells``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> from embias.bayes.data import cell_statistics, row_cells
    >>> row_cells(table, cell_statistics(table))
    array([0, 0, 1, 1, 2, 2, 3, 3])
    """
    key = pd.MultiIndex.from_frame(cells[["protected_word", "connection"]])
    rows = pd.MultiIndex.from_arrays([table["protected_word"].astype(str),
                                      table["connection"].astype(str)])
    idx = key.get_indexer(rows)
    if (idx < 0).any():  # pragma: no cover - cells come from the same table
        raise ValueError("table rows do not match the cell statistics")
    return idx.astype(np.int64)



def choose_centring(cells: pd.DataFrame) -> tuple[str, ...]:
    """Return the connections whose coefficients are sampled centred.

    Centred when the data of a typical cell outweigh the prior, median(n)·τ̂²/σ̂² > 1,
    and the cells have at least :data:`CENTRED_MIN_ROWS` rows (with fewer, τ̂ is too
    uncertain to trust and the posterior of τ reaches towards 0, where the centred form
    has a funnel). σ̂² = Σ SS / Σ(n − 1) is the pooled within-cell variance and
    τ̂² = var(cell means) − mean(σ̂²/n) the method-of-moments between-cell variance; a
    connection with τ̂² ≤ 0 stays non-centred.

    Parameters
    ----------
    cells
        Output of :func:`cell_statistics`.

    Returns
    -------
    tuple of str
        The centred connections, in the cells' order.

    Examples
    --------
    On the authors' religion table (Reddit) a protected word has 3–4 ``associated`` and
    7–8 ``different`` rows (too few), 85 ``human`` and 226 ``none`` rows:

    >>> import embias
    >>> from embias.bayes import cell_statistics, choose_centring
    >>> choose_centring(cell_statistics(embias.load_published_table("religion", "reddit")))
    ('human', 'none')
    """
    moments = connection_moments(cells)
    n_median = cells.groupby("connection", sort=False)["n"].median()
    centred = []
    for con, row in moments.iterrows():
        n_med = float(n_median[con])
        if n_med >= CENTRED_MIN_ROWS and row["words"] >= 2 and row["s2"] > 0 \
                and row["tau2"] > 0 and n_med * row["tau2"] / row["s2"] > 1:
            centred.append(str(con))
    return tuple(centred)



def connection_moments(cells: pd.DataFrame) -> pd.DataFrame:
    """Return the moments of the cells per connection.

    Rows, pooled within-cell variance s2, row-weighted mean, mean and variance of the cell
    means, and the method-of-moments between-cell variance tau2.
    """
    # per connection from NumPy arrays (a pandas groupby costs more than the sums)
    codes, connections = pd.factorize(cells["connection"], sort=False)
    n_all = cells["n"].to_numpy(float)
    ybar_all = cells["mean"].to_numpy(float)
    ss_all = cells["ss"].to_numpy(float)
    out = []
    for k, con in enumerate(connections):
        rows = codes == k
        n, ybar = n_all[rows], ybar_all[rows]
        dof = float((n - 1).sum())
        spread = float(ybar.var(ddof=1)) if len(n) > 1 else 0.0
        s2 = float(ss_all[rows].sum()) / dof if dof > 0 else max(spread, 0.04)
        out.append({"connection": con, "rows": float(n.sum()), "s2": s2,
                    "weighted_mean": float((n * ybar).sum() / n.sum()),
                    "mean_of_means": float(ybar.mean()), "words": float(len(n)),
                    "tau2": spread - float((s2 / n).mean())})
    return pd.DataFrame(out).set_index("connection")



#: Approximate posterior sd of log τ_u, the spread of a kind of compared word (crossed
#: level): ≈ 1/√(2·(words − 1)) for the kind's words, 0.24 at ten words; one value for all
#: kinds (the sampler's first mass matrix only needs the scale roughly).
TAU_WORD_LOG_SD = 0.25


def _hierarchical_moments(cells: pd.DataFrame) -> dict[str, np.ndarray]:
    """Return moment estimates of the hierarchical parameters, and approximate sds.

    The approximate posterior sds are on the sampled scale (log for τ and σ), per
    connection and protected word.
    """
    moments = connection_moments(cells)
    words = len(dict.fromkeys(cells["protected_word"]))
    shape = (words, len(moments))
    n = cells["n"].to_numpy(float).reshape(shape)
    ybar = cells["mean"].to_numpy(float).reshape(shape)
    s2 = moments["s2"].to_numpy()
    tau = np.sqrt(np.maximum(moments["tau2"].to_numpy(), 0.02**2))
    bar = moments["mean_of_means"].to_numpy()
    precision = n / s2 + 1.0 / tau**2
    rows = moments["rows"].to_numpy()
    return {"connections": np.asarray(moments.index, dtype=object), "s2": s2, "tau": tau,
            "bar": bar, "coef": (n / s2 * ybar + bar / tau**2) / precision,
            "bar_sd": tau / np.sqrt(words),
            "log_tau_sd": np.full(len(tau), 1.0 / np.sqrt(2.0 * words)),
            "log_sigma_sd": 1.0 / np.sqrt(2.0 * rows),
            "coef_sd": 1.0 / np.sqrt(precision)}


def approximate_posterior_sd(
    cells: pd.DataFrame, *, level: Level, centred: Sequence[str] = ()
) -> dict[str, np.ndarray]:
    """Return approximate posterior sds of the sampled parameters, from the cell moments.

    The scales :func:`initial_values` moves the starting points by, per parameter of the
    hierarchical and crossed levels on the scale the sampler sees: ``bar`` τ̂/√words;
    ``tau`` and ``sigma`` (log scale) 1/√(2·words) and 1/√(2·rows); ``coef_raw``
    1/√precision where centred and 1/(τ̂·√precision) where not (precision = n/σ̂² + 1/τ̂²
    of the cell); ``tau_word`` (log scale) :data:`TAU_WORD_LOG_SD`. numpyro's NUTS starts
    its tuning from their squares as the inverse mass matrix instead of the identity
    (:func:`embias.bayes.sampling.sample_posterior`).

    Parameters
    ----------
    cells
        Output of :func:`cell_statistics`.
    level
        ``"dataset"``, ``"word"``, ``"hierarchical"`` or ``"crossed"``.
    centred
        The connections whose coefficients are sampled centred.

    Returns
    -------
    dict
        Variable name → sds broadcastable to its shape; empty for the dataset and word
        levels.

    Examples
    --------
    Two protected words: ``tau`` 1/√(2·2) = 0.5; four rows per connection: ``sigma``
    1/√(2·4) ≈ 0.354.

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> from embias.bayes.data import approximate_posterior_sd, cell_statistics
    >>> sd = approximate_posterior_sd(cell_statistics(table), level="hierarchical")
    >>> sd["tau"], sd["sigma"]
    (array([0.5, 0.5]), array([0.35355339, 0.35355339]))
    >>> approximate_posterior_sd(cell_statistics(table), level="word")
    {}
    """
    if level not in ("hierarchical", "crossed"):
        return {}
    m = _hierarchical_moments(cells)
    mask = np.array([c in centred for c in m["connections"]])
    sd = {"bar": m["bar_sd"], "tau": m["log_tau_sd"], "sigma": m["log_sigma_sd"],
          "coef_raw": np.where(mask, m["coef_sd"], m["coef_sd"] / m["tau"])}
    if level == "crossed":
        sd["tau_word"] = np.asarray(TAU_WORD_LOG_SD)
    return sd


def initial_values(
    cells: pd.DataFrame,
    *,
    level: Level,
    centred: Sequence[str] = (),
    chains: int,
    random_seed: int,
    word_kinds: Sequence[str] = (),
) -> list[dict[str, np.ndarray]]:
    """Return the chains' starting points: moment estimates, moved apart.

    The moment estimates of the cell statistics, each moved by about one approximate
    posterior sd (uniform, seeded) so the chains start apart. Starting near the posterior
    keeps the warm-up cost from growing with the data: with PyMC's default start (the
    prior's centre jittered by ±1 on the unconstrained scale) a table of a million rows
    starts thousands of posterior sds away and the early warm-up needs very long
    trajectories.

    Parameters
    ----------
    cells
        Output of :func:`cell_statistics`.
    level
        ``"dataset"``, ``"word"``, ``"hierarchical"`` or ``"crossed"``.
    centred
        The connections whose coefficients are sampled centred (hierarchical and
        crossed levels).
    chains
        Number of starting points.
    random_seed
        Seed of the moves.
    word_kinds
        The compared words' kinds (crossed level: one ``tau_word`` each).

    Returns
    -------
    list of dict
        One ``{variable: value}`` per chain, for ``pm.sample(initvals=...)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.bayes.data import cell_statistics, initial_values
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> first, second = initial_values(cell_statistics(table), level="hierarchical",
    ...                                chains=2, random_seed=1)
    >>> sorted(first), first["coef_raw"].shape
    (['bar', 'coef_raw', 'sigma', 'tau'], (2, 2))
    >>> bool((first["bar"] != second["bar"]).all())
    True
    """
    rng = np.random.default_rng([int(random_seed), 7919])
    if level in ("hierarchical", "crossed"):
        return _hierarchical_starts(cells, level=level, centred=centred, chains=chains,
                                    word_kinds=word_kinds, rng=rng)
    return _pooled_starts(cells, level=level, chains=chains, rng=rng)


def _move(value: np.ndarray | float, sd: np.ndarray | float,
          rng: np.random.Generator) -> np.ndarray:
    """Return ``value`` moved by a uniform draw in ±``sd``."""
    return np.asarray(value + rng.uniform(-1.0, 1.0, np.shape(value)) * sd, dtype=float)


def _hierarchical_starts(cells: pd.DataFrame, *, level: Level, centred: Sequence[str],
                         chains: int, word_kinds: Sequence[str],
                         rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    """Return the starting points of the hierarchical and crossed levels."""
    moments = connection_moments(cells)
    cons = list(moments.index)
    words = len(dict.fromkeys(cells["protected_word"]))
    hm = _hierarchical_moments(cells)
    mask = np.array([float(c in centred) for c in cons])
    points = []
    for _ in range(chains):
        s2, tau = hm["s2"], hm["tau"]
        bar = _move(hm["bar"], hm["bar_sd"], rng)
        tau = tau * np.exp(rng.uniform(-1.0, 1.0, tau.shape) / np.sqrt(2.0 * words))
        sigma = np.sqrt(s2) * np.exp(rng.uniform(-1.0, 1.0, s2.shape)
                                     / np.sqrt(2.0 * moments["rows"].to_numpy()))
        coef = _move(hm["coef"], hm["coef_sd"], rng)
        point = {"bar": bar, "tau": tau, "sigma": sigma,
                 "coef_raw": mask * coef + (1.0 - mask) * (coef - bar) / tau}
        if level == "crossed":  # part of the within-cell spread is the words' own
            point["sigma"] = sigma * np.sqrt(0.5)
            point["tau_word"] = np.sqrt(0.5 * s2.mean()) * np.exp(
                rng.uniform(-0.5, 0.5, len(word_kinds)))
        points.append(point)
    return points


def _pooled_starts(cells: pd.DataFrame, *, level: Level, chains: int,
                   rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    """Return the starting points of the dataset and word levels (co on its zero sum)."""
    moments = connection_moments(cells)
    shape = (len(dict.fromkeys(cells["protected_word"])), len(moments))
    n = cells["n"].to_numpy(float).reshape(shape)
    ybar = cells["mean"].to_numpy(float).reshape(shape)
    total = float(n.sum())
    points = []
    for _ in range(chains):
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
        co = _move(co, sigma / np.sqrt(moments["rows"].to_numpy()), rng)
        co = co - co.mean()  # ZeroSumNormal: start on the constraint
        m_sd = sigma / np.sqrt(total) if level == "dataset" else sigma / np.sqrt(n.sum(axis=1))
        points.append({"m": _move(m, m_sd, rng), "co": co,
                       "sigma": np.asarray(sigma * np.exp(rng.uniform(-1, 1)
                                                          / np.sqrt(2.0 * total)))})
    return points
