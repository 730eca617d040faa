"""Compare one study across several embeddings (e.g. biased vs hard- vs soft-debiased).

:func:`compare_embeddings` answers "did debiasing change the bias, and by how much?":

1. It builds (or loads) the study's long-form cosine table for every embedding and
   aligns them on the word pairs ``(protected_word, word_to_compare, word_class,
   connection)``. Rows that are not common to all embeddings (words missing from one
   vocabulary) are reported — warned about and kept in
   :attr:`EmbeddingComparison.unmatched` — never silently dropped; every model below is
   fitted on the shared rows only, so all numbers describe the same word pairs.
2. It fits the same Bayesian model (:func:`embias.bayes.fit_bias_model`) to each
   embedding's aligned table: connection means, contrasts and word coefficients side by
   side, one interval table with an ``embedding`` column.
3. It fits a **joint (paired) change model** for every embedding against the reference
   one (the first, unless ``reference=`` says otherwise), whose HPDIs are the direct
   answer: rows whose ``estimand`` begins with ``change``.
4. It puts the classic pre-averaged scores of every embedding in the same table — MAC
   and WEAT, and their changes (MAC change with Manzini et al.'s paired t-test p-value,
   :func:`embias.mac_ttest`) — so one can see where the classic claim of a change is or
   is not supported by the intervals.

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
(:func:`embias.bayes.rope_decision`). The ``dataset`` and ``word`` levels model d with
their own structures in the same way (m ~ N(0, 0.5), ZeroSumNormal connection effects).

The model is fitted by :func:`embias.bayes.fit_bias_model` itself, on the offset
differences 1 + d: its priors are location-equivariant, so ``bar ~ N(1, 0.3)`` on
1 + d *is* Δ ~ N(0, 0.3) on d (τ and σ, and the cell sufficient statistics n and SS,
do not move with a shift); the offset is removed from the draws before anything is
reported. (When ``fit_bias_model`` gains a prior-location option the offset can go.)

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

Running fits elsewhere
----------------------
Every fit is a pure function of (table, settings, seed) — :class:`FitJob` — so the
draws do not depend on where it ran. :func:`fit_many` runs a batch of jobs on any
``concurrent.futures.Executor``: by default a local process pool (one worker per CPU,
chains run one after another inside a worker) with a tqdm progress bar; a Dask cluster
through ``client.get_executor()``::

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")          # dask scheduler / dask worker
    result = compare_embeddings({...}, "religion", executor=client.get_executor())

On a real cluster start ``dask scheduler`` on one machine and ``dask worker
tcp://scheduler:8786 --nworkers N --nthreads 1`` on each machine, with embias installed
in the same environment everywhere. Use one thread per worker process: PyMC and PyTensor
are not thread-safe (two fits sampled in threads of one process gave different draws
for the same seed, and once hung while compiling), so :func:`run_fit_job` runs the fits
of one process one at a time — extra threads only wait. Only the cosine tables and
settings travel to the workers; embeddings are loaded and tables built on the client.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import inspect
import logging
import multiprocessing
import os
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from gensim.models import KeyedVectors

from .bayes import (
    DATA_MODES,
    DEFAULT_CHAINS,
    DEFAULT_CI_PROB,
    DEFAULT_DRAWS,
    DEFAULT_ROPE,
    DEFAULT_TUNE,
    LEVELS,
    SAMPLERS,
    BiasFit,
    ConvergenceWarning,
    cell_statistics,
    classic_scores,
    convergence_problems,
    fit_bias_model,
    rope_decision,
    summarize_posterior,
)
from .classic import MacResult, mac, mac_ttest
from .embeddings import load_embeddings
from .report import combine_interval_tables, interval_table, plot_forest, validate_interval_table
from .tables import cosine_table, published_name, study_table
from .tables import validate_table as _validate_table
from .wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from xarray import DataTree

__all__ = [
    "CHANGE_ESTIMANDS",
    "ChangeFit",
    "EmbeddingComparison",
    "FitJob",
    "align_tables",
    "classic_changes",
    "compare_embeddings",
    "difference_table",
    "fit_change_model",
    "fit_many",
    "plot_comparison",
    "run_fit_job",
    "study_jobs",
]

#: Estimands of the change model (rows of :meth:`ChangeFit.summary`).
CHANGE_ESTIMANDS: tuple[str, ...] = ("change_connection_mean", "change_contrast",
                                     "change_word_coefficient", "change_word_contrast")
#: Classic change rows of :attr:`EmbeddingComparison.classic`.
CLASSIC_CHANGE_ESTIMANDS: tuple[str, ...] = ("mac_change", "weat_change")
#: Default smallest share of every embedding's rows that all embeddings must share.
DEFAULT_MIN_SHARED = 0.8
#: Confidence level of the classic (MAC t) intervals, as in :func:`embias.bayes.classic_scores`.
CLASSIC_CI_PROB = 0.95
#: Offset added to the paired differences so that fit_bias_model's location priors
#: (centred at 1) are centred at 0 on the change (see the module notes).
_OFFSET = 1.0
#: The estimands of summarize_posterior and their change counterparts.
_CHANGE_NAMES = {"connection_mean": "change_connection_mean", "contrast": "change_contrast",
                 "word_coefficient": "change_word_coefficient",
                 "word_contrast": "change_word_contrast"}
#: fit_bias_model options a FitJob may set (progressbar/warn are handled by fit_many).
_FIT_OPTIONS = tuple(name for name, p in inspect.signature(fit_bias_model).parameters.items()
                     if p.kind is inspect.Parameter.KEYWORD_ONLY
                     and name not in ("progressbar", "warn"))

EmbeddingSource = KeyedVectors | str | pd.DataFrame


# =========================================================================== jobs
@dataclass(frozen=True)
class FitJob:
    """One fit: a cosine table, the options of :func:`embias.bayes.fit_bias_model` and a
    seed — everything the result depends on.

    Attributes
    ----------
    table
        Long-form cosine table to fit.
    options
        Keyword arguments of :func:`~embias.bayes.fit_bias_model` (``level``, ``data``,
        ``draws``, ``tune``, ``chains``, ``cores``, ``random_seed``, ``sampler``,
        ``target_accept``, ``centred``); ``random_seed`` is required (a fit must be
        reproducible wherever it runs) and ``cores`` defaults to 1 (chains run one after
        another inside a worker; the executor provides the parallelism — the draws are
        the same for any ``cores``).
    label
        Name shown in progress bars, warnings and errors.
    """

    table: pd.DataFrame = field(repr=False)
    options: Mapping[str, Any]
    label: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.table, pd.DataFrame):
            raise ValueError(f"FitJob {self.label!r}: table must be a pandas DataFrame, got "
                             f"{type(self.table).__name__}")
        unknown = sorted(set(self.options) - set(_FIT_OPTIONS))
        if unknown:
            raise ValueError(f"FitJob {self.label!r}: unknown fit option(s) {unknown}; "
                             f"allowed: {list(_FIT_OPTIONS)}")
        seed = self.options.get("random_seed")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"FitJob {self.label!r}: random_seed must be a non-negative "
                             f"integer (fits must be reproducible wherever they run), got "
                             f"{seed!r}")
        object.__setattr__(self, "options", {"cores": 1, **self.options,
                                             "random_seed": int(seed)})


@contextmanager
def _quiet_pymc() -> Iterator[None]:
    """Silence PyMC's INFO chatter ("Initializing NUTS …") while a job runs."""
    import pymc  # noqa: F401  (importing pymc sets its logger's level; do it first)

    logger = logging.getLogger("pymc")
    previous = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(previous)


#: One fit at a time per process: PyMC/PyTensor are not thread-safe — two fits sampled
#: in threads of one process (e.g. a Dask worker with several threads) were seen to give
#: different draws for the same seed and, once, to hang while compiling.
_FIT_LOCK = threading.Lock()


def run_fit_job(job: FitJob) -> BiasFit:
    """Run one :class:`FitJob` (the function the executors call; pure in (table,
    options)). Fits in one process run one at a time (see ``_FIT_LOCK``); convergence
    warnings are left to the caller (:func:`fit_many`)."""
    with _FIT_LOCK, _quiet_pymc(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit_bias_model(job.table, **job.options, progressbar=False, warn=False)


def _local_executor(max_workers: int) -> cf.ProcessPoolExecutor:
    """A process pool whose workers fork from a server that has imported PyMC once
    (``forkserver``: safe in threaded parents such as Jupyter kernels; ``spawn`` where
    there is no forkserver, e.g. on Windows)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["pymc", "embias.bayes", "embias.compare"])
    else:  # pragma: no cover - not on Linux
        context = multiprocessing.get_context("spawn")
    return cf.ProcessPoolExecutor(max_workers=max_workers, mp_context=context)


def fit_many(
    jobs: Sequence[FitJob],
    *,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    progress: bool = True,
    warn: bool = True,
) -> list[BiasFit]:
    """Run a batch of fits (studies × embeddings × seeds …) on an executor.

    Parameters
    ----------
    jobs
        The fits to run (:class:`FitJob`, e.g. from :func:`study_jobs`).
    executor
        Anything with the ``concurrent.futures.Executor`` interface: a
        ``ProcessPoolExecutor``, a Dask cluster's ``client.get_executor()`` …; it is not
        shut down here. ``None`` (default): a local process pool with ``max_workers``
        workers, shut down afterwards (a single job, or ``max_workers=1``, runs in this
        process instead).
    max_workers
        Size of the local pool (default: one per CPU, at most one per job); only without
        ``executor``.
    progress
        Show a tqdm progress bar over the fits.
    warn
        Emit one :class:`~embias.bayes.ConvergenceWarning` per fit that fails a
        convergence check (r̂ > 1.01, ESS < 400, divergences).

    Returns
    -------
    list of BiasFit
        In the order of ``jobs``. A fit depends only on its job: the same job gives the
        same draws locally and on any cluster.

    Raises
    ------
    ValueError
        No jobs, something that is not a FitJob, or a bad ``max_workers``; errors of a
        fit are re-raised with a note naming its job.
    """
    jobs = list(jobs)
    if not jobs:
        raise ValueError("fit_many() needs at least one FitJob, got none")
    bad = [type(j).__name__ for j in jobs if not isinstance(j, FitJob)]
    if bad:
        raise ValueError(f"fit_many() takes FitJob objects, got {bad[:3]}")
    if max_workers is not None and (isinstance(max_workers, bool)
                                    or not isinstance(max_workers, int) or max_workers < 1):
        raise ValueError(f"max_workers must be a positive integer or None, got "
                         f"{max_workers!r}")
    if executor is not None and not all(hasattr(executor, m) for m in ("submit", "shutdown")):
        raise ValueError(f"executor must have the concurrent.futures.Executor interface "
                         f"(submit, shutdown), got {type(executor).__name__}")
    from tqdm import tqdm

    workers = max_workers or min(len(jobs), os.cpu_count() or 1)
    results: list[BiasFit | None] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), desc="fits", unit="fit", disable=not progress)
    try:
        if executor is None and (len(jobs) == 1 or workers == 1):
            for i, job in enumerate(jobs):
                bar.set_postfix_str(job.label)
                results[i] = _with_note(run_fit_job, job)
                bar.update()
        else:
            own = executor is None
            pool = _local_executor(workers) if own else executor
            try:
                futures = {pool.submit(run_fit_job, job): i for i, job in enumerate(jobs)}
                try:
                    for future in cf.as_completed(futures):
                        i = futures[future]
                        try:
                            results[i] = future.result()
                        except Exception as exc:
                            exc.add_note(f"while fitting job {i} ({jobs[i].label!r})")
                            raise
                        bar.set_postfix_str(jobs[i].label)
                        bar.update()
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
            finally:
                if own:
                    pool.shutdown(wait=True, cancel_futures=True)
    finally:
        bar.close()
    fits = [r for r in results if r is not None]
    if warn:
        for job, fit in zip(jobs, fits, strict=True):
            problems = fit.problems()
            if problems:
                warnings.warn(f"fit {job.label!r}: " + "; ".join(problems), ConvergenceWarning,
                              stacklevel=2)
    return fits


def _with_note(func: Any, job: FitJob) -> BiasFit:
    try:
        return func(job)
    except Exception as exc:
        exc.add_note(f"while fitting job {job.label!r}")
        raise


def _derived_seed(seed: int, *parts: str) -> int:
    """A seed for one fit, from the batch seed and the fit's name (stable everywhere)."""
    text = "|".join([str(int(seed)), *parts]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big") % (2**31)


def _check_seed(random_seed: int | None) -> int:
    if random_seed is None:
        return int(np.random.SeedSequence().entropy % (2**31))
    if isinstance(random_seed, bool) or not isinstance(random_seed, int | np.integer) \
            or random_seed < 0:
        raise ValueError(f"random_seed must be a non-negative integer or None, got "
                         f"{random_seed!r}")
    return int(random_seed)


# =========================================================================== tables
def _source_table(
    label: str,
    source: Any,
    study: Study | None,
) -> tuple[pd.DataFrame, int | None]:
    """The cosine table of one embedding source and its vector size (None if unknown)."""
    what = f"embedding {label!r}"
    if isinstance(source, pd.DataFrame):
        table = _validate_table(source.copy(), what=f"table of {what}")
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
    elif isinstance(source, KeyedVectors):
        kv = source
    else:
        raise ValueError(f"{what}: unsupported source of type {type(source).__name__}; use "
                         "KeyedVectors, an embedding source string (file path, "
                         "'glove-6b-50d', 'gensim:NAME'), 'published:NAME' or a cosine "
                         "table (DataFrame)")
    return cosine_table(kv, study, embedding_name=label), int(kv.vector_size)


def _key_columns(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    key = ["protected_word", "word_to_compare"]
    if all("word_class" in t.columns for t in tables.values()):
        key.append("word_class")
    return [*key, "connection"]


def align_tables(
    tables: Mapping[str, pd.DataFrame],
    *,
    reference: str | None = None,
    min_shared: float = DEFAULT_MIN_SHARED,
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Restrict cosine tables of several embeddings to the word pairs common to all.

    Word pairs are matched on ``(protected_word, word_to_compare, word_class,
    connection)`` (without ``word_class`` if a table lacks it).

    Parameters
    ----------
    tables
        Label → long-form cosine table.
    reference
        Label whose row order the aligned tables follow (default: the first).
    min_shared
        Smallest share of every table's rows that must be common to all.

    Returns
    -------
    aligned : dict of str to DataFrame
        The tables restricted to the shared pairs, all in the same row order.
    unmatched : DataFrame
        One row per word pair absent from at least one table (the key columns and
        ``missing_from``, the labels that lack it). A ``UserWarning`` names them too.

    Raises
    ------
    ValueError
        A table with repeated word pairs, or tables sharing fewer than ``min_shared`` of
        any table's rows (different vocabularies or studies).
    """
    if not tables:
        raise ValueError("align_tables() needs at least one table, got none")
    reference = next(iter(tables)) if reference is None else reference
    if reference not in tables:
        raise ValueError(f"reference={reference!r} is not one of the tables {list(tables)}")
    min_shared = _check_share(min_shared)
    key = _key_columns(tables)
    keyed: dict[str, pd.DataFrame] = {}
    for label, table in tables.items():
        k = table[key].astype(str)
        dup = k.duplicated(keep=False)
        if dup.any():
            ex = [tuple(r) for r in k[dup].drop_duplicates().head(3).itertuples(index=False)]
            raise ValueError(f"embedding {label!r}: {int(dup.sum())} rows share their word "
                             f"pair {key} with another row, e.g. {ex}; drop duplicate rows "
                             "before comparing (a pair must be one row)")
        keyed[label] = k
    index = {label: pd.MultiIndex.from_frame(k) for label, k in keyed.items()}
    union = pd.MultiIndex.from_frame(
        pd.concat(list(keyed.values()), ignore_index=True).drop_duplicates())
    present = pd.DataFrame({label: union.isin(ix) for label, ix in index.items()})
    shared = present.all(axis=1).to_numpy()
    n_shared = int(shared.sum())
    too_few = {label: (n_shared, len(tables[label])) for label in tables
               if n_shared < min_shared * len(tables[label])}
    if too_few:
        detail = ", ".join(f"{label}: {s} of {n} rows" for label, (s, n) in too_few.items())
        raise ValueError(f"the embeddings' tables share too few rows ({detail}; at least "
                         f"min_shared={min_shared:g} of every table must be common): they "
                         "do not have the same vocabularies (or are not the same study); "
                         "compare embeddings over the same words, or lower min_shared")
    unmatched = union[~shared].to_frame(index=False)
    absent = present[~shared]
    unmatched["missing_from"] = [", ".join(c for c in absent.columns if not row[c])
                                 for _, row in absent.iterrows()]
    if not unmatched.empty:
        parts = []
        for label in tables:
            lost = unmatched[~present.loc[~shared, label].to_numpy()]
            if len(lost):
                words = sorted(set(lost["word_to_compare"]) | set(lost["protected_word"]))
                parts.append(f"{label} lacks {len(lost)} (words involved: {words[:15]}"
                             f"{' …' if len(words) > 15 else ''})")
        warnings.warn(f"{len(unmatched)} word pairs are not in every embedding's table and are "
                      f"left out of the comparison: {'; '.join(parts)} (listed in "
                      "EmbeddingComparison.unmatched)", UserWarning, stacklevel=2)
    order = index[reference][index[reference].isin(union[shared])]
    aligned = {}
    for label, table in tables.items():
        pos = index[label].get_indexer(order)
        part = table.iloc[pos].reset_index(drop=True)
        part.attrs = dict(table.attrs)
        aligned[label] = part
    return aligned, unmatched


def difference_table(
    table: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    label: str = "embedding",
    reference_label: str = "reference",
) -> pd.DataFrame:
    """Paired differences d = y(table) − y(reference) of two aligned cosine tables.

    Parameters
    ----------
    table, reference
        Cosine tables with the same word pairs in the same order (as in
        :attr:`EmbeddingComparison.tables`).
    label, reference_label
        Names of the two embeddings (for the ``embedding`` column and messages).

    Returns
    -------
    pandas.DataFrame
        The reference's rows with ``cosine_distance`` = d, ``distance`` = y(table) and
        ``reference_distance`` = y(reference); ``embedding`` = ``"LABEL − REFERENCE"``.

    Raises
    ------
    ValueError
        The tables are not aligned (different rows or order), or every difference is
        exactly 0 (identical tables: the change is exactly 0, there is nothing to fit).
    """
    key = _key_columns({"a": table, "b": reference})
    if len(table) != len(reference) or not (
            table[key].astype(str).to_numpy() == reference[key].astype(str).to_numpy()).all():
        raise ValueError(f"tables of {label!r} and {reference_label!r} are not aligned (same "
                         f"word pairs {key} in the same order); use compare_embeddings(), "
                         "which aligns them")
    y = table["cosine_distance"].to_numpy(dtype=float)
    y_ref = reference["cosine_distance"].to_numpy(dtype=float)
    d = y - y_ref
    if not np.any(d != 0):
        raise ValueError(f"embedding {label!r} gives exactly the same cosine distances as "
                         f"the reference {reference_label!r} in all {len(d)} rows: the change "
                         "is exactly 0 and there is nothing to estimate (is it the same "
                         "embedding twice?)")
    cols = [c for c in ("protected_word", "protected_class", "word_to_compare", "word_class",
                        "connection") if c in reference.columns]
    out = reference[cols].copy().reset_index(drop=True)
    out["cosine_distance"] = d
    out["distance"] = y
    out["reference_distance"] = y_ref
    out["embedding"] = f"{label} − {reference_label}"
    out.attrs = {"study": str(reference.attrs.get("study", "")), "embedding": label,
                 "reference": reference_label}
    return out


def _offset_table(differences: pd.DataFrame) -> pd.DataFrame:
    """The table fit_bias_model is given for the change model: 1 + d."""
    out = differences[[c for c in differences.columns
                       if c not in ("distance", "reference_distance")]].copy()
    out["cosine_distance"] = differences["cosine_distance"].to_numpy(float) + _OFFSET
    out.attrs = {**differences.attrs,
                 "study": f"{differences.attrs.get('study', '')} change".strip()}
    return out


# =========================================================================== change fit
@dataclass(frozen=True)
class ChangeFit:
    """Posterior of the paired change model of one embedding against a reference.

    Attributes
    ----------
    posterior
        ``DataTree`` with groups ``posterior`` and ``sample_stats``. Posterior variables:
        ``change`` (dims ``connection``; Δ, the change of each connection mean),
        ``change_coef`` (``protected_word, connection``; δ, word and hierarchical
        levels) and the model's sds (``tau``, ``sigma``) or connection effects (``co``).
    cells
        Sufficient statistics of the differences per (protected word, connection) cell
        (:func:`embias.bayes.cell_statistics` of :attr:`differences`).
    differences
        The paired differences (:func:`difference_table`).
    embedding, reference
        Names of the two embeddings (change = embedding − reference).
    settings
        The fit's settings (level, draws, chains, seed …; ``offset`` = 1).
    timings
        Seconds spent building and sampling.
    diagnostics_table
        r̂ and ESS of every sampled parameter (:meth:`diagnostics`).
    divergences
        Divergent transitions after tuning.
    """

    posterior: DataTree = field(repr=False)
    cells: pd.DataFrame = field(repr=False)
    differences: pd.DataFrame = field(repr=False)
    embedding: str
    reference: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    timings: Mapping[str, float] = field(default_factory=dict, repr=False)
    diagnostics_table: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    divergences: int = 0

    @classmethod
    def from_offset_fit(cls, fit: BiasFit, differences: pd.DataFrame) -> ChangeFit:
        """The change posterior of a fit of 1 + d (see the module notes): the offset is
        removed from the reported location quantities; the sds are kept as they are."""
        post = fit.posterior["posterior"].to_dataset()
        data: dict[str, xr.DataArray] = {"change": post["connection_mean"] - _OFFSET}
        if "coef" in post:
            data["change_coef"] = post["coef"] - _OFFSET
        data |= {name: post[name] for name in ("tau", "sigma", "co") if name in post}
        tree = xr.DataTree.from_dict({
            "posterior": xr.Dataset(data, attrs=post.attrs),
            "sample_stats": fit.posterior["sample_stats"].to_dataset(),
        })
        # r̂ and ESS do not move with a constant shift: those of the fit itself (every
        # sampled parameter) are the change model's
        return cls(posterior=tree, cells=cell_statistics(differences),
                   differences=differences,
                   embedding=str(differences.attrs.get("embedding", "")),
                   reference=str(differences.attrs.get("reference", "")),
                   settings={**fit.settings, "offset": _OFFSET}, timings=dict(fit.timings),
                   diagnostics_table=fit.diagnostics(), divergences=fit.divergences)

    def summary(
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
        ``prob_in_rope``, ``rope`` and ``rope_decision`` (:func:`~embias.bayes.
        rope_decision`), plus ``embedding`` and ``reference``.

        Parameters
        ----------
        ci_prob, ci_kind, rope
            As for :meth:`embias.bayes.BiasFit.summary`.
        """
        post = self.posterior["posterior"].to_dataset()
        view = {"connection_mean": post["change"]}
        if "change_coef" in post:
            view["coef"] = post["change_coef"]
        if self.settings.get("level") == "hierarchical":
            view["bar"] = post["change"]  # marks the hierarchical level: word contrasts
        tree = xr.DataTree.from_dict({"posterior": xr.Dataset(view)})
        table = summarize_posterior(tree, self.cells, ci_prob=ci_prob, ci_kind=ci_kind,
                                    rope=rope)
        # P(change > 0) and the ROPE for the rows summarize_posterior treats as levels
        for estimand, var in (("connection_mean", "change"), ("word_coefficient", "change_coef")):
            rows = np.flatnonzero((table["estimand"] == estimand).to_numpy())
            for i in rows:
                sel = {"connection": table["connection"].iat[i]}
                if var == "change_coef":
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

    def diagnostics(self) -> pd.DataFrame:
        """r̂ and bulk/tail ESS of every sampled scalar (those of the fitted offset model:
        a constant shift changes neither)."""
        return self.diagnostics_table

    def problems(self) -> list[str]:
        """Convergence problems (r̂ > 1.01, ESS < 400, divergences); empty when fine."""
        return convergence_problems(self.diagnostics(), self.divergences)


def _change_options(level: str, draws: int, tune: int, chains: int, cores: int | None,
                    sampler: str, target_accept: float | None, data: str) -> dict[str, Any]:
    """The fit options shared by every fit of a comparison, checked before any work."""
    for name, value, allowed in (("level", level, LEVELS), ("data", data, DATA_MODES),
                                 ("sampler", sampler, SAMPLERS)):
        if value not in allowed:
            raise ValueError(f"{name}={value!r} is not one of {list(allowed)}")
    for name, value, minimum in (("draws", draws, 1), ("tune", tune, 0), ("chains", chains, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
            raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    options: dict[str, Any] = {"level": level, "data": data, "draws": int(draws),
                               "tune": int(tune), "chains": int(chains), "sampler": sampler}
    if cores is not None:
        options["cores"] = cores
    if target_accept is not None:
        options["target_accept"] = target_accept
    return options


def fit_change_model(
    table: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    level: str = "hierarchical",
    data: Literal["summary", "raw"] = "summary",
    draws: int = DEFAULT_DRAWS,
    tune: int = DEFAULT_TUNE,
    chains: int = DEFAULT_CHAINS,
    cores: int | None = None,
    random_seed: int | None = None,
    sampler: str = "pymc",
    target_accept: float | None = None,
    label: str = "embedding",
    reference_label: str = "reference",
    min_shared: float = DEFAULT_MIN_SHARED,
    warn: bool = True,
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
    level, data, draws, tune, chains, cores, random_seed, sampler, target_accept
        As for :func:`embias.bayes.fit_bias_model` (``target_accept=None`` keeps its
        default).
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
    if label == reference_label:
        raise ValueError(f"label and reference_label are both {label!r}; give the two "
                         "embeddings different names")
    aligned, _ = align_tables({reference_label: reference, label: table},
                              reference=reference_label, min_shared=min_shared)
    diff = difference_table(aligned[label], aligned[reference_label], label=label,
                            reference_label=reference_label)
    options = _change_options(level, draws, tune, chains, cores, sampler, target_accept, data)
    job = FitJob(_offset_table(diff), {**options, "random_seed": _check_seed(random_seed)},
                 label=f"change {label} − {reference_label}")
    fit = fit_many([job], progress=False, warn=warn)[0]
    return ChangeFit.from_offset_fit(fit, diff)


def _check_share(min_shared: float) -> float:
    if isinstance(min_shared, bool) or not isinstance(min_shared, int | float) \
            or not 0.0 < float(min_shared) <= 1.0:
        raise ValueError(f"min_shared must be a share in (0, 1], got {min_shared!r}")
    return float(min_shared)


# =========================================================================== classic
def _sub_mac(result: MacResult, connection: str) -> MacResult:
    if connection == "all":
        return result
    s = result.s_values[result.s_values["connection"] == connection]
    return dataclasses.replace(result, value=float(s["S"].mean()), s_values=s)


def classic_changes(
    tables: Mapping[str, pd.DataFrame],
    *,
    reference: str,
    ci_prob: float = CLASSIC_CI_PROB,
) -> pd.DataFrame:
    """Classic scores of every embedding and their changes against the reference.

    Per embedding: :func:`embias.bayes.classic_scores` (MAC overall and per connection
    with Student-t intervals, WEAT effect size per pair of protected classes). Per
    non-reference embedding: ``mac_change`` (MAC(e) − MAC(reference), overall and per
    connection) with the Student-t interval and p-value of Manzini et al.'s paired
    t-test over the S values (:func:`embias.mac_ttest`), and ``weat_change`` (difference
    of WEAT effect sizes; no interval).

    Returns
    -------
    pandas.DataFrame
        Interval table with ``embedding`` (and ``reference`` for change rows).
    """
    per = combine_interval_tables({label: classic_scores(t, ci_prob=ci_prob)
                                   for label, t in tables.items()}, key="embedding")
    per["reference"] = ""
    macs = {label: mac(t) for label, t in tables.items()
            if t["connection"].isin(["associated", "different"]).any()}
    mac_rows, weat_rows = [], []
    for label in tables:
        if label == reference:
            continue
        if label in macs and reference in macs:
            groups = ["all", *[c for c in ("associated", "different")
                               if (macs[reference].s_values["connection"] == c).any()]]
            for group in groups:
                before, after = _sub_mac(macs[reference], group), _sub_mac(macs[label], group)
                test = mac_ttest(before, after)  # tests before − after
                ci = test.confidence_interval(ci_prob)
                mac_rows.append({
                    "estimand": "mac_change", "group": group, "embedding": label,
                    "reference": reference, "estimate": -(ci.low + ci.high) / 2,
                    "lower": -ci.high, "upper": -ci.low, "p_value": float(test.pvalue),
                    "n_S": int(test.df) + 1, "mac_reference": before.value,
                    "mac_embedding": after.value,
                })
        weat_ref = per[(per["embedding"] == reference) & (per["estimand"] == "weat_effect_size")]
        weat_e = per[(per["embedding"] == label) & (per["estimand"] == "weat_effect_size")]
        both = weat_ref.merge(weat_e, on="group", suffixes=("_ref", "_e"))
        for _, row in both.iterrows():
            weat_rows.append({"estimand": "weat_change", "group": row["group"],
                              "embedding": label, "reference": reference,
                              "estimate": row["estimate_e"] - row["estimate_ref"],
                              "lower": np.nan, "upper": np.nan})
    parts = [per]
    if mac_rows:
        parts.append(interval_table(mac_rows, ci_prob=ci_prob, ci_kind="t"))
    if weat_rows:
        parts.append(interval_table(weat_rows, ci_prob=None, ci_kind="none"))
    return _concat(parts)


def _concat(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack interval tables with different extra columns; text gaps become ''."""
    parts = [p for p in parts if not p.empty]
    out = pd.concat(parts, ignore_index=True)
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]) and not pd.api.types.is_bool_dtype(
                out[col]):
            out[col] = out[col].astype(object).where(out[col].notna(), "").astype(str)
    return validate_interval_table(out)


# =========================================================================== comparison
@dataclass(frozen=True)
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
        return list(self.fits)

    def summary(
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
        intervals are Student-t at 95%, as labelled in ``ci_prob``/``ci_kind``).

        Parameters
        ----------
        ci_prob, ci_kind, rope
            As for :meth:`embias.bayes.BiasFit.summary` (Bayesian rows only).
        """
        opts = {"ci_prob": ci_prob, "ci_kind": ci_kind, "rope": rope}
        levels = combine_interval_tables({label: fit.summary(**opts)
                                          for label, fit in self.fits.items()},
                                         key="embedding")
        levels.insert(3, "reference", "")
        changes = [c.summary(**opts) for c in self.change_fits.values()]
        return _concat([levels, *changes, self.classic])

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
            diag = fit.diagnostics()
            rows.append({"fit": name, "max_r_hat": float(diag["r_hat"].max()),
                         "min_ess_bulk": float(diag["ess_bulk"].min()),
                         "min_ess_tail": float(diag["ess_tail"].min()),
                         "divergences": fit.divergences,
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
        """Forest plot of :meth:`summary` (:func:`plot_comparison`)."""
        if title is None:
            title = (f"{self.settings.get('study') or 'table'}: "
                     f"{' vs '.join(self.labels)} ({self.settings.get('level')})")
        return plot_comparison(self.summary(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope),
                               title=title)

    def __repr__(self) -> str:
        return (f"EmbeddingComparison(study={self.settings.get('study')!r}, "
                f"embeddings={self.labels}, reference={self.reference!r}, "
                f"rows={len(self.tables[self.reference])}, unmatched={len(self.unmatched)})")


def _resolve_tables(
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
    tables: dict[str, pd.DataFrame] = {}
    sizes: dict[str, int] = {}
    for label, source in embeddings.items():
        table, size = _source_table(label, source, st)
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


def compare_embeddings(
    embeddings: Mapping[str, EmbeddingSource],
    study: Study | str | None = None,
    *,
    reference: str | None = None,
    level: str = "hierarchical",
    data: Literal["summary", "raw"] = "summary",
    draws: int = DEFAULT_DRAWS,
    tune: int = DEFAULT_TUNE,
    chains: int = DEFAULT_CHAINS,
    random_seed: int | None = None,
    sampler: str = "pymc",
    target_accept: float | None = None,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    min_shared: float = DEFAULT_MIN_SHARED,
    require_same_dimension: bool = True,
    progress: bool = True,
    warn: bool = True,
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
    level, data, draws, tune, chains, sampler, target_accept
        Model and sampler settings of every fit (:func:`embias.bayes.fit_bias_model`).
    random_seed
        Seed of the comparison; every fit gets its own seed derived from it and its name
        (recorded in ``settings["seeds"]``), so a fit's draws do not depend on the other
        embeddings or on where it ran. ``None`` draws one.
    executor, max_workers
        Where the fits run (:func:`fit_many`): default a local process pool; e.g. a Dask
        cluster's ``client.get_executor()``.
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
    options = _change_options(level, draws, tune, chains, None, sampler, target_accept, data)
    seed = _check_seed(random_seed)
    min_shared = _check_share(min_shared)
    tables, st = _resolve_tables(embeddings, study,
                                 require_same_dimension=require_same_dimension)
    aligned, unmatched = align_tables(tables, reference=reference, min_shared=min_shared)
    others = [label for label in labels if label != reference]
    differences = {label: difference_table(aligned[label], aligned[reference], label=label,
                                           reference_label=reference) for label in others}
    study_name = st.name if st is not None else str(aligned[reference].attrs.get("study", ""))
    seeds = {f"fit {label}": _derived_seed(seed, "fit", label) for label in labels}
    seeds |= {f"change {label}": _derived_seed(seed, "change", label, reference)
              for label in others}
    jobs = [FitJob(aligned[label], {**options, "random_seed": seeds[f"fit {label}"]},
                   label=f"{study_name} {label}") for label in labels]
    jobs += [FitJob(_offset_table(differences[label]),
                    {**options, "random_seed": seeds[f"change {label}"]},
                    label=f"{study_name} change {label} − {reference}") for label in others]
    fits = fit_many(jobs, executor=executor, max_workers=max_workers, progress=progress,
                    warn=warn)
    level_fits = dict(zip(labels, fits[:len(labels)], strict=True))
    change_fits = {label: ChangeFit.from_offset_fit(fit, differences[label])
                   for label, fit in zip(others, fits[len(labels):], strict=True)}
    sources = {label: (s if isinstance(s, str) else type(s).__name__)
               for label, s in embeddings.items()}
    settings = {"study": study_name, "sources": sources, "reference": reference, **options,
                "random_seed": seed, "seeds": seeds, "min_shared": min_shared,
                "rows": len(aligned[reference]), "unmatched_rows": len(unmatched)}
    return EmbeddingComparison(
        fits=level_fits, change_fits=change_fits,
        classic=classic_changes(aligned, reference=reference),
        tables=aligned, unmatched=unmatched, reference=reference, settings=settings)


# =========================================================================== batches
def study_jobs(
    studies: Sequence[str | Study],
    embeddings: Mapping[str, EmbeddingSource],
    *,
    seeds: Sequence[int],
    **fit_options: Any,
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
    **fit_options
        Options of :func:`embias.bayes.fit_bias_model` (``level``, ``draws``, ``tune``,
        ``chains`` …); unknown names are an error.

    Returns
    -------
    list of FitJob
        Labelled ``"STUDY/EMBEDDING/seed=N"``, ready for :func:`fit_many`.
    """
    unknown = sorted(set(fit_options) - (set(_FIT_OPTIONS) - {"random_seed"}))
    if unknown:
        raise ValueError(f"unknown fit option(s) {unknown}; allowed: "
                         f"{[o for o in _FIT_OPTIONS if o != 'random_seed']}")
    seeds = list(seeds)
    if not seeds or not studies or not embeddings:
        raise ValueError("study_jobs() needs at least one study, embedding and seed")
    jobs = []
    for study in studies:
        tables, st = _resolve_tables(embeddings, study, require_same_dimension=False)
        for label, table in tables.items():
            for s in seeds:
                jobs.append(FitJob(table, {**fit_options, "random_seed": s},
                                   label=f"{st.name if st else study}/{label}/seed={s}"))
    return jobs


# =========================================================================== plot
def plot_comparison(summary: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Forest plot of a comparison's interval table, embeddings side by side.

    Left column: connection means and contrasts of every embedding (side by side), the
    change model's connection changes and contrast changes (ROPE shaded; classic MAC
    changes as hollow diamonds). Right column: one panel per protected class, every
    word's coefficient per connection with the embeddings side by side.

    Parameters
    ----------
    summary
        Output of :meth:`EmbeddingComparison.summary` (never recomputed here).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    validate_interval_table(summary)
    if "embedding" not in summary.columns:
        raise ValueError("plot_comparison() needs an interval table with an 'embedding' "
                         "column (EmbeddingComparison.summary())")
    est = summary["estimand"]
    words = summary[est == "word_coefficient"]
    classes = list(dict.fromkeys(words["protected_class"])) if not words.empty else []
    left = [p for p in ("connection_mean", "contrast", "change") if
            (est.str.startswith("change_") if p == "change" else est == p).any()]
    n_left, n_right = len(left), len(classes)
    n_rows = max(n_left, 1) * max(n_right, 1)
    fig = plt.figure(figsize=(14 if n_right else 7.5, max(8.0, 3.2 * max(n_left, n_right))))
    grid = fig.add_gridspec(n_rows, 2 if n_right else 1)
    span = n_rows // max(n_left, 1)
    rope = summary.loc[summary["rope"].notna(), "rope"] if "rope" in summary else pd.Series()
    rope_value = float(rope.iloc[0]) if len(rope) else None
    for i, panel in enumerate(left):
        ax = fig.add_subplot(grid[i * span:(i + 1) * span, 0])
        if panel == "connection_mean":
            plot_forest(summary, by="embedding", estimands=["connection_mean"], ax=ax,
                        title="connection means")
        elif panel == "contrast":
            if rope_value is not None:
                ax.axvspan(-rope_value, rope_value, color="grey", alpha=0.15, lw=0)
            plot_forest(summary, by="embedding", estimands=["contrast"], reference=0.0, ax=ax,
                        title="contrasts")
        else:
            changes = [e for e in ("change_connection_mean", "change_contrast") if (est == e).any()]
            part = summary[est.isin(changes)]
            macs = summary[est == "mac_change"]
            markers = pd.DataFrame({"estimand": "change_connection_mean",
                                    "group": macs["group"].to_numpy(),
                                    "value": macs["estimate"].to_numpy(),
                                    "label": [f"MAC {e}" for e in macs["embedding"]]})
            if rope_value is not None:
                ax.axvspan(-rope_value, rope_value, color="grey", alpha=0.15, lw=0)
            ref = str(part["reference"].iloc[0]) if "reference" in part else ""
            plot_forest(part, by="embedding", estimands=changes, reference=0.0,
                        markers=markers, ax=ax,
                        title=f"change vs {ref}, paired model (◇ = classic MAC change)")
    if n_right:
        span_r = n_rows // n_right
        axes = []
        for j, cls in enumerate(classes):
            ax = fig.add_subplot(grid[j * span_r:(j + 1) * span_r, 1])
            part = words[words["protected_class"] == cls]
            part = part.assign(estimand=part["protected_word"], group=part["connection"])
            plot_forest(part, by="embedding", ax=ax,
                        title=f"{cls or 'protected words'}: word coefficients")
            axes.append(ax)
        low = min(a.get_xlim()[0] for a in axes)
        high = max(a.get_xlim()[1] for a in axes)
        for a in axes:
            a.set_xlim(low, high)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig

