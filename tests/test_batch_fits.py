"""Fits run together (fit_many's batch path, sampler="auto"/"embias") against fits run
alone: the same draws wherever a job runs, the same posterior within Monte Carlo error
as numpyro's."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest
from mcmc_bounds import max_divergences, max_rhat_bound

from embias.bayes import FitJob, fit_many
from embias.bayes.batch import run_fit_chunk
from embias.settings import FitSettings

pytestmark = pytest.mark.xdist_group("batch")

SMALL = {"tune": 300, "draws": 600}


@pytest.fixture(scope="module")
def population_tables() -> list[pd.DataFrame]:
    from embias.calibration import draw_population_studies
    from embias.embeddings import load_embeddings
    from embias.tables import cosine_table

    kv = load_embeddings("glove-6b-50d")
    studies = draw_population_studies("sentiment", n_studies=3, random_seed=7)
    return [cosine_table(kv, s, missing="raise", embedding_name="glove-6b-50d")
            for s in studies]


@pytest.fixture(scope="module")
def together(population_tables) -> list:
    jobs = [FitJob(t, FitSettings(random_seed=10 + i, **SMALL), label=f"study {i}")
            for i, t in enumerate(population_tables)]
    return fit_many(jobs, progress=False, warn=False)


def _means(fit) -> np.ndarray:
    return fit.posterior["posterior"]["connection_mean"].values


def test_fits_run_together_use_the_batch_sampler_and_record_it(together) -> None:
    for fit in together:
        assert fit.settings["sampler"] == "embias"
        assert fit.posterior["posterior"].sizes == {"chain": 2, "draw": 600,
                                                   "connection": 3, **{
            k: v for k, v in fit.posterior["posterior"].sizes.items()
            if k not in ("chain", "draw", "connection")}}
        stats = fit.posterior["sample_stats"]
        assert {"diverging", "n_steps", "acceptance_rate", "energy", "tree_depth", "lp",
                "step_size"} <= set(stats.data_vars)
        # crossed level: each compared word's effect and log-likelihood, as for fits alone
        assert "word_effect" in fit.posterior["posterior"]
        assert "compared_word" in fit.posterior["log_likelihood"]


def test_a_job_gives_the_same_draws_in_any_batch_of_the_same_width(population_tables,
                                                                    together) -> None:
    """Three fits (6 chains) and two (4) both run 8 lanes: job 1's draws are the same bits
    whatever runs beside it."""
    pair = run_fit_chunk([FitJob(population_tables[1], FitSettings(random_seed=11, **SMALL),
                                 label="again"),
                          FitJob(population_tables[0], FitSettings(random_seed=10, **SMALL),
                                 label="beside")])
    np.testing.assert_array_equal(_means(pair[0]), _means(together[1]))
    assert pair[0].posterior["sample_stats"].attrs["batch_lanes"] == 4


def test_a_batch_fit_draws_its_word_effects_when_first_used_as_a_fit_alone_does(
        population_tables) -> None:
    from embias import fit_bias_model

    settings = FitSettings(random_seed=12, **SMALL)
    [batch] = run_fit_chunk([FitJob(population_tables[2], settings, label="batch")])
    # the checks and the connection means need no compared-word effects: not drawn yet
    assert batch.problems() is not None
    assert "word_effect" not in batch.sampled["posterior"]
    alone = fit_bias_model(population_tables[2],
                           settings=dataclasses.replace(settings, sampler="embias"),
                           progress=False, warn=False)
    assert "word_effect" in alone.sampled["posterior"]
    # an interval table draws them (it reports every compared word) …
    table = batch.to_interval_table()
    assert table["estimand"].eq("compared_word_effect").sum() == alone.posterior[
        "posterior"].sizes["word_to_compare"]
    # … with the seed of the fit: the same draws as the fit sampled alone
    np.testing.assert_array_equal(batch.posterior["posterior"]["word_effect"].values,
                                  alone.posterior["posterior"]["word_effect"].values)
    pd.testing.assert_frame_equal(table, alone.to_interval_table())


def test_the_batch_posterior_matches_numpyros_within_monte_carlo_error(
        population_tables, together) -> None:
    import arviz as az

    from embias.bayes import fit_bias_model

    single = fit_bias_model(population_tables[0], random_seed=3, sampler="numpyro",
                            progress=False, warn=False, **SMALL)
    assert single.settings["sampler"] == "numpyro"
    for name in ("connection_mean", "tau", "sigma"):
        a = together[0].posterior["posterior"][name]
        b = single.posterior["posterior"][name]
        for idx in np.ndindex(a.shape[2:]):
            xa, xb = a.values[(..., *idx)], b.values[(..., *idx)]
            se = np.sqrt(xa.var() / float(az.ess(xa)) + xb.var() / float(az.ess(xb)))
            assert abs(xa.mean() - xb.mean()) < 4.5 * se, (name, idx)


def test_batch_fits_pass_their_own_convergence_bounds(together) -> None:
    for fit in together:
        diag = fit.diagnostics()
        assert diag["r_hat"].max() <= max_rhat_bound(diag["ess_bulk"].min(), len(diag))
        assert fit.divergences <= max_divergences(600, 2)


def test_jobs_of_every_level_run_together_and_an_asked_sampler_runs_alone(
        population_tables) -> None:
    jobs = [FitJob(population_tables[0], FitSettings(level="word", random_seed=1, **SMALL)),
            FitJob(population_tables[1], FitSettings(random_seed=11, **SMALL)),
            FitJob(population_tables[1], FitSettings(random_seed=11, sampler="numpyro",
                                                     **SMALL))]
    fits = fit_many(jobs, progress=False, warn=False)
    assert [f.settings["sampler"] for f in fits] == ["embias", "embias", "numpyro"]
    assert [f.level for f in fits] == ["word", "crossed", "crossed"]


def test_a_dask_cluster_gives_the_same_draws_as_this_process(population_tables,
                                                             together) -> None:
    import dask.distributed as distributed

    jobs = [FitJob(t, FitSettings(random_seed=10 + i, **SMALL), label=f"study {i}")
            for i, t in enumerate(population_tables)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = fit_many(jobs, executor=client.get_executor(), progress=False, warn=False)
    for a, b in zip(together, remote, strict=True):
        if not _reassociating_math():
            np.testing.assert_array_equal(_means(a), _means(b))
            continue
        # XLA may reorder sums under fast math: the same program can round differently
        # from run to run, so the chains part after some steps; the two runs then agree
        # within their Monte Carlo errors (4 se of the difference, per connection)
        import arviz_stats

        mean_a, mean_b = _means(a).mean(axis=(0, 1)), _means(b).mean(axis=(0, 1))
        se = np.hypot(*(arviz_stats.mcse(f.posterior["posterior"]["connection_mean"]
                                         ).values for f in (a, b)))
        assert np.all(np.abs(mean_a - mean_b) <= 4 * se), (mean_a, mean_b, se)


def _reassociating_math() -> bool:
    """Whether this process's XLA flags let the compiler reorder floating-point sums."""
    import os

    flags = os.environ.get("XLA_FLAGS", "").replace(" ", "").lower()
    return "--xla_cpu_enable_fast_math=true" in flags


def test_a_batch_reports_its_progress_while_it_samples(population_tables) -> None:
    reports: list[float] = []
    run_fit_chunk([FitJob(population_tables[2], FitSettings(random_seed=12, **SMALL))],
                  progress=reports.append)
    # reported every 2,048 program steps (~18,000 here: 900 iterations of ~20 leapfrog
    # steps), as a share of the iterations done: rising, within (0, 1]
    assert len(reports) >= 3
    assert all(0 <= a <= b <= 1 for a, b in itertools.pairwise(reports))
    assert reports[-1] > 0.5
