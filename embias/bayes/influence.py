"""Leaving words out: how much each word moves the reported contrasts, and exact
leave-word-out cross-validation for model comparison.

Word influence (:func:`word_influence`)
---------------------------------------
For each protected word and each compared word (attribute words by default), the change of
every reported contrast (associated − none, associated − different, …; posterior means)
when all the rows of that word are left out. Two ways, chosen per word:

- ``psis``: no refit. The posterior without word w is the full posterior reweighted by
  1/p(y_w | θ) (importance sampling, Pareto-smoothed by ArviZ: :func:`arviz.loo` and
  :func:`arviz_stats.loo_expectations`); the change is the weighted minus the plain
  posterior mean. The weights' Pareto k says whether that is trustworthy (k ≤ 0.7).
- ``refit``: an actual fit of the table without w's rows, with the fit's own settings
  (:func:`embias.fit_many`, so on any executor). Used where k > ``k_threshold``
  (``refit="auto"``), everywhere (``"always"``) or nowhere (``"never"``).

The likelihood term of a word (what the weights divide out) is the joint density of all
its rows:

- a compared word: :func:`embias.bayes.loo.pointwise_log_likelihood`'s ``compared_word``
  term (at the crossed level with the word's own effect u integrated out);
- a protected word p: its rows with p's own parameters integrated out, because leaving p
  out sends them back to their prior — coef[p, ·] ~ N(bar, τ) at the hierarchical and
  crossed levels (per cell, ȳ ~ N(bar, τ² + σ²/n) times the within-cell term of SS; at
  the crossed level on y − u), m[p] ~ N(prior_location, 0.5) at the word level (the rows
  jointly Normal, Sherman–Morrison); the plain sum of its rows at the dataset level. On
  the religion/Reddit table (hierarchical, 2 × 3000 draws) this keeps every protected
  word's k below 0.65, where the plain sum of its rows' terms gives k > 0.7 for 14 of
  the 15 words (up to 1.25).

On that table, for the 22 of 26 protected and attribute words with k ≤ 0.7, the PSIS
change of every contrast is within 0.006 (rms 0.002) of a refit's, for changes up to 0.027;
for the 4 attribute words with k > 0.7 the PSIS error reaches 0.021 — they are refitted
(``benchmarks/bench_loo.py``).

Refits cost one compile each with the default JAX sampler (the data are constants of the
compiled graph): ≈ 11 CPU-seconds per refit of the religion table with the default
2 × (1000 + 3000) iterations. With ``sampler="nutpie"`` (``refit_settings``) every
leave-one-compared-word-out table of the summary levels has the shape of the full one and
reuses one compiled model: 11 attribute-word refits in 46 CPU-seconds, the first compile
included.

Exact leave-word-out LOO (:func:`refit_loo`, :func:`compare_loo`)
-----------------------------------------------------------------
The refit paths of model comparison, through ArviZ: :func:`arviz.reloo` refits exactly
the units (rows or compared words) whose Pareto k exceeds the threshold, and
:func:`arviz.loo_kfold` runs exact K-fold cross-validation with whole compared words held
out per fold (folds stratified by the words' pattern of rows, so no fold empties a cell).
The refits of one call run as one batch through :func:`embias.fit_many` before ArviZ asks
for them. The log density of held-out rows under a refit: per row N(y | μ, σ) (crossed,
a row of a word still in the fit: given that word's u; a held-out word's rows: with a new
word's u ~ N(0, τ_u) integrated out), per word the joint of its rows.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._progress import progress_wanted
from .._validation import check_choice, check_int, check_number, check_seed, check_word_list
from .crossed import WORD_KIND_OF_CONNECTION, crossed_design
from .data import cell_statistics, row_cells
from .diagnostics import cell_location_scale
from .loo import (
    LOG_LIKELIHOOD_VARS,
    LOO_UNITS,
    loo_tree,
    pointwise_log_likelihood,
    row_words,
    same_data,
)
from .summary import contrast_draws

if TYPE_CHECKING:  # pragma: no cover
    import concurrent.futures as cf

    import xarray as xr
    from matplotlib.figure import Figure

    from ..settings import FitSettings
    from .fit import BiasFit

__all__ = [
    "DEFAULT_ROLES",
    "K_THRESHOLD",
    "LOO_REFITS",
    "REFIT_CHOICES",
    "WORD_ROLES",
    "RefitLoo",
    "compare_loo",
    "compare_models_refit",
    "plot_word_influence",
    "protected_word_log_likelihood",
    "rank_words",
    "refit_loo",
    "word_influence",
]

#: Roles of a word left out: a protected word, or a compared word of one kind.
WORD_ROLES: tuple[str, ...] = ("protected", "attribute", "neutral", "human")
#: The roles :func:`word_influence` leaves out unless told otherwise.
DEFAULT_ROLES: tuple[str, ...] = ("protected", "attribute")
#: ``refit=`` of :func:`word_influence`.
REFIT_CHOICES: tuple[str, ...] = ("auto", "never", "always")
#: ``refit=`` of :func:`refit_loo`: none (PSIS only, ArviZ's ``loo``), ArviZ's ``reloo``
#: (refit where k is high) or ``loo_kfold`` (exact K-fold, whole compared words per fold).
LOO_REFITS: tuple[str, ...] = ("none", "reloo", "kfold")
#: Pareto k above which importance sampling is not trusted (Vehtari et al. 2024).
K_THRESHOLD = 0.7
#: Prior sd of a protected word's mean m[pw] at the word level (embias.bayes.model).
WORD_PRIOR_SD = 0.5
_LOG_2PI = float(np.log(2.0 * np.pi))


# --------------------------------------------------------------------------- units
@dataclass(frozen=True)
class _Unit:
    """A word to leave out: its name, role and rows (a mask over the table)."""

    word: str
    role: str
    rows: np.ndarray


def _compared_roles(table: pd.DataFrame) -> dict[str, str]:
    """Role of every compared word from the connections of its rows (``a/b`` when its rows
    have two kinds)."""
    kinds = (table["connection"].astype(str).map(WORD_KIND_OF_CONNECTION)
             .groupby(table["word_to_compare"].astype(str), sort=False).unique())
    return {str(w): "/".join(sorted(str(x) for x in k)) for w, k in kinds.items()}


def _select_units(fit: BiasFit, roles: Sequence[str], words: Sequence[str] | None
                  ) -> list[_Unit]:
    table = fit.table
    roles = tuple(check_choice("roles", r, WORD_ROLES) for r in roles)
    compared_needed = words is not None or any(r != "protected" for r in roles)
    if compared_needed and "word_to_compare" not in table.columns:
        raise ValueError("word_influence(): the fitted table has no word_to_compare column, "
                         "so compared words cannot be left out; use roles=('protected',) "
                         f"(columns: {list(table.columns)})")
    protected = [str(w) for w in dict.fromkeys(fit.cells["protected_word"])]
    pw_col = table["protected_word"].astype(str).to_numpy()
    compared = _compared_roles(table) if "word_to_compare" in table.columns else {}
    cw_col = (table["word_to_compare"].astype(str).to_numpy() if compared else None)
    if words is not None:
        words = list(check_word_list("words", words))
        unknown = [w for w in words if w not in protected and w not in compared]
        if unknown:
            raise ValueError(f"word_influence(): {unknown} are neither protected nor compared "
                             f"words of the table (protected: {protected[:5]}…, compared: "
                             f"{list(compared)[:5]}…)")
    units: list[_Unit] = []
    for w in protected:
        if (words is None and "protected" in roles) or (words is not None and w in words):
            units.append(_Unit(w, "protected", pw_col == w))
    for w, role in compared.items():
        wanted = (any(r in role.split("/") for r in roles) if words is None else w in words)
        if wanted:
            units.append(_Unit(w, role, cw_col == w))
    if not units:
        raise ValueError(f"word_influence(): no word of roles {list(roles)} in the table")
    return units


# --------------------------------------------------------------------------- likelihoods
def _cell_grid(fit: BiasFit) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """Protected words, connections, and every cell's (word, connection) index."""
    cells = fit.cells
    words = [str(w) for w in dict.fromkeys(cells["protected_word"])]
    cons = [str(c) for c in dict.fromkeys(cells["connection"])]
    w_idx = pd.Index(words).get_indexer(cells["protected_word"].astype(str))
    c_idx = pd.Index(cons).get_indexer(cells["connection"].astype(str))
    return words, cons, w_idx, c_idx


def _draws(post: xr.Dataset, name: str, *dims: str, **sel: Sequence[str]) -> np.ndarray:
    """Posterior draws of ``name`` as (sample, *dims)."""
    da = post[name]
    if sel:
        da = da.sel(sel)
    da = da.transpose("chain", "draw", *dims)
    return da.values.reshape(-1, *da.shape[2:])


def _integrated_cells(n: np.ndarray, mean: np.ndarray, ss: np.ndarray, bar: np.ndarray,
                      tau2: np.ndarray, sigma2: np.ndarray) -> np.ndarray:
    """log p(rows of the cells | bar, τ, σ) with each cell's coefficient ~ N(bar, τ²)
    integrated out; arrays broadcast to (sample, cell), summed over cells."""
    within = -0.5 * ((n - 1.0) * (_LOG_2PI + np.log(sigma2)) + np.log(n) + ss / sigma2)
    var = tau2 + sigma2 / n
    between = -0.5 * (_LOG_2PI + np.log(var) + (mean - bar) ** 2 / var)
    return np.sum(within + between, axis=-1)


def protected_word_log_likelihood(fit: BiasFit) -> xr.DataArray:
    """Log density of all the rows of each protected word, with the word's own parameters
    integrated out (see the module notes), for every posterior draw.

    Importance weights 1/p(y_p | θ) turn the fit's posterior into the posterior without
    protected word p: at the hierarchical and crossed levels coef[p, ·] ~ N(bar, τ) is
    integrated out (crossed: given the compared words' effects u), at the word level
    m[p] ~ N(prior_location, 0.5); at the dataset level it is the sum of the rows' terms.

    Returns
    -------
    xarray.DataArray
        Dims ``chain, draw, protected_word``.
    """
    import xarray as xr

    post = fit.posterior["posterior"].to_dataset()
    table, cells = fit.table, fit.cells
    words, cons, w_idx, c_idx = _cell_grid(fit)
    n_w, n_c = len(words), len(cons)
    grid = np.zeros((3, n_w, n_c))
    for k, col in enumerate(("n", "mean", "ss")):
        grid[k, w_idx, c_idx] = cells[col].to_numpy(float)
    n, ybar, ss = grid
    level = fit.level
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    out = np.empty((chains * draws, n_w))
    if level == "dataset":
        mu = _draws(post, "connection_mean", "connection", connection=cons)   # (S, C)
        s2 = _draws(post, "sigma")[:, None, None] ** 2
        out = -0.5 * np.sum(n * (_LOG_2PI + np.log(s2))
                            + (ss + n * (ybar - mu[:, None, :]) ** 2) / s2, axis=-1)
    elif level == "word":
        co = _draws(post, "co", "connection", connection=cons)                # (S, C)
        s2 = _draws(post, "sigma")[:, None] ** 2                                # (S, 1)
        loc = float(fit.settings.get("prior_location", 1.0))
        t2 = WORD_PRIOR_SD**2
        d = ybar[None] - loc - co[:, None, :]                                   # (S, W, C)
        sum_r2 = np.sum(ss[None] + n[None] * d**2, axis=-1)
        sum_r = np.sum(n[None] * d, axis=-1)
        rows = n.sum(axis=1)[None, :]
        denom = 1.0 + t2 * rows / s2
        out = -0.5 * (rows * (_LOG_2PI + np.log(s2)) + np.log(denom) + sum_r2 / s2
                      - t2 * (sum_r / s2) ** 2 / denom)
    else:
        bar = _draws(post, "bar", "connection", connection=cons)
        tau2 = _draws(post, "tau", "connection", connection=cons) ** 2
        s2 = _draws(post, "sigma", "connection", connection=cons) ** 2
        if level != "crossed":
            for p in range(n_w):
                out[:, p] = _integrated_cells(n[p], ybar[p], ss[p], bar, tau2, s2)
        else:
            design = crossed_design(table, cells)
            u = _draws(post, "word_effect", "word_to_compare", word_to_compare=design.words)
            y = table["cosine_distance"].to_numpy(float)
            row_pw = pd.Index(words).get_indexer(table["protected_word"].astype(str))
            row_con = pd.Index(cons).get_indexer(table["connection"].astype(str))
            for p in range(n_w):
                rows = np.flatnonzero(row_pw == p)
                onehot = np.zeros((len(rows), n_c))
                onehot[np.arange(len(rows)), row_con[rows]] = 1.0
                r = y[rows][None, :] - u[:, design.row_word[rows]]             # (S, rows)
                total = r @ onehot
                mean = total / n[p]
                dev2 = (r - mean[:, row_con[rows]]) ** 2 @ onehot
                out[:, p] = _integrated_cells(n[p], mean, dev2, bar, tau2, s2)
    return xr.DataArray(out.reshape(chains, draws, n_w), dims=("chain", "draw", "protected_word"),
                        coords={"chain": post["chain"].values, "draw": post["draw"].values,
                                "protected_word": words})


def _unit_log_likelihood(fit: BiasFit, units: Sequence[_Unit]) -> xr.DataArray:
    """(chain, draw, unit) log density of each unit's rows (see the module notes)."""
    import xarray as xr

    post = fit.posterior["posterior"]
    parts = []
    by_pw = by_word = None
    for unit in units:
        if unit.role == "protected":
            if by_pw is None:
                by_pw = protected_word_log_likelihood(fit)
            part = by_pw.sel(protected_word=unit.word)
        else:
            if by_word is None:
                by_word = pointwise_log_likelihood(fit)[LOG_LIKELIHOOD_VARS["word"]]
            part = by_word.sel(word_to_compare=unit.word)
        parts.append(part.transpose("chain", "draw").values)
    return xr.DataArray(np.stack(parts, axis=-1), dims=("chain", "draw", "unit"),
                        coords={"chain": post["chain"].values, "draw": post["draw"].values,
                                "unit": np.arange(len(units)),
                                "word": ("unit", [u.word for u in units]),
                                "word_role": ("unit", [u.role for u in units])})


def _refuse_templates(fit: BiasFit, what: str) -> None:
    """Template effects (a crossed fit of a sentence table) are not in the leave-one-out
    log-likelihoods yet."""
    if "template_kind_effect" in fit.posterior["posterior"]:
        raise ValueError(f"{what}: the fit has template effects (a crossed model of a sentence "
                         "table); leaving words out of it is not supported yet — use a cosine "
                         "table of the word vectors, or level='hierarchical'")


def _contrast_draws(fit: BiasFit) -> xr.DataArray:
    contrast = contrast_draws(fit.posterior["posterior"]["connection_mean"])
    if contrast is None:
        raise ValueError("word_influence(): the table has no pair of connections to contrast "
                         "(associated/different/human against none, associated against "
                         "different)")
    return contrast.transpose("chain", "draw", "contrast")


# --------------------------------------------------------------------------- refits
def _refit_settings(fit: BiasFit, settings: FitSettings | None) -> FitSettings:
    from ..settings import SINGLE_FIT_SAMPLER, FitSettings

    run = fit.fit_settings if settings is None else FitSettings.build(settings)
    if settings is None and run.sampler == SINGLE_FIT_SAMPLER:
        # the refits are a batch: "auto" runs them together (same model, other draws)
        run = dataclasses.replace(run, sampler="auto")
    if run.random_seed is None:
        run = dataclasses.replace(run, random_seed=check_seed(fit.settings.get("random_seed")))
    return run


def _check_left_out(fit: BiasFit, remaining: pd.DataFrame, what: str) -> None:
    """The table without a word must still be one the model fits (checked before any
    refit starts)."""
    if remaining.empty:
        raise ValueError(f"leaving out {what} leaves no rows")
    try:
        cells = cell_statistics(remaining)
        if fit.level == "crossed":
            crossed_design(remaining, cells)
    except ValueError as exc:
        raise ValueError(f"leaving out {what} leaves a table the {fit.level} model cannot "
                         f"fit: {exc}") from None


def _run_refits(fit: BiasFit, tables: Sequence[tuple[str, pd.DataFrame]],
                settings: FitSettings | None, *, executor: cf.Executor | None,
                max_workers: int | None, progress: bool) -> tuple[list[BiasFit], float]:
    """Fit every (label, table) with the fit's settings in one batch; returns the fits and
    the wall seconds."""
    from .batch import FitJob, fit_many

    if not tables:
        return [], 0.0
    run = _refit_settings(fit, settings)
    jobs = [FitJob(table, run, label=label) for label, table in tables]
    start = time.perf_counter()
    fits = fit_many(jobs, executor=executor, max_workers=max_workers, progress=progress)
    return fits, time.perf_counter() - start


# --------------------------------------------------------------------------- influence
def word_influence(
    fit_or_table: BiasFit | pd.DataFrame,
    *,
    roles: Sequence[str] = DEFAULT_ROLES,
    words: Sequence[str] | None = None,
    refit: str = "auto",
    k_threshold: float = K_THRESHOLD,
    settings: FitSettings | None = None,
    refit_settings: FitSettings | None = None,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    progress: bool = True,
    **options: Any,
) -> pd.DataFrame:
    """How much each word moves the reported contrasts when all its rows are left out.

    Parameters
    ----------
    fit_or_table
        A :class:`~embias.BiasFit`, or a long-form cosine table (fitted here with
        ``settings``/``**options``, as :func:`embias.fit_bias_model`).
    roles
        Which words to leave out: ``"protected"``, ``"attribute"``, ``"neutral"``,
        ``"human"`` (default: protected and attribute words).
    words
        Only these words (protected or compared; ``roles`` is then ignored).
    refit
        ``"auto"`` (default): PSIS where the word's Pareto k ≤ ``k_threshold``, an actual
        refit without the word elsewhere; ``"never"``: PSIS only (k reported);
        ``"always"``: refit every word.
    k_threshold
        Pareto k above which a word is refitted (default 0.7).
    settings, **options
        Model and sampler settings when a table is given.
    refit_settings
        Settings of the refits (default: the fit's own, seed included); e.g.
        ``FitSettings(..., sampler="nutpie")`` compiles one model for all
        leave-one-compared-word-out tables.
    executor, max_workers
        Where the refits run (:func:`embias.fit_many`).
    progress
        Show tqdm bars (default): one over the steps (log-likelihoods, PSIS, refits) and
        one over the refits. Shown only when the standard error is a terminal, so a log
        gets no bar.

    Returns
    -------
    pandas.DataFrame
        One row per word and contrast, the most influential words first: ``word``,
        ``word_role`` (protected, attribute, neutral, human), ``rows`` (rows left out),
        ``contrast``, ``estimate`` (posterior mean with every word), ``estimate_without``
        (without the word), ``change`` (without − with, in cosine distance), ``change_sd``
        (change / the contrast's posterior sd), ``method`` (``psis`` or ``refit``) and
        ``pareto_k`` (of the word's importance weights; reported for refitted words too),
        ``level``. ``attrs`` record the level, threshold, number of refits and their wall
        seconds.

    Raises
    ------
    ValueError
        Unknown roles, words or ``refit``; a fit without ``word_to_compare`` when compared
        words are asked for; a crossed fit with template effects (a sentence table); a
        word whose removal leaves a table the model cannot fit (an empty cell, a compared
        word with a single row at the crossed level), before any refit starts.

    Examples
    --------
    >>> fit = embias.fit_bias_model(embias.load_published_table("religion", "reddit"))
    >>> influence = word_influence(fit)
    >>> rank_words(influence).head()
    """
    from .fit import BiasFit, fit_bias_model

    check_choice("refit", refit, REFIT_CHOICES)
    k_threshold = check_number("k_threshold", k_threshold)
    if isinstance(fit_or_table, pd.DataFrame):
        fit = fit_bias_model(fit_or_table, settings=settings, progress=False, **options)
    elif isinstance(fit_or_table, BiasFit):
        if settings is not None or options:
            raise ValueError("word_influence(): settings/options are for fitting a table; the "
                             "fit given is used as it is (refit_settings= sets the refits')")
        fit = fit_or_table
    else:
        raise ValueError(f"word_influence() takes a BiasFit or a cosine table (DataFrame), got "
                         f"{type(fit_or_table).__name__}")
    _refuse_templates(fit, "word_influence()")
    units = _select_units(fit, roles, words)
    contrast = _contrast_draws(fit)
    full_mean = contrast.mean(("chain", "draw"))
    full_sd = contrast.std(("chain", "draw"))
    names = [str(c) for c in contrast["contrast"].values]
    progress = progress_wanted(bool(progress))
    from tqdm import tqdm

    steps = tqdm(total=3, desc="word influence", unit="step", disable=not progress)
    steps.set_postfix_str(f"log-likelihood of {len(units)} words")
    import arviz as az
    import xarray as xr
    from arviz_stats import loo_expectations

    try:
        # PSIS: one importance weight per draw and word (ArviZ), weighted contrast means
        log_lik = _unit_log_likelihood(fit, units)
        steps.update()
        steps.set_postfix_str("PSIS")
        tree = xr.DataTree.from_dict({
            "posterior": xr.Dataset({"contrast_value": contrast}),
            "log_likelihood": xr.Dataset({"left_out": log_lik.drop_vars(["word",
                                                                         "word_role"])}),
        })
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # high k is reported in the table, and refitted
            loo = az.loo(tree, pointwise=True, var_name="left_out")
            expected, _ = loo_expectations(tree, group="posterior", var_name="contrast_value",
                                           log_likelihood_var_name="left_out", kind="mean",
                                           log_weights=loo.log_weights, pareto_k=loo.pareto_k)
        pareto_k = np.asarray(loo.pareto_k.values, dtype=float)
        without = expected.transpose("unit", "contrast").values.copy()
        method = np.array(["psis"] * len(units), dtype=object)
        steps.update()

        # refits
        if refit == "always":
            chosen = list(range(len(units)))
        elif refit == "auto":
            chosen = [i for i in range(len(units)) if pareto_k[i] > k_threshold]
        else:
            chosen = []
        tables = []
        for i in chosen:
            what = f"{units[i].role} word {units[i].word!r}"
            remaining = fit.table.loc[~units[i].rows]
            _check_left_out(fit, remaining, what)
            tables.append((f"without {what}", remaining))
        steps.set_postfix_str(f"{len(tables)} refit(s)")
        refits, seconds = _run_refits(fit, tables, refit_settings, executor=executor,
                                      max_workers=max_workers, progress=progress)
        steps.update()
    finally:
        steps.close()
    for i, refitted in zip(chosen, refits, strict=True):
        means = _contrast_draws(refitted).mean(("chain", "draw"))
        without[i] = means.sel(contrast=names).values
        method[i] = "refit"

    rows = []
    full = full_mean.sel(contrast=names).values
    sd = full_sd.sel(contrast=names).values
    for i, unit in enumerate(units):
        for j, name in enumerate(names):
            change = float(without[i, j] - full[j])
            rows.append({"word": unit.word, "word_role": unit.role,
                         "rows": int(unit.rows.sum()), "contrast": name,
                         "estimate": float(full[j]), "estimate_without": float(without[i, j]),
                         "change": change, "change_sd": change / float(sd[j]),
                         "method": str(method[i]), "pareto_k": float(pareto_k[i]),
                         "level": fit.level})
    out = pd.DataFrame(rows)
    influence = out.groupby(["word", "word_role"], sort=False)["change"].transform(
        lambda s: s.abs().max())
    order = np.lexsort((out.index.to_numpy(), -influence.to_numpy()))
    out = out.iloc[order].reset_index(drop=True)
    out.attrs = {"level": fit.level, "study": str(fit.settings.get("study") or ""),
                 "embedding": str(fit.settings.get("embedding") or ""),
                 "k_threshold": float(k_threshold), "refits": len(refits),
                 "refit_seconds": float(seconds)}
    return out


def rank_words(influence: pd.DataFrame, *, contrast: str | None = None) -> pd.DataFrame:
    """One row per word, the most influential first: the largest absolute change of a
    contrast when the word is left out.

    Parameters
    ----------
    influence
        The table of :func:`word_influence`.
    contrast
        Rank by this contrast only (default: the largest change over all contrasts).

    Returns
    -------
    pandas.DataFrame
        ``rank``, ``word``, ``word_role``, ``influence`` (|change|), ``contrast`` (the one
        changed most), ``change``, ``change_sd``, ``method``, ``pareto_k``, ``rows``.
    """
    need = {"word", "word_role", "contrast", "change", "change_sd", "method", "pareto_k",
            "rows"}
    absent = sorted(need - set(influence.columns))
    if absent:
        raise ValueError(f"rank_words() takes word_influence()'s table; it lacks {absent}")
    data = influence
    if contrast is not None:
        check_choice("contrast", contrast, list(dict.fromkeys(influence["contrast"])))
        data = influence[influence["contrast"] == contrast]
    data = data.assign(influence=data["change"].abs())
    top = data.loc[data.groupby(["word", "word_role"], sort=False)["influence"].idxmax()]
    top = top.sort_values("influence", ascending=False, kind="stable").reset_index(drop=True)
    top.insert(0, "rank", np.arange(1, len(top) + 1))
    return top[["rank", "word", "word_role", "influence", "contrast", "change", "change_sd",
                "method", "pareto_k", "rows"]]


def plot_word_influence(
    influence: pd.DataFrame,
    *,
    contrast: str | None = None,
    top: int | None = 25,
    rope: float | None = None,
    title: str | None = None,
    ax: Any = None,
) -> Figure:
    """Ranked dot plot of :func:`word_influence`: one row per word (most influential on
    top), the change of each contrast when the word is left out; filled dots for PSIS,
    open dots for PSIS with Pareto k above the table's threshold (unreliable), open
    squares for refits.

    Parameters
    ----------
    influence
        The table of :func:`word_influence` (nothing is recomputed here).
    contrast
        Show and rank by this contrast only (default: every contrast, ranked by the
        largest change).
    top
        Show the ``top`` most influential words (``None``: all).
    rope
        Shade ±``rope`` (e.g. 0.02, the default ROPE of the contrasts) as a scale.
    title
        Axes title (default: study, embedding and level from the table's ``attrs``).
    ax
        Matplotlib axes to draw on (a new figure when omitted).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    ranking = rank_words(influence, contrast=contrast)
    if top is not None:
        ranking = ranking.head(check_int("top", top, minimum=1))
    if ranking.empty:
        raise ValueError("nothing to plot: the influence table has no rows")
    data = influence if contrast is None else influence[influence["contrast"] == contrast]
    contrasts = list(dict.fromkeys(data["contrast"]))
    keys = list(zip(ranking["word"], ranking["word_role"], strict=True))
    ypos = {key: len(keys) - 1 - i for i, key in enumerate(keys)}
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(7.5, min(max(1.2 + 0.3 * len(keys), 2.5), 30)))
    else:
        fig = ax.figure
    if rope is not None:
        ax.axvspan(-rope, rope, color="grey", alpha=0.15, lw=0)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    threshold = float(influence.attrs.get("k_threshold", K_THRESHOLD))
    step = 0.6 / max(len(contrasts), 1)
    for k, name in enumerate(contrasts):
        part = data[data["contrast"] == name]
        part = part[[key in ypos for key in zip(part["word"], part["word_role"], strict=True)]]
        y = np.array([ypos[key] for key in zip(part["word"], part["word_role"], strict=True)])
        y = y + (k - (len(contrasts) - 1) / 2) * step
        color = colors[k % len(colors)]
        refit = (part["method"] == "refit").to_numpy()
        shaky = ~refit & (part["pareto_k"] > threshold).to_numpy()
        good = ~refit & ~shaky
        change = part["change"].to_numpy()
        ax.plot(change[good], y[good], "o", color=color, ms=5)
        ax.plot(change[shaky], y[shaky], "o", mfc="none", mec=color, ms=5)
        ax.plot(change[refit], y[refit], "s", mfc="none", mec=color, ms=6)
    ax.axvline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(list(ypos.values()))
    ax.set_yticklabels([f"{w} ({r})" for w, r in ypos])
    ax.set_ylim(-0.6, len(keys) - 0.4)
    ax.set_xlabel("change of the contrast when the word is left out (cosine distance)",
                  fontsize=9)
    if title is None:
        attrs = influence.attrs
        title = " / ".join(str(v) for v in (attrs.get("study"), attrs.get("embedding"),
                                            attrs.get("level")) if v) or "word influence"
    ax.set_title(title, fontsize=10)
    handles = [Line2D([], [], marker="o", ls="", color=colors[k % len(colors)], label=name)
               for k, name in enumerate(contrasts)]
    handles += [Line2D([], [], marker="o", ls="", color="black", label="PSIS (no refit)"),
                Line2D([], [], marker="o", ls="", mfc="none", mec="black",
                       label=f"PSIS, Pareto k > {threshold:g} (unreliable)"),
                Line2D([], [], marker="s", ls="", mfc="none", mec="black", label="refit")]
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0)
    ax.grid(axis="x", alpha=0.3)
    if own:
        fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- exact LOO
def _held_out_log_likelihood(refit: BiasFit, rows: pd.DataFrame, *, by: str) -> np.ndarray:
    """(sample, unit) log density of held-out rows under a refit's posterior: per row, or
    per compared word (the joint of its rows). At the crossed level a row of a word the
    refit knows is given that word's u; the rows of a held-out word get a new word's
    u ~ N(0, τ_u[kind]) integrated out."""
    post = refit.posterior["posterior"]
    mu, sigma = cell_location_scale(refit.posterior, refit.cells)
    idx = row_cells(rows, refit.cells)
    mu, var = mu[:, idx], sigma[:, idx] ** 2                                  # (S, rows)
    y = rows["cosine_distance"].to_numpy(float)[None, :]
    resid = y - mu
    codes, words = pd.factorize(rows["word_to_compare"].astype(str), sort=False)
    if "tau_word" not in post:
        by_row = -0.5 * (_LOG_2PI + np.log(var) + resid**2 / var)
        if by == "row":
            return by_row
        onehot = np.zeros((len(y[0]), len(words)))
        onehot[np.arange(len(y[0])), codes] = 1.0
        return by_row @ onehot
    known = set(str(w) for w in post["word_to_compare"].values)
    kinds = rows["connection"].astype(str).map(WORD_KIND_OF_CONNECTION).to_numpy()
    tau = post["tau_word"].transpose("chain", "draw", "word_kind")
    tau2 = np.stack([(tau.sel(word_kind=k).values.reshape(-1) ** 2) for k in kinds], axis=1)
    if by == "row":
        out = np.empty_like(resid)
        for j, word in enumerate(rows["word_to_compare"].astype(str)):
            if word in known:   # the row's word is in the refit: given its u
                u = post["word_effect"].sel(word_to_compare=word).values.reshape(-1)
                out[:, j] = -0.5 * (_LOG_2PI + np.log(var[:, j])
                                    + (resid[:, j] - u) ** 2 / var[:, j])
            else:               # a new word: u integrated out
                total = var[:, j] + tau2[:, j]
                out[:, j] = -0.5 * (_LOG_2PI + np.log(total) + resid[:, j] ** 2 / total)
        return out
    onehot = np.zeros((len(y[0]), len(words)))
    onehot[np.arange(len(y[0])), codes] = 1.0
    first = np.unique(codes, return_index=True)[1]
    t2 = tau2[:, first]                                                        # (S, words)
    a = (resid**2 / var) @ onehot
    b = (resid / var) @ onehot
    c = (1.0 / var) @ onehot
    denom = 1.0 + t2 * c
    return -0.5 * (onehot.sum(axis=0)[None, :] * _LOG_2PI + np.log(var) @ onehot
                   + np.log(denom) + a - t2 * b**2 / denom)


def _wrapper_class() -> type:
    from arviz_stats.loo import SamplingWrapper

    class LeaveOut(SamplingWrapper):
        """ArviZ's refit interface on embias fits: an observation is a unit (a row or a
        compared word); the refits are fitted in batches (:meth:`prefetch`)."""

        def __init__(self, fit: BiasFit, tree: Any, *, by: str, settings: Any,
                     executor: Any, max_workers: int | None, progress: bool) -> None:
            super().__init__(model=None, idata_orig=tree)
            self.fit, self.by, self.settings = fit, by, settings
            self.run_options = {"executor": executor, "max_workers": max_workers,
                                "progress": progress}
            table = fit.table
            if by == "word":
                self.unit_of_row, self.units = row_words(table)
            else:
                self.unit_of_row = np.arange(len(table))
                self.units = [str(i) for i in range(len(table))]
            self.fits: dict[tuple[int, ...], BiasFit] = {}
            self.seconds = 0.0

        def _key(self, idx: Any) -> tuple[int, ...]:
            if isinstance(idx, Mapping):
                idx = next(iter(idx.values()))
            return tuple(sorted(int(i) for i in np.atleast_1d(idx)))

        def _rows(self, key: tuple[int, ...]) -> np.ndarray:
            return np.isin(self.unit_of_row, key)

        def prefetch(self, keys: Sequence[tuple[int, ...]]) -> None:
            todo = [k for k in dict.fromkeys(keys) if k not in self.fits]
            tables = []
            for key in todo:
                shown = [self.units[i] for i in key[:3]]
                what = (f"{self.by}(s) {shown}" + ("…" if len(key) > 3 else ""))
                remaining = self.fit.table.loc[~self._rows(key)]
                _check_left_out(self.fit, remaining, what)
                tables.append((f"without {what}", remaining))
            fits, seconds = _run_refits(self.fit, tables, self.settings, **self.run_options)
            self.seconds += seconds
            self.fits.update(zip(todo, fits, strict=True))

        def sel_observations(self, idx: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
            # the refit is cached under the sorted units; the held-out units keep ArviZ's
            # order (its results are matched to the indices it passed)
            return self._key(idx), tuple(int(i) for i in np.atleast_1d(idx))

        def sample(self, modified_observed_data: tuple[int, ...]) -> BiasFit:
            self.prefetch([modified_observed_data])
            return self.fits[modified_observed_data]

        def get_inference_data(self, fitted_model: BiasFit) -> BiasFit:
            return fitted_model

        def log_likelihood__i(self, excluded_obs: tuple[int, ...], idata__i: BiasFit) -> Any:
            import xarray as xr

            rows = self.fit.table.loc[self._rows(self._key(excluded_obs))]
            ll = _held_out_log_likelihood(idata__i, rows, by=self.by)
            post = idata__i.posterior["posterior"]
            chains, draws = post.sizes["chain"], post.sizes["draw"]
            dim = "word_to_compare" if self.by == "word" else "row"
            if self.by == "word":
                names = list(dict.fromkeys(rows["word_to_compare"].astype(str)))
                order = [names.index(self.units[i]) for i in excluded_obs]
                coords = [self.units[i] for i in excluded_obs]
            else:
                held = list(self._key(excluded_obs))     # the rows, in table order
                order = [held.index(i) for i in excluded_obs]
                coords = list(excluded_obs)
            return xr.DataArray(ll[:, order].reshape(chains, draws, len(order)),
                                dims=("chain", "draw", dim), coords={dim: coords})

    return LeaveOut


@dataclass(frozen=True)
class RefitLoo:
    """Leave-one-out of one fit with exact refits (:func:`refit_loo`).

    Attributes
    ----------
    elpd
        ArviZ's result (``ELPDDataLOO`` after ``reloo``, ``ELPDDataLOOKFold`` after
        ``loo_kfold``).
    method
        ``"psis"`` (no refit), ``"reloo"`` or ``"kfold"``.
    refits
        Number of refits.
    seconds
        Wall seconds of the refits.
    by
        The unit, ``"row"`` or ``"word"``.
    """

    elpd: Any
    method: str
    refits: int
    seconds: float
    by: str


def _word_folds(table: pd.DataFrame, words: Sequence[str], k: int, seed: int) -> np.ndarray:
    """Fold (1..k) of every compared word: words with the same pattern of rows (the same
    protected words and connections) go to different folds in turn after a seeded shuffle,
    so no fold holds every word of a small pattern (which would empty a cell)."""
    pattern = (table.assign(_w=table["word_to_compare"].astype(str))
               .groupby("_w", sort=False)[["protected_word", "connection"]]
               .apply(lambda g: tuple(sorted(zip(g["protected_word"].astype(str),
                                                 g["connection"].astype(str), strict=True)))))
    rng = np.random.default_rng([int(seed), 271])
    order = rng.permutation(len(words))
    folds = np.zeros(len(words), dtype=np.int64)
    start = int(rng.integers(k))
    seen: dict[Any, int] = {}
    for i in order:
        key = pattern[words[i]]
        count = seen.get(key, 0)
        folds[i] = (start + count + _pattern_offset(key, k)) % k + 1
        seen[key] = count + 1
    return folds


def _pattern_offset(key: Any, k: int) -> int:
    """A stable offset in [0, k) for a pattern (so patterns do not all start in fold 1)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:4], "big") % k


def refit_loo(
    fit: BiasFit,
    *,
    by: str = "word",
    refit: str = "reloo",
    k_threshold: float = K_THRESHOLD,
    folds: int = 10,
    random_seed: int = 0,
    refit_settings: FitSettings | None = None,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    progress: bool = False,
) -> RefitLoo:
    """Leave-one-out of a fit with exact refits where PSIS is not enough (ArviZ's
    ``reloo``), or exact K-fold cross-validation holding out whole compared words
    (ArviZ's ``loo_kfold``).

    Parameters
    ----------
    fit
        A fit at any level.
    by
        ``"word"`` (default; one unit per compared word: how well a new word is predicted)
        or ``"row"`` (one unit per row).
    refit
        ``"reloo"``: PSIS-LOO, with every unit whose Pareto k > ``k_threshold`` refitted
        without it; ``"kfold"``: ``folds`` refits, each holding out about 1/``folds`` of the
        compared words (and, with ``by="row"``, scoring their rows one by one);
        ``"none"``: PSIS-LOO only (no refit; ArviZ's ``loo``).
    k_threshold
        Pareto k above which ``reloo`` refits (default 0.7).
    folds, random_seed
        Number of folds and the seed of their assignment (``kfold``).
    refit_settings, executor, max_workers, progress
        Settings of the refits (default: the fit's own) and where they run
        (:func:`embias.fit_many`, one batch).

    Returns
    -------
    RefitLoo

    Raises
    ------
    ValueError
        Unknown ``by`` or ``refit``, ``folds`` < 2 or more than the compared words, a
        crossed fit with template effects, or a refit table the model cannot fit (named,
        before any refit starts).
    """
    import arviz as az

    check_choice("by", by, LOO_UNITS)
    check_choice("refit", refit, LOO_REFITS)
    k_threshold = check_number("k_threshold", k_threshold)
    _refuse_templates(fit, "refit_loo()")
    var_name = LOG_LIKELIHOOD_VARS[by]
    tree = loo_tree(fit, by)
    wrapper = _wrapper_class()(fit, tree, by=by, settings=refit_settings, executor=executor,
                               max_workers=max_workers, progress=progress)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # k is reported (and refitted)
        if refit == "none":
            result = az.loo(tree, pointwise=True, var_name=var_name)
        elif refit == "reloo":
            loo = az.loo(tree, pointwise=True, var_name=var_name)
            bad = np.flatnonzero(np.asarray(loo.pareto_k.values) > k_threshold)
            wrapper.prefetch([(int(i),) for i in bad])
            result = az.reloo(wrapper, loo_orig=loo, var_name=var_name,
                              k_threshold=k_threshold, pointwise=True)
        else:
            folds = check_int("folds", folds, minimum=2)
            words = wrapper.units if by == "word" else row_words(fit.table)[1]
            if folds > len(words):
                raise ValueError(f"folds={folds} is more than the {len(words)} compared words")
            word_fold = _word_folds(fit.table, words, folds, check_seed(random_seed))
            unit_fold = word_fold if by == "word" else word_fold[row_words(fit.table)[0]]
            keys = [tuple(int(i) for i in np.flatnonzero(unit_fold == f))
                    for f in range(1, folds + 1)]
            wrapper.prefetch([key for key in keys if key])
            result = az.loo_kfold(tree, wrapper, pointwise=True, var_name=var_name,
                                  folds=unit_fold)
    return RefitLoo(elpd=result, method="psis" if refit == "none" else refit,
                    refits=len(wrapper.fits), seconds=wrapper.seconds, by=by)


def compare_loo(loos: Mapping[str, Any], *, by: str | None = None) -> pd.DataFrame:
    """Comparison table of leave-one-out results already computed (ArviZ's ``compare``,
    unrounded), in the columns of :func:`embias.bayes.loo.compare_models`.

    Parameters
    ----------
    loos
        ``{label: result}``: :class:`RefitLoo` (from :func:`refit_loo`) or ArviZ ELPD
        results; at least two, of the same data points.
    by
        The unit (taken from the :class:`RefitLoo` results when not given).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``rank``, ``elpd``, ``se``, ``elpd_diff``, ``dse``, ``p``, ``weight``,
        ``looic`` (−2·elpd, the deviance scale), ``pareto_k_max``, ``pareto_k_bad``
        (k > 0.7 left after the refits), ``warning``, ``by``, ``method`` (``psis``,
        ``reloo`` or ``kfold``) and ``refits``.
    """
    import arviz as az

    if len(loos) < 2:
        raise ValueError(f"compare_loo() needs at least two results, got {len(loos)}")
    elpds, methods, refits, units = {}, {}, {}, set()
    for label, result in loos.items():
        if isinstance(result, RefitLoo):
            elpds[label], methods[label], refits[label] = result.elpd, result.method, result.refits
            units.add(result.by)
        else:
            elpds[label], methods[label], refits[label] = result, "psis", 0
    sizes = {label: int(e.n_data_points) for label, e in elpds.items()}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"compare_loo() compares results of the same data points, got "
                         f"{sizes}; were the fits made on one table with one unit (by)?")
    if len(units) > 1:
        raise ValueError(f"compare_loo() got results of different units {sorted(units)}")
    if by is None:
        by = units.pop() if units else ""
    table = az.compare(elpds, method="stacking", round_to="none")
    out = table.reset_index(names="model")
    out["looic"] = -2.0 * out["elpd"]
    ks = {label: (np.asarray(e.pareto_k) if getattr(e, "pareto_k", None) is not None
                  else np.array([np.nan])) for label, e in elpds.items()}
    out["pareto_k_max"] = [float(np.nanmax(ks[m])) if np.isfinite(ks[m]).any() else np.nan
                           for m in out["model"]]
    out["pareto_k_bad"] = [int((ks[m] > K_THRESHOLD).sum()) for m in out["model"]]
    out["by"] = by
    out["method"] = [methods[m] for m in out["model"]]
    out["refits"] = [refits[m] for m in out["model"]]
    keep = ["model", "rank", "elpd", "se", "elpd_diff", "dse", "p", "weight", "looic",
            "pareto_k_max", "pareto_k_bad", "warning", "by", "method", "refits"]
    return out[[c for c in keep if c in out.columns]]


def compare_models_refit(
    fits: Mapping[str, BiasFit],
    *,
    by: str = "word",
    refit: str = "reloo",
    **refit_options: Any,
) -> pd.DataFrame:
    """:func:`embias.bayes.loo.compare_models` with exact refits: every fit's
    :func:`refit_loo`, then :func:`compare_loo` (unrounded; ``refit="none"`` is PSIS-LOO
    only). ``refit_options``: those of :func:`refit_loo` (``k_threshold``, ``folds``,
    ``random_seed``, ``refit_settings``, ``executor``, ``max_workers``, ``progress``).

    Raises
    ------
    ValueError
        Fewer than two fits, or fits of different tables.
    """
    fits = dict(fits)
    if len(fits) < 2:
        raise ValueError(f"compare_models_refit() needs at least two fits, got {len(fits)}")
    same_data(fits)
    return compare_loo({label: refit_loo(fit, by=by, refit=refit, **refit_options)
                        for label, fit in fits.items()}, by=by)
