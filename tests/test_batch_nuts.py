"""embias's batch NUTS kernel (embias.bayes.batch_nuts) against exact answers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

jax = pytest.importorskip("jax")

from embias.bayes.batch_nuts import adaptation_schedule, run_lanes  # noqa: E402


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


def test_warm_up_finds_a_correlated_gaussian_within_monte_carlo_error() -> None:
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
                    tune=600, draws=2000)
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
