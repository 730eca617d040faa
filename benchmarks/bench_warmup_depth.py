"""Where numpyro's leapfrog steps go while it tunes, from which first mass matrix, with which
tuning depth.

A fit's 2 × (1000 + 3000) iterations are not 15 leapfrog steps each: from the identity
mass matrix (numpyro's own start), far from embias's posteriors' scales, and with its first
estimates from windows of 25 and 50 draws (for the crossed level's 75 parameters a dense
covariance of 25 draws), the trees of tuning iterations 25–150 run to hundreds of steps.
Measured here per table, level and seed:

* ``moments`` (embias's start): the first inverse mass matrix from the cell
  moments (:func:`embias.bayes.sampling.initial_inverse_mass` of
  :func:`embias.bayes.data.approximate_posterior_sd`), against ``identity``;
* a cap on the tree depth while tuning (numpyro's ``max_tree_depth=(tuning, kept)``; the
  kept draws stay NUTS's own), which embias does not use: on the small simulated tables of
  tests/test_crossed.py and tests/test_seat_model.py it gave divergent transitions in 1 and
  4 of 8 seeds where numpyro's default depth gave 0 and 1.

For each it runs numpyro's NUTS kernels (``numpyro.infer.hmc.hmc``, target acceptance 0.9,
1000 tuning + 3000 kept iterations, PyMC's log density of embias's model, embias's starting
points) for two chains one after the other on one CPU device, and prints the leapfrog steps
spent tuning and drawing (per chain), the tuning steps by adaptation window, the step size
at the end of tuning, the seconds per chain (the second run of the compiled program) and
the microseconds per leapfrog step, the smallest bulk/tail ESS and largest r̂ over the
sampled (unconstrained) parameters, and the divergent transitions among the kept draws.
Default tables: religion on the embedded GloVe 6B 50d (the quick start) and the authors'
race/GloVe table. Cap 10 is numpyro's default depth, i.e. no cap.

Usage: ``.venv/bin/python benchmarks/bench_warmup_depth.py [--levels crossed,hierarchical]
[--caps 10,6] [--initial-mass identity,moments] [--tables religion,race/published:glove]
[--seeds 0,1,2]``; writes ``benchmarks/results/bench_warmup_depth.json``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from typing import Any

from record import Tables

TUNE, DRAWS, TARGET = 1000, 3000, 0.9
#: numpyro's adaptation windows for 1000 tuning iterations: initial buffer, then the slow
#: windows (25, 50, 100, 200, 500) that end with a new mass matrix, then the final buffer
WINDOWS = ((0, 75), (75, 100), (100, 150), (150, 250), (250, 450), (450, 950), (950, 1000))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="crossed,hierarchical")
    ap.add_argument("--caps", default="10,6")
    ap.add_argument("--tables", default="religion,race/published:glove",
                    help="STUDY (on the embedded GloVe 6B 50d) or STUDY/published:SOURCE")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--initial-mass", default="identity,moments",
                    help="identity (numpyro's own start) and/or moments (embias's: "
                         "initial_inverse_mass)")
    args = ap.parse_args()
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    import jax

    import embias

    jax.config.update("jax_enable_x64", True)
    out = Tables(__file__, title="Leapfrog steps while tuning, by first mass matrix and "
                 "tuning depth", settings={
                     "chains": 2, "tune": TUNE, "draws": DRAWS, "target acceptance": TARGET,
                     "tables": args.tables.split(","), "levels": args.levels.split(","),
                     "seeds": args.seeds.split(","), "tuning depth caps": args.caps.split(","),
                     "initial mass": args.initial_mass.split(",")})
    caps = [int(c) for c in args.caps.split(",")]
    found = []
    for name in args.tables.split(","):
        study, _, source = name.partition("/")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = (embias.load_published_table(study, source.split(":")[1],
                                                 duplicates="drop") if source
                     else embias.study_table(study))
        for level in args.levels.split(","):
            for seed in (int(x) for x in args.seeds.split(",")):
                found += rows(name, table, level, seed, caps, args.initial_mass.split(","))
    out.table("numpyro NUTS tuning cost per table, level, seed, first mass matrix and cap", [
        "table", "level", "seed", "initial mass", "tuning depth cap",
        "leapfrog steps tuning / kept (per chain)",
        "tuning steps by window " + " ".join(f"{a}-{b}" for a, b in WINDOWS), "step size",
        "s per chain", "µs per step", "min ESS bulk / tail", "max r̂", "divergences"], found,
        note="Two chains one after the other on one CPU device, embias's model and starting "
             "points. Tuning steps by window: mean leapfrog steps per chain in numpyro's "
             "adaptation windows (initial buffer, slow windows of 25, 50, 100, 200 and 500 "
             "iterations, final buffer). Step size at the end of tuning; s per chain: the "
             "second run of the compiled program. ESS and r̂ over the sampled "
             "(unconstrained) parameters; divergences among the kept draws of both chains. "
             "Cap 10 is numpyro's default depth (no cap).")
    out.write()


def rows(name: str, table: Any, level: str, seed: int, caps: list[int],
         masses: list[str]) -> list[list[Any]]:
    """One row per first mass matrix and tuning depth cap for a table, level and seed
    (embias's model and starting points for that seed, built once; chain c's key is
    ``fold_in(PRNGKey(seed), c)``)."""
    import numpy as np
    from pymc.sampling.jax import _get_batched_jittered_initial_points, get_jaxified_logp

    from embias.bayes.data import (
        approximate_posterior_sd,
        cell_statistics,
        choose_centring,
        initial_values,
    )
    from embias.bayes.diagnostics import rank_normalized_diagnostics
    from embias.bayes.model import build_model
    from embias.bayes.sampling import initial_inverse_mass

    cells = cell_statistics(table)
    centred = choose_centring(cells)  # as fit_bias_model chooses
    model = build_model(cells, level=level, data="summary", table=table, centred=centred)
    start = initial_values(cells, level=level, centred=centred, chains=2, random_seed=seed,
                           word_kinds=list(model.coords.get("word_kind") or ()))
    init = _get_batched_jittered_initial_points(model=model, chains=2, initvals=start,
                                               random_seed=seed, jitter=False)
    logp = get_jaxified_logp(model)
    first = {"identity": None,
             "moments": initial_inverse_mass(model, approximate_posterior_sd(
                 cells, level=level, centred=centred), dense=level == "crossed")}
    found = []
    for mass, cap in ((m, c) for m in masses for c in caps):
        steps, sizes, draws, seconds, div = run_chains(logp, init, dense=level == "crossed",
                                                       cap=cap, seed=seed,
                                                       inverse_mass=first[mass])
        r_hat, bulk, tail = rank_normalized_diagnostics(np.stack(draws))
        tuning = np.mean([s[:TUNE].sum() for s in steps])
        kept = np.mean([s[TUNE:].sum() for s in steps])
        windows = " ".join(f"{np.mean([s[a:b].sum() for s in steps]):.0f}"
                           for a, b in WINDOWS)
        found.append([name, level, seed, mass, cap, f"{tuning:,.0f} / {kept:,.0f}", windows,
                      f"{np.mean(sizes):.3f}", f"{np.mean(seconds):.2f}",
                      f"{1e6 * np.mean(seconds) / (tuning + kept):.1f}",
                      f"{bulk.min():.0f} / {tail.min():.0f}", f"{r_hat.max():.4f}", div])
        print(f"{name} {level} seed {seed} {mass} cap {cap}: tuning {tuning:,.0f} steps, "
              f"{np.mean(seconds):.2f} s per chain", flush=True)
    return found


def run_chains(logp: Any, init: list[Any], *, dense: bool, cap: int, seed: int,
               inverse_mass: Any = None
               ) -> tuple[list[Any], list[float], list[Any], list[float], int]:
    """Two chains of numpyro's NUTS kernels, one after the other: per chain the leapfrog
    steps of every iteration, the step size at the end of tuning, the kept draws
    ``(draw, scalar)`` and the seconds of the second run of the compiled program; and the
    divergent transitions among the kept draws of both."""
    import jax
    import numpy as np
    from numpyro.infer.hmc import hmc

    init_kernel, sample_kernel = hmc(potential_fn=lambda z: -logp(z), algo="NUTS")

    def step(s: Any, _: None) -> tuple[Any, Any]:
        s = sample_kernel(s)
        return s, (s.num_steps, s.adapt_state.step_size, s.z, s.diverging)

    @jax.jit
    def chain(state: Any) -> Any:
        return jax.lax.scan(step, state, None, length=TUNE + DRAWS)[1]

    steps, sizes, draws, seconds, divergences = [], [], [], [], 0
    for c in range(2):
        state = init_kernel([a[c] for a in init], TUNE, dense_mass=dense,
                            target_accept_prob=TARGET, max_tree_depth=(cap, 10),
                            inverse_mass_matrix=inverse_mass,
                            rng_key=jax.random.fold_in(jax.random.PRNGKey(seed), c))
        jax.block_until_ready(chain(state))  # compile (first chain) or warm up
        t = time.perf_counter()
        n, size, z, diverging = jax.block_until_ready(chain(state))
        seconds.append(time.perf_counter() - t)
        steps.append(np.asarray(n))
        sizes.append(float(size[TUNE - 1]))
        divergences += int(np.asarray(diverging)[TUNE:].sum())
        draws.append(np.concatenate([np.asarray(a)[TUNE:].reshape(DRAWS, -1) for a in z],
                                    axis=1))
    return steps, sizes, draws, seconds, divergences


if __name__ == "__main__":
    main()
