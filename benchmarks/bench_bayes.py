"""Benchmarks of the Bayesian models (embias.bayes / embias.fits); prints its figures.

1. End-to-end ``fit_religion_model()`` on GloVe 6B 50d with the default settings —
   loading the embeddings, building the table, compiling and sampling — in a fresh
   Python process, once with an empty PyTensor/numba compile cache ("cold", the first
   run on a machine) and once with the cache filled ("warm", every later run). Target:
   under 20 s on 2 cores.
2. ESS per second of that hierarchical fit: the smallest bulk and tail ESS over every
   reported quantity (connection means, contrasts, word coefficients, word contrasts) and
   over every posterior variable, divided by the sampling time. Target: every reported
   quantity at ESS ≥ 1000 with the defaults.
3. Fast path (cell sufficient statistics) on the 4,830-row published religion/Reddit
   table and on a 1,000,000-row synthetic table with the same cells; target: the
   1M-row fit within 1.5× of the 4,830-row fit. The raw path on the 4,830-row table is
   timed for reference.

Usage: ``.venv/bin/python benchmarks/bench_bayes.py [--repeats N]``. Writes only to a
temporary directory (removed at the end).
"""

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

import numpy as np
import pandas as pd

CHILD_CODE = r"""
import json, sys, time, warnings
t0 = time.perf_counter()
import embias.fits
t_import = time.perf_counter() - t0
warnings.simplefilter("ignore")
t1 = time.perf_counter()
fit = embias.fits.fit_religion_model(models_dir=sys.argv[1], refit=True, random_seed=1,
                                     progress=False)
t_call = time.perf_counter() - t1
print(json.dumps({"import": t_import, "call": t_call, "path": fit.path,
                  "timings": dict(fit.timings)}))
"""


def end_to_end(models_dir: str, *, cold: bool) -> dict:
    """Time ``fit_religion_model()`` in a fresh process (cold or warm compile cache)."""
    env = dict(os.environ)
    cache = None
    if cold:
        cache = tempfile.mkdtemp(prefix="pytensor-cold-")
        env["PYTENSOR_FLAGS"] = ",".join(
            filter(None, [env.get("PYTENSOR_FLAGS", ""), f"base_compiledir={cache}"]))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD_CODE, models_dir], env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if cache:
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode != 0:
        raise RuntimeError(f"child failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def reported_ess(fit) -> dict[str, float]:
    """Smallest bulk/tail ESS over the reported quantities and over all variables."""
    import arviz as az
    import xarray as xr

    from embias.bayes import _contrast_draws

    post = fit.posterior["posterior"].to_dataset()
    reported = xr.Dataset({
        "connection_mean": post["connection_mean"],
        "contrast": _contrast_draws(post["connection_mean"]).rename(contrast="pair"),
        "coef": post["coef"],
        "word_contrast": _contrast_draws(post["coef"]).rename(contrast="pair"),
    })
    out = {}
    for label, ds in (("reported", reported), ("all", post)):
        for method in ("bulk", "tail"):
            ess = az.ess(ds, method=method)
            out[f"{label}_{method}"] = min(float(ess[v].min()) for v in ess.data_vars)
    return out


def synthetic_table(cells: pd.DataFrame, rows: int, seed: int) -> pd.DataFrame:
    """A table with the given cells' means and sds, scaled to about ``rows`` rows."""
    rng = np.random.default_rng(seed)
    scale = rows / cells["n"].sum()
    counts = np.maximum(2, np.round(cells["n"].to_numpy() * scale).astype(int))
    counts[-1] += rows - counts.sum()
    sd = np.sqrt(cells["ss"].to_numpy() / np.maximum(cells["n"].to_numpy() - 1, 1))
    cell = np.repeat(np.arange(len(cells)), counts)
    return pd.DataFrame({
        "protected_word": cells["protected_word"].to_numpy()[cell],
        "protected_class": cells["protected_class"].to_numpy()[cell],
        "word_to_compare": np.char.add("w", np.arange(rows).astype(str)),
        "word_class": cells["connection"].to_numpy()[cell],
        "connection": cells["connection"].to_numpy()[cell],
        "cosine_distance": rng.normal(cells["mean"].to_numpy()[cell], sd[cell]),
        "embedding": "synthetic",
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed fits per table for the fast-path comparison")
    args = parser.parse_args()
    print(f"# embias Bayesian benchmarks — {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f} at start")
    workdir = tempfile.mkdtemp(prefix="embias-bench-")
    try:
        # ------------------------------------------------------------ 1. end to end
        from embias.bayes import DEFAULT_CHAINS, DEFAULT_DRAWS, DEFAULT_TUNE

        defaults = f"{DEFAULT_CHAINS} chains × {DEFAULT_DRAWS} draws + {DEFAULT_TUNE} tune"
        print("\n## 1. end-to-end fit_religion_model() on GloVe 6B 50d (defaults: "
              f"hierarchical, summary data, {defaults}, cores=2)")
        cold = end_to_end(os.path.join(workdir, "cold"), cold=True)
        end_to_end(os.path.join(workdir, "warm"), cold=False)  # fill the cache
        warm = end_to_end(os.path.join(workdir, "warm"), cold=False)
        for label, r in (("cold compile cache", cold), ("warm compile cache", warm)):
            t = r["timings"]
            print(f"{label}: call {r['call']:.1f} s (sampling incl. compile "
                  f"{t['sample_seconds']:.1f} s) + import {r['import']:.1f} s; "
                  f"process wall {r['wall']:.1f} s")
        print(f"target < 20 s: warm {'PASS' if warm['call'] < 20 else 'FAIL'}, "
              f"cold {'PASS' if cold['call'] < 20 else 'FAIL'}")

        # ------------------------------------------------------------ 2. ESS/s
        from embias.fits import load_fit

        fit = load_fit(warm["path"])
        ess = reported_ess(fit)
        sampling = float(fit.posterior["posterior"].attrs.get("sampling_time", np.nan))
        print(f"\n## 2. effective sample size of that fit ({defaults})")
        print(f"smallest ESS over reported quantities: bulk {ess['reported_bulk']:.0f}, "
              f"tail {ess['reported_tail']:.0f} "
              f"({'PASS' if min(ess['reported_bulk'], ess['reported_tail']) >= 1000 else 'FAIL'}"
              " ≥ 1000)")
        print(f"smallest ESS over all posterior variables (incl. tau, offsets): bulk "
              f"{ess['all_bulk']:.0f}, tail {ess['all_tail']:.0f}")
        print(f"divergences: {fit.divergences}; max r_hat "
              f"{fit.diagnostics()['r_hat'].max():.4f}")
        print(f"sampling time (PyMC's own, 2 chains in parallel): {sampling:.1f} s -> "
              f"min reported bulk ESS/s {ess['reported_bulk'] / sampling:.0f}, "
              f"min reported tail ESS/s {ess['reported_tail'] / sampling:.0f}")

        # ------------------------------------------------------------ 3. fast path
        from embias import load_published_table
        from embias.bayes import cell_statistics, fit_bias_model

        warnings.simplefilter("ignore")
        small = load_published_table("religion", "reddit")
        large = synthetic_table(cell_statistics(small), 1_000_000, seed=0)
        print(f"\n## 3. fast path: {len(small):,}-row religion/Reddit table vs "
              f"{len(large):,}-row synthetic table (same 60 cells); hierarchical, defaults")
        for table in (small, large):  # compile (or load from the cache) first
            fit_bias_model(table, random_seed=0, progress=False)
        times: dict[str, list[float]] = {"small": [], "large": []}
        for i in range(args.repeats):
            for label, table in (("small", small), ("large", large)):
                t0 = time.perf_counter()
                fit_bias_model(table, random_seed=i, progress=False)
                times[label].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cell_statistics(large)
        t_cells = time.perf_counter() - t0
        t_small = statistics.median(times["small"])
        t_large = statistics.median(times["large"])
        print(f"4,830 rows: median {t_small:.2f} s  (runs: "
              f"{', '.join(f'{t:.2f}' for t in times['small'])})")
        print(f"1,000,000 rows: median {t_large:.2f} s  (runs: "
              f"{', '.join(f'{t:.2f}' for t in times['large'])}; of which cell statistics "
              f"{t_cells:.2f} s)")
        print(f"ratio 1M / 4,830: {t_large / t_small:.2f} "
              f"({'PASS' if t_large / t_small <= 1.5 else 'FAIL'} ≤ 1.5)")
        fit_bias_model(small, data="raw", random_seed=0, progress=False)  # compile once
        t0 = time.perf_counter()
        fit_bias_model(small, data="raw", random_seed=1, progress=False)
        print(f"raw path on 4,830 rows for reference: {time.perf_counter() - t0:.2f} s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
