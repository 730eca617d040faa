"""Batches of fits near the sampler's floor: 200 religion-shaped fits, the real-word
calibration, the word-sampling simulation, the design analysis.

Run: .venv/bin/python benchmarks/bench_batch.py [--fits N] [--only NAME ...] [--json FILE]

Each measurement runs in a fresh process with fresh cache folders made here (PyTensor's,
JAX's, Matplotlib's and numba's: "cold", compile included), then once more in that process
("warm": the compiled program reused):

- ``fits``: ``--fits`` (default 200) tables drawn from the crossed model with the rows of
  religion/GloVe 6B 50d (:func:`embias.simulate_word_table`, the word-sampling null), fitted
  at the default (crossed) level with :meth:`embias.FitSettings.for_batch` through
  :func:`embias.fit_many`: wall time; the fits failing r̂ ≤ 1.01, bulk/tail ESS ≥ 400 or
  with divergences, by index; the floor — µs per gradient of one lane (measured on the
  compiled log density, vmapped over 128 lanes) × the leapfrog steps of a fit (its chains',
  warm-up included) — against the batch program's own time;
- ``calibration``: :func:`embias.calibrate_on_populations` of 200 studies, one level;
- ``word-sampling``: :func:`embias.simulate_word_sampling` of 200 tables × 2 levels;
- ``design``: :func:`embias.design.design_analysis` of 4 sizes (4, 8, 16, 32 attribute
  words per class) × 100 studies drawn from a crossed fit of religion/GloVe 6B 50d (the
  pilot, fitted first with the library's defaults and timed apart; warm: the same sizes
  with the next seed).

Prints one table and writes the figures (with the machine and date) to
``benchmarks/results/batch.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import fresh_cache_env, provenance, write_json

HERE = Path(__file__).resolve().parent


# ----------------------------------------------------------------------- in the child
def _religion_tables(n: int, seed: int) -> list:
    import numpy as np

    import embias
    from embias.simulate_words import calibrate_word_sampling, simulate_word_table
    from embias.tables import study_table

    design = study_table("religion", "glove-6b-50d")
    parameters = calibrate_word_sampling(design).without_association()
    del embias
    return [simulate_word_table(design, parameters,
                                random_seed=np.random.default_rng([seed, i]))
            for i in range(n)]


def _gradient_microseconds(fit) -> float:
    """µs per gradient of one lane, vmapped over 128 lanes (the compiled log density of
    the fit's shape)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from embias.bayes import batch_sampling as bs
    from embias.bayes.data import cell_statistics, choose_centring

    run = fit.fit_settings
    cells = cell_statistics(fit.table)
    centred = choose_centring(cells) if run.centred == "auto" else run.centred
    key, prep = bs._prepare(cells, fit.table, run, centred)
    shape = bs._SHAPES[key]
    lanes = 128
    data = [jnp.asarray(np.stack([np.asarray(prep.data[n], dtype=d)] * lanes))
            for n, d in zip(shape.data_names, shape.data_dtypes, strict=True)]
    start, _ = bs._flat_start(shape, prep)
    z = jnp.asarray(np.repeat(start[:1], lanes, axis=0))
    grad = jax.vmap(jax.value_and_grad(shape.potential))

    def loop(z):
        def body(_, z):
            _, g = grad(z, data)
            return z + 1e-12 * g
        return jax.lax.fori_loop(0, 2000, body, z)

    run_loop = jax.jit(loop)
    jax.block_until_ready(run_loop(z))
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        jax.block_until_ready(run_loop(z))
        best = min(best, time.perf_counter() - t)
    return best / 2000 / lanes * 1e6


def _fits(n: int) -> dict:
    import numpy as np

    import embias

    tables = _religion_tables(2 * n, seed=2026)
    out = {}
    for phase, part in (("cold", tables[:n]), ("warm", tables[n:])):
        jobs = [embias.FitJob(t, embias.FitSettings.for_batch(random_seed=i), label=str(i))
                for i, t in enumerate(part)]
        start = time.perf_counter()
        fits = embias.fit_many(jobs, progress=False, warn=False)
        wall = time.perf_counter() - start
        failing = {i: f.problems() for i, f in enumerate(fits) if f.problems()}
        stats = [f.sampled["sample_stats"].attrs for f in fits]
        steps = np.array([sum(s["leapfrog_steps"]) for s in stats])
        programs = {(s["batch_lanes"], s["batch_program_steps"], round(s["batch_seconds"], 6))
                    for s in stats}
        out[phase] = {"fits": n, "wall_seconds": wall, "seconds_per_fit": wall / n,
                      "failing": {str(k): v for k, v in failing.items()},
                      "divergences": int(sum(f.divergences for f in fits)),
                      "leapfrog_steps_per_fit": float(steps.mean()),
                      "program_seconds": float(sum(p[2] for p in programs)),
                      "program_steps": int(sum(p[1] for p in programs)),
                      "lane_steps_sum": int(steps.sum())}
        last = fits[-1]
    micro = _gradient_microseconds(last)
    for phase in out.values():
        floor = micro * 1e-6 * phase["lane_steps_sum"] / (os.cpu_count() or 1)
        phase.update(gradient_microseconds=micro, floor_seconds=floor,
                     program_over_floor=phase["program_seconds"] / floor)
    return out


def _calibration() -> dict:
    import embias

    out = {}
    for phase, first in (("cold", 0), ("warm", 200)):
        start = time.perf_counter()
        result = embias.calibrate_on_populations("sentiment", n_studies=200, first_study=first,
                                                 random_seed=1, progress=False)
        out[phase] = {"studies": 200, "levels": 1, "wall_seconds": time.perf_counter() - start,
                      "coverage": result.summary().to_dict("records")}
    return out


def _word_sampling() -> dict:
    import embias

    out = {}
    for phase, first in (("cold", 0), ("warm", 200)):
        start = time.perf_counter()
        sim = embias.simulate_word_sampling(n_tables=200, first_table=first, random_seed=1,
                                            progress=False)
        out[phase] = {"tables": 200, "levels": 2, "wall_seconds": time.perf_counter() - start,
                      "summary": sim.summary().to_dict("records")}
    return out


def _design() -> dict:
    import warnings

    import embias
    from embias.design import design_analysis

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # one neutral word not in GloVe
        table = embias.study_table("religion", "glove-6b-50d")
    start = time.perf_counter()
    pilot = embias.fit_bias_model(table, level="crossed", random_seed=1, progress=False)
    pilot_seconds = time.perf_counter() - start
    out = {}
    for phase, seed in (("cold", 1), ("warm", 2)):
        start = time.perf_counter()
        sizes = design_analysis(pilot, attribute_words=[4, 8, 16, 32], n_studies=100,
                                random_seed=seed, progress=False)
        out[phase] = {"sizes": 4, "studies_per_size": 100,
                      "wall_seconds": time.perf_counter() - start,
                      "pilot_seconds": pilot_seconds if phase == "cold" else 0.0,
                      "summary": sizes.summary().to_dict("records")}
    return out


def _child(name: str, fits: int) -> None:
    result = {"fits": lambda: _fits(fits), "calibration": _calibration,
              "word-sampling": _word_sampling, "design": _design}[name]()
    print("RESULT " + json.dumps(result, default=str))


# ----------------------------------------------------------------------- the parent
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=200)
    ap.add_argument("--only", nargs="+",
                    default=["fits", "calibration", "word-sampling", "design"])
    ap.add_argument("--json", default=str(HERE / "results" / "batch.json"))
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.fits)
        return
    results = provenance()
    for name in args.only:
        with tempfile.TemporaryDirectory(prefix="embias-bench-batch-") as folder:
            done = subprocess.run([sys.executable, __file__, "--child", name,
                                   "--fits", str(args.fits)], env=fresh_cache_env(Path(folder)),
                                  capture_output=True, text=True, check=False)
        line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
        if done.returncode or not line:
            print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"{name}: the child failed (exit {done.returncode})")
        results[name] = json.loads(line[0][len("RESULT "):])
        for phase, r in results[name].items():
            extra = ""
            if name == "fits":
                extra = (f" | {r['leapfrog_steps_per_fit']:,.0f} leapfrog steps a fit × "
                         f"{r['gradient_microseconds']:.2f} µs a gradient = floor "
                         f"{r['floor_seconds']:.1f} s on {os.cpu_count()} cores; program "
                         f"{r['program_seconds']:.1f} s ({r['program_over_floor']:.1f}× the "
                         f"floor) | failing {len(r['failing'])} "
                         f"{sorted(r['failing'])[:10]} | divergences {r['divergences']}")
            if name == "design" and r["pilot_seconds"]:
                extra = (f" (4 sizes × 100 studies; the pilot fit before it: "
                         f"{r['pilot_seconds']:.1f} s)")
            print(f"{name:14s} {phase}: {r['wall_seconds']:7.1f} s{extra}", flush=True)
    write_json(Path(args.json), results)


if __name__ == "__main__":
    main()
