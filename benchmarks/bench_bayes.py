"""The Bayesian fit end to end, cold and warm; its ESS per second; the fast path's scaling.

1. End-to-end ``fit_religion_model()`` on GloVe 6B 50d with the default settings (the
   default level, crossed) — loading the embeddings, building the table, compiling and
   sampling — in a fresh Python process, once with empty compile caches (PyTensor, numba,
   JAX's persistent cache) and an empty embias cache ("cold", the first run on a machine)
   and once with them filled ("warm", every later run). Target: under 20 s on 2 cores.
2. ESS per second of that fit: the smallest bulk and tail ESS over every reported quantity
   (connection means, contrasts, word coefficients, word contrasts) and over every
   posterior variable, divided by the sampling time. Target: every reported quantity at
   ESS ≥ 1000 with the defaults.
3. Fast path (cell sufficient statistics, hierarchical level) on the 4,830-row published
   religion/Reddit table and on a synthetic table of about 1,000,000 rows (``--rows``) with
   the same cells and compared words (the table repeated under templates, distances drawn
   per cell); target: the 1M-row fit within 1.5× of the 4,830-row fit. The raw path on the
   4,830-row table is timed for reference.

Usage: ``.venv/bin/python benchmarks/bench_bayes.py [--repeats N] [--rows N]``. Fits and
caches go to a temporary directory (removed at the end); the tables to
``benchmarks/results/bench_bayes.json``."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from record import Tables, fresh_cache_env

CHILD_CODE = r"""
import json, sys, time, warnings
t0 = time.perf_counter()
import embias
t_import = time.perf_counter() - t0
warnings.simplefilter("ignore")
t1 = time.perf_counter()
fit = embias.fit_religion_model(models_dir=sys.argv[1], refit=True, random_seed=1,
                                progress=False)
t_call = time.perf_counter() - t1
print(json.dumps({"import": t_import, "call": t_call, "path": fit.path,
                  "timings": dict(fit.timings)}))
"""


def end_to_end(models_dir: str, caches: str) -> dict:
    """Time ``fit_religion_model()`` in a fresh process whose compile caches and embias
    cache are under ``caches`` (empty: cold; filled by an earlier call: warm)."""
    env = fresh_cache_env(Path(caches))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD_CODE, models_dir], env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"child failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def reported_ess(fit) -> dict[str, float]:
    """Smallest bulk/tail ESS over the reported quantities and over all variables."""
    import arviz as az
    import xarray as xr

    from embias.bayes.summary import contrast_draws

    post = fit.posterior["posterior"].to_dataset()
    reported = xr.Dataset({
        "connection_mean": post["connection_mean"],
        "contrast": contrast_draws(post["connection_mean"]).rename(contrast="pair"),
        "coef": post["coef"],
        "word_contrast": contrast_draws(post["coef"]).rename(contrast="pair"),
    })
    out = {}
    for label, ds in (("reported", reported), ("all", post)):
        for method in ("bulk", "tail"):
            ess = az.ess(ds, method=method)
            out[f"{label}_{method}"] = min(float(ess[v].min()) for v in ess.data_vars)
    return out


def synthetic_table(table: pd.DataFrame, rows: int, seed: int) -> pd.DataFrame:
    """``table`` repeated under about ``rows / len(table)`` templates (a ``template``
    column, as a sentence encoder's table has), each row's distance drawn from the normal
    of its (protected word, connection) cell's mean and sd, clipped to [0, 2]: the same
    cells and compared words, about ``rows`` rows."""
    from embias.bayes import cell_statistics

    rng = np.random.default_rng(seed)
    cells = cell_statistics(table).set_index(["protected_word", "connection"])
    sd = np.sqrt(cells["ss"] / np.maximum(cells["n"] - 1, 1))
    key = pd.MultiIndex.from_frame(table[["protected_word", "connection"]])
    mean, sd = cells["mean"].reindex(key).to_numpy(), sd.reindex(key).to_numpy()
    copies = max(1, round(rows / len(table)))
    base = table[["protected_word", "protected_class", "word_to_compare", "word_class",
                  "connection"]]
    out = pd.concat([base] * copies, ignore_index=True)
    out["template"] = np.repeat([f"t{i}" for i in range(copies)], len(table))
    out["cosine_distance"] = np.clip(rng.normal(np.tile(mean, copies), np.tile(sd, copies)),
                                     0.0, 2.0)
    out["embedding"] = "synthetic"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed fits per table for the fast-path comparison")
    parser.add_argument("--rows", type=int, default=1_000_000,
                        help="rows of the synthetic table of the fast-path comparison")
    args = parser.parse_args()
    from embias.settings import DEFAULT_CHAINS, DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_TUNE

    out = Tables(__file__, title="The Bayesian fit end to end: cold and warm, ESS per second",
                 settings={"level": DEFAULT_LEVEL, "chains": DEFAULT_CHAINS,
                           "tune": DEFAULT_TUNE, "draws": DEFAULT_DRAWS, "seed": 1,
                           "repeats": args.repeats, "synthetic rows": args.rows})
    workdir = tempfile.mkdtemp(prefix="embias-bench-")
    try:
        # ------------------------------------------------------------ 1. end to end
        defaults = (f"{DEFAULT_LEVEL} level, summary data, {DEFAULT_CHAINS} chains × "
                    f"({DEFAULT_TUNE} tune + {DEFAULT_DRAWS} draws)")
        cold = end_to_end(os.path.join(workdir, "cold"), os.path.join(workdir, "cache-cold"))
        warm_cache = os.path.join(workdir, "cache-warm")
        end_to_end(os.path.join(workdir, "warm"), warm_cache)  # fill the caches
        warm = end_to_end(os.path.join(workdir, "warm"), warm_cache)
        rows = []
        for label, r in (("cold", cold), ("warm", warm)):
            t = r["timings"]
            rows.append([label, f"{r['call']:.1f}", f"{t['sample_seconds']:.1f}",
                         f"{r['import']:.1f}", f"{r['wall']:.1f}",
                         "PASS" if r["call"] < 20 else "FAIL"])
        out.table(f"End-to-end fit_religion_model() on GloVe 6B 50d ({defaults})", [
            "compile caches", "call s", "sampling incl. compile s", "import s",
            "process wall s", "call < 20 s"], rows,
            note="In a fresh Python process: cold with empty compile caches (PyTensor, numba, "
                 "JAX's persistent cache) and an empty embias cache (the table is built from "
                 "the embedding), warm with them filled by an earlier run. call: "
                 "fit_religion_model() itself; target under 20 s on 2 cores.")

        # ------------------------------------------------------------ 2. ESS/s
        from embias import load_fit

        fit = load_fit(warm["path"])
        ess = reported_ess(fit)
        sampling = float(fit.posterior["posterior"].attrs.get(
            "sampling_time", fit.timings.get("sample_seconds", np.nan)))
        rows = []
        for label, key in (("reported quantities", "reported"),
                           ("every posterior variable", "all")):
            bulk, tail = ess[f"{key}_bulk"], ess[f"{key}_tail"]
            rows.append([label, f"{bulk:.0f}", f"{tail:.0f}", f"{bulk / sampling:.0f}",
                         f"{tail / sampling:.0f}", "PASS" if min(bulk, tail) >= 1000
                         else "FAIL"])
        out.table(f"Effective sample size of the warm fit ({defaults})", [
            "over", "min bulk ESS", "min tail ESS", "bulk ESS/s", "tail ESS/s",
            "ESS ≥ 1000"], rows,
            note="Reported quantities: connection means, contrasts, word coefficients and "
                 "word contrasts; every posterior variable adds the scales and offsets. "
                 f"ESS/s over the sampling time the fit records ({sampling:.1f} s, chains in "
                 f"parallel). Divergences {fit.divergences}; max r̂ "
                 f"{fit.diagnostics()['r_hat'].max():.4f}. Target: every reported quantity "
                 "at ESS ≥ 1000.")

        # ------------------------------------------------------------ 3. fast path
        from embias import load_published_table
        from embias.bayes import cell_statistics, fit_bias_model

        warnings.simplefilter("ignore")
        small = load_published_table("religion", "reddit")
        large = synthetic_table(small, args.rows, seed=0)
        for table in (small, large):  # compile (or load from the cache) first
            fit_bias_model(table, level="hierarchical", random_seed=0, progress=False)
        times: dict[str, list[float]] = {"small": [], "large": []}
        for i in range(args.repeats):
            for label, table in (("small", small), ("large", large)):
                t0 = time.perf_counter()
                fit_bias_model(table, level="hierarchical", random_seed=i, progress=False)
                times[label].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cell_statistics(large)
        t_cells = time.perf_counter() - t0
        t_small = statistics.median(times["small"])
        t_large = statistics.median(times["large"])
        fit_bias_model(small, level="hierarchical", data="raw", random_seed=0,
                       progress=False)  # compile once
        t0 = time.perf_counter()
        fit_bias_model(small, level="hierarchical", data="raw", random_seed=1,
                       progress=False)
        t_raw = time.perf_counter() - t0
        ratio = t_large / t_small
        out.table(f"Fast path: the {len(small):,}-row religion/Reddit table against a "
                  f"{len(large):,}-row synthetic table with the same 60 cells and words "
                  "(hierarchical level)", ["table", "data", "median s", "runs s"], [
            ["religion/Reddit, 4,830 rows", "summary", f"{t_small:.2f}",
             ", ".join(f"{t:.2f}" for t in times["small"])],
            [f"synthetic, {len(large):,} rows", "summary", f"{t_large:.2f}",
             ", ".join(f"{t:.2f}" for t in times["large"])],
            ["religion/Reddit, 4,830 rows", "raw", f"{t_raw:.2f}", "1 run"]],
            note=f"In this process, after a first fit of each table (compile). The synthetic "
                 f"table: the religion/Reddit table under {len(large) // len(small)} "
                 "templates (a template column, "
                 "as a sentence encoder's table has), distances drawn from each cell's normal. "
                 f"Ratio {len(large):,} / 4,830 rows: {ratio:.2f} (target ≤ 1.5 at 1M rows); "
                 f"the cell statistics of the large table take {t_cells:.2f} s. "
                 "The raw path (one likelihood term per row) for reference.")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    out.write()


if __name__ == "__main__":
    main()
