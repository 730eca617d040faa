"""One lane of the batch NUTS: a leapfrog step of its tree at a time, and its warm-up.

``lane_functions`` gives a lane's ``init``, ``step`` and ``momenta`` functions: each
lane carries its own tree-building state (Hoffman & Gelman's doubling with multinomial
sampling and the generalised U-turn criterion checked on every sub-tree, Betancourt 2017,
appendix A), one leapfrog step per call; a finished draw moves the chain, adapts the step
size (dual averaging) and diagonal mass matrix during the warm-up, or is recorded with the
statistics :data:`STAT_NAMES`. Its random numbers are a counter-based stream of the lane's
unsigned 64-bit seed (SplitMix64).
"""

from __future__ import annotations

from typing import Any

from .adaptation import adaptation_schedule

__all__ = ["MAX_DELTA_ENERGY", "STAT_NAMES", "lane_functions"]

#: Energy error above which a leapfrog step counts as divergent (Stan and numpyro: 1000).
MAX_DELTA_ENERGY = 1000.0
#: Per-draw statistics kept, in this order.
STAT_NAMES = ("diverging", "n_steps", "acceptance_rate", "energy", "tree_depth", "lp",
              "step_size")


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


def lane_functions(potential: Any, *, tune: int, draws: int, target_accept: float,
                   max_tree_depth: int, step_size: float | None) -> tuple[Any, Any, Any]:
    """Return the per-lane ``init``, ``step`` and ``momenta`` functions (to be vmapped).

    Long, and its inner ``step`` too, for a reason: JAX traces ``step`` as the body of one
    ``while_loop``, and a NUTS iteration (momentum, tree doubling with its U-turn and
    divergence checks, multinomial choice, step-size and mass-matrix adaptation) reads and
    writes one lane state; split into functions it would pass that state around whole.

    Parameters
    ----------
    potential
        ``potential(z, data) -> U`` of one lane, as
        :func:`~embias.bayes.batch_nuts.run_lanes`.
    tune, draws, target_accept, max_tree_depth, step_size
        As :func:`~embias.bayes.batch_nuts.run_lanes`.

    Returns
    -------
    init : callable
        ``init(seed, z, inv_mass, data)``: a lane's first state (its step size found by
        the doubling/halving heuristic unless ``step_size`` is given).
    step : callable
        ``step(state, data, normal)``: one leapfrog step of the lane; returns the new
        state, whether a kept draw ended and ``(slot, position, statistics)`` of that draw.
    momenta : callable
        ``momenta(seed, dim)``: the standard normals of every draw's momentum,
        (draw, dim).
    """
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
        vq = jnp.dot(v, q)
        # only the checkpoint of slot idx_max is written (an in-place update of one row)
        c_w = s["c_w"].at[idx_max].set(w(even, v, s["c_w"][idx_max]))
        c_a = s["c_a"].at[idx_max].set(w(even, q, s["c_a"][idx_max]))
        c_e = s["c_e"].at[idx_max].set(w(even, vq, s["c_e"][idx_max]))
        in_range = (depth_slots >= idx_min) & (depth_slots <= idx_max)
        at_checkpoint = c_w @ q - c_e
        at_leaf = vq - c_a @ v
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
        # a lane with all its iterations keeps its count (its program gives it the next
        # chain or leaves it idle, and drops whatever else it does while it waits)
        new["i"] = w(active, new["i"], i)
        return new, record, (jnp.clip(i - tune, 0, draws - 1), z_new, stats)

    def momenta_of(seed: Any, dim: int) -> Any:
        """Return the standard normals of every draw's momentum, (draw, dim)."""
        return jax.vmap(lambda i: normals_of(seed, i, dim))(
            jnp.arange(total, dtype=jnp.uint64))

    return init, step, momenta_of
