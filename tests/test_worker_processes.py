"""The local pool of fresh Python processes behind ``fit_many(max_workers=N)``: results
and errors come back, a dying worker is reported, and nothing is forked."""

from __future__ import annotations

import math
import operator
import os
import subprocess
import sys
import textwrap

import pytest

from embias._workers import WorkerProcesses


def test_calls_run_in_other_processes_and_return_their_results() -> None:
    pool = WorkerProcesses(2)
    try:
        assert pool.submit(math.factorial, 20).result() == 2432902008176640000
        pids = {pool.submit(os.getpid).result() for _ in range(4)}
        assert os.getpid() not in pids and 1 <= len(pids) <= 2
        # what a call prints goes to the worker's stderr, not into the reply
        assert pool.submit(print, "noise", 3).result() is None
        assert list(pool.map(operator.mul, [2, 3], [5, 7])) == [10, 21]
    finally:
        pool.shutdown()


def test_an_error_in_a_call_is_raised_in_the_caller_and_the_worker_lives_on() -> None:
    with WorkerProcesses(1) as pool:
        with pytest.raises(ZeroDivisionError):
            pool.submit(operator.truediv, 1, 0).result()
        assert pool.submit(operator.add, 2, 2).result() == 4


def test_a_worker_that_dies_is_reported_with_its_exit_status() -> None:
    with WorkerProcesses(1) as pool:
        with pytest.raises(RuntimeError, match=r"worker process ended \(exit status 3\)"):
            pool.submit(os._exit, 3).result()
        assert pool.submit(operator.add, 1, 1).result() == 2  # a new worker took its place


def test_a_pool_needs_at_least_one_worker() -> None:
    with pytest.raises(ValueError, match="max_workers must be at least 1, got 0"):
        WorkerProcesses(0)


def test_an_unguarded_script_using_the_pool_runs_once_and_forks_nothing(tmp_path) -> None:
    script = tmp_path / "plain.py"  # no __main__ guard, on purpose
    script.write_text(textwrap.dedent("""
        import math, os
        os.register_at_fork(before=lambda: print("FORK", flush=True))
        print("SCRIPT RUN", flush=True)
        from embias._workers import WorkerProcesses
        with WorkerProcesses(2) as pool:
            print(sum(pool.map(math.factorial, range(10))), flush=True)
    """), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == ["SCRIPT RUN", str(sum(map(math.factorial,
                                                                     range(10))))]
    assert "FORK" not in run.stdout


def test_a_fit_with_pymcs_sampler_forks_nothing(tmp_path) -> None:
    """PyMC samples parallel chains in forked processes; embias runs them one after
    another in this process (the same draws for a seed)."""
    script = tmp_path / "pymc_fit.py"
    script.write_text(textwrap.dedent("""
        import os
        os.register_at_fork(before=lambda: print("FORK", flush=True))
        import embias
        table = embias.load_published_table("religion", "reddit")
        fit = embias.fit_bias_model(table, level="dataset", sampler="pymc", chains=2,
                                    cores=2, draws=60, tune=60, random_seed=1,
                                    progress=False, warn=False)
        print(fit.posterior.posterior.sizes["chain"], flush=True)
    """), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["2"], run.stdout
