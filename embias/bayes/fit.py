"""Fitting: :func:`fit_bias_model` and its result, :class:`BiasFit`.

The parts of a fit read or computed when first used (a saved fit's draws, a batch fit's
log-likelihoods and classic scores) and ``embias.bayes.deferred.arviz_ready`` are in
:mod:`embias.bayes.deferred`.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from .._deprecation import renamed_keywords
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE, FitSettings, sampler_available
from .data import cell_statistics, choose_centring
from .deferred import DeferredDraws, PendingClassic, PendingLogLikelihood, arviz_ready
from .diagnostics import (
    DEFAULT_CHECK_PROBS,
    ConvergenceWarning,
    PredictiveCheck,
    convergence_diagnostics,
    convergence_problems,
    count_divergences,
    diagnostics_overview,
    posterior_predictive_check,
)
from .sampling import sample_posterior
from .summary import summarize_posterior

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from xarray import DataTree

__all__ = ["BiasFit", "fit_bias_model", "sampler_available"]

CiKind = Literal["hdi", "eti"]

def _check_key(ci_probs: Sequence[float], random_seed: int, leave_out: str, refit: str
               ) -> tuple[tuple[float, ...], int, str, str]:
    return tuple(float(p) for p in ci_probs), int(random_seed), str(leave_out), str(refit)


def prepare_fit(table: pd.DataFrame, run: FitSettings) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Return the cell statistics of ``table`` and the connections sampled centred.

    Checked for the settings ``run``: the part of a fit before sampling, shared by single
    fits and batches.

    Raises
    ------
    ValueError
        A bad table, cells of identical distances the summary likelihood cannot take, or
        centred connections that are not in the table.
    """
    from .model.layout import check_centred

    cells = cell_statistics(table)
    if run.data == "summary" and run.level != "crossed":
        flat = cells[(cells["n"] >= 2) & (cells["ss"] <= 0)]
        if not flat.empty:
            ex = list(zip(flat["protected_word"], flat["connection"], strict=True))[:5]
            raise ValueError(f"cells {ex} have n ≥ 2 identical cosine distances (SS = 0); "
                             "the sufficient-statistics likelihood needs SS > 0 — use "
                             "data='raw'")
    centred_cons: tuple[str, ...] = ()
    if run.level in ("hierarchical", "crossed"):
        centred_cons = choose_centring(cells) if run.centred == "auto" else tuple(run.centred)
        check_centred(centred_cons, list(dict.fromkeys(cells["connection"])))
    return cells, centred_cons


def finish_fit(posterior: DataTree, table: pd.DataFrame, cells: pd.DataFrame,
               run: FitSettings, centred: Sequence[str], *,
               timings: Mapping[str, float], deferred: bool = False,
               complete: Callable[[DataTree], DataTree] | None = None) -> BiasFit:
    """Return the :class:`BiasFit` of sampled draws.

    The draws made ArviZ-ready, with the record of what produced them and the classic
    scores of the table; with ``deferred`` the compared words' log-likelihoods and the
    classic scores are computed when first used (a batch's fits: most are only
    summarised), after ``complete`` has added what else the draws wait for.
    """
    t_start = time.perf_counter()
    arviz_ready(posterior, table, cells, log_likelihood=not deferred)
    record = {
        **run.to_dict(),
        "centred": list(centred),
        "rows": len(table),
        "cells": len(cells),
        "study": str(table.attrs.get("study", "")),
        "embedding": (str(table["embedding"].iloc[0]) if "embedding" in table.columns
                      else ""),
    }
    spent = dict(timings)
    classic = PendingClassic(table)
    return BiasFit(
        # the posterior descriptor (_Draws) takes pending draws and resolves them on use
        posterior=(PendingLogLikelihood(posterior, complete)  # type: ignore[arg-type]
                   if deferred else posterior),
        table=table,
        cells=cells,
        settings=record,
        classic=classic if deferred else classic.compute(),
        timings={**spent, "total_seconds": sum(spent.values())
                 + time.perf_counter() - t_start},
    )


@renamed_keywords(progressbar="progress")
def fit_bias_model(
    table: pd.DataFrame,
    *,
    settings: FitSettings | None = None,
    progress: bool = True,
    warn: bool = True,
    **options: Any,
) -> BiasFit:
    """Fit a Bayesian model of cosine distances to a long-form table.

    Parameters
    ----------
    table
        Long-form cosine table from :func:`embias.cosine_table` or
        :func:`embias.load_published_table` (or any frame with ``protected_word``,
        ``word_to_compare``, ``connection`` and ``cosine_distance``).
    settings
        The model and sampler settings (:class:`~embias.FitSettings`); default
        ``FitSettings()``: the crossed model (compared words as a sample) on the cell
        statistics,
        2 chains × (1000 tuning + 3000) draws.
    progress
        Show the sampler's progress bars (only on a terminal or in a notebook; never in
        a log or a pipe). ``progressbar`` is the deprecated spelling.
    warn
        Emit a :class:`ConvergenceWarning` when r̂ > 1.01, ESS < 400 or any divergence.
    **options
        Any field of :class:`~embias.FitSettings` (``level``, ``data``, ``draws``,
        ``tune``, ``chains``, ``cores``, ``random_seed``, ``sampler``, ``target_accept``,
        ``centred``, ``prior_location``), replacing the one in ``settings``; an unknown
        name is an error.

    Returns
    -------
    BiasFit

    Raises
    ------
    ValueError
        A bad table (missing columns, NaN distances, a connection level without rows, a
        single protected word …) or a bad option; the message names it.

    Examples
    --------
    The authors' religion table (Reddit) at the default, crossed level, with settings far
    too small for results (use the defaults):

    >>> import embias
    >>> table = embias.load_published_table("religion", "reddit")
    >>> fit = embias.fit_bias_model(table, draws=200, tune=200, chains=2, random_seed=1,
    ...                             progress=False, warn=False)
    >>> fit.level, fit.settings["draws"], fit.settings["rows"]
    ('crossed', 200, 4830)
    >>> means = fit.to_interval_table().query("estimand == 'connection_mean'")
    >>> means["group"].tolist()
    ['associated', 'different', 'human', 'none']
    >>> bool((means["lower"] < means["estimate"]).all() and
    ...      (means["estimate"] < means["upper"]).all())
    True
    """
    t_start = time.perf_counter()
    run = FitSettings.build(settings, **options).resolved(table)
    sampler_available(run.sampler)
    cells, centred_cons = prepare_fit(table, run)
    t_built = time.perf_counter()
    posterior = sample_posterior(cells, run, table=table, centred=centred_cons,
                                 progress=progress)
    t_sampled = time.perf_counter()
    fit = finish_fit(posterior, table, cells, run, centred_cons,
                     timings={"build_seconds": t_built - t_start,
                              "sample_seconds": t_sampled - t_built})
    if warn:
        fit.warn_if_unconverged(stacklevel=3)
    return fit


class _Classic:
    """``BiasFit.classic``: computed on first use when it was deferred."""

    def __get__(self, fit: BiasFit | None, owner: type) -> Any:
        if fit is None:
            return self
        value = fit.__dict__["_classic"]
        if isinstance(value, PendingClassic):
            value = value.compute()
            fit.__dict__["_classic"] = value
        return value

    def __set__(self, fit: BiasFit, value: Any) -> None:
        fit.__dict__["_classic"] = value


#: Posterior variables drawn after sampling from their exact conditional (the crossed
#: level's word effects on the cell statistics): not part of the convergence checks.
CONDITIONAL_DRAWS: tuple[str, ...] = ("word_effect",)


class _Draws:
    """``BiasFit.posterior``: the draws, read on first use when they were deferred.

    They are made ArviZ-ready then (:func:`arviz_ready`).
    """

    def __get__(self, fit: BiasFit | None, owner: type) -> Any:
        if fit is None:
            return self
        value = fit.__dict__["_posterior"]
        if isinstance(value, DeferredDraws):
            value = arviz_ready(value.load(), fit.table, fit.cells)
            fit.__dict__["_posterior"] = value
        elif isinstance(value, PendingLogLikelihood):
            value = arviz_ready(value.completed(), fit.table, fit.cells)
            fit.__dict__["_posterior"] = value
        return value

    def __set__(self, fit: BiasFit, value: Any) -> None:
        fit.__dict__["_posterior"] = value


@dataclass(frozen=True, eq=False)
class BiasFit:
    """A fitted model of a cosine table.

    Attributes
    ----------
    posterior
        The ArviZ ``DataTree`` returned by ``pm.sample`` (groups ``posterior``,
        ``sample_stats``, ``observed_data``, ``constant_data``) with the group
        ``log_likelihood`` (each compared word's log-likelihood,
        :func:`embias.bayes.loo.word_log_likelihood`); ArviZ's own functions take it
        (``az.summary``, ``az.rhat``, ``az.ess``, ``az.plot_forest``, ``az.loo``: leave one
        compared word out). Also available as :attr:`draws`.
    table
        The long-form cosine table that was fitted.
    cells
        Its sufficient statistics (:func:`~embias.bayes.data.cell_statistics`).
    settings
        What produced the fit: the :class:`~embias.FitSettings` fields (level, data
        mode, draws, tune, chains, cores, seed, sampler, target_accept, the centred
        connections chosen, prior_location) plus rows, cells, study and embedding;
        :attr:`fit_settings` gives them back as a ``FitSettings``.
    classic
        MAC/WEAT of the same table (:func:`embias.classic_scores`).
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
    def sampled(self) -> DataTree:
        """The draws as sampled (groups ``posterior``, ``sample_stats``).

        For summaries and diagnostics: the same as :attr:`posterior`, but a batch fit's
        compared-word log-likelihoods (added on first use of :attr:`posterior`) are not
        computed for it, and at the crossed level its compared words' effects
        (``word_effect``) are there only once an interval table or :attr:`posterior` was
        made.
        """
        value = self.__dict__["_posterior"]
        return value.tree if isinstance(value, PendingLogLikelihood) else self.posterior

    @property
    def _summarised(self) -> DataTree:
        """The draws an interval table summarises.

        :attr:`sampled` with the crossed level's compared-word effects (a batch fit draws
        them now if it has not yet).
        """
        value = self.__dict__["_posterior"]
        return value.completed() if isinstance(value, PendingLogLikelihood) else self.posterior

    @property
    def level(self) -> str:
        """The model level: ``"hierarchical"``, ``"crossed"``, ``"word"`` or ``"dataset"``."""
        return str(self.settings["level"])

    @property
    def fit_settings(self) -> FitSettings:
        """The settings that reproduce this fit (seed and centring as they were used)."""
        return FitSettings.from_dict(self.settings)

    def to_interval_table(
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
        word × connection (word, hierarchical and crossed levels) and ``word_contrast``
        per protected word × contrast (hierarchical and crossed levels); at the crossed
        level also ``compared_word_sd`` per word kind (τ_u: attribute, neutral, human)
        and ``compared_word_effect`` per compared word (u: which words pull the rows of
        every protected word up or down), with their kind in ``word_kind``.

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
            ``prob_in_rope``, ``rope`` and ``rope_decision`` (``"credible difference"``:
            the interval lies outside the ROPE; ``"practically equivalent"``: inside;
            ``"undecided"``: neither). Computed once per (ci_prob, ci_kind, rope) and kept
            with the fit (a copy is returned); the default one is saved with the fit.
        """
        key = (float(ci_prob), str(ci_kind), float(rope))
        cache = self._interval_tables
        if key not in cache:
            cache[key] = summarize_posterior(self._summarised, self.cells, ci_prob=ci_prob,
                                             ci_kind=ci_kind, rope=rope,
                                             word_contrasts=self.level in ("hierarchical",
                                                                           "crossed"))
        return cache[key].copy()

    @cached_property
    def _interval_tables(self) -> dict[tuple[float, str, float], pd.DataFrame]:
        return {}

    def replace(self, **changes: Any) -> BiasFit:
        """Return a copy with some fields changed (``path``, ``settings`` …).

        The post-processing already computed (diagnostics, interval tables, divergences)
        travels with it, since it depends only on the draws and the table, which a copy
        may not change.
        """
        kept = {"posterior", "table", "cells"} & set(changes)
        if kept:
            raise ValueError(f"BiasFit.replace() keeps the draws and the table; got {sorted(kept)}")
        # the draws as they are (not read if they were deferred)
        new = dataclasses.replace(self, **changes, posterior=self.__dict__["_posterior"])
        for name in ("_diagnostics", "divergences"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name]
        new._interval_tables.update(self._interval_tables)
        new._predictive_checks.update(self._predictive_checks)
        return new

    def restore_post_processing(
        self,
        *,
        diagnostics: pd.DataFrame | None = None,
        interval_table: pd.DataFrame | None = None,
        divergences: int | None = None,
        predictive_check: PredictiveCheck | None = None,
    ) -> None:
        """Adopt post-processing saved with the fit instead of computing it again.

        :meth:`diagnostics`, the default :meth:`to_interval_table`, :attr:`divergences`
        and the default :meth:`predictive_check`.
        """
        if diagnostics is not None:
            self.__dict__["_diagnostics"] = diagnostics
        if interval_table is not None:
            self._interval_tables[(DEFAULT_CI_PROB, "hdi", DEFAULT_ROPE)] = interval_table
        if divergences is not None:
            self.__dict__["divergences"] = int(divergences)
        if predictive_check is not None:
            default = _check_key(DEFAULT_CHECK_PROBS, 0, "auto", "never")
            self._predictive_checks[default] = predictive_check

    #: :meth:`to_interval_table` under the name a fitted-model summary usually has.
    summary = to_interval_table

    def diagnostics(self) -> pd.DataFrame:
        """Return r̂ and bulk/tail ESS of every sampled posterior scalar.

        :func:`~embias.bayes.diagnostics.convergence_diagnostics`, computed once — the
        word effects the crossed level draws afterwards from their exact conditional
        (:data:`CONDITIONAL_DRAWS`) excepted.
        """
        return self._diagnostics

    @cached_property
    def _diagnostics(self) -> pd.DataFrame:
        import xarray as xr

        tree = self.sampled
        if self.settings.get("level") == "crossed" and self.settings.get("data") == "summary":
            # the compared words' effects were drawn afterwards, each draw from its exact
            # conditional given that draw's parameters: they mix as the parameters do and
            # are not checked again (hundreds of scalars: most of a batch's checking time)
            post = tree["posterior"].to_dataset()
            tree = xr.DataTree.from_dict({"posterior": post.drop_vars(
                [v for v in CONDITIONAL_DRAWS if v in post])})
        return convergence_diagnostics(tree)

    @cached_property
    def divergences(self) -> int:
        """Number of divergent transitions after tuning."""
        return count_divergences(self.sampled)

    def problems(self) -> list[str]:
        """Convergence problems: r̂ > 1.01, ESS < 400, divergences (empty when fine)."""
        return convergence_problems(self.diagnostics(), self.divergences,
                                    chains=int(self.settings["chains"]))

    def diagnostics_overview(self) -> pd.DataFrame:
        """One row: worst r̂, smallest bulk/tail ESS, divergences, draws and chains."""
        return pd.DataFrame([{
            **diagnostics_overview(self.diagnostics(), self.divergences),
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
        ci_probs: Sequence[float] = DEFAULT_CHECK_PROBS,
        random_seed: int = 0,
        leave_out: str = "auto",
        refit: str = "never",
        progress: bool = True,
    ) -> PredictiveCheck:
        """Return the posterior predictive check of the fit.

        :func:`~embias.bayes.diagnostics.posterior_predictive_check` (each row judged by
        the fit without its compared word, by default), computed once per
        (``ci_probs``, ``random_seed``, ``leave_out``, ``refit``); the default one is
        saved with the fit. ``progress`` shows a bar over the refits (``refit="auto"``).
        """
        key = _check_key(ci_probs, random_seed, leave_out, refit)
        if key not in self._predictive_checks:
            self._predictive_checks[key] = posterior_predictive_check(
                self, ci_probs=ci_probs, random_seed=random_seed, leave_out=leave_out,
                refit=refit, progress=progress)
        return self._predictive_checks[key]

    @cached_property
    def _predictive_checks(self) -> dict[tuple[tuple[float, ...], int, str, str], PredictiveCheck]:
        return {}

    @property
    def title(self) -> str:
        """``study / embedding / level`` (what is known of them): the forest plot's title."""
        return " / ".join(str(v) for v in (self.settings.get("study"),
                                           self.settings.get("embedding"), self.level) if v)

    def plot(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: CiKind = "hdi",
        rope: float = DEFAULT_ROPE,
        title: str | None = None,
    ) -> Figure:
        """Plot :meth:`to_interval_table` as a forest, the classic MAC/WEAT alongside.

        See :func:`embias.plots.plot_bias_fit`.
        """
        from ..plots import plot_bias_fit

        return plot_bias_fit(self.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope),
                             classic=self.classic, title=self.title if title is None else title)

    def __repr__(self) -> str:
        """Return the fit's level, data mode, study, embedding, size and path."""
        s = self.settings
        return (f"BiasFit(level={s['level']!r}, data={s['data']!r}, study={s.get('study')!r}, "
                f"embedding={s.get('embedding')!r}, rows={s.get('rows')}, "
                f"draws={s['draws']}×{s['chains']}, path={self.path!r})")


# the draws of a loaded fit are read when first used (DeferredDraws); set after the
# dataclass is made, so the field keeps no default (mypy sees a DataTree field replaced)
BiasFit.posterior = _Draws()  # type: ignore[assignment]
BiasFit.classic = _Classic()

