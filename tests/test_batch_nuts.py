"""embias's batch NUTS kernel (embias.bayes.batch_nuts) against exact answers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

jax = pytest.importorskip("jax")

from embias.bayes.batch_nuts import (  # noqa: E402
    adaptation_schedule,
    dense_metric,
    last_window,
    run_lanes,
)


@pytest.fixture(autouse=True, scope="module")
def _float64():
    # the batch sampler runs PyMC's float64 graphs; importing PyMC's JAX linker does this
    import pymc.sampling.jax  # noqa: F401

    assert jax.config.jax_enable_x64


def _potential(scales: np.ndarray):
    import jax.numpy as jnp

    def potential(z, data):
        return 0.5 * jnp.sum((z / data) ** 2)

    return potential, jnp.asarray(scales)


@pytest.mark.parametrize("seed", [0, 1])
def test_one_kernel_step_leaves_the_target_distribution_invariant(seed: int) -> None:
    # lanes start from exact draws of N(0, diag(s²)); one NUTS transition with a fixed
    # step size and mass must give exact draws again — checked on 20,000 independent lanes
    # by Kolmogorov–Smirnov per coordinate (a wrong tree, direction or multinomial weight
    # breaks the invariance: the direction bug once found here gave variances 9% high)
    scales = np.array([1.0, 3.0, 0.3])
    lanes = 20_000
    rng = np.random.default_rng(seed)
    start = rng.normal(size=(lanes, 3)) * scales
    potential, scale_data = _potential(scales)
    data = np.broadcast_to(np.asarray(scale_data), (lanes, 3))
    seeds = rng.integers(0, 2**63, size=lanes).astype(np.uint64)
    out = run_lanes(potential, data, start, np.ones((lanes, 3)), seeds, tune=0, draws=2,
                    step_size=0.25)
    for draw in (0, 1):
        z = out.positions[:, draw, :] / scales
        p_values = [stats.kstest(z[:, j], "norm").pvalue for j in range(3)]
        assert min(p_values) > 1e-4, p_values
        # the variance of a N(0, 1) sample of n has sd √(2/n)
        assert np.all(np.abs(z.var(axis=0) - 1.0) < 4.5 * np.sqrt(2.0 / lanes))
    # trees of several depths were built (a step size small for the widest coordinate)
    assert out.stats["tree_depth"].max() >= 4


@pytest.mark.parametrize("dense", [False, True])
def test_warm_up_finds_a_correlated_gaussian_within_monte_carlo_error(dense: bool) -> None:
    import arviz as az
    import jax.numpy as jnp

    rng = np.random.default_rng(5)
    a = rng.normal(size=(4, 4))
    cov = a @ a.T / 4 + np.diag([0.01, 0.5, 2.0, 4.0])
    precision = jnp.asarray(np.linalg.inv(cov))
    lanes = 8

    def potential(z, data):
        return 0.5 * (z - data) @ precision @ (z - data)

    mean = np.array([1.0, -2.0, 0.0, 5.0])
    out = run_lanes(potential, np.tile(mean, (lanes, 1)), np.zeros((lanes, 4)),
                    np.ones((lanes, 4)), np.arange(lanes, dtype=np.uint64) + 11,
                    tune=600, draws=2000, dense=dense)
    z = out.positions                                               # (lane, draw, dim)
    for j in range(4):
        ess = float(az.ess(z[:, :, j]))
        se = np.sqrt(cov[j, j] / ess)
        assert abs(z[:, :, j].mean() - mean[j]) < 4.5 * se
        square = (z[:, :, j] - mean[j]) ** 2
        se2 = square.std() / np.sqrt(float(az.ess(square)))
        assert abs(square.mean() - cov[j, j]) < 4.5 * se2
    assert out.stats["diverging"].sum() == 0 or out.stats["diverging"].mean() < 0.005
    # each lane ran its own leapfrog steps; the program ran as long as the slowest lane
    assert out.program_steps == out.leapfrog_steps.max()
    assert out.leapfrog_steps.min() < out.program_steps


def test_the_dense_metric_is_stans_regularised_window_covariance() -> None:
    rng = np.random.default_rng(3)
    window = rng.normal(size=(40, 3)) @ np.array([[1.0, 0.5, 0.0], [0.0, 2.0, 0.3],
                                                  [0.0, 0.0, 0.1]])
    mean, chol = dense_metric(window)
    n = len(window)
    expected = n / (n + 5) * np.cov(window.T) + 1e-3 * 5 / (n + 5) * np.eye(3)
    np.testing.assert_allclose(np.asarray(mean), window.mean(0), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(chol) @ np.asarray(chol).T, expected, rtol=1e-10)
    # the window is the warm-up's last slow one: for 500 iterations 250–449 (Stan)
    assert last_window(500) == (250, 200)
    assert last_window(10) is None


def test_a_dense_mass_matrix_lets_nuts_take_the_whitened_step_size() -> None:
    """On a Gaussian with correlation 0.99 a diagonal mass matrix leaves directions with
    sd √(1 − ρ) = 0.1 of the marginal ones, which bound the step size; the dense one makes
    the target isotropic, so the adapted step size grows by about 1/√(1 − ρ) = 10 (more
    than 3 is asked) and the draws need fewer leapfrog steps."""
    import jax.numpy as jnp

    dim, rho = 6, 0.99
    cov = np.full((dim, dim), rho) + (1 - rho) * np.eye(dim)
    cov *= np.outer(np.arange(1, dim + 1), np.arange(1, dim + 1))
    precision = jnp.asarray(np.linalg.inv(cov))
    lanes = 8

    def potential(z, data):
        return 0.5 * z @ precision @ z

    runs = {dense: run_lanes(potential, np.zeros((lanes, 1)), np.full((lanes, dim), 0.1),
                             np.ones((lanes, dim)), np.arange(lanes, dtype=np.uint64) + 5,
                             tune=500, draws=500, dense=dense) for dense in (False, True)}
    step = {dense: float(np.median(run.stats["step_size"][:, -1]))
            for dense, run in runs.items()}
    assert step[True] > 3 * step[False], step
    assert runs[True].leapfrog_steps.mean() < runs[False].leapfrog_steps.mean()


@pytest.mark.parametrize("tune", [0, 10, 19, 20, 100, 149, 150, 151, 500, 1000, 1337])
def test_warm_up_windows_are_stans(tune: int) -> None:
    from numpyro.infer.hmc_util import build_adaptation_schedule

    collect, end = adaptation_schedule(tune)
    windows = build_adaptation_schedule(tune) if tune else []
    # numpyro's schedule: a first buffer, slow windows, a last buffer (Stan's rule); the
    # mass matrix is estimated in every window but the first and the last
    slow = windows[1:-1] if len(windows) > 2 else []
    expected_collect = np.zeros(max(tune, 1), bool)
    expected_end = np.zeros(max(tune, 1), bool)
    for w in slow:
        expected_collect[w.start:w.end + 1] = True
        expected_end[w.end] = True
    np.testing.assert_array_equal(collect, expected_collect)
    np.testing.assert_array_equal(end, expected_end)


@pytest.mark.parametrize("dense", [False, True])
def test_a_chain_has_the_same_draws_in_a_lane_of_its_own_or_after_other_chains(
        dense: bool) -> None:
    """With fewer lanes than chains a lane takes up the next chain when its own is done;
    a chain's draws depend only on its seed and data, so 24 chains give the same draws on
    24 lanes and on 8 (each of which runs three chains one after another), the program
    is shorter than the chains' steps run side by side, and chains left out
    (``chains=``) are not run."""
    import jax.numpy as jnp

    dim, chains = 3, 24
    scales = np.linspace(0.5, 3.0, chains)

    def potential(z, data):
        return 0.5 * jnp.sum((z / data) ** 2)

    data = np.repeat(scales[:, None], dim, axis=1)
    runs = {lanes: run_lanes(potential, data, np.zeros((chains, dim)),
                             np.ones((chains, dim)), np.arange(chains, dtype=np.uint64) + 11,
                             tune=200, draws=100, dense=dense, lanes=lanes)
            for lanes in (24, 8)}
    np.testing.assert_array_equal(runs[8].positions, runs[24].positions)
    np.testing.assert_array_equal(runs[8].leapfrog_steps, runs[24].leapfrog_steps)
    steps = runs[8].leapfrog_steps
    # three chains a lane: at least a third of the work, at most all of it in a row
    assert steps.sum() / 8 <= runs[8].program_steps < steps.sum()
    assert runs[24].program_steps == steps.max()
    part = run_lanes(potential, data, np.zeros((chains, dim)), np.ones((chains, dim)),
                     np.arange(chains, dtype=np.uint64) + 11, tune=200, draws=100,
                     dense=dense, lanes=8, chains=20)
    np.testing.assert_array_equal(part.positions[:20], runs[24].positions[:20])
    assert (part.leapfrog_steps[20:] == 0).all() and (part.positions[20:] == 0).all()


def test_a_jaxlib_without_the_programs_compile_options_compiles_it_with_xlas_defaults(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the program asks XLA for its own schedule and fusions (COMPILER_OPTIONS); a jaxlib
    # that does not know an option must still run it — as the same program, so its draws
    # equal those of a compile with no options at all
    from embias.bayes.batch_nuts import program

    scales = np.array([1.0, 2.0])
    potential, scale_data = _potential(scales)
    data = np.broadcast_to(np.asarray(scale_data), (4, 2))
    seeds = np.arange(4, dtype=np.uint64)

    def draws(options: dict) -> np.ndarray:
        monkeypatch.setattr(program, "COMPILER_OPTIONS", options)
        monkeypatch.setattr(program, "_COMPILED", {})
        return run_lanes(potential, data, np.zeros((4, 2)), np.ones((4, 2)), seeds,
                         tune=50, draws=20).positions

    expected = draws({})
    np.testing.assert_array_equal(draws({"xla_cpu_no_such_option_anywhere": "1"}), expected)
    np.testing.assert_array_equal(
        draws({"xla_cpu_scheduler_type": "CPU_SCHEDULER_TYPE_NOT_ONE_OF_THEM"}), expected)
