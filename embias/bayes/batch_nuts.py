"""NUTS for many chains at once, each at its own pace: one compiled program for a batch.

:func:`run_lanes` runs independent NUTS chains ("lanes") — the chains of many tables of
one shape — in one XLA program. A vectorised NUTS that builds every lane's whole tree in
lockstep waits, at every draw, for the lane with the longest tree (several times the
mean tree) and pays for nested loops and branches taken by no lane. Here one step
of the program is *one leapfrog step of every lane*: each lane carries its own tree-building
state (Hoffman & Gelman's doubling with multinomial sampling and the generalised U-turn
criterion checked on every sub-tree, Betancourt 2017, appendix A), and a lane that
finishes a draw starts its next one on the following step. The program runs until every
lane has its draws, so the cost is the slowest lane's *total* leapfrog steps, not the sum
of per-draw maxima. With fewer lanes than chains, a lane whose chain is done takes up
the next chain, so the cost is about the chains' total leapfrog steps over the lanes.

Warm-up is Stan's: a step size from a doubling/halving heuristic, dual averaging towards
``target_accept`` (γ = 0.05, t₀ = 10, κ = 0.75), a diagonal mass matrix estimated in
doubling windows (75 / 25, 50, … / 50 iterations, scaled down for short warm-ups as
numpyro and Stan do) and regularised as Stan does.

The kernel is pure JAX: ``potential`` is any function ``(z, data) -> U(z)`` of a flat
position and a pytree of data; ``jax.vmap`` over lanes gives each lane its own data. It
needs JAX's 64-bit mode (``jax_enable_x64``, which PyMC's JAX sampler module turns on
when imported): the lanes' seeds and random streams are unsigned 64-bit integers.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

__all__ = ["LaneDraws", "adaptation_schedule", "run_lanes"]

#: Energy error above which a leapfrog step counts as divergent (Stan and numpyro: 1000).
MAX_DELTA_ENERGY = 1000.0
#: Per-draw statistics kept, in this order.
STAT_NAMES = ("diverging", "n_steps", "acceptance_rate", "energy", "tree_depth", "lp",
              "step_size")


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


def adaptation_schedule(tune: int) -> tuple[np.ndarray, np.ndarray]:
    """Return Stan's warm-up windows for ``tune`` iterations.

    Windows: a first buffer of 75, slow windows of 25, 50, 100 … (the last stretched to
    the final buffer) and a final buffer of 50; for fewer than 150 iterations 15% / 75% /
    10%; for fewer than 20 no mass-matrix adaptation at all.

    Parameters
    ----------
    tune
        Warm-up iterations.

    Returns
    -------
    collect : numpy.ndarray
        Boolean, one per iteration (at least one): the draw enters the mass-matrix
        estimate.
    window_end : numpy.ndarray
        Boolean, one per iteration: the mass matrix is re-estimated after this iteration.

    Examples
    --------
    Stan's default 1000 iterations: windows end after iterations 100, 150, 250, 450 and
    950 (0-based 99 … 949), and iterations 75 to 949 are collected:

    >>> import numpy as np
    >>> collect, window_end = adaptation_schedule(1000)
    >>> np.flatnonzero(window_end).tolist()
    [99, 149, 249, 449, 949]
    >>> int(collect.sum()), int(np.flatnonzero(collect)[0])
    (875, 75)

    100 iterations: one window from iteration 15 (15%) of 75 iterations, then 10:

    >>> collect, window_end = adaptation_schedule(100)
    >>> np.flatnonzero(window_end).tolist(), int(np.flatnonzero(collect)[0])
    ([89], 15)
    >>> bool(adaptation_schedule(19)[1].any())
    False
    """
    collect = np.zeros(max(tune, 1), bool)
    end = np.zeros(max(tune, 1), bool)
    if tune < 20:
        return collect, end
    start, final, window = 75, 50, 25
    if start + final + window > tune:
        start, final = int(0.15 * tune), int(0.1 * tune)
        window = tune - start - final
    last = tune - final
    begin, size = start, window
    while begin < last:
        if 3 * size <= last - begin:
            stop, next_size = begin + size, 2 * size
        else:
            stop, next_size = last, size
        collect[begin:stop] = True
        end[stop - 1] = True
        begin, size = stop, next_size
    return collect, end


#: The parts of a lane's state that outlive a draw (the rest is the tree being built).
_CHAIN_STATE = ("i", "z", "u", "g", "fresh", "log_eps", "da_t", "da_h", "da_bar", "da_mu",
                "inv_mass", "w_mean", "w_m2", "w_n", "steps")


def _hash_bits(seed: Any, counter: Any, n: int) -> Any:
    """Return ``n`` pseudo-random 64-bit words for step ``counter`` of the lane ``seed``.

    SplitMix64's output function of the Weyl sequence ``seed + k·γ`` at
    k = counter·n + 0 … n − 1 (a counter-based generator: any step's numbers are computed
    directly, so every lane draws only what one leapfrog step needs).
    """
    import jax.numpy as jnp

    k = counter.astype(jnp.uint64) * jnp.uint64(n) + jnp.arange(n, dtype=jnp.uint64)
    z = seed + (k + jnp.uint64(1)) * jnp.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> jnp.uint64(30))) * jnp.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> jnp.uint64(27))) * jnp.uint64(0x94D049BB133111EB)
    return z ^ (z >> jnp.uint64(31))


def _lane_functions(potential: Any, *, tune: int, draws: int, target_accept: float,
                    max_tree_depth: int, step_size: float | None) -> tuple[Any, Any, Any]:
    """Return the per-lane ``init``, ``step`` and ``momenta`` functions (to be vmapped)."""
    import jax
    import jax.numpy as jnp

    value_and_grad = jax.value_and_grad(potential)
    total = tune + draws
    collect_np, end_np = adaptation_schedule(tune)
    collect_sched, end_sched = jnp.asarray(collect_np), jnp.asarray(end_np)
    depth_slots = jnp.arange(max_tree_depth)
    gamma, t0, kappa = 0.05, 10.0, 0.75

    def kinetic(inv_mass: Any, r: Any) -> Any:
        return 0.5 * jnp.sum(inv_mass * r * r)

    def leapfrog(z: Any, r: Any, g: Any, eps: Any, inv_mass: Any, data: Any) -> tuple:
        r = r - 0.5 * eps * g
        z = z + eps * inv_mass * r
        u, g = value_and_grad(z, data)
        r = r - 0.5 * eps * g
        return z, r, u, g

    def turning(inv_mass: Any, r_left: Any, r_right: Any, r_sum: Any) -> Any:
        rho = r_sum - 0.5 * (r_left + r_right)
        return ((jnp.sum(inv_mass * r_left * rho, -1) <= 0)
                | (jnp.sum(inv_mass * r_right * rho, -1) <= 0))

    def uniforms_of(bits: Any) -> tuple[Any, Any]:
        """Two uniforms in (0, 1) from each 64-bit word (its halves)."""
        return (((bits & 0xFFFFFFFF).astype(jnp.float64) + 0.5) / 2.0**32,
                ((bits >> 32).astype(jnp.float64) + 0.5) / 2.0**32)

    def normals_of(seed: Any, counter: Any, dim: int) -> Any:
        """Return ``dim`` standard normals (Box–Muller) of step ``counter``.

        They come from the momentum stream: the lane's seed with its top bit flipped,
        apart from the uniforms'.
        """
        u1, u2 = uniforms_of(_hash_bits(seed ^ jnp.uint64(2**63), counter, (dim + 1) // 2))
        radius = jnp.sqrt(-2.0 * jnp.log(u1))
        angle = 2.0 * jnp.pi * u2
        return jnp.concatenate([radius * jnp.cos(angle), radius * jnp.sin(angle)])[:dim]

    def init(seed: Any, z: Any, inv_mass: Any, data: Any) -> dict[str, Any]:
        u, g = value_and_grad(z, data)
        dim = z.shape[0]

        # step size: double or halve until one leapfrog step's acceptance crosses 0.8
        def probe(k: int, log_eps: Any) -> Any:
            # momentum-stream counters from 2^62 on: no draw of the chain reuses them
            r = normals_of(seed, jnp.uint64(2**62) + k, dim) / jnp.sqrt(inv_mass)
            _, r1, u1, _ = leapfrog(z, r, g, jnp.exp(log_eps), inv_mass, data)
            delta = (u1 + kinetic(inv_mass, r1)) - (u + kinetic(inv_mass, r))
            good = jnp.nan_to_num(-delta, nan=-jnp.inf) > jnp.log(0.8)
            return log_eps + jnp.where(good, 1.0, -1.0) * jnp.log(2.0)

        log_eps = (jax.lax.fori_loop(0, 12, probe, jnp.asarray(0.0)) if step_size is None
                   else jnp.log(jnp.asarray(step_size, float)))
        zeros = jnp.zeros_like(z)
        ckpt = jnp.zeros((max_tree_depth, dim))
        return {
            "seed": seed, "i": jnp.asarray(0), "z": z, "u": u, "g": g, "fresh": True,
            "log_eps": log_eps, "da_t": jnp.asarray(0.0), "da_h": jnp.asarray(0.0),
            "da_bar": jnp.asarray(0.0), "da_mu": jnp.log(10.0) + log_eps,
            "inv_mass": inv_mass, "w_mean": zeros, "w_m2": zeros, "w_n": jnp.asarray(0.0),
            "e0": u, "zl": z, "rl": zeros, "gl": g, "zr": z, "rr": zeros, "gr": g,
            "pz": z, "pu": u, "pg": g, "pe": u,
            "t_logw": jnp.asarray(0.0), "t_rsum": zeros, "depth": jnp.asarray(0),
            "t_acc": jnp.asarray(0.0), "t_n": jnp.asarray(0), "right": True,
            "s_n": jnp.asarray(0), "s_logw": jnp.asarray(0.0), "s_rsum": zeros,
            "sz": z, "su": u, "sg": g, "se": u, "s_acc": jnp.asarray(0.0),
            "s_turn": False, "s_div": False, "c_w": ckpt, "c_a": ckpt,
            "c_e": jnp.zeros(max_tree_depth),
            "steps": jnp.asarray(0),
        }

    def step(s: dict[str, Any], data: Any, normal: Any) -> tuple[dict[str, Any], Any, Any]:
        w = jnp.where
        active = s["i"] < total
        u_a, u_b = uniforms_of(_hash_bits(s["seed"], s["steps"], 2))
        uniforms = jnp.concatenate([u_a, u_b])
        inv_mass = s["inv_mass"]

        # a new draw: fresh momentum (the lane's normals of this draw), a tree of the
        # current point alone
        fresh = s["fresh"]
        r0 = normal / jnp.sqrt(inv_mass)
        e0 = w(fresh, s["u"] + kinetic(inv_mass, r0), s["e0"])
        t = {name: w(fresh, new, s[name]) for name, new in (
            ("zl", s["z"]), ("rl", r0), ("gl", s["g"]), ("zr", s["z"]), ("rr", r0),
            ("gr", s["g"]), ("pz", s["z"]), ("pu", s["u"]), ("pg", s["g"]),
            ("pe", e0), ("t_logw", 0.0), ("t_rsum", r0), ("depth", 0), ("t_acc", 0.0),
            ("t_n", 0), ("s_n", 0), ("right", uniforms[2] < 0.5))}

        # one leapfrog step from the end of the tree in the sub-tree's direction
        right = t["right"]
        eps = jnp.exp(s["log_eps"]) * w(right, 1.0, -1.0)
        z, r, u, g = leapfrog(w(right, t["zr"], t["zl"]), w(right, t["rr"], t["rl"]),
                              w(right, t["gr"], t["gl"]), eps, inv_mass, data)
        energy = u + kinetic(inv_mass, r)
        delta = jnp.nan_to_num(energy - e0, nan=jnp.inf)
        leaf_logw = -delta
        diverging = delta > MAX_DELTA_ENERGY
        accept = jnp.exp(jnp.minimum(0.0, -delta))

        # the sub-tree being built: uniform multinomial sampling among its leaves
        n = t["s_n"]
        first = n == 0
        s_logw = w(first, leaf_logw, jnp.logaddexp(s["s_logw"], leaf_logw))
        take = first | (uniforms[0] < jnp.exp(leaf_logw - s_logw))
        sz, su, sg, se = (w(take, new, s[old]) for new, old in
                          ((z, "sz"), (u, "su"), (g, "sg"), (energy, "se")))
        s_rsum = w(first, r, s["s_rsum"] + r)
        s_acc = w(first, accept, s["s_acc"] + accept)
        s_div = w(first, diverging, s["s_div"] | diverging)
        # U-turn checks of every sub-tree that ends at this leaf (iterative checkpoints)
        idx_max = jax.lax.population_count(n >> 1)
        idx_min = idx_max - jax.lax.population_count((~n & (n + 1)) - 1) + 1
        even = n % 2 == 0
        # A checkpoint k (leaf r_k, sum S_k of the sub-tree up to it) keeps
        # w_k = M⁻¹r_k, a_k = S_k − r_k/2 and e_k = w_k·a_k. The sub-tree from leaf k to
        # this leaf r (sum S) has ρ = (S − S_k + r_k) − (r_k + r)/2 = q − a_k, q = S − r/2,
        # so the criterion's two products are w_k·q − e_k and (M⁻¹r)·q − (M⁻¹r)·a_k: two
        # matrix–vector products instead of forming every sub-tree's ρ.
        v = inv_mass * r
        q = s_rsum - 0.5 * r
        slot = (depth_slots == idx_max) & even
        c_w = w(slot[:, None], v[None, :], s["c_w"])
        c_a = w(slot[:, None], q[None, :], s["c_a"])
        c_e = w(slot, jnp.dot(v, q), s["c_e"])
        in_range = (depth_slots >= idx_min) & (depth_slots <= idx_max)
        at_checkpoint = c_w @ q - c_e
        at_leaf = jnp.dot(v, q) - c_a @ v
        s_turn = w(first, False, s["s_turn"]) | jnp.any(
            in_range & ((at_checkpoint <= 0) | (at_leaf <= 0)))
        n = n + 1

        # a finished sub-tree joins the tree (biased progressive sampling)
        done_sub = (n == (1 << t["depth"])) | s_turn | s_div
        bad = s_turn | s_div
        move = done_sub & ~bad & (uniforms[1] < jnp.exp(s_logw - t["t_logw"]))
        pz, pu, pg, pe = (w(move, new, t[old]) for new, old in
                          ((sz, "pz"), (su, "pu"), (sg, "pg"), (se, "pe")))
        # the tree's end in this direction is the newest leaf (the next step starts there)
        to_right, to_left = right, ~right
        zr, rr, gr = w(to_right, z, t["zr"]), w(to_right, r, t["rr"]), w(to_right, g, t["gr"])
        zl, rl, gl = w(to_left, z, t["zl"]), w(to_left, r, t["rl"]), w(to_left, g, t["gl"])
        t_rsum = w(done_sub, t["t_rsum"] + s_rsum, t["t_rsum"])
        t_logw = w(done_sub, jnp.logaddexp(t["t_logw"], s_logw), t["t_logw"])
        t_acc = w(done_sub, t["t_acc"] + s_acc, t["t_acc"])
        t_n = w(done_sub, t["t_n"] + n, t["t_n"])
        depth = w(done_sub, t["depth"] + 1, t["depth"])
        draw_done = done_sub & (bad | turning(inv_mass, rl, rr, t_rsum)
                                | (depth >= max_tree_depth))
        next_right = w(done_sub & ~draw_done, uniforms[3] < 0.5, right)
        s_n = w(done_sub, 0, n)

        # a finished draw: move, adapt (warm-up) or record (sampling)
        i = s["i"]
        z_new, u_new, g_new = (w(draw_done, new, s[old]) for new, old in
                               ((pz, "z"), (pu, "u"), (pg, "g")))
        warm = draw_done & (i < tune)
        alpha = t_acc / jnp.maximum(t_n, 1)
        da_t = s["da_t"] + 1.0
        da_h = (1.0 - 1.0 / (da_t + t0)) * s["da_h"] + (target_accept - alpha) / (da_t + t0)
        log_eps_da = s["da_mu"] - jnp.sqrt(da_t) / gamma * da_h
        eta = da_t ** -kappa
        da_bar = eta * log_eps_da + (1.0 - eta) * s["da_bar"]
        ti = jnp.clip(i, 0, collect_sched.shape[0] - 1)
        collect = warm & collect_sched[ti]
        w_n = s["w_n"] + collect
        delta_mean = z_new - s["w_mean"]
        w_mean = w(collect, s["w_mean"] + delta_mean / jnp.maximum(w_n, 1.0), s["w_mean"])
        w_m2 = w(collect, s["w_m2"] + delta_mean * (z_new - w_mean), s["w_m2"])
        window_end = warm & end_sched[ti]
        var = w_m2 / jnp.maximum(w_n - 1.0, 1.0)
        var = (w_n / (w_n + 5.0)) * var + 1e-3 * (5.0 / (w_n + 5.0))
        inv_mass_new = w(window_end, var, inv_mass)
        last_warm = warm & (i == tune - 1)
        log_eps = w(warm, w(last_warm, da_bar, log_eps_da), s["log_eps"])
        # after a new mass matrix the step size adapts again from around 10× the current
        restart = window_end & ~last_warm
        da_mu = w(restart, jnp.log(10.0) + log_eps_da, s["da_mu"])
        da_t, da_h, da_bar = (w(restart, 0.0, x) for x in (da_t, da_h, da_bar))
        da_t, da_h, da_bar = (w(warm, new, s[old]) for new, old in
                              ((da_t, "da_t"), (da_h, "da_h"), (da_bar, "da_bar")))
        w_mean = w(window_end, 0.0, w_mean)
        w_m2 = w(window_end, 0.0, w_m2)
        w_n = w(window_end, 0.0, w_n)

        record = draw_done & (i >= tune) & active
        stats = jnp.stack([s_div.astype(float), t_n.astype(float), alpha, pe,
                           depth.astype(float), -u_new, jnp.exp(s["log_eps"])])
        new = {
            "seed": s["seed"], "i": i + draw_done, "z": z_new, "u": u_new, "g": g_new,
            "fresh": draw_done, "log_eps": log_eps, "da_t": da_t, "da_h": da_h,
            "da_bar": da_bar, "da_mu": da_mu, "inv_mass": inv_mass_new, "w_mean": w_mean,
            "w_m2": w_m2, "w_n": w_n, "e0": e0, "zl": zl, "rl": rl, "gl": gl, "zr": zr,
            "rr": rr, "gr": gr, "pz": pz, "pu": pu, "pg": pg, "pe": pe, "t_logw": t_logw,
            "t_rsum": t_rsum, "depth": depth, "t_acc": t_acc, "t_n": t_n,
            "right": next_right, "s_n": s_n, "s_logw": s_logw, "s_rsum": s_rsum,
            "sz": sz, "su": su, "sg": sg, "se": se, "s_acc": s_acc, "s_turn": s_turn,
            "s_div": s_div, "c_w": c_w, "c_a": c_a, "c_e": c_e,
            "steps": s["steps"] + 1,
        }
        # a lane with all its iterations waits as it is (the program runs until the
        # slowest lane is done): what it does next cannot depend on how long it waited.
        # Its tree may run on: a lane that is done has just ended a draw, so its next
        # step starts a new tree from the kept point.
        for name in _CHAIN_STATE:
            new[name] = w(active, new[name], s[name])
        return new, record, (jnp.clip(i - tune, 0, draws - 1), z_new, stats)

    def momenta_of(seed: Any, dim: int) -> Any:
        """Return the standard normals of every draw's momentum, (draw, dim)."""
        return jax.vmap(lambda i: normals_of(seed, i, dim))(
            jnp.arange(total, dtype=jnp.uint64))

    return init, step, momenta_of


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
        counter-based stream of it: the same seed gives the same chain in any batch).
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
        chain's. Fewer lanes make a program step cheaper; at least 8 keep a chain's
        draws the same in any batch (:data:`embias.bayes.batch_sampling.LANE_MULTIPLE`).
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
    token = next(_TOKENS)
    args = (jnp.asarray(seeds, dtype=jnp.uint64), jnp.asarray(initial_positions),
            jnp.asarray(inverse_mass), data, jnp.asarray(chains, dtype=jnp.int64),
            jnp.asarray(token, dtype=jnp.int64))
    program = compiled_program(potential, args, tune=tune, draws=draws,
                               target_accept=target_accept, max_tree_depth=max_tree_depth,
                               step_size=step_size, dense=dense, lanes=lanes)
    if progress is not None:
        _PROGRESS[token] = progress
    try:
        positions, stats, steps, program_steps = program(*args)
        positions, stats, steps = (np.asarray(x) for x in (positions, stats, steps))
    finally:
        _PROGRESS.pop(token, None)
    return LaneDraws(positions=positions,
                     stats={name: stats[..., k] for k, name in enumerate(STAT_NAMES)},
                     leapfrog_steps=steps, program_steps=int(program_steps))


#: Program steps between two progress reports.
REPORT_EVERY = 2048
_PROGRESS: dict[int, Callable[[float], None]] = {}
_TOKENS = itertools.count(1)


def _report(token: Any, done: Any) -> None:
    callback = _PROGRESS.get(int(token))
    if callback is not None:
        callback(float(done))


_COMPILED: dict[tuple[Any, ...], Any] = {}
_COMPILE_LOCK = threading.Lock()


def compiled_program(potential: Any, args: tuple, **settings: Any) -> Any:
    """Return the compiled program of :func:`run_lanes` for ``args``' shapes.

    Compiled once per process, potential, settings and shapes (under a lock: threads
    running parts of one batch wait for one compile instead of each compiling it).

    Parameters
    ----------
    potential
        As :func:`run_lanes`.
    args
        The program's arguments (seeds, starting points, inverse masses, data, chains
        run, progress token); only their shapes and dtypes matter here.
    **settings
        The settings of ``_program``.

    Returns
    -------
    jax.stages.Compiled
        The program, to be called with ``args``.
    """
    import jax

    shapes = tuple((leaf.shape, str(leaf.dtype)) for leaf in jax.tree.leaves(args))
    key = (potential, shapes, tuple(sorted(settings.items())))
    with _COMPILE_LOCK:
        program = _COMPILED.get(key)
        if program is None:
            program = _program(potential, **settings).lower(*args).compile()
            _COMPILED[key] = program
    return program


def last_window(tune: int) -> tuple[int, int] | None:
    """Return the first iteration and length of the warm-up's last mass-matrix window.

    Parameters
    ----------
    tune
        Warm-up iterations.

    Returns
    -------
    tuple of int or None
        ``(first, length)``; ``None`` when the warm-up adapts no mass matrix.

    Examples
    --------
    Of Stan's 1000 iterations the last window is 450–949; of 100, 15–89:

    >>> last_window(1000), last_window(100), last_window(19)
    ((450, 500), (15, 75), None)
    """
    collect, end = adaptation_schedule(tune)
    if not end.any():
        return None
    stop = int(np.flatnonzero(end)[-1]) + 1
    before = np.flatnonzero(end[:stop - 1])
    start = int(before[-1]) + 1 if before.size else int(np.flatnonzero(collect)[0])
    return start, stop - start


def dense_metric(window: Any) -> tuple[Any, Any]:
    """Return the mean and regularised covariance's Cholesky factor of a window of draws.

    The covariance is regularised as Stan's: ``n/(n + 5)·Σ + 10⁻³·5/(n + 5)·I``.

    Parameters
    ----------
    window
        (n, dim) draws of one lane.

    Returns
    -------
    mean : jax.Array
        (dim,) mean of the draws.
    chol : jax.Array
        (dim, dim) lower Cholesky factor of the regularised covariance.

    Examples
    --------
    The corners of a square of side 2: mean (1, 1), sample variances 4/3 and covariance
    0, so the regularised variances are 4/9 · 4/3 + 10⁻³ · 5/9 = 0.593148…:

    >>> import numpy as np
    >>> mean, chol = dense_metric(np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]))
    >>> np.asarray(mean).tolist()
    [1.0, 1.0]
    >>> np.round(np.asarray(chol @ chol.T), 6).tolist()
    [[0.593148, 0.0], [0.0, 0.593148]]
    """
    import jax.numpy as jnp

    n = window.shape[0]
    mean = window.mean(axis=0)
    centred = window - mean
    cov = centred.T @ centred / (n - 1)
    cov = (n / (n + 5.0)) * cov + 1e-3 * (5.0 / (n + 5.0)) * jnp.eye(window.shape[1])
    return mean, jnp.linalg.cholesky(cov)


@functools.lru_cache(maxsize=32)
def _program(potential: Any, *, tune: int, draws: int, target_accept: float,
             max_tree_depth: int, step_size: float | None, dense: bool = False,
             lanes: int) -> Any:
    """Return the jitted program of :func:`run_lanes` for one potential and settings.

    JAX compiles it once per number of chains.

    ``lanes`` chains run at a time; a lane whose chain is done takes up the next chain
    (its first state, made with every chain's at the start, and its data). With
    ``dense`` (and a warm-up that adapts a mass matrix) every lane samples the whitened
    position x = L⁻¹(z − μ) with the potential U(μ + Lx): during the warm-up μ = 0 and
    L = I (diagonal mass matrices adapted as usual); when a chain ends its last
    mass-matrix window, its dense covariance Σ = LLᵀ is estimated from that window's
    draws and the rest of the chain (the final step-size buffer and the draws) runs on x
    with a unit mass matrix, which is NUTS with inverse mass matrix Σ; the draws are
    mapped back.
    """
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    options: dict[str, Any] = {"tune": tune, "draws": draws, "target_accept": target_accept,
                               "max_tree_depth": max_tree_depth, "step_size": step_size}
    window = last_window(tune) if dense else None
    if window is None:
        lane_potential = potential
    else:
        def lane_potential(x: Any, data: Any) -> Any:
            inner, mean, chol = data
            return potential(mean + chol @ x, inner)

    init, step, momenta_of = _lane_functions(lane_potential, **options)
    total = tune + draws

    def program(seeds: Any, z0: Any, inv_mass0: Any, data: Any, n_chains: Any,
                token: Any) -> tuple:
        n, dim = z0.shape
        if window is not None:  # every chain starts unwhitened: μ = 0, L = I
            data = (data, jnp.zeros((n, dim)), jnp.broadcast_to(jnp.eye(dim), (n, dim, dim)))
        first_states = jax.vmap(init)(seeds, z0, inv_mass0, data)
        # every draw's standard normals, made at once (a step looks its draw's up)
        normals = jax.vmap(momenta_of, in_axes=(0, None))(seeds, dim)

        def take(tree: Any, index: Any) -> Any:
            return jax.tree.map(lambda x: x[index], tree)

        lane_index = jnp.arange(lanes)
        chain = lane_index  # lane k starts chain k (run_lanes checks lanes ≤ chains)
        carry = {
            "state": take(first_states, chain), "data": take(data, chain), "chain": chain,
            "idle": lane_index >= n_chains, "next": jnp.minimum(lanes, n_chains),
            "program_steps": jnp.asarray(0, jnp.int64),
            # one slot more than the draws: a lane that did not finish a draw this step
            # writes to the last slot (a pure scatter, updated in place), dropped at the end
            "out_z": jnp.zeros((n, draws + 1, dim)),
            "out_stats": jnp.zeros((n, draws + 1, len(STAT_NAMES))),
            "steps": jnp.zeros(n, jnp.int64),
        }
        if window is not None:
            first, size = window
            carry |= {"kept": jnp.zeros((lanes, size + 1, dim)),
                      "mean": jnp.zeros((n, dim)),
                      "chol": jnp.broadcast_to(jnp.eye(dim), (n, dim, dim))}

        def body(c: dict[str, Any]) -> dict[str, Any]:
            state, chain = c["state"], c["chain"]
            before = state["i"]
            normal = normals[chain, jnp.minimum(before, total - 1)]
            state, record, (slot, z, stats) = jax.vmap(step)(state, c["data"], normal)
            slot = jnp.where(record, slot, draws)
            c = c | {"state": state, "program_steps": c["program_steps"] + 1,
                     "out_z": c["out_z"].at[chain, slot].set(z),
                     "out_stats": c["out_stats"].at[chain, slot].set(stats)}
            moved = state["i"] > before
            if window is not None:
                into = moved & (before >= first) & (before < first + size)
                c["kept"] = c["kept"].at[lane_index, jnp.where(into, before - first, size)
                                         ].set(z)
                switch = moved & (before == first + size - 1)
                c = c | _only_when(switch, _to_dense, c, ("state", "data", "mean", "chol"),
                                   ("kept", "chain"))
            finished = moved & (state["i"] >= total) & ~c["idle"]
            c = c | _only_when(finished, _next_chains, c,
                               ("state", "data", "chain", "idle", "next", "steps"), ())
            # every REPORT_EVERY steps: the share of all iterations done, to the caller's
            # progress callback (a host callback; the token names the run)
            jax.lax.cond(c["program_steps"] % REPORT_EVERY == 0,
                         lambda: jax.debug.callback(_report, token, share_done(c)),
                         lambda: None)
            return c

        def share_done(c: dict[str, Any]) -> Any:
            """Return the share of all chains' iterations done (finished and running chains)."""
            running = jnp.sum(jnp.where(c["idle"], 0, jnp.minimum(c["state"]["i"], total)))
            return ((c["next"] - jnp.sum(~c["idle"])) * total + running) / (n_chains * total)

        def _only_when(lanes_mask: Any, update: Callable, c: dict[str, Any],
                       changed: tuple[str, ...], read: tuple[str, ...]) -> dict[str, Any]:
            """Apply ``update`` to the ``changed`` parts of the carry if a lane is in the mask.

            A branch taken on few steps; the draws' buffers stay out of it.
            """
            parts = {k: c[k] for k in changed}
            fixed = {k: c[k] for k in read}
            return jax.lax.cond(jnp.any(lanes_mask),
                                lambda parts: update(parts | fixed, lanes_mask),
                                lambda parts: parts, parts)

        def _to_dense(c: dict[str, Any], switch: Any) -> dict[str, Any]:
            """Whiten the lanes in ``switch`` (one after another: usually one)."""
            def one(k: Any, c: dict[str, Any]) -> dict[str, Any]:
                lane = order[k]
                mean, chol = dense_metric(c["kept"][lane, :size])
                state, (inner, _, _) = c["state"], c["data"]
                z = state["z"][lane]
                x = jsl.solve_triangular(chol, z - mean, lower=True)
                g = chol.T @ state["g"][lane]
                ch = c["chain"][lane]
                return {
                    "state": state | {"z": state["z"].at[lane].set(x),
                                      "g": state["g"].at[lane].set(g),
                                      "inv_mass": state["inv_mass"].at[lane].set(1.0)},
                    "data": (inner, c["data"][1].at[lane].set(mean),
                             c["data"][2].at[lane].set(chol)),
                    "mean": c["mean"].at[ch].set(mean), "chol": c["chol"].at[ch].set(chol)}

            order = jnp.argsort(~switch)  # the switching lanes first
            fixed = {k: c[k] for k in ("kept", "chain")}
            changed = {k: v for k, v in c.items() if k not in fixed}
            return jax.lax.fori_loop(0, jnp.sum(switch), lambda k, c: one(k, c | fixed),
                                     changed)

        def _next_chains(c: dict[str, Any], finished: Any) -> dict[str, Any]:
            """Record the finished chains' steps and give their lanes the next chains."""
            steps = c["steps"].at[jnp.where(finished, c["chain"], n)].set(
                c["state"]["steps"], mode="drop")
            rank = jnp.cumsum(finished) - 1
            new_chain = c["next"] + rank
            start = finished & (new_chain < n_chains)
            pick = jnp.where(start, new_chain, c["chain"])
            fresh, fresh_data = take(first_states, pick), take(data, pick)

            def chosen(a: Any, b: Any) -> Any:
                return jnp.where(start.reshape((-1,) + (1,) * (a.ndim - 1)), a, b)

            return {"steps": steps, "chain": pick,
                    "state": jax.tree.map(chosen, fresh, c["state"]),
                    "data": jax.tree.map(chosen, fresh_data, c["data"]),
                    "idle": c["idle"] | (finished & ~start),
                    "next": c["next"] + jnp.sum(start)}

        c = jax.lax.while_loop(lambda c: jnp.any(~c["idle"]), body, carry)
        out_z = c["out_z"][:, :draws]
        if window is not None:
            out_z = c["mean"][:, None, :] + jnp.einsum("cij,cnj->cni", c["chol"], out_z)
        return out_z, c["out_stats"][:, :draws], c["steps"], c["program_steps"]

    return jax.jit(program)
