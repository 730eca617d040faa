"""One fit as a job, and what a worker runs: :class:`FitJob` and the functions that fit jobs.

A :class:`FitJob` is a pure (table, settings, seed) job. :func:`run_fit_job` fits one alone
and ``run_fit_chunk`` fits several together with embias's batch NUTS (the functions an
executor's worker calls; :func:`embias.bayes.batch.fit_many` sends them the jobs);
``batch_settings`` gives the settings a job runs with in a batch, and
``derived_seed`` a fit's seed from a batch seed and the fit's name.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import hashlib
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import pandas as pd

from ..settings import BATCH_SAMPLER, FitSettings
from .diagnostics import ConvergenceWarning
from .fit import BiasFit, finish_fit, fit_bias_model, prepare_fit
from .sampling import complete_crossed_draws, sample_posteriors

__all__ = ["FitJob", "batch_settings", "derived_seed", "run_fit_chunk", "run_fit_job"]


@dataclass(frozen=True)
class FitJob:
    """One fit: a cosine table, its settings (with a seed) and a label.

    Everything the fit's result depends on, with the width of the batch program that
    runs it (:func:`embias.fit_many`): the same job gives the same draws in this process,
    in a local process pool or on any cluster when its program has the same width.

    Parameters
    ----------
    table
        Long-form cosine table to fit.
    settings
        :class:`~embias.FitSettings` (a mapping of its fields is converted);
        ``random_seed`` is required (a fit must be reproducible wherever it runs) and
        ``cores`` defaults to 1 (chains run one after another inside a worker; the
        executor provides the parallelism — the draws are the same for any ``cores``).
    label
        Name shown in progress bars, warnings and errors.

    Raises
    ------
    ValueError
        ``table`` is not a pandas DataFrame, ``settings`` is neither a
        :class:`~embias.FitSettings` nor a mapping of valid fields, or it has no
        ``random_seed``; the message names the job's label.

    Examples
    --------
    A mapping of settings becomes a :class:`~embias.FitSettings`, with one core:

    >>> import pandas as pd
    >>> table = pd.DataFrame({"protected_word": ["judaism"], "word_to_compare": ["good"],
    ...                       "connection": ["jewish-good"], "cosine_distance": [0.7]})
    >>> job = FitJob(table, {"random_seed": 1, "draws": 500}, label="religion")
    >>> job.settings.random_seed, job.settings.draws, job.settings.cores
    (1, 500, 1)

    Without a seed the job is refused:

    >>> FitJob(table, FitSettings(), label="religion")
    Traceback (most recent call last):
    ...
    ValueError: FitJob 'religion': random_seed must be a non-negative integer (fits must
    be reproducible wherever they run), got None
    """

    table: pd.DataFrame = field(repr=False)
    settings: FitSettings
    label: str = ""

    def __post_init__(self) -> None:
        """Check the table and settings; convert a mapping of settings; set ``cores``."""
        if not isinstance(self.table, pd.DataFrame):
            raise ValueError(f"FitJob {self.label!r}: table must be a pandas DataFrame, got "
                             f"{type(self.table).__name__}")
        settings = self.settings
        if isinstance(settings, Mapping):
            try:
                settings = FitSettings.build(**settings)
            except ValueError as exc:
                raise ValueError(f"FitJob {self.label!r}: {exc}") from None
        elif not isinstance(settings, FitSettings):
            raise ValueError(f"FitJob {self.label!r}: settings must be a FitSettings, got "
                             f"{type(settings).__name__}")
        if settings.random_seed is None:
            raise ValueError(f"FitJob {self.label!r}: random_seed must be a non-negative "
                             "integer (fits must be reproducible wherever they run), got None")
        if settings.cores is None:
            settings = dataclasses.replace(settings, cores=1)
        object.__setattr__(self, "settings", settings)


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


#: One fit at a time per process: PyMC/PyTensor are not thread-safe — fits sampled in
#: threads of one process (e.g. a Dask worker with several threads) can give different
#: draws for the same seed, or hang while compiling.
_FIT_LOCK = threading.Lock()


def run_fit_job(job: FitJob) -> BiasFit:
    """Run one :class:`FitJob` alone (the function an executor calls for a single fit).

    Pure in (table, settings). Fits in one process run one at a time (see ``_FIT_LOCK``);
    convergence warnings are left to the caller (:func:`fit_many`).

    Parameters
    ----------
    job
        The fit to run.

    Returns
    -------
    BiasFit
        The fit, with its sampler's draws (``sampler="auto"``: numpyro, the sampler of a
        fit run alone).

    Raises
    ------
    ValueError
        As :func:`~embias.fit_bias_model` for a bad table or settings.

    Examples
    --------
    A table that is not a cosine table is refused before anything is sampled:

    >>> import pandas as pd
    >>> table = pd.DataFrame({"word": ["good"], "cosine_distance": [0.7]})
    >>> run_fit_job(FitJob(table, {"random_seed": 1}, label="not a cosine table"))
    Traceback (most recent call last):
    ...
    ValueError: table given to fit_bias_model() lacks columns ['protected_word',
    'word_to_compare', 'connection']; a cosine table needs ['protected_word',
    'word_to_compare', 'connection', 'cosine_distance'] (it has ['word', 'cosine_distance'])
    """
    with _FIT_LOCK, _quiet_pymc(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit_bias_model(job.table, settings=job.settings, progress=False, warn=False)


def batch_settings(settings: FitSettings) -> FitSettings:
    """Return the resolved settings a job runs with in a batch.

    ``sampler="auto"`` becomes embias's batch NUTS (``"embias"``); then as
    :meth:`~embias.FitSettings.resolved`.

    Parameters
    ----------
    settings
        A job's settings.

    Returns
    -------
    FitSettings
        The settings with a concrete sampler (and a seed and ``cores``).

    Examples
    --------
    >>> batch_settings(FitSettings(random_seed=3)).sampler
    'embias'
    >>> batch_settings(FitSettings(random_seed=3, sampler="numpyro")).sampler
    'numpyro'
    """
    if settings.sampler == "auto":
        settings = dataclasses.replace(settings, sampler=BATCH_SAMPLER)
    return settings.resolved()


def run_fit_chunk(jobs: Sequence[FitJob], *,
                  progress: Callable[[float], None] | None = None) -> list[BiasFit]:
    """Run jobs together with embias's batch NUTS (the function a worker calls for a chunk).

    Tables of one shape run in one compiled program
    (:func:`embias.bayes.batch_sampling.sample_tables`). Pure in the jobs: a job's draws
    do not depend on the chunk it is in.

    Parameters
    ----------
    jobs
        The fits to run; ``sampler="auto"`` runs as ``"embias"`` (``batch_settings``).
    progress
        Called now and then with the share of the sampling done.

    Returns
    -------
    list of BiasFit
        In the order of ``jobs``, their convergence checks computed.

    Raises
    ------
    ValueError
        No jobs; a job's table or settings cannot be fitted (as
        :func:`~embias.fit_bias_model`), with a note naming the job.

    Examples
    --------
    A job whose table is not a cosine table stops the chunk before anything is sampled;
    the error names the job:

    >>> import pandas as pd
    >>> table = pd.DataFrame({"word": ["good"], "cosine_distance": [0.7]})
    >>> run_fit_chunk([FitJob(table, {"random_seed": 1}, label="not a cosine table")])
    Traceback (most recent call last):
    ...
    ValueError: table given to fit_bias_model() lacks columns ['protected_word', ...)
    while fitting job 'not a cosine table'
    """
    import time

    jobs = list(jobs)
    if not jobs:
        raise ValueError("run_fit_chunk() needs at least one FitJob, got none")
    with _FIT_LOCK:
        start = time.perf_counter()
        items, runs = [], []
        for job in jobs:
            run = batch_settings(job.settings)
            try:
                cells, centred = prepare_fit(job.table, run)
            except Exception as exc:
                exc.add_note(f"while fitting job {job.label!r}")
                raise
            items.append((cells, job.table, run, centred))
            runs.append(run)
        built = time.perf_counter()
        # the crossed level's compared-word effects are drawn when an interval table or
        # fit.posterior first needs them: a batch's checks and connection means do not
        trees = sample_posteriors(items, progress=progress, word_effects=False)
        share = (time.perf_counter() - built) / len(jobs)
        fits = [finish_fit(tree, table, cells, run, centred, deferred=True,
                           complete=functools.partial(complete_crossed_draws, cells=cells,
                                                      run=run, table=table),
                           timings={"build_seconds": (built - start) / len(jobs),
                                    "sample_seconds": share})
                for tree, (cells, table, run, centred) in zip(trees, items, strict=True)]
        # the convergence checks of every fit, on the machine's cores (NumPy's sorts and
        # FFTs release the GIL)
        with cf.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            list(pool.map(lambda fit: fit.diagnostics(), fits))
        return fits


def derived_seed(seed: int, *parts: str) -> int:
    """Return a seed for one fit, from the batch seed and the fit's name.

    The first 4 bytes of the SHA-256 of ``"seed|part|part…"``, modulo 2³¹: the same on
    every machine and Python version (unlike ``hash``), different for different names.

    Parameters
    ----------
    seed
        The batch's seed.
    *parts
        The fit's name (e.g. study and embedding).

    Returns
    -------
    int
        A seed in [0, 2³¹).

    Examples
    --------
    >>> derived_seed(1, "religion", "glove-6b-50d")
    238340163
    >>> import hashlib
    >>> digest = hashlib.sha256(b"1|religion|glove-6b-50d").digest()
    >>> int.from_bytes(digest[:4], "big") % 2**31
    238340163
    >>> derived_seed(2, "religion", "glove-6b-50d")
    381962745
    """
    text = "|".join([str(int(seed)), *parts]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big") % (2**31)


