"""The batch NUTS's entry point: :func:`run_lanes` and its result, ``LaneDraws``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .kernel import STAT_NAMES
from .program import PROGRESS, TOKENS, compiled_program

__all__ = ["LaneDraws", "run_lanes"]


class LaneDraws(NamedTuple):
    """Draws of :func:`run_lanes`, per chain.

    Attributes
    ----------
    positions
        (chains, draws, dim) kept draws on the sampler's (unconstrained) scale.
    stats
        Dict of (chains, draws) arrays named by :data:`STAT_NAMES`.
    leapfrog_steps
        (chains,) leapfrog steps each chain took in all, warm-up included.
    program_steps
        Steps the program ran: the largest of ``leapfrog_steps`` when every chain has a
        lane of its own, at most their sum when lanes take up several chains one after
        another.

    Examples
    --------
    See :func:`run_lanes` for a run; the fields, and the statistics kept per draw:

    >>> LaneDraws._fields
    ('positions', 'stats', 'leapfrog_steps', 'program_steps')
    >>> STAT_NAMES
    ('diverging', 'n_steps', 'acceptance_rate', 'energy', 'tree_depth', 'lp', 'step_size')
    """

    positions: Any
    stats: dict[str, Any]
    leapfrog_steps: Any
    program_steps: int


def run_lanes(
    potential: Any,
    data: Any,
    initial_positions: Any,
    inverse_mass: Any,
    seeds: Any,
    *,
    tune: int,
    draws: int,
    target_accept: float = 0.8,
    max_tree_depth: int = 10,
    step_size: float | None = None,
    dense: bool = False,
    lanes: int | None = None,
    chains: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> LaneDraws:
    """Run independent NUTS chains, all in one compiled program.

    The program is compiled once per potential, settings and array shapes in a process
    (:func:`compiled_program`). It needs JAX's 64-bit mode (``jax_enable_x64``).

    Parameters
    ----------
    potential
        ``potential(z, data) -> U``: the negative log density of a flat position ``z``
        (dim,) given one chain's ``data``; JAX-traceable.
    data
        Pytree of arrays with a leading chain axis (each chain's data).
    initial_positions
        (chains, dim) starting points on the sampler's scale.
    inverse_mass
        (chains, dim) starting diagonal inverse mass matrices (the squared approximate
        posterior sds; the warm-up re-estimates them).
    seeds
        (chains,) unsigned 64-bit seeds, one per chain (its random numbers are a
        counter-based stream of it, whatever lane runs the chain).
    tune, draws
        Warm-up iterations (discarded) and kept draws per chain.
    target_accept
        Dual-averaging target of the mean acceptance statistic.
    max_tree_depth
        Largest tree depth (2^depth leapfrog steps per draw at most).
    step_size
        The first step size; default found by a doubling/halving heuristic from each
        chain's starting point. With ``tune=0`` it is the step size of every draw (a
        fixed kernel, as the tests of its invariance need).
    dense
        Sample the draws with a dense inverse mass matrix: the covariance of each chain's
        draws in the last warm-up window (the warm-up before it adapts a diagonal one).
    lanes
        How many chains run at a time (default all): a lane whose chain has all its
        iterations takes up the next chain not yet started, so the program's length is
        about the chains' total leapfrog steps over ``lanes`` rather than the slowest
        chain's. Fewer lanes make a program step cheaper. The width can change how XLA
        rounds the potential, so a chain's draws are the same bits only in programs of
        the same width (:data:`embias.bayes.batch_sampling.LANE_MULTIPLE`).
    chains
        Run only the first ``chains`` chains (default all): the rest are padding that
        lets batches of nearby sizes share one compiled program.
    progress
        Called now and then (every :data:`REPORT_EVERY` program steps) with the share of
        all chains' iterations done.

    Returns
    -------
    LaneDraws
        Per chain; the chains not run (``chains``) have zero draws and no steps.

    Raises
    ------
    ValueError
        ``lanes`` or ``chains`` outside 1 … the number of chains given.

    Examples
    --------
    Eight chains on a 2-dimensional Normal with sds 1 and 3, 100 + 100 iterations each,
    four chains at a time:

    >>> import jax
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> jax.config.update("jax_enable_x64", True)
    >>> def potential(z, scales):
    ...     return 0.5 * jnp.sum((z / scales) ** 2)
    >>> scales = np.tile([1.0, 3.0], (8, 1))
    >>> out = run_lanes(potential, scales, np.zeros((8, 2)), np.ones((8, 2)),
    ...                 np.arange(8, dtype=np.uint64), tune=100, draws=100, lanes=4)
    >>> out.positions.shape, out.stats["tree_depth"].shape, out.leapfrog_steps.shape
    ((8, 100, 2), (8, 100), (8,))

    Each chain's steps include its warm-up, at least one per iteration; the program ran
    at least the longest chain's steps and at most all of them:

    >>> bool(np.all(out.leapfrog_steps >= out.stats["n_steps"].sum(axis=1) + 100))
    True
    >>> bool(out.leapfrog_steps.max() <= out.program_steps <= out.leapfrog_steps.sum())
    True

    >>> run_lanes(potential, scales, np.zeros((8, 2)), np.ones((8, 2)),
    ...           np.arange(8, dtype=np.uint64), tune=100, draws=100, lanes=9)
    Traceback (most recent call last):
    ...
    ValueError: lanes=9 and chains=8 must be between 1 and the 8 chains given
    """
    import jax.numpy as jnp

    n_total = int(np.shape(seeds)[0])
    lanes = n_total if lanes is None else int(lanes)
    chains = n_total if chains is None else int(chains)
    if not 1 <= lanes <= n_total or not 1 <= chains <= n_total:
        raise ValueError(f"lanes={lanes} and chains={chains} must be between 1 and the "
                         f"{n_total} chains given")
    token = next(TOKENS)
    args = (jnp.asarray(seeds, dtype=jnp.uint64), jnp.asarray(initial_positions),
            jnp.asarray(inverse_mass), data, jnp.asarray(chains, dtype=jnp.int64),
            jnp.asarray(token, dtype=jnp.int64))
    program = compiled_program(potential, args, tune=tune, draws=draws,
                               target_accept=target_accept, max_tree_depth=max_tree_depth,
                               step_size=step_size, dense=dense, lanes=lanes)
    if progress is not None:
        PROGRESS[token] = progress
    try:
        positions, stats, steps, program_steps = program(*args)
        positions, stats, steps = (np.asarray(x) for x in (positions, stats, steps))
    finally:
        PROGRESS.pop(token, None)
    return LaneDraws(positions=positions,
                     stats={name: stats[..., k] for k, name in enumerate(STAT_NAMES)},
                     leapfrog_steps=steps, program_steps=int(program_steps))
