"""Exact leave-word-out cross-validation: refits where PSIS is not enough.

Leave-one-out of a fit for model comparison.

The refit paths of model comparison, through ArviZ: :func:`arviz.reloo` refits exactly
the units (rows or compared words) whose Pareto k exceeds the threshold, and
:func:`arviz.loo_kfold` runs exact K-fold cross-validation with whole compared words held
out per fold (folds stratified by the words' pattern of rows, so no fold empties a cell).
The refits of one call run as one batch through :func:`embias.fit_many` before ArviZ asks
for them (:mod:`embias.bayes.refits`). The log density of held-out rows under a refit: per
row N(y | μ, σ) (crossed, a row of a word still in the fit: given that word's u; a
held-out word's rows: with a new word's u ~ N(0, τ_u) integrated out), per word the joint
of its rows.

``refit_loo`` gives one fit's ``RefitLoo`` (:mod:`embias.bayes.loo`);
:func:`embias.compare_models` compares them (``compare_models_refit`` does both for a set
of fits).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_choice, check_int, check_number, check_seed
from .crossed import WORD_KIND_OF_CONNECTION
from .data import row_cells
from .diagnostics import cell_location_scale
from .loo import (
    K_THRESHOLD,
    LOG_LIKELIHOOD_VARS,
    LOO_UNITS,
    LooUnit,
    RefitLoo,
    compare_models,
    loo_tree,
    row_words,
    same_data,
)
from .refits import check_left_out, refuse_templates, run_refits

if TYPE_CHECKING:  # pragma: no cover
    import concurrent.futures as cf

    from ..settings import FitSettings
    from .fit import BiasFit

__all__ = ["LOO_REFITS", "compare_models_refit", "refit_loo"]

#: ``refit=`` of :func:`refit_loo`: none (PSIS only, ArviZ's ``loo``), ArviZ's ``reloo``
#: (refit where k is high) or ``loo_kfold`` (exact K-fold, whole compared words per fold).
LOO_REFITS: tuple[str, ...] = ("none", "reloo", "kfold")
_LOG_2PI = float(np.log(2.0 * np.pi))


def _held_out_log_likelihood(refit: BiasFit, rows: pd.DataFrame, *, by: str) -> np.ndarray:
    """Return the (sample, unit) log density of held-out rows under a refit's posterior.

    Per row, or per compared word (the joint of its rows). At the crossed level a row of a word the
    refit knows is given that word's u; the rows of a held-out word get a new word's
    u ~ N(0, τ_u[kind]) integrated out.
    """
    post = refit.posterior["posterior"].to_dataset()
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
        """ArviZ's refit interface on embias fits: an observation is a unit.

        A unit is a row or a compared word; the refits are fitted in batches
        (:meth:`prefetch`).
        """

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
                check_left_out(self.fit, remaining, what)
                tables.append((f"without {what}", remaining))
            fits, seconds = run_refits(self.fit, tables, self.settings, **self.run_options)
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
            coords: list[Any]
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


def _word_folds(table: pd.DataFrame, words: Sequence[str], k: int, seed: int) -> np.ndarray:
    """Return the fold (1..k) of every compared word.

    Words with the same pattern of rows (the same protected words and connections) go to
    different folds in turn after a seeded shuffle, so no fold holds every word of a small
    pattern (which would empty a cell).
    """
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
    """Return a stable offset in [0, k) for a pattern (not all patterns start in fold 1)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:4], "big") % k


def refit_loo(
    fit: BiasFit,
    *,
    by: LooUnit = "word",
    refit: str = "reloo",
    k_threshold: float = K_THRESHOLD,
    folds: int = 10,
    random_seed: int = 0,
    refit_settings: FitSettings | None = None,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    progress: bool = False,
) -> RefitLoo:
    """Return leave-one-out of a fit with exact refits where PSIS is not enough.

    ArviZ's ``reloo``, or exact K-fold cross-validation holding out whole compared words
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
        ArviZ's result with the method, the number of refits and their wall seconds.

    Raises
    ------
    ValueError
        Unknown ``by`` or ``refit``, ``folds`` < 2 or more than the compared words, a
        crossed fit with template effects, or a refit table the model cannot fit (named,
        before any refit starts).

    Examples
    --------
    ``refit_loo(fit)`` takes a fit (e.g. of :func:`embias.fit_bias_model`); its options
    are checked first:

    >>> from embias.bayes.exact_loo import refit_loo
    >>> try:
    ...     refit_loo(None, refit="kfolds")
    ... except ValueError as error:
    ...     print(error)
    refit='kfolds' is not one of ['none', 'reloo', 'kfold'] (did you mean 'kfold'?)
    """
    import arviz as az

    check_choice("by", by, LOO_UNITS)
    check_choice("refit", refit, LOO_REFITS)
    k_threshold = check_number("k_threshold", k_threshold)
    refuse_templates(fit, "refit_loo()")
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
            result = _kfold(fit, tree, wrapper, by=by, var_name=var_name, folds=folds,
                            random_seed=random_seed)
    return RefitLoo(elpd=result, method="psis" if refit == "none" else refit,
                    refits=len(wrapper.fits), seconds=wrapper.seconds, by=by)


def _kfold(fit: BiasFit, tree: Any, wrapper: Any, *, by: str, var_name: str, folds: int,
           random_seed: int) -> Any:
    """Return ArviZ's exact K-fold result, whole compared words held out per fold."""
    import arviz as az

    folds = check_int("folds", folds, minimum=2)
    words = wrapper.units if by == "word" else row_words(fit.table)[1]
    if folds > len(words):
        raise ValueError(f"folds={folds} is more than the {len(words)} compared words")
    word_fold = _word_folds(fit.table, words, folds, check_seed(random_seed))
    unit_fold = word_fold if by == "word" else word_fold[row_words(fit.table)[0]]
    keys = [tuple(int(i) for i in np.flatnonzero(unit_fold == f))
            for f in range(1, folds + 1)]
    wrapper.prefetch([key for key in keys if key])
    return az.loo_kfold(tree, wrapper, pointwise=True, var_name=var_name, folds=unit_fold)


def compare_models_refit(
    fits: Mapping[str, BiasFit],
    *,
    by: LooUnit = "word",
    refit: str = "reloo",
    **refit_options: Any,
) -> pd.DataFrame:
    """Compare models by leave-one-out with exact refits.

    :func:`embias.bayes.loo.compare_models` of every fit's :func:`refit_loo`
    (unrounded; ``refit="none"`` is PSIS-LOO only).

    Parameters
    ----------
    fits
        ``{label: fit}``, fitted to one table.
    by, refit
        As in :func:`refit_loo`.
    **refit_options
        The other options of :func:`refit_loo` (``k_threshold``, ``folds``,
        ``random_seed``, ``refit_settings``, ``executor``, ``max_workers``,
        ``progress``).

    Returns
    -------
    pandas.DataFrame
        The comparison table of :func:`embias.bayes.loo.compare_models`, with ``method``
        and ``refits``.

    Raises
    ------
    ValueError
        Fewer than two fits, fits of different tables, or what :func:`refit_loo`
        refuses.

    Examples
    --------
    >>> from embias.bayes.exact_loo import compare_models_refit
    >>> try:
    ...     compare_models_refit({})
    ... except ValueError as error:
    ...     print(error)
    compare_models_refit() needs at least two fits, got 0
    """
    fits = dict(fits)
    if len(fits) < 2:
        raise ValueError(f"compare_models_refit() needs at least two fits, got {len(fits)}")
    same_data(fits)
    return compare_models({label: refit_loo(fit, by=by, refit=refit, **refit_options)
                           for label, fit in fits.items()}, by=by)
