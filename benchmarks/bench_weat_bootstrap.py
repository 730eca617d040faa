"""WEAT's two-way item bootstrap: speed, and the coverage of its 89% interval.

Run: .venv/bin/python benchmarks/bench_weat_bootstrap.py [--n-sims N] [--n-boot N] [--quick]
(prints its figures and writes ``benchmarks/results/bench_weat_bootstrap.json``; the full run
takes a few minutes on one core).

Speed: 10,000 replicates of the 25 + 25 targets × 25 + 25 attributes test (weat2 on
GloVe 6B 50d); target well under a second.

Coverage: :func:`embias.simulate.simulate_weat_bootstrap_coverage` draws studies from the
word-vector model (50 dimensions, every word its class mean + Normal(0, I) noise) for
four list sizes, at a population effect size ≈ 1.20 and at 0 (no association), and
prints, per design, the share of 89% intervals containing the population effect size —
for the crossed bootstrap (targets and attributes resampled, what :func:`embias.weat`
reports) and for the naive one (targets only) — next to the nominal 89% and the binomial
Monte Carlo standard error of each coverage, sqrt(p (1 − p) / n) over the n studies. A third
scenario halves the attribute classes' separation (less coherent attribute lists): the
WEAT effect size of short attribute lists is then attenuated, and the interval around it
undercovers on the low side.
"""

from __future__ import annotations

import argparse
import time

from record import Tables
from timing import best_of

CI_PROB = 0.89


def speed(out: Tables) -> None:
    import warnings

    import numpy as np

    import embias
    from embias.classic import weat_item_bootstrap

    kv = embias.load_embeddings()
    warnings.simplefilter("ignore", UserWarning)
    r = embias.weat_test("weat2", kv, permutations=10, random_seed=0)
    X, Y, A, B = embias.load_study("weat2").weat_sets()
    unit = {}
    for key, ws in zip("XYAB", (X, Y, A, B), strict=True):
        v = kv[[w.lower() for w in ws]].astype(float)
        unit[key] = v / np.linalg.norm(v, axis=1, keepdims=True)
    targets = np.vstack([unit["X"], unit["Y"]])
    sim_a, sim_b = targets @ unit["A"].T, targets @ unit["B"].T
    rows = []
    for resample in ("targets and attributes", "targets"):
        cpu = time.process_time()
        t, boot = best_of(lambda resample=resample: weat_item_bootstrap(
            sim_a, sim_b, len(X), n_boot=10_000, resample=resample, random_seed=0))
        cpu = (time.process_time() - cpu) / 5
        lo, hi = boot.interval(CI_PROB)
        rows.append([f"weat_item_bootstrap, 10,000 replicates, resampling {resample}",
                     f"{t * 1e3:.1f}", f"{cpu * 1e3:.1f}", "well under 1 s",
                     f"d = {r.effect_size:.3f}, 89% [{lo:.3f}, {hi:.3f}]"])
    cpu = time.process_time()
    t, _ = best_of(lambda: embias.weat_test("weat2", kv, permutations=100_000,
                                              random_seed=0), repeat=3)
    cpu = (time.process_time() - cpu) / 3
    rows.append(["weat_test('weat2'): 100,000 permutations + 10,000 bootstrap replicates",
                 f"{t * 1e3:.1f}", f"{cpu * 1e3:.1f}", "—", ""])
    out.table("Item bootstrap of weat2 (25+25 targets × 25+25 attributes, GloVe 6B 50d): "
              "speed", ["call", "best wall (ms)", "mean CPU (ms)", "target", "result"], rows,
              note="Wall time is the best of the runs (5 for the bootstrap, 3 for weat_test), "
                   "CPU time their mean (waiting on a loaded machine does not add to it). "
                   "The target applies to the bootstrap rows; weat_test has none stated "
                   "(—).")


def coverage(out: Tables, n_sims: int, n_boot: int) -> None:
    from embias.simulate import simulate_weat_bootstrap_coverage

    for association, separation in ((0.75, 3.0), (0.0, 3.0), (0.75, 1.5)):
        wall, cpu = time.perf_counter(), time.process_time()
        table = simulate_weat_bootstrap_coverage(n_sims=n_sims, n_boot=n_boot,
                                                 association=association,
                                                 attribute_separation=separation,
                                                 ci_prob=CI_PROB, random_seed=0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        delta, delta_se = table["effect_size"].iloc[0], table["effect_size_se"].iloc[0]
        rows = [[row.n_targets_per_group, row.n_attributes_per_set, row["resample"],
                 f"{row.mean_estimate:.3f}", f"{CI_PROB:.2f}", f"{row.coverage:.3f}",
                 f"{row.coverage_se:.3f}", f"{row.below:.3f}", f"{row.above:.3f}",
                 f"{row.mean_width:.3f}"] for _, row in table.iterrows()]
        out.table(f"Coverage of the 89% item-bootstrap interval: association {association}, "
                  f"attribute separation {separation} (population effect size {delta:.3f} "
                  f"± {delta_se:.4f})",
                  ["targets/group", "attributes/set", "resampled", "mean d", "nominal",
                   "coverage", "MC se", "below", "above", "mean width"], rows,
                  note=f"{n_sims} simulated studies per design, {n_boot} bootstrap replicates "
                       "each. Coverage is the share of intervals holding the population "
                       "effect size, to be read against the nominal rate; MC se is its "
                       "binomial Monte Carlo standard error sqrt(p (1 − p) / n). Below / "
                       "above: shares of intervals wholly below / above it. Run time "
                       f"{wall:.0f} s wall, {cpu:.0f} s CPU.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-sims", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="speed figures only")
    args = parser.parse_args()
    settings = {"random_seed": 0, "n_boot (speed)": 10_000}
    if not args.quick:
        settings |= {"studies per design": args.n_sims, "replicates per study": args.n_boot,
                     "word-vector model": "50 dimensions, class mean + Normal(0, I) noise"}
    out = Tables(__file__, title="WEAT's two-way item bootstrap: speed and coverage",
                 settings=settings)
    speed(out)
    if not args.quick:
        coverage(out, args.n_sims, args.n_boot)
    out.write()


if __name__ == "__main__":
    main()
