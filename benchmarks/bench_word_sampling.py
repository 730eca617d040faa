"""Does it matter that the compared words are a sample? False claims of bias and coverage.

Run: .venv/bin/python benchmarks/bench_word_sampling.py [--tables N] [--draws D] [--tune T]
[--seed S] [--design SOURCE] [--attribute-offsets shared|own_and_other]
[--levels LEVEL ...] [--published] [--write-data DIR]

Simulation (:func:`embias.simulate_words.simulate_word_sampling`): ``--tables`` tables
(default 200) with the rows of the religion table on GloVe 6B 50d (15 protected words in 3
classes; 11 attribute, 225 neutral, 85 human words), drawn from the crossed model with the
parameters measured on that table (method of moments) and **no** true association
difference (bar[associated] = bar[different] = bar[none]); every table draws new protected
words' coefficients, new compared-word effects and new noise. The hierarchical (published)
and the crossed model are fitted to each with the library's default sampler (embias's
batch NUTS: one program per model shape, every table's data its input), 2 chains × (tune
+ draws). Prints the calibrated
parameters, the word-effect shares of the design next to the simulated ones, and per model
the rate at which the 89% HDI of each null contrast excludes 0 (false claims of bias) and
the coverage of the connection means' 89% HDIs, each with its binomial Monte Carlo
standard error; then every fit that failed a convergence check (r̂ > 1.01, ESS < 400,
divergences), by table index, and the wall and CPU time.

``--attribute-offsets own_and_other`` draws the tables from a richer truth than the crossed
model's: an attribute word's effect where it meets its own class and where it meets the
others are two correlated effects, of the sizes measured on the design
(:func:`embias.simulate_words.calibrate_word_sampling` with the same option), still with
no true association difference. ``--levels`` fits other levels than the default two
(hierarchical and crossed), e.g. ``--levels dataset word``.

``--published`` also refits the authors' nine released tables (religion, race, gender ×
Reddit, Google, GloVe) with both models (library defaults: numpyro, 2 × (1000 + 3000)
draws, seed 0) and prints which conclusions survive the crossed model.

``--write-data DIR`` writes what notebooks/05_word_lists.ipynb reads:
``word_sampling_results.csv`` (one row per table × model × estimand),
``word_sampling_tables.csv`` (one row per table: shares, in-sample mean word effects)
and, with ``--published``, ``published_refits.csv``.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path


def cpu_seconds() -> float:
    """CPU time of this process and its children (the samplers' threads included)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--tune", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--design", default="glove-6b-50d",
                    help="source of the religion design table (default glove-6b-50d; e.g. "
                         "published:reddit)")
    ap.add_argument("--attribute-offsets", default="shared",
                    choices=["shared", "own_and_other"])
    ap.add_argument("--levels", nargs="+", default=["hierarchical", "crossed"],
                    choices=["dataset", "word", "hierarchical", "crossed"])
    ap.add_argument("--published", action="store_true",
                    help="also refit the nine published tables with both models")
    ap.add_argument("--skip-simulation", action="store_true")
    ap.add_argument("--write-data", default=None, metavar="DIR")
    args = ap.parse_args()
    from record import provenance

    started = provenance()

    import warnings

    import pandas as pd

    import embias
    from embias.simulate_words import (
        calibrate_word_sampling,
        published_conclusions,
        refit_published_tables,
        simulate_word_sampling,
    )

    pd.set_option("display.width", 200)
    out = Path(args.write_data) if args.write_data else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    wall0, cpu0 = time.perf_counter(), cpu_seconds()

    if not args.skip_simulation:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the one word GloVe lacks
            design = embias.study_table("religion", args.design)
        calibrated = calibrate_word_sampling(design, attribute_offsets=args.attribute_offsets)
        print(f"design: religion / {args.design}: {len(design)} rows, "
              f"{design['protected_word'].nunique()} protected words; compared words per "
              "connection "
              f"{design.groupby('connection')['word_to_compare'].nunique().to_dict()}")
        print("\ncalibrated parameters (method of moments; the null sets bar[associated] = "
              "bar[different] = bar[none]):")
        print(embias.to_markdown(calibrated.to_frame()))
        if calibrated.word_correlation is not None:
            print(f"an attribute word's own-class and other-class effects: sds "
                  f"{calibrated.tau_word['attribute']:.3f} and "
                  f"{calibrated.tau_word_different:.3f}, correlation "
                  f"{calibrated.word_correlation:.3f}")
        print(f"\nsimulating {args.tables} tables × {len(args.levels)} models "
              f"({', '.join(args.levels)}): 2 chains × "
              f"({args.tune} tune + {args.draws} draws), seed {args.seed}", flush=True)
        sim = simulate_word_sampling(design, n_tables=args.tables, draws=args.draws,
                                     tune=args.tune, random_seed=args.seed, progress=True,
                                     parameters=calibrated.without_association(),
                                     levels=args.levels)
        wall_sim, cpu_sim = time.perf_counter() - wall0, cpu_seconds() - cpu0
        print("\nword-effect shares (variance of the compared words' mean residuals / "
              "residual variance):")
        print(embias.to_markdown(sim.share_check()))
        summary = sim.summary()
        print("\nfalse claims of bias: share of tables whose 89% HDI of a null contrast "
              "excludes 0 (nominal 0.11), ± Monte Carlo se:")
        null = summary[(summary["estimand"] == "contrast") & summary["null"]]
        print(embias.to_markdown(null[["level", "group", "excludes_zero", "excludes_zero_se",
                                       "credible_difference", "credible_difference_se",
                                       "mean_width", "failed_fits"]]))
        print("\ncoverage of the connection means' 89% HDIs (truth: the population means; "
              "nominal 0.89), ± Monte Carlo se:")
        means = summary[summary["estimand"] == "connection_mean"]
        print(embias.to_markdown(means[["level", "group", "truth", "mean_estimate",
                                        "coverage", "coverage_se", "mean_width",
                                        "failed_fits"]]))
        human = summary[(summary["estimand"] == "contrast") & ~summary["null"]]
        print("\nthe non-null contrast (human − none, truth "
              f"{human['truth'].iloc[0]:+.3f}): coverage "
              + ", ".join(f"{r.level} {r.coverage:.3f} ± {r.coverage_se:.3f}"
                          for r in human.itertuples()))
        failures = sim.failures()
        if failures.empty:
            print("\nconvergence: every fit passed (r̂ ≤ 1.01, bulk and tail ESS ≥ 400, "
                  "no divergences)")
        else:
            print(f"\nconvergence: {len(failures)} fit(s) failed a check:")
            for r in failures.itertuples():
                print(f"  table {r.table} {r.level}: {r.problems}")
        fits = sim.results.drop_duplicates(["table", "level"])
        print("worst over all fits: r̂ "
              f"{fits['max_r_hat'].max():.4f}, bulk ESS {fits['min_ess_bulk'].min():.0f}, "
              f"tail ESS {fits['min_ess_tail'].min():.0f}, divergences "
              f"{int(fits['divergences'].sum())}")
        converged = sim.results[sim.results["problems"] == ""]
        if len(converged) < len(sim.results):
            from embias.simulate_words import summarize_word_sampling

            print("\nthe same over the converged fits only:")
            print(embias.to_markdown(summarize_word_sampling(converged)[
                ["level", "estimand", "group", "n_tables", "coverage", "coverage_se",
                 "excludes_zero", "excludes_zero_se"]]))
        print(f"\nsimulation: {wall_sim:.0f} s wall, {cpu_sim:.0f} s CPU "
              f"({sim.seconds / args.tables:.2f} s wall per table, "
              f"{len(args.levels)} fits, the programs' compiles included)")
        if out is not None:
            sim.results.to_csv(out / "word_sampling_results.csv", index=False,
                               float_format="%.6g")
            sim.tables.to_csv(out / "word_sampling_tables.csv", index=False,
                              float_format="%.6g")
            (out / "word_sampling_settings.json").write_text(json.dumps(
                {**started, **sim.settings, "design": f"religion / {args.design}",
                 "parameters": {k: dict(getattr(sim.parameters, k))
                                for k in ("bar", "tau", "sigma", "tau_word")},
                 "command": "benchmarks/bench_word_sampling.py " + " ".join(
                     f"--{k.replace('_', '-')} {v}" for k, v in (
                         ("tables", args.tables), ("draws", args.draws),
                         ("tune", args.tune), ("seed", args.seed)))},
                indent=1) + "\n")
            print(f"wrote {out / 'word_sampling_results.csv'}, word_sampling_tables.csv, "
                  "word_sampling_settings.json")

    if args.published:
        wall1, cpu1 = time.perf_counter(), cpu_seconds()
        refits = refit_published_tables(settings=embias.FitSettings(random_seed=args.seed),
                                        progress=True)
        print("\nthe published tables refitted (library defaults: "
              f"{refits['sampler'].iloc[0]}, 2 × ({refits['tune'].iloc[0]} + "
              f"{refits['draws'].iloc[0]}) draws, seed {refits['random_seed'].iloc[0]}):")
        table = published_conclusions(refits)
        print(embias.to_markdown(table))
        print("\nverdicts:", table["verdict"].value_counts().to_dict())
        fits = refits.drop_duplicates(["study", "embedding", "level"])
        bad = fits[fits["problems"] != ""]
        for r in bad.itertuples():
            print(f"  {r.study}/{r.embedding} {r.level}: {r.problems}")
        print(f"refits: {time.perf_counter() - wall1:.0f} s wall, "
              f"{cpu_seconds() - cpu1:.0f} s CPU")
        if out is not None:
            refits.to_csv(out / "published_refits.csv", index=False, float_format="%.6g")
            print(f"wrote {out / 'published_refits.csv'}")
    print(f"\ntotal: {time.perf_counter() - wall0:.0f} s wall, {cpu_seconds() - cpu0:.0f} s "
          "CPU")


main()
