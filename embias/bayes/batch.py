"""Run batches of fits: :func:`fit_many`.

A :class:`~embias.bayes.jobs.FitJob` is a pure (table, settings, seed) job; :func:`fit_many`
runs a batch of them in this process, a local process pool or any executor. The jobs and
the functions a worker runs on them (``embias.bayes.jobs.run_fit_job``,
``embias.bayes.jobs.run_fit_chunk``) are in :mod:`embias.bayes.jobs`; this module
re-exports them.

Running fits elsewhere
----------------------
Every fit is a pure function of (table, settings, seed) — :class:`FitJob` — so the
draws do not depend on where it ran. :func:`fit_many` runs a batch of jobs with a tqdm
progress bar: by default one after another in this process (each fit runs its chains in
parallel), which works from a plain script without an ``if __name__ == "__main__":``
guard, a script piped on stdin, ``python -c`` and a notebook; a local process pool with
``max_workers=N`` (fresh Python processes: nothing is forked and an unguarded script is
not re-run; :class:`embias._workers.WorkerProcesses`), or any
``concurrent.futures.Executor`` — e.g. a Dask cluster through
``client.get_executor()``::

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")          # dask scheduler / dask worker
    result = compare_embeddings({...}, "religion", executor=client.get_executor())

On a real cluster start ``dask scheduler`` on one machine and ``dask worker
tcp://scheduler:8786 --nworkers N --nthreads 1`` on each machine, with embias installed
in the same environment everywhere. Use one thread per worker process: PyMC and PyTensor
are not thread-safe (fits sampled in threads of one process can give different draws
for the same seed, or hang while compiling), so :func:`run_fit_job` runs the fits of one
process one at a time — extra threads only wait. Only the cosine tables and
settings travel to the workers; embeddings are loaded and tables built on the client.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import itertools
import os
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._progress import progress_wanted
from .._validation import check_int
from .._workers import WorkerProcesses
from ..settings import BATCH_SAMPLER
from .diagnostics import ConvergenceWarning
from .fit import BiasFit
from .jobs import FitJob, batch_settings, derived_seed, run_fit_chunk, run_fit_job

__all__ = ["FitJob", "batch_settings", "derived_seed", "fit_many", "run_fit_chunk", "run_fit_job"]


#: Fits per compiled program when a batch runs in this process. A program runs a few
#: chains per lane one after another (``embias.bayes.batch_sampling.lanes_at_once``);
#: the more chains, the smaller the share of the program's tail, where lanes whose chains
#: are all done wait for the last ones.
LOCAL_CHUNK = 256
#: Fits per chunk sent to an executor's worker (each chunk one compiled program there).
EXECUTOR_CHUNK = 64


def _batchable(job: FitJob) -> bool:
    return job.settings.sampler in ("auto", BATCH_SAMPLER)


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
        shut down here. ``None`` (default): the fits run one after another in this
        process (each with its chains in parallel, ``cores = min(chains, CPUs)`` unless
        the job sets it), or in a local pool of fresh Python processes when
        ``max_workers`` > 1.
    max_workers
        Size of a local process pool (only without ``executor``); default ``None`` (no
        pool: this process).
    progress
        Show a tqdm progress bar over the fits.
    warn
        Emit one :class:`~embias.bayes.ConvergenceWarning` per fit that fails a
        convergence check (r̂ > 1.01, ESS < 400, divergences), naming the fit by its index
        in ``jobs`` and its label.

    Returns
    -------
    list of BiasFit
        In the order of ``jobs``. A fit depends on its job and on the width of the batch
        program that runs it: the same bits locally and on any cluster for programs of the
        same width, within Monte Carlo error otherwise.

    Raises
    ------
    ValueError
        No jobs, something that is not a FitJob, a bad ``max_workers`` or an ``executor``
        without ``submit`` and ``shutdown``; errors of a fit are re-raised with a note
        naming its job.

    Examples
    --------
    Two seeds of the religion study on the authors' Reddit table, at tiny settings (far
    too few draws for real use): the fits come back in the order of the jobs, sampled
    together — their 2 × 2 chains as lanes of one program:

    >>> import embias
    >>> from embias import FitSettings
    >>> table = embias.study_table("religion", "published:reddit")
    >>> jobs = [FitJob(table, FitSettings.for_batch(draws=100, tune=100, random_seed=seed),
    ...                label=f"seed {seed}") for seed in (1, 2)]
    >>> fits = fit_many(jobs, progress=False, warn=False)
    >>> len(fits), [fit.settings["random_seed"] for fit in fits]
    (2, [1, 2])
    >>> [fit.settings["sampler"] for fit in fits]
    ['embias', 'embias']
    >>> posterior = fits[0].posterior["posterior"]
    >>> posterior.sizes["chain"], posterior.sizes["draw"], posterior.sizes["connection"]
    (2, 100, 4)
    >>> fits[0].posterior["sample_stats"].attrs["batch_lanes"]
    4

    An empty batch is refused:

    >>> fit_many([])
    Traceback (most recent call last):
    ...
    ValueError: fit_many() needs at least one FitJob, got none
    """
    jobs = list(jobs)
    if not jobs:
        raise ValueError("fit_many() needs at least one FitJob, got none")
    bad = [type(j).__name__ for j in jobs if not isinstance(j, FitJob)]
    if bad:
        raise ValueError(f"fit_many() takes FitJob objects, got {bad[:3]}")
    if max_workers is not None:
        max_workers = check_int("max_workers", max_workers, minimum=1)
    if executor is not None and not all(hasattr(executor, m) for m in ("submit", "shutdown")):
        raise ValueError(f"executor must have the concurrent.futures.Executor interface "
                         f"(submit, shutdown), got {type(executor).__name__}")
    from tqdm import tqdm

    workers = min(max_workers or 1, len(jobs))
    results: list[BiasFit | None] = [None] * len(jobs)
    together = [i for i, job in enumerate(jobs) if _batchable(job)]
    alone = [i for i in range(len(jobs)) if i not in set(together)]
    bar = tqdm(total=len(jobs), desc="fits", unit="fit",
               disable=not progress_wanted(progress))
    try:
        if together:
            _run_together(jobs, together, results, bar, executor=executor,
                          max_workers=max_workers)
        if executor is None and workers == 1:
            for i in alone:
                job = jobs[i]
                bar.set_postfix_str(job.label)
                if max_workers is None and job.settings.cores == 1:
                    # in this process: the chains of each fit run in parallel
                    job = dataclasses.replace(job, settings=dataclasses.replace(
                        job.settings, cores=min(job.settings.chains, os.cpu_count() or 1)))
                try:
                    results[i] = run_fit_job(job)
                except Exception as exc:
                    exc.add_note(_where(jobs, [i]))
                    raise
                bar.update()
        elif alone:
            _run_elsewhere(_fit_each, [[i] for i in alone], jobs, results, bar,
                           executor=executor, workers=workers)
    finally:
        bar.close()
    fits = [r for r in results if r is not None]
    if warn:
        for i, (job, fit) in enumerate(zip(jobs, fits, strict=True)):
            problems = fit.problems()
            if problems:
                warnings.warn(f"fit {i} ({job.label!r}): " + "; ".join(problems),
                              ConvergenceWarning, stacklevel=2)
    return fits


def _run_together(jobs: Sequence[FitJob], indices: list[int], results: list[BiasFit | None],
                  bar: Any, *, executor: cf.Executor | None, max_workers: int | None) -> None:
    """Run the jobs at ``indices`` with the batch NUTS, in chunks.

    Here one chunk after another, or chunks sent to ``executor`` (or a local pool of
    ``max_workers``).
    """
    remote = executor is not None or (max_workers or 1) > 1
    size = EXECUTOR_CHUNK if remote else LOCAL_CHUNK
    if remote and max_workers and executor is None:
        size = max(1, min(size, -(-len(indices) // max_workers)))
    # chunks of equal size (the last is not a small remainder): one compiled program
    # serves them all (embias.bayes.batch_sampling.lane_bucket)
    count = -(-len(indices) // size)
    bounds = np.linspace(0, len(indices), count + 1).round().astype(int)
    chunks = [indices[a:b] for a, b in itertools.pairwise(bounds)]

    if not remote:
        for chunk in chunks:
            before = bar.n

            def moved(done: float, before: float = before, size: int = len(chunk)) -> None:
                bar.n = before + round(done * size, 1)
                bar.refresh()

            try:
                fits = run_fit_chunk([jobs[i] for i in chunk],
                                     progress=moved if not bar.disable else None)
            except Exception as exc:
                exc.add_note(_where(jobs, chunk))
                raise
            for i, fit in zip(chunk, fits, strict=True):
                results[i] = fit
            bar.n = before
            bar.update(len(chunk))
        return
    _run_elsewhere(run_fit_chunk, chunks, jobs, results, bar, executor=executor,
                   workers=min(max_workers or 1, len(chunks)))


def _fit_each(jobs: Sequence[FitJob]) -> list[BiasFit]:
    """:func:`run_fit_job` on each job, one after another (a task of an executor)."""
    return [run_fit_job(job) for job in jobs]


def _where(jobs: Sequence[FitJob], group: Sequence[int]) -> str:
    """Return the note an error of the fits at ``group`` carries: which jobs they are."""
    if len(group) == 1:
        return f"while fitting job {group[0]} ({jobs[group[0]].label!r})"
    return (f"while fitting jobs {group[0]}–{group[-1]} together "
            f"({jobs[group[0]].label!r} …)")


def _run_elsewhere(task: Callable[[list[FitJob]], list[BiasFit]], groups: list[list[int]],
                   jobs: Sequence[FitJob], results: list[BiasFit | None], bar: Any, *,
                   executor: cf.Executor | None, workers: int) -> None:
    """Run ``task`` on the jobs of each group elsewhere.

    The groups are sent to ``executor`` (or, without one, to a local pool of ``workers``
    fresh processes); each group's fits go to ``results`` as it completes. An error
    cancels the groups not started and carries a note naming its jobs.
    """
    own = executor is None
    pool: cf.Executor = WorkerProcesses(workers) if executor is None else executor
    futures = {pool.submit(task, [jobs[i] for i in group]): group for group in groups}
    try:
        for future in cf.as_completed(futures):
            group = futures[future]
            try:
                fits = future.result()
            except Exception as exc:
                exc.add_note(_where(jobs, group))
                raise
            for i, fit in zip(group, fits, strict=True):
                results[i] = fit
            bar.set_postfix_str(jobs[group[-1]].label)
            bar.update(len(group))
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
