"""Leaving words out: how much each word moves the reported contrasts.

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
  out sends them back to their prior (:mod:`embias.bayes.protected_likelihood`). On the
  religion/Reddit table (hierarchical, 2 × 3000 draws) this keeps every protected word's
  k below 0.65, where the plain sum of its rows' terms gives k > 0.7 for 14 of the 15
  words (up to 1.25).

On that table, for the 22 of 26 protected and attribute words with k ≤ 0.7, the PSIS
change of every contrast is within 0.006 (rms 0.002) of a refit's, for changes up to 0.027;
for the 4 attribute words with k > 0.7 the PSIS error reaches 0.021 — they are refitted
(``benchmarks/bench_loo.py``).

Refits cost one compile each with the default JAX sampler (the data are constants of the
compiled graph). With ``sampler="nutpie"`` (``refit_settings``) every
leave-one-compared-word-out table of the summary levels has the shape of the full one and
reuses one compiled model, so a dozen refits cost little more than the first one's
compile and sampling.

The refits are run by :mod:`embias.bayes.refits`, as are those of exact leave-word-out
cross-validation for model comparison (:mod:`embias.bayes.exact_loo`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._deprecation import moved_names
from .._progress import progress_wanted
from .._validation import check_choice, check_number, check_word_list
from ..influence_table import rank_words
from .crossed import WORD_KIND_OF_CONNECTION
from .loo import K_THRESHOLD, LOG_LIKELIHOOD_VARS, pointwise_log_likelihood
from .protected_likelihood import protected_word_log_likelihood
from .refits import check_left_out, refuse_templates, run_refits
from .summary import contrast_draws

if TYPE_CHECKING:  # pragma: no cover
    import concurrent.futures as cf

    import xarray as xr

    from ..settings import FitSettings
    from .fit import BiasFit

__all__ = [
    "DEFAULT_ROLES",
    "K_THRESHOLD",
    "REFIT_CHOICES",
    "WORD_ROLES",
    "protected_word_log_likelihood",
    "rank_words",
    "word_influence",
]

#: Roles of a word left out: a protected word, or a compared word of one kind.
WORD_ROLES: tuple[str, ...] = ("protected", "attribute", "neutral", "human")
#: The roles :func:`word_influence` leaves out unless told otherwise.
DEFAULT_ROLES: tuple[str, ...] = ("protected", "attribute")
#: ``refit=`` of :func:`word_influence`.
REFIT_CHOICES: tuple[str, ...] = ("auto", "never", "always")


# --------------------------------------------------------------------------- units
@dataclass(frozen=True)
class _Unit:
    """A word to leave out: its name, role and rows (a mask over the table)."""

    word: str
    role: str
    rows: np.ndarray


def _compared_roles(table: pd.DataFrame) -> dict[str, str]:
    """Return the role of every compared word from the connections of its rows.

    ``a/b`` when its rows have two kinds.
    """
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
    cw_col = (table["word_to_compare"].astype(str).to_numpy() if compared
              else np.array([], dtype=str))
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


def _contrast_draws(fit: BiasFit) -> xr.DataArray:
    contrast = contrast_draws(fit.posterior["posterior"].to_dataset()["connection_mean"])
    if contrast is None:
        raise ValueError("word_influence(): the table has no pair of connections to contrast "
                         "(associated/different/human against none, associated against "
                         "different)")
    return contrast.transpose("chain", "draw", "contrast")


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
    """Return how much each word moves the reported contrasts when its rows are left out.

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
    ``word_influence(fit)`` takes a fit (e.g. of :func:`embias.fit_bias_model`); anything
    else is refused:

    >>> from embias.bayes.influence import word_influence
    >>> try:
    ...     word_influence([0.8, 0.9])
    ... except ValueError as error:
    ...     print(error)
    word_influence() takes a BiasFit or a cosine table (DataFrame), got list
    """
    check_choice("refit", refit, REFIT_CHOICES)
    k_threshold = check_number("k_threshold", k_threshold)
    fit = _fit_of(fit_or_table, settings, options)
    refuse_templates(fit, "word_influence()")
    units = _select_units(fit, roles, words)
    contrast = _contrast_draws(fit)
    names = [str(c) for c in contrast["contrast"].values]
    progress = progress_wanted(bool(progress))
    from tqdm import tqdm

    steps = tqdm(total=3, desc="word influence", unit="step", disable=not progress)
    try:
        without, pareto_k = _psis_means(fit, units, contrast, steps)
        method = np.array(["psis"] * len(units), dtype=object)
        chosen = _refit_choice(refit, pareto_k, k_threshold)
        tables = [_left_out_table(fit, units[i]) for i in chosen]
        steps.set_postfix_str(f"{len(tables)} refit(s)")
        refits, seconds = run_refits(fit, tables, refit_settings, executor=executor,
                                     max_workers=max_workers, progress=progress)
        steps.update()
    finally:
        steps.close()
    for i, refitted in zip(chosen, refits, strict=True):
        means = _contrast_draws(refitted).mean(("chain", "draw"))
        without[i] = means.sel(contrast=names).values
        method[i] = "refit"
    out = _influence_table(fit, units, contrast, without, method, pareto_k)
    out.attrs = {"level": fit.level, "study": str(fit.settings.get("study") or ""),
                 "embedding": str(fit.settings.get("embedding") or ""),
                 "k_threshold": float(k_threshold), "refits": len(refits),
                 "refit_seconds": float(seconds)}
    return out


def _fit_of(fit_or_table: BiasFit | pd.DataFrame, settings: FitSettings | None,
            options: dict[str, Any]) -> BiasFit:
    """Return the fit :func:`word_influence` leaves words out of (given, or fitted)."""
    from .fit import BiasFit, fit_bias_model

    if isinstance(fit_or_table, pd.DataFrame):
        return fit_bias_model(fit_or_table, settings=settings, progress=False, **options)
    if isinstance(fit_or_table, BiasFit):
        if settings is not None or options:
            raise ValueError("word_influence(): settings/options are for fitting a table; the "
                             "fit given is used as it is (refit_settings= sets the refits')")
        return fit_or_table
    raise ValueError(f"word_influence() takes a BiasFit or a cosine table (DataFrame), got "
                     f"{type(fit_or_table).__name__}")


def _psis_means(fit: BiasFit, units: Sequence[_Unit], contrast: xr.DataArray,
                steps: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return the contrasts' means without each unit, by PSIS, and each unit's Pareto k.

    (unit, contrast) posterior means of the contrasts — the draws reweighted by PSIS (one
    importance weight per draw and unit, ArviZ). ``steps``: the tqdm bar of
    :func:`word_influence`, advanced twice.
    """
    import arviz as az
    import xarray as xr
    from arviz_stats import loo_expectations

    steps.set_postfix_str(f"log-likelihood of {len(units)} words")
    log_lik = _unit_log_likelihood(fit, units)
    steps.update()
    steps.set_postfix_str("PSIS")
    tree = xr.DataTree.from_dict({
        "posterior": xr.Dataset({"contrast_value": contrast}),
        "log_likelihood": xr.Dataset({"left_out": log_lik.drop_vars(["word", "word_role"])}),
    })
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # high k is reported in the table, and refitted
        loo = az.loo(tree, pointwise=True, var_name="left_out")
        expected, _ = loo_expectations(tree, group="posterior", var_name="contrast_value",
                                       log_likelihood_var_name="left_out", kind="mean",
                                       log_weights=loo.log_weights, pareto_k=loo.pareto_k)
    steps.update()
    return (expected.transpose("unit", "contrast").values.copy(),
            np.asarray(loo.pareto_k.values, dtype=float))


def _refit_choice(refit: str, pareto_k: np.ndarray, k_threshold: float) -> list[int]:
    """Return the units refitted: all, those with k above the threshold, or none.

    ``"always"``, ``"auto"`` and ``"never"``.
    """
    if refit == "always":
        return list(range(len(pareto_k)))
    if refit == "auto":
        return [i for i in range(len(pareto_k)) if pareto_k[i] > k_threshold]
    return []


def _left_out_table(fit: BiasFit, unit: _Unit) -> tuple[str, pd.DataFrame]:
    """Return (label, table without the unit's rows), checked to be one the model fits."""
    what = f"{unit.role} word {unit.word!r}"
    remaining = fit.table.loc[~unit.rows]
    check_left_out(fit, remaining, what)
    return f"without {what}", remaining


def _influence_table(fit: BiasFit, units: Sequence[_Unit], contrast: xr.DataArray,
                     without: np.ndarray, method: np.ndarray,
                     pareto_k: np.ndarray) -> pd.DataFrame:
    """Return one row per unit and contrast, the most influential units first."""
    names = [str(c) for c in contrast["contrast"].values]
    full = contrast.mean(("chain", "draw")).sel(contrast=names).values
    sd = contrast.std(("chain", "draw")).sel(contrast=names).values
    rows = []
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
    return out.iloc[order].reset_index(drop=True)


# Exact leave-one-out moved to embias.bayes.exact_loo, its comparison table into
# embias.bayes.loo.compare_models, the protected-word prior sd with its likelihood: still
# served from here for one release, with a DeprecationWarning naming the new home.
__getattr__: Any = moved_names(__name__, {
    "LOO_REFITS": "embias.bayes.exact_loo",
    "WORD_PRIOR_SD": "embias.bayes.protected_likelihood",
    "RefitLoo": "embias.bayes.loo",
    "compare_loo": ("embias.bayes.loo", "compare_models"),
    "compare_models_refit": "embias.bayes.exact_loo",
    "refit_loo": "embias.bayes.exact_loo",
    "plot_word_influence": "embias.plots.influence",
})
