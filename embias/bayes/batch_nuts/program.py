"""The compiled program of the batch NUTS: lanes refilled with chains, and its cache.

``compiled_program`` compiles (once per potential, settings and shapes) the program
that runs every lane one leapfrog step at a time until all chains have their draws: a
lane whose chain is done takes up the next one, a lane that ends its last mass-matrix
window switches to the dense metric (``dense``), and every :data:`REPORT_EVERY` steps the
share done goes to the caller's progress callback (registered in :data:`PROGRESS` under a
token of :data:`TOKENS`).
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable
from typing import Any

from .adaptation import dense_metric, last_window
from .kernel import STAT_NAMES, lane_functions

__all__ = ["PROGRESS", "REPORT_EVERY", "TOKENS", "compiled_program"]

#: Program steps between two progress reports.
REPORT_EVERY = 2048
#: The progress callbacks of the programs running now, by their run's token.
PROGRESS: dict[int, Callable[[float], None]] = {}
#: The tokens that name runs (a run passes its token to its program).
TOKENS = itertools.count(1)


def _report(token: Any, done: Any) -> None:
    callback = PROGRESS.get(int(token))
    if callback is not None:
        callback(float(done))


#: XLA options of this program's compile (its own, not the process's): a schedule that
#: keeps memory low instead of one that exposes concurrency (a NUTS step is many small
#: operations; run side by side on the CPU's thread pool they spend more time handing work
#: over than working), and no YNNPACK fusions (for a few lanes' elementwise work they cost
#: more than the loops XLA emits itself).
COMPILER_OPTIONS = {"xla_cpu_scheduler_type": "CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED",
                    "xla_cpu_experimental_ynn_fusion_type": ""}

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
            program = _compile(_program(potential, **settings).lower(*args))
            _COMPILED[key] = program
    return program


def _compile(lowered: Any) -> Any:
    """Compile ``lowered`` with :data:`COMPILER_OPTIONS`.

    Without them where this jaxlib does not know one of them or its value: the same
    program, with XLA's default schedule and fusions.
    """
    try:
        return lowered.compile(compiler_options=COMPILER_OPTIONS)
    except Exception as error:  # jax raises JaxRuntimeError (INVALID_ARGUMENT)
        message = str(error)
        if "No such compile option" not in message and "While setting option" not in message:
            raise
        return lowered.compile()


@functools.lru_cache(maxsize=32)
def _program(potential: Any, *, tune: int, draws: int, target_accept: float,
             max_tree_depth: int, step_size: float | None, dense: bool = False,
             lanes: int) -> Any:
    """Return the jitted program of :func:`run_lanes` for one potential and settings.

    Long, and its inner ``program`` too, for a reason: the lanes, their refill with the next
    chain and the switch to the dense metric are one loop that JAX compiles as one program
    over one carry.

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

    init, step, momenta_of = lane_functions(lane_potential, **options)
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
