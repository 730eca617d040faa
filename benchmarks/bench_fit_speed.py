"""Which NUTS should fit embias's models? Cold and warm wall times, ESS per second.

The religion/GloVe hierarchical fit (``study_table("religion", "glove-6b-50d",
duplicates="drop")``, cell sufficient statistics, 2 chains × (tune + draws)) with each
sampler configuration, each run twice in a fresh Python process:

* **cold**: compile caches in folders this script has just created, empty
  (``PYTENSOR_FLAGS=base_compiledir=…``, ``NUMBA_CACHE_DIR``, ``JAX_COMPILATION_CACHE_DIR``,
  ``XDG_CACHE_HOME``, ``MPLCONFIGDIR``) — a first run on a fresh machine;
* **warm**: the same folders again, now filled — every later run.

Wall time is end to end as seen from the parent (interpreter start, imports, table,
model build, compile, sampling); ``cpu`` is the child's user+sys CPU time (a fairer figure
when the machine is shared). ESS and r̂ are ArviZ's (``az.ess`` bulk/tail, ``az.rhat``)
over ``connection_mean`` and ``coef``; ESS/s is min(bulk, tail) over the warm wall time.

Configurations:

* ``pymc`` — PyMC's own NUTS (numba backend), ``cores=2``, the moment-based starting points
  of ``fit_bias_model``;
* ``nutpie`` — ``pm.sample(nuts_sampler="nutpie")`` (numba; data as shared inputs);
* ``nutpie-frozen`` — ``nutpie.compile_pymc_model(model, freeze_model=True)`` then
  ``nutpie.sample`` (data folded in as constants);
* ``numpyro-parallel`` — ``pm.sample(nuts_sampler="numpyro", nuts={"chain_method":
  "parallel"})`` with ``XLA_FLAGS=--xla_force_host_platform_device_count=2`` and a
  persistent XLA cache;
* ``numpyro-vectorized`` — the same with ``chain_method="vectorized"`` (one device);
* ``blackjax`` — ``pm.sample(nuts_sampler="blackjax")`` (reported as failing when it does);
* ``embias-nutpie`` — ``embias.fit_bias_model(table, sampler="nutpie")``: nutpie compiled
  once per model shape in the process (``embias.bayes.sampling``), the table's data fed
  through ``with_data``;
* ``embias-numpyro``, ``embias-numpyro-crossed`` — ``embias.fit_bias_model(table,
  sampler="numpyro")`` at the hierarchical and the crossed level: ``pm.sample``'s numpyro,
  each fit compiled anew (the default for a fit alone until 0.4);
* ``embias-default`` — ``embias.fit_bias_model(table)``: the default sampler (embias's
  batch NUTS, a program of the fit's chains compiled once per model shape);
* ``embias-crossed`` — ``embias.fit_bias_model(table, level="crossed")``: the compared words
  as a random effect, integrated out (dense mass matrix), default sampler.

Then the batch figure: :func:`embias.fit_many` with ``sampler="nutpie"`` on N perturbed
copies of the religion table (same shape; cold, in a fresh process with fresh caches), every
fit's r̂/ESS checked, and whether a table fitted alone with the same seed gives the same
draws.

Finally the command line end to end: ``embias fit religion`` cold and warm (``--refit``),
and ``embias show`` of the saved fit; and where the time of ``embias fit religion`` goes,
stage by stage (in-process timers; JAX's log of its XLA compilations), cold and warm, at the
crossed and the hierarchical level.

Also the import times of ``arviz``, ``embias.bayes`` and ``embias.cli`` with JAX importable
and with it hidden (DESIGN §11: ``arviz_base`` touches jax when present).

Usage: ``.venv/bin/python benchmarks/bench_fit_speed.py [--quick] [--only a,b]
[--batch N] [--batch-draws N] [--draws N] [--tune N] [--seed N] [--skip-imports]
[--skip-samplers] [--skip-batch] [--skip-cli] [--out PATH]``. ``--quick``: 500 tune + 500
draws, a batch of 20. Compile caches go to a temporary folder (removed at the end); the tables go to
``benchmarks/results/bench_fit_speed.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import Tables, fresh_cache_env

CONFIGS = ("pymc", "nutpie", "nutpie-frozen", "numpyro-parallel", "numpyro-vectorized",
           "blackjax", "embias-nutpie", "embias-numpyro", "embias-numpyro-crossed",
           "embias-default", "embias-crossed")
#: embias's own paths: (sampler, level) given to fit_bias_model (None: the default)
EMBIAS_PATHS = {"embias-nutpie": ("nutpie", "hierarchical"),
                "embias-numpyro": ("numpyro", "hierarchical"),
                "embias-numpyro-crossed": ("numpyro", "crossed"),
                "embias-default": (None, "hierarchical"),
                "embias-crossed": (None, "crossed")}

CHILD = r"""
import json, os, sys, time, warnings
warnings.filterwarnings("ignore")
import logging; logging.disable(logging.WARNING)
cfg = json.loads(sys.argv[1])
t0 = time.perf_counter()
name, draws, tune, seed = cfg["name"], cfg["draws"], cfg["tune"], cfg["seed"]
if name.startswith(("numpyro", "blackjax", "batch")):  # embias's own paths set JAX up
    import jax
    jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
import numpy as np
import embias
from embias.bayes import build_model, cell_statistics, choose_centring, initial_values
table = embias.study_table("religion", "glove-6b-50d", duplicates="drop")
cells = cell_statistics(table)
centred = choose_centring(cells)
t_table = time.perf_counter()
out = {"name": name}
if name.startswith("embias-"):
    sampler, level = cfg["embias_path"]
    options = {"sampler": sampler} if sampler else {}
    fit = embias.fit_bias_model(table, level=level, draws=draws, tune=tune,
                                random_seed=seed, progress=False, warn=False, **options)
    post = fit.posterior
    t_end = time.perf_counter()
    import arviz as az
    var = ["connection_mean", "coef"]
    diag = fit.diagnostics()
    diag = diag[diag["variable"].isin(var)]
    cm = post["posterior"]["connection_mean"]
    out.update(ess_bulk=float(diag["ess_bulk"].min()), ess_tail=float(diag["ess_tail"].min()),
               rhat=float(diag["r_hat"].max()), divergences=int(fit.divergences),
               means=[float(v) for v in cm.mean(("chain", "draw")).values],
               sds=[float(v) for v in cm.std(("chain", "draw")).values],
               connections=[str(c) for c in cm["connection"].values],
               steps=float(post["sample_stats"]["n_steps"].mean())
               if "n_steps" in post["sample_stats"] else float("nan"))
else:
    import pymc as pm
    model = build_model(cells, level="hierarchical", centred=centred)
    if name == "nutpie-frozen":
        import nutpie
        compiled = nutpie.compile_pymc_model(model, freeze_model=True)
        post = nutpie.sample(compiled, draws=draws, tune=tune, chains=2, cores=2, seed=seed,
                             progress_bar=False, target_accept=0.9)
    else:
        kw = {}
        sampler = name.split("-")[0]
        if name == "pymc":
            kw = {"init": "adapt_diag", "initvals": initial_values(
                cells, level="hierarchical", centred=centred, chains=2, random_seed=seed)}
        nuts = {"target_accept": 0.9}
        if sampler == "numpyro":
            nuts["chain_method"] = name.split("-")[1]
        post = pm.sample(draws=draws, tune=tune, chains=2, cores=2, random_seed=seed,
                         nuts_sampler=sampler, nuts=nuts, progressbar=False,
                         compute_convergence_checks=False, model=model, **kw)
    t_end = time.perf_counter()
    import arviz as az
    var = ["connection_mean", "coef"]
    def low(dt):
        return float(min(float(dt[v].min()) for v in var))
    ess_b = az.ess(post, var_names=var, method="bulk")
    ess_t = az.ess(post, var_names=var, method="tail")
    rh = az.rhat(post, var_names=var)
    cm = post["posterior"]["connection_mean"]
    div = post["sample_stats"]["diverging"]
    steps = post["sample_stats"].get("n_steps", post["sample_stats"].get("tree_size"))
    out.update(ess_bulk=low(ess_b["posterior"] if "posterior" in ess_b.children else ess_b),
               ess_tail=low(ess_t["posterior"] if "posterior" in ess_t.children else ess_t),
               rhat=float(max(float((rh["posterior"] if "posterior" in rh.children
                                     else rh)[v].max()) for v in var)),
               divergences=int(div.sum()),
               means=[float(v) for v in cm.mean(("chain", "draw")).values],
               sds=[float(v) for v in cm.std(("chain", "draw")).values],
               connections=[str(c) for c in cm["connection"].values],
               steps=float(steps.mean()) if steps is not None else float("nan"))
out.update(table_seconds=t_table - t0, fit_seconds=t_end - t_table)
print("RESULT " + json.dumps(out))
"""

BATCH_CHILD = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import logging; logging.disable(logging.WARNING)
cfg = json.loads(sys.argv[1])
t0 = time.perf_counter()
import numpy as np
import embias
table = embias.study_table("religion", "glove-6b-50d", duplicates="drop")
rng = np.random.default_rng(0)
def perturbed():  # the distance moved, the similarity kept as 1 - distance
    distance = table["cosine_distance"] + rng.normal(0.0, 0.01, len(table))
    return table.assign(cosine_distance=distance, cosine_similarity=1.0 - distance)
tables = [perturbed() for _ in range(cfg["n"])]
# the hierarchical model (cell summaries)
settings = embias.FitSettings(level="hierarchical", sampler="nutpie", draws=cfg["draws"],
                              tune=cfg["tune"])
import dataclasses
jobs = [embias.FitJob(t, dataclasses.replace(settings, random_seed=i), label=f"table {i}")
        for i, t in enumerate(tables)]
t1 = time.perf_counter()
fits = embias.fit_many(jobs, progress=False, warn=False)
t2 = time.perf_counter()
over = [f.diagnostics_overview().iloc[0] for f in fits]
failures = [i for i, f in enumerate(fits) if f.problems()]
checked = [0, len(fits) // 2, len(fits) - 1]
diffs = []
t3 = time.perf_counter()
for i in checked:
    alone = embias.fit_bias_model(tables[i], settings=settings, random_seed=i,
                                  progress=False, warn=False)
    diffs.append(float(np.abs(alone.posterior["posterior"]["connection_mean"].values
                              - fits[i].posterior["posterior"]["connection_mean"].values).max()))
t4 = time.perf_counter()
print("RESULT " + json.dumps({
    "batch_seconds": t2 - t1, "prepare_seconds": t1 - t0,
    "ess_bulk_min": float(min(o["min_ess_bulk"] for o in over)),
    "ess_tail_min": float(min(o["min_ess_tail"] for o in over)),
    "rhat_max": float(max(o["max_r_hat"] for o in over)),
    "divergences": int(sum(o["divergences"] for o in over)),
    "n_ess_below_1000": int(sum(min(o["min_ess_bulk"], o["min_ess_tail"]) < 1000
                                for o in over)),
    "failures": failures, "checked": checked, "max_abs_diff_vs_single": max(diffs),
    "singles_seconds": t4 - t3}))
"""

IMPORT_CHILD = r"""
import sys, time
if sys.argv[2] == "hide":  # None in sys.modules: import fails, find_spec() gives None
    for name in ("jax", "jaxlib", "numpyro", "blackjax", "nutpie"):
        sys.modules[name] = None
t = time.perf_counter()
__import__(sys.argv[1])
print("RESULT", time.perf_counter() - t, int("jaxlib" in sys.modules))
"""


def fresh_env(root: str, name: str, devices: int) -> dict[str, str]:
    """Environment with compile caches under ``root/name`` (created empty)."""
    env = fresh_cache_env(Path(root) / name)
    env["PYTHONWARNINGS"] = "ignore"
    env.pop("XLA_FLAGS", None)
    if devices > 1:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    return env


def run_child(code: str, cfg: dict, env: dict[str, str], timeout: float = 1800
              ) -> tuple[float, float, dict | str]:
    """Run ``code`` in a fresh interpreter; wall s, child CPU s, parsed RESULT or error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(cfg)], env=env,
                          capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return wall, cpu, json.loads(line[7:])
    lines = proc.stderr.strip().splitlines() or ["no output"]
    errs = [ln for ln in lines if "Error" in ln and not ln.startswith(" ")]
    err = (errs or lines)[-1]
    return wall, cpu, f"failed: {err[:160]}"


def load() -> str:
    return os.popen("cat /proc/loadavg").read().split()[0] if os.path.exists(
        "/proc/loadavg") else "?"


def bench_samplers(out: Tables, root: str, names: list[str], draws: int, tune: int,
                   seed: int) -> None:
    rows = []
    for name in names:
        devices = 2 if name in ("numpyro-parallel", "blackjax") else 1
        env = fresh_env(root, name, devices)
        cfg = {"name": name, "draws": draws, "tune": tune, "seed": seed,
               "embias_path": EMBIAS_PATHS.get(name)}
        cold_w, cold_c, cold = run_child(CHILD, cfg, env)
        warm_w, warm_c, warm = run_child(CHILD, cfg, env)
        if isinstance(warm, str) or isinstance(cold, str):
            msg = warm if isinstance(warm, str) else cold
            rows.append([name, f"{cold_w:.1f}", f"{warm_w:.1f}", msg, "", "", "", "", ""])
            print(f"{name}: {msg}", flush=True)
            continue
        ess = min(warm["ess_bulk"], warm["ess_tail"])
        mcse = [s / max(warm["ess_bulk"], 1.0) ** 0.5 for s in warm["sds"]]
        means = ", ".join(f"{c[:4]} {m:.4f}±{e:.4f}" for c, m, e in
                          zip(warm["connections"], warm["means"], mcse, strict=True))
        rows.append([name, f"{cold_w:.1f} ({cold_c:.0f})", f"{warm_w:.1f} ({warm_c:.0f})",
                     f"{warm['ess_bulk']:.0f} / {warm['ess_tail']:.0f}", f"{ess / warm_w:.0f}",
                     f"{warm['rhat']:.4f}", warm["divergences"], f"{warm['steps']:.1f}", means])
        print(f"{name}: cold {cold_w:.1f} s, warm {warm_w:.1f} s", flush=True)
    out.table(f"Samplers: religion/GloVe hierarchical, 2 chains × ({tune} tune + {draws} "
              f"draws), seed {seed}", [
                  "sampler", "cold s (cpu)", "warm s (cpu)", "min ESS bulk / tail",
                  "ESS/s (warm)", "max r̂", "div.", "leapfrog/draw",
                  "connection means (± MCSE)"], rows,
              note="Each configuration in a fresh process: cold with empty compile caches, "
                   "warm with them filled; wall seconds end to end (interpreter start to "
                   "draws), the child's CPU seconds in brackets. ESS over connection_mean "
                   "and coef; ESS/s: min(bulk, tail) over the warm wall time. MCSE shown "
                   f"uses the smallest bulk ESS. Load average at the end: {load()}.")


def bench_batch(out: Tables, root: str, n: int, draws: int, tune: int) -> None:
    env = fresh_env(root, "batch", 1)
    wall, cpu, res = run_child(BATCH_CHILD, {"n": n, "draws": draws, "tune": tune}, env,
                               timeout=7200)
    title = (f"Many fits, one compile: {n} religion/GloVe tables, hierarchical level, "
             f"2 chains × ({tune} + {draws}), embias.fit_many(sampler='nutpie'), cold caches")
    header = ["fits", "batch s", "s per fit", "process wall s", "process CPU s",
              "min ESS bulk / tail", "fits with ESS < 1000", "max r̂", "div.",
              "failing fits", "refitted alone: max |Δ| of draws"]
    if isinstance(res, str):
        out.table(title, header, [[n, res, "", f"{wall:.1f}", f"{cpu:.0f}", "", "", "", "",
                                   "", ""]])
        return
    out.table(title, header, [[
        n, f"{res['batch_seconds']:.1f}", f"{res['batch_seconds'] / n:.2f}", f"{wall:.1f}",
        f"{cpu:.0f}", f"{res['ess_bulk_min']:.0f} / {res['ess_tail_min']:.0f}",
        res["n_ess_below_1000"], f"{res['rhat_max']:.4f}", res["divergences"],
        ", ".join(map(str, res["failures"])) or "none",
        f"{res['max_abs_diff_vs_single']:g} (tables {res['checked']})"]],
        note="s per fit includes the one compile. Failing: r̂ > 1.01, ESS < 400 or "
             "divergences. Refitted alone: those tables fitted on their own with the same "
             "seed; 0 means identical connection_mean draws.")


CLI_CHILD = r"""
import json, subprocess, sys, time
cfg = json.loads(sys.argv[1])
out = {}
for name, args in (("fit", ["fit", "religion", "--no-progress", "--refit"]),
                   ("show", None)):
    if name == "show":
        args = ["show", out["path"]]
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "embias", *args, "--out", cfg["models"]]
                       if name == "fit" else [sys.executable, "-m", "embias", *args],
                       capture_output=True, text=True, cwd=cfg["cwd"])
    out[name] = time.perf_counter() - t
    if p.returncode:
        print("RESULT " + json.dumps({"error": p.stderr[-300:]}))
        sys.exit()
    if name == "fit":
        out["path"] = [ln.split(": ", 1)[1] for ln in p.stdout.splitlines()
                       if ln.startswith("saved fit: ")][0]
print("RESULT " + json.dumps(out))
"""


#: Where a CLI fit's time goes: ``embias.cli.main(["fit", "religion", ...])`` in this
#: process, with the stages' functions wrapped by timers (importing embias's before the
#: command, and JAX's when the fit first needs JAX, is the "imports" stage). The default
#: sampler's stages: the table's model data, the model's JAX functions (compiled once per
#: shape), the batch NUTS program (``run_lanes``: trace, compile or load, and the sampling
#: itself, which it waits for), the draws' transform and their DataTree. The XLA
#: compilations are JAX's own log (``jax_log_compiles``).
STAGES_CHILD = r"""
import functools, importlib, json, logging, sys, time
cfg = json.loads(sys.argv[1])
T0 = time.perf_counter()
compiles = []
class Grab(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        if msg.startswith("Finished XLA compilation"):
            compiles.append(float(msg.rsplit(" in ", 1)[1].split()[0]))
logging.getLogger("jax").addHandler(Grab())
logging.getLogger("jax").setLevel(logging.DEBUG)
logging.getLogger("jax").propagate = False
calls = []
def timed(modname, attr):
    owner = importlib.import_module(modname)
    *path, last = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    f = getattr(owner, last)
    @functools.wraps(f)
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            calls.append((attr, t, time.perf_counter()))
    setattr(owner, last, wrapper)
import embias.cli
for modname, attr in [
        ("embias.pipeline.study_fits", "cached_study_table"),
        ("embias.bayes.batch_sampling", "_prepare"),
        ("embias.bayes.batch_sampling", "_compile_shape"),
        ("embias.bayes.batch_sampling", "_constrain"),
        ("embias.bayes.batch_sampling", "_tree"),
        ("embias.bayes.sampling", "complete_crossed_draws"),
        ("embias.bayes.fit", "convergence_diagnostics"),
        ("embias.pipeline.study_fits", "save_checked"),
        ("embias.audit", "keep_figures")]:
    timed(modname, attr)
# JAX: imported here (the command imports it when the fit first needs it), its compile log
# switched on, and that time counted as imports
lazy_imports = []
t = time.perf_counter()
import jax
jax.config.update("jax_log_compiles", True)
import embias.bayes.batch_nuts
timed("embias.bayes.batch_nuts", "run_lanes")
lazy_imports.append(time.perf_counter() - t)
t_imports = time.perf_counter() - T0
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    rc = embias.cli.main(["fit", "religion", "--no-progress", "--refit", "--out",
                          cfg["models"], *cfg["extra"]])
total = time.perf_counter() - T0
def spent(name):
    return sum(b - a for n, a, b in calls if n == name)
stages = {
    "imports (embias.cli; JAX when first needed)": t_imports + sum(lazy_imports),
    "cosine table (cache)": spent("cached_study_table"),
    "the table's model data (cell statistics; a PyMC model where it must be built)":
        spent("_prepare"),
    "the model's JAX functions (PyMC graphs to JAX; once per model shape)":
        spent("_compile_shape"),
    "batch NUTS program (trace, compile or load, sampling)": spent("run_lanes"),
    "the draws' transform (JAX)": spent("_constrain"),
    "the draws as a DataTree": spent("_tree"),
    "word effects (crossed)": spent("complete_crossed_draws"),
    "r-hat / ESS": spent("convergence_diagnostics"),
    "saving the fit": spent("save_checked"),
    "figures: the forest plot and the audit figures, drawn here and kept":
        spent("keep_figures"),
}
stages["everything else (printing, the terminal tables, ...)"] = (
    total - sum(stages.values()))
print("RESULT " + json.dumps({"rc": rc, "total": total, "stages": stages,
                              "xla_compile_total": sum(compiles),
                              "xla_compile_max": max(compiles, default=0.0),
                              "xla_compiles": len(compiles)}))
"""


def bench_cli(out: Tables, root: str) -> None:
    env = fresh_env(root, "cli", 1)
    cfg = {"models": os.path.join(root, "cli", "models"), "cwd": root}
    rows = []
    for label in ("cold", "warm"):
        _, _, res = run_child(CLI_CHILD, cfg, env, timeout=1800)
        if isinstance(res, str) or "error" in res:
            rows.append([label, str(res), ""])
            continue
        rows.append([label, f"{res['fit']:.1f}", f"{res['show']:.1f}"])
    out.table("The command line end to end (default sampler)", [
        "caches", "`embias fit religion --refit` s", "`embias show` of the saved fit s"], rows,
        note="Wall seconds of each command in a fresh process, cold (empty compile "
             "caches) then warm.")
    bench_stages(out, root)


def bench_stages(out: Tables, root: str) -> None:
    """Where the time of `embias fit religion` goes, stage by stage, cold then warm, at
    the default (crossed) and the hierarchical level (fresh caches per level)."""
    for level in ("crossed", "hierarchical"):
        env = fresh_env(root, f"stages-{level}", 1)
        cfg = {"models": os.path.join(root, f"stages-{level}", "models"),
               "extra": ["--level", level]}
        results = {}
        for label in ("cold", "warm"):
            wall, _, res = run_child(STAGES_CHILD, cfg, env, timeout=1800)
            if isinstance(res, str) or res.get("rc"):
                print(f"- stages, {level}, {label}: {res}")
                return
            results[label] = (wall, res)
        cold, warm = results["cold"][1], results["warm"][1]
        rows = [[stage, f"{cold['stages'][stage]:.2f}", f"{warm['stages'][stage]:.2f}"]
                for stage in warm["stages"]]
        rows.append(["**total in the process**", f"{cold['total']:.2f}",
                     f"{warm['total']:.2f}"])
        rows.append(["wall, interpreter start to exit", f"{results['cold'][0]:.2f}",
                     f"{results['warm'][0]:.2f}"])
        rows.append(["XLA compilations logged by JAX (count / s in all / longest s)", *(
            f"{r['xla_compiles']} / {r['xla_compile_total']:.2f} / {r['xla_compile_max']:.2f}"
            for r in (cold, warm))])
        out.table(f"Where the time of `embias fit religion --level {level}` goes "
                  "(s; in-process timers)", ["stage", "cold", "warm"], rows,
                  note="A warm run's XLA compilations are loads from the persistent cache.")


def bench_imports(out: Tables, root: str) -> None:
    env = fresh_env(root, "imports", 1)
    rows = []
    for mod in ("arviz", "embias", "embias.bayes", "embias.cli", "pymc"):
        row = []
        loaded = 0
        for mode in ("show", "hide"):
            best = float("inf")
            for _ in range(3):
                p = subprocess.run([sys.executable, "-c", IMPORT_CHILD, mod, mode], env=env,
                                   capture_output=True, text=True)
                parts = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
                if not parts:
                    best = float("nan")
                    break
                _, secs, jl = parts[0].split()
                best = min(best, float(secs))
                if mode == "show":
                    loaded = int(jl)
            row.append(best)
        rows.append([mod, f"{row[0]:.2f}", f"{row[1]:.2f}", "yes" if loaded else "no"])
    out.table("Import time (s, best of 3 fresh processes; warm pyc)", [
        "module", "JAX importable", "JAX hidden", "jaxlib loaded when importable"], rows,
        note="JAX hidden: jax, jaxlib, numpyro, blackjax and nutpie made unimportable in the "
             "child (arviz_base touches jax when it is present).")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="500 + 500 draws, a batch of 20")
    ap.add_argument("--only", default="", help=f"comma-separated subset of {CONFIGS}")
    ap.add_argument("--batch", type=int, default=None, help="tables in the batch (200)")
    ap.add_argument("--batch-draws", type=int, default=None,
                    help="draws per chain in the batch (default: as the single fits)")
    ap.add_argument("--draws", type=int, default=None)
    ap.add_argument("--tune", type=int, default=None)
    ap.add_argument("--seed", type=int, default=20240612)
    ap.add_argument("--skip-batch", action="store_true")
    ap.add_argument("--skip-imports", action="store_true")
    ap.add_argument("--skip-samplers", action="store_true")
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--out", default=None,
                    help="results file (default benchmarks/results/bench_fit_speed.json)")
    args = ap.parse_args()
    draws = args.draws or (500 if args.quick else 3000)
    tune = args.tune or (500 if args.quick else 1000)
    n_batch = args.batch or (20 if args.quick else 200)
    names = [n for n in args.only.split(",") if n] or list(CONFIGS)
    unknown = set(names) - set(CONFIGS)
    if unknown:
        ap.error(f"unknown configurations {sorted(unknown)}; choose from {CONFIGS}")
    root = tempfile.mkdtemp(prefix="embias-bench-speed-")
    batch_draws = args.batch_draws or draws
    out = Tables(__file__, title="Sampler choice and fit speed, cold and warm",
                 settings={"table": "religion on GloVe 6B 50d (duplicates dropped)",
                           "chains": 2, "tune": tune, "draws": draws, "seed": args.seed,
                           "quick": args.quick, "configurations": names,
                           "batch": None if args.skip_batch else n_batch,
                           "batch draws": None if args.skip_batch else batch_draws,
                           "skipped": [k for k in ("imports", "samplers", "batch", "cli")
                                       if getattr(args, f"skip_{k}")]})
    try:
        if not args.skip_imports:
            bench_imports(out, root)
        if not args.skip_samplers:
            bench_samplers(out, root, names, draws, tune, args.seed)
        if not args.skip_batch:
            bench_batch(out, root, n_batch, batch_draws, tune)
        if not args.skip_cli:
            bench_cli(out, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    out.write(Path(args.out) if args.out else None)

if __name__ == "__main__":
    main()
