"""Probe for issue 12's next step: how fast is a fit whose NUTS program was exported once?

Today every `embias fit` process traces PyMC's model and numpyro's NUTS into JAX again
(`MCMC.run` 1.2-1.4 s warm, PyMC -> JAX graphs 0.6-0.8 s, PyMC's import ≈ 1.2 s; see
``bench_fit_speed.py``'s stage table); XLA's compiled program alone comes from the persistent
cache. This probe exports the whole sampler of the religion/GloVe crossed fit with
``jax.export`` — numpyro's functional NUTS (``numpyro.infer.hmc.hmc``: init and sample
kernels in a ``lax.scan`` over 1000 tuning + 3000 kept iterations, dense mass, target
acceptance 0.9), one chain per host device under ``jax.shard_map``, the log density from
PyMC (``get_jaxified_logp``), the chains started at embias's starting points and tuned from
its first inverse mass matrix (``initial_inverse_mass``) — and then
runs the serialized program in fresh processes that import only JAX and NumPy (cache
folders made fresh by ``bench_fit_speed.fresh_env``).

It prints: the build (PyMC model, tracing, export), then three fresh runs (the first
compiles into the fresh cache folder this script made, the others load it), each with the
Python start and JAX import, the program's load/compile plus sampling, the leapfrog steps,
divergences, min bulk/tail ESS and max r̂ of the raw parameters, and the connection means
next to those of ``embias.fit_bias_model`` on the same table (the default sampler).

Not wired into embias (no progress bar: a callback cannot be serialized; the draws are on
the unconstrained scale; the data are constants of the program, so the cache key would be
the table's hash). Usage: ``.venv/bin/python benchmarks/bench_export_probe.py``.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from bench_fit_speed import fresh_env, run_child

BUILD = r"""
import json, pickle, sys, time, warnings
warnings.filterwarnings("ignore")
folder = json.loads(sys.argv[1])["folder"]
t0 = time.perf_counter()
import embias
embias.configure_jax()
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, PartitionSpec as P
import embias
from embias.tables import study_table
from embias.bayes.data import (approximate_posterior_sd, cell_statistics, choose_centring,
                               initial_values)
from embias.bayes.model import build_model
from embias.bayes.sampling import initial_inverse_mass
from pymc.sampling.jax import get_jaxified_logp, _get_batched_jittered_initial_points
from numpyro.infer.hmc import hmc

TUNE, DRAWS, CHAINS, SEED = 1000, 3000, 2, 1
table = study_table("religion", "glove-6b-50d", duplicates="drop")
cells = cell_statistics(table)
centred = choose_centring(cells)  # as fit_bias_model chooses
model = build_model(cells, level="crossed", data="summary", table=table, centred=centred)
kinds = list(model.coords.get("word_kind") or ())
start = initial_values(cells, level="crossed", centred=centred, chains=CHAINS,
                       random_seed=SEED, word_kinds=kinds)
init = _get_batched_jittered_initial_points(model=model, chains=CHAINS, initvals=start,
                                           random_seed=SEED, jitter=False)
logp = get_jaxified_logp(model)
names = [v.name for v in model.value_vars]
# embias's first inverse mass matrix, in the order numpyro flattens the dict z (its sorted
# names) rather than PyMC's list
first = np.diag(initial_inverse_mass(model, approximate_posterior_sd(
    cells, level="crossed", centred=centred), dense=True))
ends = np.cumsum([int(np.prod(np.shape(a)[1:])) for a in init])
piece = dict(zip(names, np.split(first, ends[:-1]), strict=True))
inverse_mass = jnp.asarray(np.diag(np.concatenate([piece[n] for n in sorted(names)])))
t_model = time.perf_counter() - t0

def potential(z):
    return -logp([z[n] for n in names])

init_kernel, sample_kernel = hmc(potential_fn=potential, algo="NUTS")

def one_chain(key, z0):
    state = init_kernel(z0, TUNE, dense_mass=True, target_accept_prob=0.9, rng_key=key,
                        inverse_mass_matrix=inverse_mass)
    def step(s, _):
        s = sample_kernel(s)
        return s, (s.z, s.diverging, s.num_steps)
    _, (zs, div, steps) = jax.lax.scan(step, state, None, length=TUNE + DRAWS)
    return jax.tree.map(lambda a: a[TUNE:], zs), div[TUNE:], steps[TUNE:]

mesh = Mesh(np.array(jax.devices()[:CHAINS]), ("chain",))

def chains(keys, z0):
    def per_device(k, z):
        out = one_chain(k[0], jax.tree.map(lambda a: a[0], z))
        return jax.tree.map(lambda a: a[None], out)
    return jax.shard_map(per_device, mesh=mesh, in_specs=(P("chain"), P("chain")),
                         out_specs=P("chain"), check_vma=False)(keys, z0)

z0 = {n: jnp.asarray(a) for n, a in zip(names, init, strict=True)}
keys = jax.random.split(jax.random.PRNGKey(SEED), CHAINS)
t = time.perf_counter()
blob = jax.export.export(jax.jit(chains))(keys, z0).serialize()
t_export = time.perf_counter() - t
with open(f"{folder}/sampler.bin", "wb") as f:
    f.write(blob)
with open(f"{folder}/inputs.pkl", "wb") as f:
    pickle.dump({"keys": np.asarray(keys), "z0": {n: np.asarray(a) for n, a in z0.items()}}, f)
fit = embias.fit_bias_model(table, random_seed=SEED, progress=False, warn=False)
means = fit.posterior["posterior"]["connection_mean"].mean(("chain", "draw")).values
print("RESULT " + json.dumps({"model": t_model, "export": t_export, "bytes": len(blob),
                              "pm_sample_means": means.tolist()}))
"""

RUN = r"""
import json, pickle, sys, time
t0 = time.perf_counter()
folder = json.loads(sys.argv[1])["folder"]
import embias
embias.configure_jax()
import jax, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
jax.config.update("jax_enable_x64", True)
t_import = time.perf_counter() - t0
with open(f"{folder}/sampler.bin", "rb") as f:
    exported = jax.export.deserialize(f.read())
with open(f"{folder}/inputs.pkl", "rb") as f:
    inputs = pickle.load(f)
mesh = Mesh(np.array(jax.devices()[:2]), ("chain",))
args = jax.device_put((inputs["keys"], inputs["z0"]), NamedSharding(mesh, P("chain")))
t = time.perf_counter()
zs, div, steps = jax.block_until_ready(exported.call(*args))
t_run = time.perf_counter() - t
from embias.bayes.diagnostics import rank_normalized_diagnostics
x = np.concatenate([np.asarray(v).reshape(2, np.asarray(v).shape[1], -1)
                    for v in zs.values()], axis=2)
r_hat, bulk, tail = rank_normalized_diagnostics(x)
print("RESULT " + json.dumps({
    "import": t_import, "run": t_run, "steps": float(np.mean(steps)),
    "divergences": int(np.sum(div)), "ess_bulk": float(bulk.min()),
    "ess_tail": float(tail.min()), "r_hat": float(r_hat.max()),
    "means": np.asarray(zs["bar"]).mean((0, 1)).tolist()}))
"""


def child(code: str, folder: str, env: dict[str, str]) -> tuple[float, dict]:
    """``bench_fit_speed.run_child``, stopping at a failed child."""
    wall, _, res = run_child(code, {"folder": folder}, env)
    if isinstance(res, str):
        raise SystemExit(f"child {res}")
    return wall, res


def main() -> None:
    folder = tempfile.mkdtemp(prefix="embias-export-probe-")
    # fresh PyTensor/numba/JAX/XDG/matplotlib cache folders (DESIGN §11); embias sets up
    # the JAX host devices itself
    env = fresh_env(folder, "caches", 1)
    try:
        print(f"# bench_export_probe ({os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.2f})\n")
        wall, built = child(BUILD, folder, env)
        print(f"- build (fresh process: imports, table, PyMC model and starting points "
              f"{built['model']:.2f} s; trace + export {built['export']:.2f} s, "
              f"{built['bytes'] / 1024:.0f} KiB; then a reference fit_bias_model): "
              f"{wall:.1f} s wall")
        print("\n| run | wall (start to exit) | JAX import | load or compile + 2 × 4000 "
              "iterations | steps | div. | min ESS bulk / tail | max r̂ |")
        print("|---|---|---|---|---|---|---|---|")
        for i, label in enumerate(("first (compiles)", "second (cache)", "third (cache)")):
            wall, res = child(RUN, folder, env)
            print(f"| {label} | {wall:.2f} | {res['import']:.2f} | {res['run']:.2f} | "
                  f"{res['steps']:.1f} | {res['divergences']} | {res['ess_bulk']:.0f} / "
                  f"{res['ess_tail']:.0f} | {res['r_hat']:.4f} |")
            if i == 0:
                means = res["means"]
        print("\nconnection means (bar): exported "
              + ", ".join(f"{m:.3f}" for m in means) + "; pm.sample (embias default) "
              + ", ".join(f"{m:.3f}" for m in built["pm_sample_means"]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
