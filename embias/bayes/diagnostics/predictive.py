"""The posterior predictive check: observed distances against their predictive intervals.

``posterior_predictive_check`` and its result :class:`PredictiveCheck` (coverage per
connection, the cells' intervals, draws for plotting, the words' Pareto k),
``observed_distances`` (the observed side) and the default interval probabilities
:data:`DEFAULT_CHECK_PROBS`.

Each observed row is judged by the predictive distribution of a fit *without its compared
word* (leave one compared word out, by Pareto-smoothed importance sampling of the
posterior draws, ArviZ): a cell's coefficient is otherwise estimated from the very words it
is then compared with, and with the 3–8 attribute words of a cell those words sit closer
to it than a new word would — an in-sample check covers more than its nominal rate by
construction there. The in-sample check stays available (``leave_out="nothing"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..._progress import progress_wanted
from ..._validation import check_choice, check_number
from ...settings import K_THRESHOLD
from ..data import row_cells
from .cell_draws import cell_location_scale

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_CHECK_PROBS", "LEAVE_OUT_CHOICES", "PredictiveCheck",
           "observed_distances", "posterior_predictive_check"]

#: What each observed row is judged against (``leave_out`` of
#: ``posterior_predictive_check``).
LEAVE_OUT_CHOICES: tuple[str, ...] = ("auto", "word", "nothing")
#: How words whose importance weights are unreliable are judged (``refit``).
REFIT_CHOICES: tuple[str, ...] = ("never", "auto")


def _no_words() -> pd.DataFrame:
    """Return the ``words_left_out`` of an in-sample check: no word left out."""
    return pd.DataFrame({"word_to_compare": pd.Series([], dtype=object),
                         "pareto_k": pd.Series([], dtype=float),
                         "method": pd.Series([], dtype=object)})


@dataclass(frozen=True, eq=False)
class PredictiveCheck:
    """Posterior predictive check of a fit.

    Attributes
    ----------
    coverage
        Share of observed distances inside the equal-tailed posterior predictive
        interval of their cell (of the fit without their compared word when
        :attr:`words_left_out` is not empty): columns ``connection`` (plus ``"all"``),
        ``ci_prob``, ``inside`` (share), ``rows``.
    cell_intervals
        The predictive intervals per cell of the whole fit (a new compared word's row at
        the crossed levels): ``protected_word``, ``connection``, ``ci_prob``, ``lower``,
        ``upper``.
    predictive
        Predictive draws for plotting: ``connection``, ``cosine_distance`` (10,000 per
        connection, each cell represented in proportion to its rows).
    observed
        The observed ``connection`` and ``cosine_distance`` of every row, and its ``pit``:
        the predictive probability of a distance at most the observed one (uniform on
        [0, 1] for a calibrated model; the row is inside the ``ci_prob`` interval when
        its PIT lies in [(1 − ci_prob)/2, (1 + ci_prob)/2]).
    words_left_out
        How each compared word was left out: ``word_to_compare``, the Pareto k of its
        importance weights and ``method`` — ``"psis"`` (the draws reweighted) or
        ``"refit"`` (the model fitted again without the word). Above k = 0.7 a
        ``"psis"`` estimate is unreliable (:attr:`unreliable_words`). Empty for an
        in-sample check.
    """

    coverage: pd.DataFrame
    cell_intervals: pd.DataFrame = field(repr=False)
    predictive: pd.DataFrame = field(repr=False)
    observed: pd.DataFrame = field(repr=False)
    words_left_out: pd.DataFrame = field(repr=False, default_factory=_no_words)

    @property
    def leave_out(self) -> str:
        """``"word"`` (each row judged without its compared word) or ``"nothing"``."""
        return "word" if len(self.words_left_out) else "nothing"

    @property
    def unreliable_words(self) -> list[str]:
        """The words left out by importance weights with k > 0.7 (not refitted)."""
        k = self.words_left_out
        bad = (k["pareto_k"] > K_THRESHOLD) & (k["method"] == "psis")
        return [str(w) for w in k.loc[bad, "word_to_compare"]]

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
    leave_out: str = "auto",
    refit: str = "never",
    k_threshold: float = K_THRESHOLD,
    progress: bool = True,
) -> PredictiveCheck:
    """Return the share of observed distances inside their predictive intervals.

    A new distance in cell (pw, con) is y* ~ Normal(μ_cell, σ_cell) given a posterior
    draw; at the crossed levels the new row comes with a new compared word of the cell's
    kind, y* ~ Normal(μ_cell, √(σ² + τ_u²)). An observed row is inside the equal-tailed
    ``ci_prob`` interval of y* when its predictive probability integral transform,
    PIT = P(y* ≤ y) = Σ_s w_s Φ((y − μ_s) / sd_s), lies in [(1 − ci_prob)/2,
    (1 + ci_prob)/2]. With ``leave_out="word"`` the weights w_s are the Pareto-smoothed
    importance weights of the draws without the row's compared word (ArviZ's PSIS-LOO on
    the fit's per-word log-likelihood); with ``"nothing"`` every draw weighs the same
    (the in-sample check). A well-calibrated model covers about ``ci_prob`` of the rows.

    Parameters
    ----------
    fit
        The fit to check (a :class:`~embias.BiasFit`, or anything with its
        ``posterior``, ``cells`` and ``table``).
    ci_probs
        Interval probabilities, default 89% and 50%.
    random_seed
        Seed of the predictive draws (``cell_intervals`` and ``predictive``; the
        coverage is computed without random draws).
    min_predictive_draws
        Predictive draws per cell (at least one per posterior draw).
    leave_out
        ``"word"``: judge each row by the fit without its compared word;
        ``"nothing"``: by the whole fit (in-sample); ``"auto"`` (default): ``"word"``
        where the fit has a per-word log-likelihood (a table with ``word_to_compare``
        and no template effects), else ``"nothing"``.
    refit
        ``"never"`` (default): every word left out by importance weights (a word whose k
        exceeds ``k_threshold`` is listed in :attr:`PredictiveCheck.unreliable_words`);
        ``"auto"``: those words' rows judged by an actual refit without them (one batch,
        :func:`embias.fit_many`, the fit's own settings).
    k_threshold
        Pareto k above which ``refit="auto"`` refits a word (default 0.7).
    progress
        Show a bar over the refits (only when the standard error is a terminal).

    Returns
    -------
    PredictiveCheck
        The coverage per connection, the cells' intervals, draws for plotting and the
        words' Pareto k.

    Raises
    ------
    ValueError
        ``ci_probs`` empty or not all in (0, 1); an unknown ``leave_out`` or ``refit``;
        ``leave_out="word"`` for a fit without compared words or with template effects; a
        word to refit whose removal leaves a table the model cannot fit.

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
    >>> check = posterior_predictive_check(fit, ci_probs=[0.5], leave_out="nothing")
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
    check_choice("leave_out", leave_out, LEAVE_OUT_CHOICES)
    check_choice("refit", refit, REFIT_CHOICES)
    k_threshold = check_number("k_threshold", k_threshold)
    leave_out = _leave_out_of(fit, leave_out)
    rng = np.random.default_rng(random_seed)
    cells = fit.cells
    mu, sigma = cell_location_scale(fit.posterior, cells, new_words=True)
    row_cell = row_cells(fit.table, cells)
    y = fit.table["cosine_distance"].to_numpy(dtype=float)
    if leave_out == "word":
        codes, weights, word_k = _word_left_out_weights(fit)
        pit = _predictive_pit(y, mu, sigma, row_cell, (codes, weights))
        if refit == "auto":
            word_k = _refit_unreliable(fit, y, pit, codes, word_k, k_threshold,
                                       progress=progress_wanted(bool(progress)))
    else:
        word_k = _no_words()
        pit = _predictive_pit(y, mu, sigma, row_cell, None)
    coverage = _coverage(pit, fit.table, cells, probs)
    reps = max(1, math.ceil(min_predictive_draws / mu.shape[0]))
    y_rep = mu[None] + sigma[None] * rng.standard_normal((reps, *mu.shape))
    y_rep = y_rep.reshape(-1, mu.shape[1])
    return PredictiveCheck(coverage=coverage, cell_intervals=_cell_intervals(y_rep, cells, probs),
                           predictive=_plot_draws(y_rep, cells, rng),
                           observed=observed_distances(fit.table).assign(pit=pit),
                           words_left_out=word_k)


def _leave_out_of(fit: Any, leave_out: str) -> str:
    """Return ``"word"`` or ``"nothing"``: what ``leave_out`` means for this fit."""
    from ..refits import has_template_effects

    why = None
    if "word_to_compare" not in fit.table.columns:
        why = "its table has no word_to_compare column"
    elif has_template_effects(fit):
        why = ("it has template effects (a crossed model of a sentence table), which the "
               "per-word log-likelihood does not hold")
    if why is None:
        return "nothing" if leave_out == "nothing" else "word"
    if leave_out == "word":
        raise ValueError(f"leave_out='word': the fit cannot leave a compared word out — {why}; "
                         "use leave_out='nothing' (the in-sample check)")
    return "nothing"


def _word_left_out_weights(fit: Any) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Return each row's word index, the draws' PSIS weights without each word, and k.

    Weights ``(word, chain × draw)``, normalised per word, from the fit's per-word
    log-likelihood (:func:`embias.bayes.log_likelihood.word_log_likelihood`).
    """
    import warnings

    import arviz as az
    import xarray as xr
    from scipy import special

    from ..log_likelihood import LOG_LIKELIHOOD_VARS, row_words, word_log_likelihood

    name = LOG_LIKELIHOOD_VARS["word"]
    tree = fit.posterior
    if "log_likelihood" in tree.children and name in tree["log_likelihood"].to_dataset():
        log_lik = tree["log_likelihood"].to_dataset()[[name]]
    else:
        log_lik = word_log_likelihood(tree, fit.table, fit.cells)
    codes, words = row_words(fit.table)
    loo_tree = xr.DataTree.from_dict({"posterior": tree["posterior"].to_dataset(),
                                      "log_likelihood": log_lik})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a high k is reported with the check
        loo = az.loo(loo_tree, pointwise=True, var_name=name)
    log_w = (loo.log_weights.sel(word_to_compare=words)
             .transpose("word_to_compare", "chain", "draw").values.reshape(len(words), -1))
    weights = np.exp(log_w - special.logsumexp(log_w, axis=1, keepdims=True))
    k = pd.DataFrame({"word_to_compare": words,
                      "pareto_k": loo.pareto_k.sel(word_to_compare=words).values.astype(float),
                      "method": "psis"})
    return codes, weights, k


def _refit_unreliable(fit: Any, y: np.ndarray, pit: np.ndarray, codes: np.ndarray,
                      word_k: pd.DataFrame, k_threshold: float, *,
                      progress: bool) -> pd.DataFrame:
    """Judge the rows of the words with k > ``k_threshold`` by refits without them.

    ``pit`` is updated in place; the returned table marks those words ``"refit"``.
    """
    from ..refits import check_left_out, run_refits

    chosen = np.flatnonzero(word_k["pareto_k"].to_numpy() > k_threshold)
    tables = []
    for i in chosen:
        what = f"compared word {word_k['word_to_compare'].iloc[i]!r}"
        remaining = fit.table.loc[codes != i]
        check_left_out(fit, remaining, what)
        tables.append((f"without {what}", remaining))
    refits, _ = run_refits(fit, tables, None, executor=None, max_workers=None,
                           progress=progress)
    for i, refitted in zip(chosen, refits, strict=True):
        rows = np.flatnonzero(codes == i)
        mu, sigma = cell_location_scale(refitted.posterior, refitted.cells, new_words=True)
        cell = row_cells(fit.table.iloc[rows], refitted.cells)
        pit[rows] = _predictive_pit(y[rows], mu, sigma, cell, None)
    out = word_k.copy()
    out.loc[chosen, "method"] = "refit"
    return out


def _predictive_pit(y: np.ndarray, mu: np.ndarray, sigma: np.ndarray, row_cell: np.ndarray,
                    word_weights: tuple[np.ndarray, np.ndarray] | None,
                    chunk: int = 256) -> np.ndarray:
    """Return every row's PIT, Σ_s w[word, s] Φ((y − μ[s, cell]) / σ[s, cell]).

    ``word_weights``: each row's word index and the draws' weights per word (rows of
    ``(word, draw)``); ``None``: every draw weighs the same (the mean over the draws).
    """
    from scipy import special

    pit = np.empty(len(y))
    for start in range(0, len(y), chunk):
        rows = slice(start, start + chunk)
        cell = row_cell[rows]
        z = (y[rows][None, :] - mu[:, cell]) / sigma[:, cell]
        cdf = special.ndtr(z)  # (draw, row)
        if word_weights is None:
            pit[rows] = cdf.mean(axis=0)
        else:
            codes, weights = word_weights
            pit[rows] = np.einsum("rs,sr->r", weights[codes[rows]], cdf)
    return pit


def _coverage(pit: np.ndarray, table: pd.DataFrame, cells: pd.DataFrame,
              probs: Sequence[float]) -> pd.DataFrame:
    """Return the coverage per connection (and ``"all"``) from the rows' PIT."""
    row_con = table["connection"].astype(str).to_numpy()
    cov_rows = []
    for p in probs:
        inside = (pit >= (1 - p) / 2) & (pit <= (1 + p) / 2)
        for con in [*dict.fromkeys(cells["connection"]), "all"]:
            mask = np.ones_like(inside) if con == "all" else row_con == con
            cov_rows.append({"connection": con, "ci_prob": p,
                             "inside": float(inside[mask].mean()), "rows": int(mask.sum())})
    return pd.DataFrame(cov_rows)


def _cell_intervals(y_rep: np.ndarray, cells: pd.DataFrame,
                    probs: Sequence[float]) -> pd.DataFrame:
    """Return the equal-tailed predictive intervals of every cell (whole fit)."""
    parts = []
    for p in probs:
        lo, hi = np.quantile(y_rep, [(1 - p) / 2, (1 + p) / 2], axis=0)
        parts.append(pd.DataFrame({"protected_word": cells["protected_word"],
                                   "connection": cells["connection"], "ci_prob": p,
                                   "lower": lo, "upper": hi}))
    return pd.concat(parts, ignore_index=True)


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
