"""Compare one study across several embeddings (e.g. biased vs hard- vs soft-debiased).

:func:`compare_embeddings` answers "did debiasing change the bias, and by how much?":

1. It builds (or loads) the study's long-form cosine table for every embedding and
   aligns them on the word pairs (:func:`embias.align_tables`). Rows that are not common
   to all embeddings (words missing from one vocabulary) are reported — warned about and kept in
   :attr:`EmbeddingComparison.unmatched` — never silently dropped; every model below is
   fitted on the shared rows only, so all numbers describe the same word pairs.
2. It fits the same Bayesian model (:func:`embias.fit_bias_model`) to each
   embedding's aligned table: connection means, contrasts and word coefficients side by
   side, one interval table with an ``embedding`` column.
3. It fits a **joint (paired) change model** for every embedding against the reference
   one (the first, unless ``reference=`` says otherwise), whose HPDIs are the direct
   answer: rows whose ``estimand`` begins with ``change``.
4. It puts the classic pre-averaged scores of every embedding in the same table — MAC
   and WEAT, and their changes (MAC change with Manzini et al.'s paired t-test p-value,
   :func:`embias.mac_ttest`; :func:`embias.classic_changes`) — so one can see where the
   classic claim of a change is or is not supported by the intervals.

The change model
----------------
Rows are the same word pairs in every embedding, so for each non-reference embedding e
the paired difference of row r = (protected word, compared word) is

    d_r = y_r(e) − y_r(reference)

and d is modelled with the same multilevel structure as the distances themselves
(at ``level="hierarchical"``)::

    d_r ~ Normal(δ[pw, con], σ[con])
    δ[pw, con] ~ Normal(Δ[con], τ[con])          (cell changes, partially pooled)
    Δ[con] ~ Normal(0, 0.3);  τ[con], σ[con] ~ Exponential(2)

``change_connection_mean`` is Δ[con], the change of the connection mean;
``change_contrast`` is the change of a contrast, e.g.
(associated − none)_e − (associated − none)_reference = Δ[associated] − Δ[none];
``change_word_coefficient`` is δ[pw, con] and ``change_word_contrast`` its contrasts.
Each row carries ``prob_gt_0`` = P(change > 0) and the ROPE decision
(:func:`embias.report.rope_decision`). The ``dataset`` and ``word`` levels model d with
their own structures in the same way (m ~ N(0, 0.5), ZeroSumNormal connection effects).

The model is the level's own model (:func:`embias.fit_bias_model`) fitted to d with the
priors of the connection means centred at 0 (``FitSettings(prior_location=0.0)``).

Why the paired model, and not overlapping intervals
---------------------------------------------------
Comparing two separately fitted intervals — "the 89% HPDIs of associated overlap in
biased and debiased, so nothing changed" — answers the wrong question, for two reasons:

- **Overlap is not a test of the difference.** Two intervals can overlap while their
  difference is credibly non-zero, and the non-overlap of two 89% intervals of
  independent estimates corresponds to a far stricter level than 89% for the
  difference. The HPDI of the difference itself is the quantity asked about.
- **The two estimates are not independent.** A row's distance is mostly the geometry of
  its two words, which debiasing changes only in part: y_r(biased) and y_r(debiased)
  are strongly correlated (r = 0.69–0.86 per connection on the authors' Reddit
  religion tables; the sd of d is 0.13 against 0.18–0.25 for y). Separate fits
  treat the two posteriors as independent, so the uncertainty of their difference
  keeps all the row-to-row variation that the pairing cancels — exactly the mistake of
  an unpaired t-test on paired data. The model of d removes it, so its intervals are
  honest *and* much narrower.

Where the fits run: see :mod:`embias.bayes.batch` (this process by default; a local
process pool or a Dask cluster on request).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_seed, check_share
from ..classic import classic_changes
from ..embeddings import is_keyed_vectors, load_embeddings
from ..report import rope_decision, stack_interval_tables, validate_interval_table
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE, FitSettings, sampler_available
from ..tables import (
    DEFAULT_MIN_SHARED,
    align_tables,
    cosine_table,
    difference_table,
    published_name,
    study_table,
    validate_table,
)
from ..wordlists import Study, load_study
from .batch import FitJob, derived_seed, fit_many
from .diagnostics import diagnostics_overview
from .fit import BiasFit

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from xarray import DataTree

__all__ = [
    "CHANGE_ESTIMANDS",
    "ChangeFit",
    "EmbeddingComparison",
    "compare_embeddings",
    "fit_change_model",
    "resolve_tables",
    "source_table",
    "study_jobs",
]

#: Estimands of the change model (rows of :meth:`ChangeFit.summary`).
CHANGE_ESTIMANDS: tuple[str, ...] = ("change_connection_mean", "change_contrast",
                                     "change_word_coefficient", "change_word_contrast")

#: Classic change rows of :attr:`EmbeddingComparison.classic`.
CLASSIC_CHANGE_ESTIMANDS: tuple[str, ...] = ("mac_change", "weat_change")

#: The estimands of summarize_posterior and their change counterparts.
_CHANGE_NAMES = {"connection_mean": "change_connection_mean", "contrast": "change_contrast",
                 "word_coefficient": "change_word_coefficient",
                 "word_contrast": "change_word_contrast"}


EmbeddingSource = "KeyedVectors | str | pd.DataFrame"



# =========================================================================== tables
def source_table(
    label: str,
    source: Any,
    study: Study | None,
) -> tuple[pd.DataFrame, int | None]:
    """The cosine table of one embedding source and its vector size (None if unknown)."""
    what = f"embedding {label!r}"
    if isinstance(source, pd.DataFrame):
        table = validate_table(source.copy(), what=f"table of {what}")
        table["embedding"] = label
        table.attrs = dict(source.attrs)
        return table, None
    if study is None:
        raise ValueError(f"{what}: a study is needed to build its cosine table (e.g. "
                         "study='religion'); only ready-made tables (DataFrames) need none")
    if isinstance(source, str) and source.startswith("published:"):
        try:
            published_name(study.name, source)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        # exact duplicate rows (race tables) would be double-counted; dropped with a warning
        return study_table(study, source, duplicates="drop", embedding_name=label), None
    if isinstance(source, str | os.PathLike):
        try:
            kv = load_embeddings(source)
        except (ValueError, FileNotFoundError, ConnectionError) as exc:
            raise ValueError(f"{what}: {exc}") from None
    elif is_keyed_vectors(source):
        kv = source
    else:
        raise ValueError(f"{what}: unsupported source of type {type(source).__name__}; use "
                         "KeyedVectors, an embedding source string (file path, "
                         "'glove-6b-50d', 'gensim:NAME'), 'published:NAME' or a cosine "
                         "table (DataFrame)")
    return cosine_table(kv, study, embedding_name=label), int(kv.vector_size)



def resolve_tables(
    embeddings: Mapping[str, EmbeddingSource],
    study: Study | str | None,
    *,
    require_same_dimension: bool,
) -> tuple[dict[str, pd.DataFrame], Study | None]:
    if not isinstance(embeddings, Mapping):
        raise ValueError("embeddings must be a mapping label → source, e.g. {'biased': "
                         "'published:reddit', 'hard': 'published:reddit-debiased'}, got "
                         f"{type(embeddings).__name__}")
    bad = [k for k in embeddings if not isinstance(k, str) or not k]
    if bad:
        raise ValueError(f"embedding labels must be non-empty strings, got {bad}")
    st = load_study(study) if study is not None else None
    """Label → cosine table of every embedding source (and the study), checking that the
    embeddings have one dimension when ``require_same_dimension``."""
    tables: dict[str, pd.DataFrame] = {}
    sizes: dict[str, int] = {}
    for label, source in embeddings.items():
        table, size = source_table(label, source, st)
        tables[label] = table
        if size is not None:
            sizes[label] = size
        if require_same_dimension and len(set(sizes.values())) > 1:
            detail = ", ".join(f"{k}={v}" for k, v in sizes.items())
            raise ValueError(f"embeddings have different dimensions ({detail}): a comparison "
                             "is meant for versions of one embedding space (e.g. biased vs "
                             "debiased); pass require_same_dimension=False to compare "
                             "different embeddings on their shared word pairs")
    return tables, st



# =========================================================================== change fit
@dataclass(frozen=True, eq=False)
class ChangeFit:
    """Posterior of the paired change model of one embedding against a reference.

    Attributes
    ----------
    fit
        The fitted model of the paired differences (a :class:`~embias.BiasFit` of
        :attr:`differences` with ``prior_location=0``): its ``connection_mean`` is Δ, the
        change of each connection mean, and its ``coef`` δ, the change of each word's
        coefficient (word and hierarchical levels).
    differences
        The paired differences (:func:`embias.difference_table`).
    embedding, reference
        Names of the two embeddings (change = embedding − reference).
    """

    fit: BiasFit = field(repr=False)
    differences: pd.DataFrame = field(repr=False)
    embedding: str
    reference: str

    @property
    def settings(self) -> Mapping[str, Any]:
        """The change fit's settings (level, draws, chains, seed, prior_location = 0 …)."""
        return self.fit.settings

    @property
    def cells(self) -> pd.DataFrame:
        """Sufficient statistics of the differences per (protected word, connection)."""
        return self.fit.cells

    @property
    def posterior(self) -> DataTree:
        """The fit's ``DataTree``; ``connection_mean`` is the change Δ, ``coef`` δ."""
        return self.fit.posterior

    @property
    def divergences(self) -> int:
        return self.fit.divergences

    def to_interval_table(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
    ) -> pd.DataFrame:
        """Interval table of the changes (embedding − reference).

        Rows (``estimand``): ``change_connection_mean`` per connection,
        ``change_contrast`` per contrast of :data:`embias.bayes.CONTRASTS` (the change
        of e.g. associated − none), and at the word/hierarchical levels
        ``change_word_coefficient`` per protected word × connection and (hierarchical)
        ``change_word_contrast``. Every row has ``prob_gt_0`` = P(change > 0),
        ``prob_in_rope``, ``rope`` and ``rope_decision``
        (:func:`embias.report.rope_decision`), plus ``embedding`` and ``reference``.

        Parameters
        ----------
        ci_prob, ci_kind, rope
            As for :meth:`embias.BiasFit.to_interval_table`.
        """
        table = self.fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        post = self.posterior["posterior"]
        # P(change > 0) and the ROPE also for the rows that are levels in a plain fit
        for estimand, var in (("connection_mean", "connection_mean"),
                              ("word_coefficient", "coef")):
            for i in np.flatnonzero((table["estimand"] == estimand).to_numpy()):
                sel = {"connection": table["connection"].iat[i]}
                if var == "coef":
                    sel["protected_word"] = table["protected_word"].iat[i]
                draws = post[var].sel(sel).to_numpy()
                table.loc[i, "prob_gt_0"] = float((draws > 0).mean())
                table.loc[i, "prob_in_rope"] = float((np.abs(draws) <= rope).mean())
                table.loc[i, "rope"] = float(rope)
        table["rope_decision"] = rope_decision(table["lower"], table["upper"], float(rope))
        table["estimand"] = table["estimand"].map(_CHANGE_NAMES)
        table.insert(2, "embedding", self.embedding)
        table.insert(3, "reference", self.reference)
        return validate_interval_table(table)

    #: :meth:`to_interval_table` under its usual name.
    summary = to_interval_table

    def diagnostics(self) -> pd.DataFrame:
        """r̂ and bulk/tail ESS of every sampled scalar of the change model."""
        return self.fit.diagnostics()

    def problems(self) -> list[str]:
        """Convergence problems (r̂ > 1.01, ESS < 400, divergences); empty when fine."""
        return self.fit.problems()


def _change_settings(settings: FitSettings) -> FitSettings:
    """The change model's settings: those of the comparison with the priors of the
    connection means centred at 0 (the data are differences)."""
    return dataclasses.replace(settings, prior_location=0.0)


def fit_change_model(
    table: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    settings: FitSettings | None = None,
    label: str = "embedding",
    reference_label: str = "reference",
    min_shared: float = DEFAULT_MIN_SHARED,
    warn: bool = True,
    **options: Any,
) -> ChangeFit:
    """Fit the paired change model of one cosine table against a reference table.

    The two tables are aligned on their word pairs (rows not in both are reported in a
    warning and left out), d = y(table) − y(reference) is formed per pair and modelled
    as described in the module notes. :func:`compare_embeddings` does this for every
    embedding of a comparison.

    Parameters
    ----------
    table, reference
        Long-form cosine tables of the same study on two embeddings.
    settings, **options
        Model and sampler settings (:class:`~embias.FitSettings`, as for
        :func:`embias.fit_bias_model`); ``prior_location`` is always 0 here.
    label, reference_label
        Names of the two embeddings.
    min_shared
        Smallest share of each table's rows that must be common to both.
    warn
        Emit a :class:`~embias.bayes.ConvergenceWarning` on convergence problems.

    Returns
    -------
    ChangeFit
    """
    run = FitSettings.build(settings, **options)  # checked before any work
    if label == reference_label:
        raise ValueError(f"label and reference_label are both {label!r}; give the two "
                         "embeddings different names")
    aligned, _ = align_tables({reference_label: reference, label: table},
                              reference=reference_label, min_shared=min_shared)
    diff = difference_table(aligned[label], aligned[reference_label], label=label,
                            reference_label=reference_label)
    run = _change_settings(run)
    job = FitJob(diff, dataclasses.replace(run, random_seed=check_seed(run.random_seed)),
                 label=f"change {label} − {reference_label}")
    fit = fit_many([job], progress=False, warn=warn)[0]
    return ChangeFit(fit=fit, differences=diff, embedding=label, reference=reference_label)



# =========================================================================== comparison
@dataclass(frozen=True, eq=False)
class EmbeddingComparison:
    """Result of :func:`compare_embeddings`.

    Attributes
    ----------
    fits
        Label → :class:`~embias.bayes.BiasFit` of the embedding's aligned table.
    change_fits
        Label → :class:`ChangeFit` against the reference (every label but the reference).
    classic
        Classic MAC/WEAT per embedding and their changes (:func:`classic_changes`).
    tables
        Label → the aligned cosine table (the shared word pairs, in the same order).
    unmatched
        Word pairs absent from at least one embedding's table (``missing_from`` names
        the embeddings), left out of every model and score here.
    reference
        The label changes are measured against.
    settings
        Study, sources, level, draws, seeds of every fit, min_shared.
    """

    fits: Mapping[str, BiasFit] = field(repr=False)
    change_fits: Mapping[str, ChangeFit] = field(repr=False)
    classic: pd.DataFrame = field(repr=False)
    tables: Mapping[str, pd.DataFrame] = field(repr=False)
    unmatched: pd.DataFrame = field(repr=False)
    reference: str
    settings: Mapping[str, Any]

    @property
    def labels(self) -> list[str]:
        """The embeddings' labels, in order."""
        return list(self.fits)

    def to_interval_table(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
    ) -> pd.DataFrame:
        """One interval table of the whole comparison, with an ``embedding`` column.

        Rows: every embedding's :meth:`~embias.bayes.BiasFit.summary`
        (``connection_mean``, ``contrast``, ``word_coefficient``, ``word_contrast``);
        the change model's rows (``change_*``, :meth:`ChangeFit.summary`; ``embedding``
        = the changed embedding, ``reference`` = what it is compared with); and the
        classic scores and their changes (:attr:`classic`: ``mac``,
        ``weat_effect_size``, ``mac_change`` with ``p_value``, ``weat_change``; classic
        intervals are Student-t, their probability and kind in ``ci_prob``/``ci_kind``).

        Parameters
        ----------
        ci_prob, ci_kind, rope
            As for :meth:`embias.bayes.BiasFit.summary` (Bayesian rows only).
        """
        opts = {"ci_prob": ci_prob, "ci_kind": ci_kind, "rope": rope}
        levels = stack_interval_tables({label: fit.to_interval_table(**opts)
                                        for label, fit in self.fits.items()},
                                       key="embedding")
        levels.insert(3, "reference", "")
        changes = [c.to_interval_table(**opts) for c in self.change_fits.values()]
        return stack_interval_tables([levels, *changes, self.classic])

    #: :meth:`to_interval_table` under its usual name.
    summary = to_interval_table

    def change_summary(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
        words: bool = False,
    ) -> pd.DataFrame:
        """The direct answer: change HPDIs per connection and contrast (and per word with
        ``words=True``) next to the classic MAC/WEAT changes."""
        table = self.summary(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        keep = ["change_connection_mean", "change_contrast", *CLASSIC_CHANGE_ESTIMANDS]
        if words:
            keep += ["change_word_coefficient", "change_word_contrast"]
        return table[table["estimand"].isin(keep)].reset_index(drop=True)

    def diagnostics_overview(self) -> pd.DataFrame:
        """Worst r̂, smallest ESS and divergences of every fit (one row each)."""
        rows = []
        named: list[tuple[str, Any]] = [(f"fit {k}", f) for k, f in self.fits.items()]
        named += [(f"change {k} − {self.reference}", f) for k, f in self.change_fits.items()]
        for name, fit in named:
            rows.append({"fit": name, **diagnostics_overview(fit.diagnostics(), fit.divergences),
                         "seed": int(fit.settings["random_seed"])})
        return pd.DataFrame(rows)

    def plot(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
        title: str | None = None,
    ) -> Figure:
        """Forest plot of :meth:`to_interval_table` (:func:`embias.plots.plot_comparison`)."""
        if title is None:
            title = (f"{self.settings.get('study') or 'table'}: "
                     f"{' vs '.join(self.labels)} ({self.settings.get('level')})")
        from ..plots import plot_comparison

        return plot_comparison(self.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind,
                                                      rope=rope), title=title)

    def __repr__(self) -> str:
        return (f"EmbeddingComparison(study={self.settings.get('study')!r}, "
                f"embeddings={self.labels}, reference={self.reference!r}, "
                f"rows={len(self.tables[self.reference])}, unmatched={len(self.unmatched)})")



def compare_embeddings(
    embeddings: Mapping[str, EmbeddingSource],
    study: Study | str | None = None,
    *,
    reference: str | None = None,
    settings: FitSettings | None = None,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    min_shared: float = DEFAULT_MIN_SHARED,
    require_same_dimension: bool = True,
    progress: bool = True,
    warn: bool = True,
    **options: Any,
) -> EmbeddingComparison:
    """Fit one study on several embeddings and the paired change model between them.

    Parameters
    ----------
    embeddings
        Label → source, at least two: ``KeyedVectors`` (e.g.
        ``embias.hard_debias(kv, "religion").embeddings``), a source string for
        :func:`embias.load_embeddings` (file path, ``"glove-6b-50d"``, ``"gensim:NAME"``),
        ``"published:reddit"``/``"published:reddit-debiased"``/… for the authors' tables,
        or a ready long-form cosine table (DataFrame).
    study
        The study (``"religion"`` …); needed unless every source is a table.
    reference
        Label the changes are measured against (default: the first).
    settings, **options
        Model and sampler settings of every fit (:class:`~embias.FitSettings`; any field
        as a keyword replaces the one in ``settings``). Its ``random_seed`` is the seed
        of the comparison: every fit gets its own seed derived from it and its name
        (recorded in ``settings["seeds"]``), so a fit's draws do not depend on the other
        embeddings or on where it ran; ``None`` draws one.
    executor, max_workers
        Where the fits run (:func:`embias.fit_many`): default in this process, one after
        another (works from a plain script, stdin, ``python -c`` and notebooks);
        ``max_workers=N`` for a local process pool; any executor, e.g. a Dask cluster's
        ``client.get_executor()``.
    min_shared
        Smallest share of each embedding's rows that all embeddings must share (default
        0.8); fewer means different vocabularies or studies and is an error.
    require_same_dimension
        Refuse embeddings (KeyedVectors) of different dimensions (default True).
    progress
        tqdm progress bar over the fits.
    warn
        Warn about convergence problems of any fit.

    Returns
    -------
    EmbeddingComparison
        ``.summary()`` is the one interval table; ``.change_summary()`` the direct answer;
        ``.plot()`` the forest plot.

    Raises
    ------
    ValueError
        Fewer than two embeddings, an unknown reference, an unknown embedding source,
        embeddings of different dimensions, tables that share too few rows, an
        embedding identical to the reference, or bad model options; the message names
        the problem.

    Examples
    --------
    >>> result = compare_embeddings({"biased": "published:reddit",
    ...                              "hard": "published:reddit-debiased"}, "religion")
    >>> result.change_summary()
    """
    if not isinstance(embeddings, Mapping) or len(embeddings) < 2:
        n = len(embeddings) if isinstance(embeddings, Mapping) else 0
        raise ValueError(f"compare_embeddings() needs at least 2 embeddings to compare, got "
                         f"{n}: pass e.g. {{'biased': 'published:reddit', 'hard': "
                         "'published:reddit-debiased'}")
    labels = list(embeddings)
    reference = labels[0] if reference is None else reference
    if reference not in embeddings:
        raise ValueError(f"reference={reference!r} is not one of the embeddings {labels}")
    run = FitSettings.build(settings, **options)
    sampler_available(run.sampler)
    seed = check_seed(run.random_seed)
    min_shared = check_share("min_shared", min_shared)
    tables, st = resolve_tables(embeddings, study,
                                 require_same_dimension=require_same_dimension)
    aligned, unmatched = align_tables(tables, reference=reference, min_shared=min_shared)
    others = [label for label in labels if label != reference]
    differences = {label: difference_table(aligned[label], aligned[reference], label=label,
                                           reference_label=reference) for label in others}
    study_name = st.name if st is not None else str(aligned[reference].attrs.get("study", ""))
    seeds = {f"fit {label}": derived_seed(seed, "fit", label) for label in labels}
    seeds |= {f"change {label}": derived_seed(seed, "change", label, reference)
              for label in others}
    change = _change_settings(run)
    jobs = [FitJob(aligned[label], dataclasses.replace(run, random_seed=seeds[f"fit {label}"]),
                   label=f"{study_name} {label}") for label in labels]
    jobs += [FitJob(differences[label],
                    dataclasses.replace(change, random_seed=seeds[f"change {label}"]),
                    label=f"{study_name} change {label} − {reference}") for label in others]
    fits = fit_many(jobs, executor=executor, max_workers=max_workers, progress=progress,
                    warn=warn)
    level_fits = dict(zip(labels, fits[:len(labels)], strict=True))
    change_fits = {label: ChangeFit(fit=fit, differences=differences[label], embedding=label,
                                    reference=reference)
                   for label, fit in zip(others, fits[len(labels):], strict=True)}
    sources = {label: (s if isinstance(s, str) else type(s).__name__)
               for label, s in embeddings.items()}
    record = {"study": study_name, "sources": sources, "reference": reference,
              **run.to_dict(), "random_seed": seed, "seeds": seeds, "min_shared": min_shared,
              "rows": len(aligned[reference]), "unmatched_rows": len(unmatched)}
    return EmbeddingComparison(
        fits=level_fits, change_fits=change_fits,
        classic=classic_changes(aligned, reference=reference),
        tables=aligned, unmatched=unmatched, reference=reference, settings=record)



# =========================================================================== batches
def study_jobs(
    studies: Sequence[str | Study],
    embeddings: Mapping[str, EmbeddingSource],
    *,
    seeds: Sequence[int],
    settings: FitSettings | None = None,
    **options: Any,
) -> list[FitJob]:
    """Jobs for every study × embedding × seed (tables built here, once per pair).

    Parameters
    ----------
    studies
        Study names or :class:`~embias.Study` objects.
    embeddings
        Label → source, as for :func:`compare_embeddings`.
    seeds
        Sampler seeds; one fit per seed.
    settings, **options
        The fits' :class:`~embias.FitSettings` (any field as a keyword replaces the one in
        ``settings``; unknown names are an error); the seeds come from ``seeds``.

    Returns
    -------
    list of FitJob
        Labelled ``"STUDY/EMBEDDING/seed=N"``, ready for :func:`fit_many`.
    """
    base = FitSettings.build(settings, **options)
    seeds = [check_seed(s, name="seeds") for s in seeds]
    if not seeds or not studies or not embeddings:
        raise ValueError("study_jobs() needs at least one study, embedding and seed")
    jobs = []
    for study in studies:
        tables, st = resolve_tables(embeddings, study, require_same_dimension=False)
        for label, table in tables.items():
            for s in seeds:
                jobs.append(FitJob(table, dataclasses.replace(base, random_seed=s),
                                   label=f"{st.name if st else study}/{label}/seed={s}"))
    return jobs

