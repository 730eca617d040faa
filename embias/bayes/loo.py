"""Model comparison: PSIS-LOO of fits through ArviZ, by row or by compared word.

Two questions, two pointwise units:

- ``by="row"``: one term per row of the cosine table. PSIS-LOO then estimates how well
  the model predicts *new rows of these same words* (at the crossed level, given each
  compared word's effect u).
- ``by="word"``: one term per compared word, the log density of all of its rows together
  (at the crossed level with that word's u integrated out, in closed form). LOO then
  estimates how well the model predicts the rows of a *new compared word* — the question a
  bias claim about a word list raises.

The log-likelihoods are computed from the posterior draws after sampling
(:mod:`embias.bayes.log_likelihood`); the one per compared word is the fit's ``DataTree``'s
group ``log_likelihood``, so ArviZ's own :func:`arviz.loo` works on ``fit.posterior`` (leave
one compared word out). PSIS, the comparison, stacking weights and Pareto-k diagnostics are
ArviZ's (:func:`arviz.loo`, :func:`arviz.compare`).

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
from .log_likelihood import (
    LOG_LIKELIHOOD_VARS,
    pointwise_log_likelihood,
    row_words,
    word_log_likelihood,
)

if TYPE_CHECKING:  # pragma: no cover
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


def loo_tree(fit: BiasFit, by: str) -> Any:
    """Return the ``DataTree`` ArviZ reads: the posterior and the chosen log-likelihood.

    Parameters
    ----------
    fit
        A fit (anything with a fit's ``posterior``, ``table`` and ``cells``).
    by
        ``"row"`` or ``"word"``: the pointwise unit
        (:data:`~embias.bayes.log_likelihood.LOG_LIKELIHOOD_VARS`).

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
