"""Does the default sampler keep the diagnostics bar on every shipped table and level?

Fits each of the authors' nine published tables (religion, race, gender × Reddit, Google,
GloVe; ``embias.load_published_table``) and the three studies on the embedded GloVe 6B 50d
at every model level with embias's defaults (sampler, draws, tune, seed given), in this
process, and prints one row per fit: wall seconds, max r̂, smallest bulk/tail ESS over every
posterior scalar, divergences, and the connection means. The bar (issue 12): r̂ ≤ 1.01 and
ESS ≥ 1000 for every reported quantity, 0 divergences.

Usage: ``.venv/bin/python benchmarks/bench_published_fits.py [--levels a,b] [--sampler S]
[--draws N] [--tune N] [--only-published]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import embias
from embias.settings import LEVELS

STUDIES = ("religion", "race", "gender")
SOURCES = ("reddit", "google", "glove")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--sampler", default=None)
    ap.add_argument("--draws", type=int, default=None)
    ap.add_argument("--tune", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only-published", action="store_true")
    args = ap.parse_args()
    options = {k: v for k, v in (("sampler", args.sampler), ("draws", args.draws),
                                 ("tune", args.tune)) if v}
    settings = embias.FitSettings.build(random_seed=args.seed, **options)
    tables = []
    for study in STUDIES:
        for source in SOURCES:
            tables.append((study, f"published:{source}",
                           embias.load_published_table(study, source, duplicates="drop")))
        if not args.only_published:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tables.append((study, "glove-6b-50d", embias.study_table(study)))
    print(f"# default sampler: {settings.sampler}, {settings.chains} × ({settings.tune} + "
          f"{settings.draws}) draws, seed {settings.random_seed}\n")
    print("| study | embedding | level | rows | s | max r̂ | min ESS bulk / tail | div. | "
          "meets bar | connection means |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for study, source, table in tables:
        for level in args.levels.split(","):
            t = time.perf_counter()
            fit = embias.fit_bias_model(table, settings=settings, level=level,
                                        progress=False, warn=False)
            secs = time.perf_counter() - t
            o = fit.diagnostics_overview().iloc[0]
            ok = (o["max_r_hat"] <= 1.01 and min(o["min_ess_bulk"], o["min_ess_tail"]) >= 1000
                  and o["divergences"] == 0)
            failed += not ok
            means = fit.to_interval_table().query("estimand == 'connection_mean'")
            shown = ", ".join(f"{g[:4]} {e:.3f}" for g, e in zip(means["group"],
                                                                 means["estimate"],
                                                                 strict=True))
            print(f"| {study} | {source} | {level} | {len(table)} | {secs:.1f} | "
                  f"{o['max_r_hat']:.4f} | {o['min_ess_bulk']:.0f} / {o['min_ess_tail']:.0f} | "
                  f"{int(o['divergences'])} | {'yes' if ok else '**no**'} | {shown} |",
                  flush=True)
    print(f"\n{failed} fit(s) below the bar")


if __name__ == "__main__":
    main()
