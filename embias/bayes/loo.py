"""Model comparison: pointwise log-likelihoods of a fit and PSIS-LOO through ArviZ.

Two questions, two pointwise units:

- ``by="row"``: one term per row of the cosine table. PSIS-LOO then estimates how well
  the model predicts *new rows of these same words* (at the crossed level, given each
  compared word's effect u).
- ``by="word"``: one term per compared word, the log density of all of its rows together
  (at the crossed level with that word's u integrated out, in closed form). LOO then
  estimates how well the model predicts the rows of a *new compared word* — the question a
  bias claim about a word list raises.

The log-likelihoods are computed from the posterior draws after sampling (the fast paths
never see the rows). The one per compared word is the fit's ``DataTree``'s group
``log_likelihood`` (variable ``compared_word``), made with the fit and saved with it, so
ArviZ's own :func:`arviz.loo` works on ``fit.posterior`` (leave one compared word out);
the one per row (variable ``cosine_distance``, rows × draws numbers) is computed when asked
for and kept with the fit object only. PSIS, the comparison, stacking weights
and Pareto-k diagnostics are ArviZ's (:func:`arviz.loo`, :func:`arviz.compare`).

:func:`compare_models` is the one comparison table: it computes PSIS-LOO of the fits it
is given and takes, next to them, results already computed with exact refits where PSIS
is not enough (``RefitLoo``, from ``refit_loo`` of :mod:`embias.bayes.exact_loo`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._progress import progress_wanted
from .._validation import check_choice
from ..settings import K_THRESHOLD
from .data import row_cells
from .diagnostics import cell_location_scale

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr
    from xarray import DataTree

    from .fit import BiasFit

__all__ = [
    "K_THRESHOLD",
    "LOG_LIKELIHOOD_VARS",
    "LOO_UNITS",
    "RefitLoo",
    "compare_models",
    "loo_tree",
    "pointwise_log_likelihood",
    "row_words",
    "same_data",
    "word_log_likelihood",
]

#: Pointwise units of the log-likelihood (see the module notes).
LOO_UNITS: tuple[str, ...] = ("row", "word")
LooUnit = Literal["row", "word"]
#: The log-likelihood variable of each unit.
LOG_LIKELIHOOD_VARS = {"row": "cosine_distance", "word": "compared_word"}
_LOG_2PI = float(np.log(2.0 * np.pi))


def row_words(table: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Return each row's compared word as an index, and the compared words.

    Parameters
    ----------
    table
        A long-form cosine table.

    Returns
    -------
    (codes, words)
        The index of every row's compared word (int64) and the compared words in order of
        first appearance.

    Raises
    ------
    ValueError
        The table has no ``word_to_compare`` column (the message names its columns).

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.bayes.loo import row_words
    >>> row_words(pd.DataFrame({"word_to_compare": ["doctor", "chair", "doctor"]}))
    (array([0, 1, 0]), ['doctor', 'chair'])
    """
    if "word_to_compare" not in table.columns:
        raise ValueError("the table has no word_to_compare column, so its rows cannot be "
                         "grouped by compared word (by='word'); columns: "
                         f"{list(table.columns)}")
    codes, words = pd.factorize(table["word_to_compare"].astype(str), sort=False)
    return codes.astype(np.int64), [str(w) for w in words]


def _log_likelihoods(tree: DataTree, table: pd.DataFrame, cells: pd.DataFrame, *,
                     rows: bool, chunk: int = 500,
                     progress: bool = False) -> dict[str, np.ndarray]:
    """Return the pointwise log-likelihoods of a fit's draws, shape (sample, unit).

    Per row (``rows=True``) and per compared word (when the table has
    ``word_to_compare``).

    Draws run along the last axis of the working arrays (rows × draws), so a compared
    word's sums over its rows are one sparse product; the sums that depend on a row's cell
    only (Σ log σ², Σ 1/σ²) come from the words' cell counts.
    """
    from scipy import sparse

    from .crossed import crossed_design, row_template_effects

    post = tree["posterior"].to_dataset()
    mu, sigma = cell_location_scale(tree, cells)                 # (sample, cell)
    row_cell = row_cells(table, cells)
    y = table["cosine_distance"].to_numpy(float)[:, None]
    by_words = "word_to_compare" in table.columns
    if by_words:
        row_word, words = row_words(table)
        word_rows = sparse.csr_array((np.ones(len(y)), (row_word, np.arange(len(y)))),
                                     shape=(len(words), len(y)))   # (word, row) → 1
        counts = np.zeros((len(words), len(cells)))                # (word, cell) → rows
        np.add.at(counts, (row_word, row_cell), 1.0)
        n_w = counts.sum(axis=1)[:, None]
    crossed = "tau_word" in post
    template = row_template_effects(tree, table, cells) if crossed else None
    if crossed:
        design = crossed_design(table, cells)
        if design.words != words:  # pragma: no cover - same factorisation
            raise ValueError("compared words out of order")
        u = post["word_effect"].transpose("chain", "draw", "word_to_compare").values
        u = u.reshape(-1, len(words))
        tau = post["tau_word"].transpose("chain", "draw", "word_kind").sel(
            word_kind=design.kinds).values.reshape(u.shape[0], -1)
        tau2 = (tau**2)[:, design.word_kind]
    n_samples = mu.shape[0]
    out: dict[str, np.ndarray] = {}
    if rows:
        out["row"] = np.empty((n_samples, len(y)))
    if by_words:
        out["word"] = np.empty((n_samples, len(words)))
    for start in _chunks(n_samples, chunk, progress=progress):
        s = slice(start, start + chunk)
        var_cell = np.ascontiguousarray(sigma[s].T) ** 2           # (cell, draw)
        resid = y - np.ascontiguousarray(mu[s].T)[row_cell]        # (row, draw)
        if template is not None:  # a sentence table: the rows' template effects
            resid -= template[s].T
        inv_var = (1.0 / var_cell)[row_cell]
        weighted = resid * inv_var
        scaled = resid * weighted                                  # r²/σ²
        if crossed:
            if rows:
                cond = resid - np.ascontiguousarray(u[s].T)[row_word]
                out["row"][s] = -0.5 * (_LOG_2PI - np.log(inv_var) + cond**2 * inv_var).T
            # the word's rows jointly, u ~ N(0, τ²) integrated out (matrix determinant
            # lemma and Sherman–Morrison; embias.bayes.crossed)
            a = word_rows @ scaled                                 # (word, draw)
            b = word_rows @ weighted
            c = counts @ (1.0 / var_cell)
            log_det = counts @ np.log(var_cell)
            t2 = tau2[s].T
            denom = 1.0 + t2 * c
            out["word"][s] = -0.5 * (n_w * _LOG_2PI + log_det + np.log(denom) + a
                                     - t2 * b**2 / denom).T
        else:
            if rows:
                out["row"][s] = -0.5 * (_LOG_2PI + np.log(var_cell)[row_cell] + scaled).T
            if by_words:
                out["word"][s] = -0.5 * (n_w * _LOG_2PI + counts @ np.log(var_cell)
                                         + word_rows @ scaled).T
    return out


def _chunks(n: int, chunk: int, *, progress: bool) -> Any:
    """Return the start of every chunk of draws, with a tqdm bar when ``progress``."""
    starts = range(0, n, chunk)
    if not progress:
        return starts
    from tqdm import tqdm

    return tqdm(starts, desc="log-likelihood", unit="chunk", disable=not progress_wanted(True),
                leave=False)


def word_log_likelihood(tree: DataTree, table: pd.DataFrame,
                        cells: pd.DataFrame) -> xr.Dataset:
    """Return the log-likelihood group a fit's ``DataTree`` carries, for :func:`arviz.loo`.

    Parameters
    ----------
    tree
        The fit's draws (group ``posterior``).
    table, cells
        The fitted table and its cell statistics.

    Returns
    -------
    xarray.Dataset
        ``compared_word`` (dims ``chain, draw, word_to_compare``): the joint log density of
        each compared word's rows (crossed level: its u integrated out), so
        ``az.loo(fit.posterior)`` leaves one compared word out (``by="word"``); a table
        without ``word_to_compare`` gets ``cosine_distance`` per row instead. The
        per-row terms of every table (:func:`pointwise_log_likelihood`) are not kept in
        the ``DataTree``: they have rows × draws numbers (230 MB for religion/GloVe).

    Examples
    --------
    One draw of a dataset-level model: each compared word's rows are independent Normal
    terms around their connection's mean:

    >>> import pandas as pd
    >>> import xarray as xr
    >>> from scipy import stats
    >>> from embias.bayes import cell_statistics
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.7, 1.0, 0.85, 0.9]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.75, 0.95]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> from embias.bayes.loo import word_log_likelihood
    >>> ll = word_log_likelihood(tree, table, cell_statistics(table))
    >>> round(ll["compared_word"].sel(word_to_compare="doctor").item(), 6)
    2.142293
    >>> round(float(stats.norm.logpdf([0.7, 0.85], 0.75, 0.1).sum()), 6)
    2.142293
    """
    import xarray as xr

    post = tree["posterior"].to_dataset()
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    coords: dict[str, Any] = {"chain": post["chain"].values, "draw": post["draw"].values}
    if "word_to_compare" not in table.columns:
        row = _log_likelihoods(tree, table, cells, rows=True)["row"]
        coords["row"] = np.arange(len(table))
        return xr.Dataset({LOG_LIKELIHOOD_VARS["row"]: (
            ("chain", "draw", "row"), row.reshape(chains, draws, -1))}, coords=coords)
    word = _log_likelihoods(tree, table, cells, rows=False)["word"]
    coords["word_to_compare"] = row_words(table)[1]
    return xr.Dataset({LOG_LIKELIHOOD_VARS["word"]: (
        ("chain", "draw", "word_to_compare"), word.reshape(chains, draws, -1))},
        coords=coords)


def pointwise_log_likelihood(fit: BiasFit, *, chunk: int = 500,
                             progress: bool = False) -> xr.Dataset:
    """Return the log-likelihood of every row and of every compared word, for every draw.

    Parameters
    ----------
    fit
        A fit at any level (a crossed fit of a sentence table includes each row's
        template effect); anything with a fit's ``posterior``, ``table`` and ``cells``.
    chunk
        Draws processed at a time (bounds the memory to ``chunk × rows`` numbers).
    progress
        Show a tqdm bar over the chunks (only in a terminal).

    Returns
    -------
    xarray.Dataset
        ``cosine_distance`` (dims ``chain, draw, row``): log N(y | μ, σ) of each row
        (crossed level: μ includes the word's effect u); ``compared_word`` (dims
        ``chain, draw, word_to_compare``):
        the joint log density of each compared word's rows (crossed level: u integrated
        out; other levels: the sum of the word's row terms). Computed once per fit and
        kept with it (not saved); ``compared_word`` is also the fit's ``DataTree``'s
        ``log_likelihood`` group (:func:`word_log_likelihood`), which is saved.

    Raises
    ------
    ValueError
        The fit's table has no ``word_to_compare`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from scipy import stats
    >>> from embias.bayes import cell_statistics
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.7, 1.0, 0.85, 0.9]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.75, 0.95]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> from types import SimpleNamespace
    >>> from embias.bayes.loo import pointwise_log_likelihood
    >>> fit = SimpleNamespace(posterior=tree, table=table, cells=cell_statistics(table))
    >>> pointwise_log_likelihood(fit)["cosine_distance"].values.round(4)
    array([[[1.2586, 1.2586, 0.8836, 1.2586]]])
    >>> stats.norm.logpdf([0.7, 1.0, 0.85, 0.9], [0.75, 0.95, 0.75, 0.95], 0.1).round(4)
    array([1.2586, 1.2586, 0.8836, 1.2586])
    """
    import xarray as xr

    kept = fit.__dict__.get("_pointwise_log_likelihood")
    if kept is not None:
        return kept
    tree = fit.posterior
    post = tree["posterior"].to_dataset()
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    values = _log_likelihoods(tree, fit.table, fit.cells, rows=True, chunk=chunk,
                              progress=progress)
    _, words = row_words(fit.table)
    ds = xr.Dataset(
        {LOG_LIKELIHOOD_VARS["row"]: (("chain", "draw", "row"),
                                      values["row"].reshape(chains, draws, -1)),
         LOG_LIKELIHOOD_VARS["word"]: (("chain", "draw", "word_to_compare"),
                                       values["word"].reshape(chains, draws, -1))},
        coords={"chain": post["chain"].values, "draw": post["draw"].values,
                "row": np.arange(len(fit.table)), "word_to_compare": words})
    fit.__dict__["_pointwise_log_likelihood"] = ds
    return ds


def loo_tree(fit: BiasFit, by: str) -> Any:
    """Return the ``DataTree`` ArviZ reads: the posterior and the chosen log-likelihood.

    Parameters
    ----------
    fit
        A fit (anything with a fit's ``posterior``, ``table`` and ``cells``).
    by
        ``"row"`` or ``"word"``: the pointwise unit (:data:`LOG_LIKELIHOOD_VARS`).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` and ``log_likelihood`` (one variable).

    Examples
    --------
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from scipy import stats
    >>> from embias.bayes import cell_statistics
    >>> table = pd.DataFrame({"protected_word": ["he", "he", "she", "she"],
    ...                       "word_to_compare": ["doctor", "chair"] * 2,
    ...                       "connection": ["associated", "none"] * 2,
    ...                       "cosine_distance": [0.7, 1.0, 0.85, 0.9]})
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.75, 0.95]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> from types import SimpleNamespace
    >>> from embias.bayes.loo import loo_tree
    >>> fit = SimpleNamespace(posterior=tree, table=table, cells=cell_statistics(table))
    >>> list(loo_tree(fit, "word")["log_likelihood"].data_vars)
    ['compared_word']
    """
    import xarray as xr

    ll = pointwise_log_likelihood(fit)
    return xr.DataTree.from_dict({"posterior": fit.posterior["posterior"].to_dataset(),
                                  "log_likelihood": ll[[LOG_LIKELIHOOD_VARS[by]]]})


def same_data(fits: Mapping[str, BiasFit]) -> None:
    """Refuse fits of different tables: models are compared by LOO only on the same rows.

    Parameters
    ----------
    fits
        ``{label: fit}`` (anything with a fit's ``table``).

    Raises
    ------
    ValueError
        A fit's table differs from the first one's (rows, words, connections or
        distances); the message names both fits.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import pandas as pd
    >>> from embias.bayes.loo import same_data
    >>> table = pd.DataFrame({"protected_word": ["he", "she"], "connection": ["none"] * 2,
    ...                       "cosine_distance": [0.9, 1.1]})
    >>> try:
    ...     same_data({"crossed": SimpleNamespace(table=table),
    ...                "word": SimpleNamespace(table=table.iloc[:1])})
    ... except ValueError as error:
    ...     print(error)
    compare_models() compares models of one table, but fit 'word' was fitted to another
    table than 'crossed' (1 vs 2 rows, or other words/distances); refit both models on the
    same table
    """
    labels = list(fits)
    first = fits[labels[0]].table
    key_cols = [c for c in ("protected_word", "word_to_compare", "connection",
                            "cosine_distance") if c in first.columns]
    for label in labels[1:]:
        other = fits[label].table
        same = (len(other) == len(first)
                and all(c in other.columns for c in key_cols)
                and all(np.array_equal(first[c].to_numpy(), other[c].to_numpy())
                        for c in key_cols))
        if not same:
            raise ValueError(f"compare_models() compares models of one table, but fit "
                             f"{label!r} was fitted to another table than {labels[0]!r} "
                             f"({len(other)} vs {len(first)} rows, or other words/distances)"
                             "; refit both models on the same table")


@dataclass(frozen=True)
class RefitLoo:
    """Leave-one-out of one fit with exact refits (:func:`embias.bayes.exact_loo.refit_loo`).

    :func:`compare_models` takes these next to fits (and plain ArviZ ELPD results).

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


def _labelled(fits: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    """Return ``{label: fit or result}``; a sequence of fits is labelled by their levels."""
    if isinstance(fits, Mapping):
        return dict(fits)
    fits = list(fits)
    labels = [getattr(f, "level", type(f).__name__) for f in fits]
    if len(set(labels)) != len(labels):
        raise ValueError(f"compare_models() got several fits of the same level {labels}; "
                         "pass {label: fit} to name them")
    return dict(zip(labels, fits, strict=True))


def _is_computed(value: Any) -> bool:
    """Tell whether ``value`` is a leave-one-out result already computed (not a fit)."""
    return isinstance(value, RefitLoo) or hasattr(value, "n_data_points")


def _unit(by: str | None, computed: Mapping[str, Any], has_fits: bool) -> str:
    """Return the unit of the comparison.

    ``by``, else the :class:`RefitLoo` results' own, else ``"row"`` for fits ("" when only
    plain ArviZ results are compared and none is said).
    """
    units = {r.by for r in computed.values() if isinstance(r, RefitLoo)}
    if len(units) > 1:
        raise ValueError(f"compare_models() got results of different units {sorted(units)}")
    if by is None:
        return units.pop() if units else ("row" if has_fits else "")
    check_choice("by", by, LOO_UNITS)
    if units and by not in units:
        raise ValueError(f"compare_models(by={by!r}) got results computed by {units.pop()!r}; "
                         "compare results of one unit")
    return by


def _psis(fits: Mapping[str, BiasFit], by: str, progress: bool) -> dict[str, Any]:
    """Return ArviZ's PSIS-LOO of every fit, with a tqdm bar over the fits."""
    import arviz as az
    from tqdm import tqdm

    loos = {}
    with tqdm(total=len(fits), desc=f"PSIS-LOO (by {by})", unit="fit",
              disable=not progress_wanted(progress)) as bar:
        for label, fit in fits.items():
            bar.set_postfix_str(str(label))
            loos[label] = az.loo(loo_tree(fit, by), pointwise=True,
                                 var_name=LOG_LIKELIHOOD_VARS[by])
            bar.update()
    return loos


def compare_models(
    fits: Mapping[str, Any] | Sequence[BiasFit],
    *,
    by: LooUnit | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Compare models fitted to the same table by leave-one-out.

    ArviZ's ``compare``, unrounded: PSIS-LOO of fits, next to results already computed
    with exact refits.

    Parameters
    ----------
    fits
        ``{label: fit}``, or a sequence of fits (labelled by their level; levels must
        then differ). A value may also be a leave-one-out result already computed: a
        ``RefitLoo`` (``embias.bayes.exact_loo.refit_loo``) or an ArviZ ELPD
        result, of the same data points.
    by
        ``"row"``: leave one row out (new rows of the same words); ``"word"``: leave one
        compared word out (a new word of the list; the crossed model integrates its u
        out). See the module notes. Default: the unit of the ``RefitLoo`` results
        given, else ``"row"``.
    progress
        Show a tqdm bar over the fits (each fit's pointwise log-likelihoods and PSIS);
        only when the output is a terminal.

    Returns
    -------
    pandas.DataFrame
        One row per model, best first: ``model``, ``rank``, ``elpd`` (expected log
        pointwise predictive density), ``se``, ``elpd_diff`` and ``dse`` (difference to the
        best and its standard error), ``p`` (effective number of parameters), ``weight``
        (stacking), ``looic`` (−2·elpd, the deviance scale of WAIC), ``pareto_k_max``,
        ``pareto_k_bad`` (points with k > 0.7, left after the refits), ``warning`` and
        ``by``. When results already computed are given, also ``method`` (``psis``,
        ``reloo`` or ``kfold``) and ``refits``.

    Raises
    ------
    ValueError
        Fewer than two models, fits of different tables, results of different data points
        or units, repeated levels, or a table without ``word_to_compare`` with
        ``by="word"``.

    Examples
    --------
    >>> from embias.bayes.loo import compare_models
    >>> try:
    ...     compare_models([])
    ... except ValueError as error:
    ...     print(error)
    compare_models() needs at least two fits (or leave-one-out results), got 0
    """
    fits = _labelled(fits)
    if len(fits) < 2:
        raise ValueError(f"compare_models() needs at least two fits (or leave-one-out "
                         f"results), got {len(fits)}")
    computed = {label: v for label, v in fits.items() if _is_computed(v)}
    models = {label: v for label, v in fits.items() if label not in computed}
    unit = _unit(by, computed, bool(models))
    if len(models) > 1:
        same_data(models)
    loos = _psis(models, unit, progress) if models else {}
    elpds: dict[str, Any] = {
        label: (computed[label].elpd if isinstance(computed.get(label), RefitLoo)
                else computed.get(label, loos.get(label))) for label in fits}
    sizes = {label: int(e.n_data_points) for label, e in elpds.items()}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"compare_models() compares results of the same data points, got "
                         f"{sizes}; were the fits made on one table with one unit (by)?")
    return _comparison_table(elpds, computed, unit)


def _comparison_table(elpds: Mapping[str, Any], computed: Mapping[str, Any],
                      by: str) -> pd.DataFrame:
    """Return ArviZ's comparison of ``elpds`` with looic, Pareto k, the unit and methods."""
    import arviz as az

    out = az.compare(dict(elpds), method="stacking", round_to="none").reset_index(
        names="model")
    out["looic"] = -2.0 * out["elpd"]
    ks = {label: (np.asarray(e.pareto_k) if getattr(e, "pareto_k", None) is not None
                  else np.array([np.nan])) for label, e in elpds.items()}
    out["pareto_k_max"] = [float(np.max(ks[m])) for m in out["model"]]
    out["pareto_k_bad"] = [int((ks[m] > K_THRESHOLD).sum()) for m in out["model"]]
    out["by"] = by
    keep = ["model", "rank", "elpd", "se", "elpd_diff", "dse", "p", "weight", "looic",
            "pareto_k_max", "pareto_k_bad", "warning", "by"]
    if computed:
        method = {label: r.method if isinstance(r, RefitLoo) else "psis"
                  for label, r in computed.items()}
        refits = {label: r.refits if isinstance(r, RefitLoo) else 0
                  for label, r in computed.items()}
        out["method"] = [method.get(m, "psis") for m in out["model"]]
        out["refits"] = [refits.get(m, 0) for m in out["model"]]
        keep += ["method", "refits"]
    return out[[c for c in keep if c in out.columns]]
