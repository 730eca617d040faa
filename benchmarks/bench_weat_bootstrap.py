"""WEAT's two-way item bootstrap: speed, and the coverage of its 89% interval.

Run: .venv/bin/python benchmarks/bench_weat_bootstrap.py [--n-sims N] [--quick]
(prints its figures; the full run takes a few minutes on one core).

Speed: 10,000 replicates of the 25 + 25 targets × 25 + 25 attributes test (weat2 on
GloVe 6B 50d); target well under a second.

Coverage: :func:`embias.simulate.simulate_weat_bootstrap_coverage` draws studies from the
word-vector model (50 dimensions, every word its class mean + Normal(0, I) noise) for
four list sizes, at a population effect size ≈ 1.20 and at 0 (no association), and
prints, per design, the share of 89% intervals containing the population effect size —
for the crossed bootstrap (targets and attributes resampled, what :func:`embias.weat`
reports) and for the naive one (targets only) — with Monte Carlo standard errors. A third
scenario halves the attribute classes' separation (less coherent attribute lists): the
WEAT effect size of short attribute lists is then attenuated, and the interval around it
undercovers on the low side.
"""

from __future__ import annotations

import argparse
import time

from timing import best_of


def speed() -> None:
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
    for resample in ("targets and attributes", "targets"):
        cpu = time.process_time()
        t, boot = best_of(lambda resample=resample: weat_item_bootstrap(
            sim_a, sim_b, len(X), n_boot=10_000, resample=resample, random_seed=0))
        cpu = (time.process_time() - cpu) / 5
        lo, hi = boot.interval(0.89)
        print(f"item bootstrap, weat2 (25+25 targets × 25+25 attributes), 10,000 "
              f"replicates, {resample:>22}: {t * 1e3:5.1f} ms best wall, {cpu * 1e3:5.1f} ms "
              f"mean CPU  (d = {r.effect_size:.3f}, "
              f"89% [{lo:.3f}, {hi:.3f}])   target well under 1 s")
    t, _ = best_of(lambda: embias.weat_test("weat2", kv, permutations=100_000,
                                              random_seed=0), repeat=3)
    print(f"weat_test('weat2'): 100,000 permutations + 10,000 bootstrap replicates: {t:.3f} s")


def coverage(n_sims: int, n_boot: int) -> None:
    from embias.simulate import simulate_weat_bootstrap_coverage

    for association, separation in ((0.75, 3.0), (0.0, 3.0), (0.75, 1.5)):
        wall, cpu = time.perf_counter(), time.process_time()
        table = simulate_weat_bootstrap_coverage(n_sims=n_sims, n_boot=n_boot,
                                                 association=association,
                                                 attribute_separation=separation,
                                                 random_seed=0)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        delta, delta_se = table["effect_size"].iloc[0], table["effect_size_se"].iloc[0]
        print(f"\ncoverage of the 89% item-bootstrap interval: association {association}, "
              f"attribute separation {separation}, population effect size {delta:.3f} "
              f"(± {delta_se:.4f}); {n_sims} studies per design, {n_boot} replicates each; "
              f"{wall:.0f} s wall, {cpu:.0f} s CPU")
        print("| targets/group | attributes/set | resampled | mean d | coverage (± se) "
              "| below | above | mean width |")
        print("|--:|--:|:--|--:|--:|--:|--:|--:|")
        for _, row in table.iterrows():
            print(f"| {row.n_targets_per_group} | {row.n_attributes_per_set} | "
                  f"{row['resample']} | {row.mean_estimate:.3f} | {row.coverage:.3f} "
                  f"(± {row.coverage_se:.3f}) | {row.below:.3f} | {row.above:.3f} | "
                  f"{row.mean_width:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-sims", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="speed figures only")
    args = parser.parse_args()
    speed()
    if not args.quick:
        coverage(args.n_sims, args.n_boot)


if __name__ == "__main__":
    main()
