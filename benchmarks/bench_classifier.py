"""Coverage figures and timings for embias.classifier (run: python benchmarks/bench_classifier.py).

Prints
* the paper reproductions (BBU sample size / detectable disparity; parity scenarios);
* the 95% BBU interval's coverage on the Table-1 'government' population (Figure 1) and
  under a null of equal rates (1,000 data sets, 100 per group);
* the 95% parity HDI's coverage under the null (1,000 data sets, 100 per group, as in the
  tests, and 20,000 data sets for the long-run figure);
* the monitoring experiment's TPR/FPR and timings of the main calls.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import embias  # noqa: F401
except ModuleNotFoundError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from embias.classifier import (
    bbu_coverage,
    bbu_detectable_delta,
    bbu_interval,
    bbu_required_n,
    fairness_metric,
    genre_population,
    parity_comparisons,
    parity_hdi_coverage,
    parity_posterior,
    simulate_detection,
)


def timed(label: str, fn: Callable[[], Any], repeat: int = 5) -> Any:
    best = float("inf")
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    print(f"  {label:<55s} {best * 1e3:9.2f} ms")
    return out


def main() -> int:
    print("== reproductions")
    print(f"  required n (C=1, δ=.05, ρ=.95, γ=.5, σ²=max): {bbu_required_n(0.05)}  "
          "(paper: 11903)")
    print(f"  detectable δ at n=3160: {bbu_detectable_delta(3160):.5f}  (paper: 0.0975)")
    p1 = parity_posterior(20, 100, 30, 100)
    print(f"  20/100 vs 30/100: mean {p1.mean:.4f}, P(|d|>.1) {p1.prob_exceeds(0.1):.4f}  "
          "(blog/DESIGN: .0980, .488)")
    p2 = parity_posterior(40, 80, 20, 40)
    print(f"  40/80 vs 20/40: outside {p2.prob_exceeds(0.1):.4f}, inside "
          f"{p2.prob_inside(0.1):.4f}  (blog: .29 / .71)")
    p3 = parity_posterior(400, 1000, 600, 1000)
    print(f"  400/1000 vs 600/1000: inside {p3.prob_inside(0.1):.3e}  (DESIGN: 3.3e-6)")

    print("\n== BBU coverage, 'government' population (Table 1), 1000 samples per cell")
    cost, group = genre_population("government")
    cov = bbu_coverage(cost, group, sample_sizes=(100, 200, 500, 1000, 2000),
                       protected_share=(0.1, 0.5), n_sims=1000, random_seed=1)
    print(cov[["n", "protected_share", "true_disparity", "coverage", "mean_half_width",
               "share_biased"]].to_string(index=False))
    hoef = bbu_coverage(cost, group, sample_sizes=(100, 500, 2000), protected_share=0.5,
                        n_sims=1000, random_seed=1, bound="hoeffding")
    print("  Hoeffding, γ=.5:")
    print(hoef[["n", "coverage", "mean_half_width"]].to_string(index=False))

    print("\n== coverage under the null of equal rates (1000 data sets, 100 per group)")
    for rate in (0.1, 0.3, 0.5):
        pop_cost = np.r_[np.ones(int(rate * 1000)), np.zeros(1000 - int(rate * 1000))] * 1.0
        pop_cost = np.r_[pop_cost, pop_cost]
        pop_group = np.repeat([1, -1], 1000)
        bbu = bbu_coverage(pop_cost, pop_group, sample_sizes=(200,), n_sims=1000,
                           random_seed=5).iloc[0]
        hdi = parity_hdi_coverage(rate, 100, n_sims=1000, random_seed=11).iloc[0]
        long = parity_hdi_coverage(rate, 100, n_sims=20000, random_seed=12).iloc[0]
        print(f"  rate {rate}: BBU 95% {bbu['coverage']:.3f} | parity 95% HDI "
              f"{hdi['coverage']:.3f} (±{hdi['coverage_se']:.3f}); 20,000 sets: "
              f"{long['coverage']:.4f} (±{long['coverage_se']:.4f})")

    print("\n== monitoring (threshold 10%, confidence 90%, 20,000 systems per N)")
    det = simulate_detection([100, 1000, 10000], n_sims=20000, random_seed=42)
    print(det[["n", "tpr", "fpr", "tpr_se", "fpr_se"]].to_string(index=False))
    print("  blog: N=100 flags 5% of unbiased, detects 20%; N=10,000 <1% and >80%")

    print("\n== timings (best of 5)")
    rng = np.random.default_rng(0)
    c = rng.uniform(0, 1, 100_000)
    g = rng.choice([1, -1, 0], 100_000)
    timed("bbu_interval, n = 100,000", lambda: bbu_interval(c, g))
    timed("parity_posterior(20/100, 30/100).prob_exceeds(.1)",
          lambda: parity_posterior(20, 100, 30, 100).prob_exceeds(0.1))
    timed("parity_posterior(20/100, 30/100).hdi(.95)",
          lambda: parity_posterior(20, 100, 30, 100).hdi(0.95))
    timed("parity_posterior(20/100, 30/100).decide(.1)",
          lambda: parity_posterior(20, 100, 30, 100).decide(0.1))
    timed("parity_posterior(5e5/1e6, 1/3).hdi(.95)",
          lambda: parity_posterior(500_000, 1_000_000, 1, 3).hdi(0.95), repeat=2)
    timed("parity_comparisons, 5 groups, threshold", lambda: parity_comparisons(
        [20, 30, 25, 40, 10], [100, 100, 100, 120, 60], rope=0.1), repeat=2)
    y = rng.integers(0, 2, 10_000)
    yp = rng.integers(0, 2, 10_000)
    grp = rng.choice(list("abcdef"), 10_000)
    timed("fairness_metric('fped'), n = 10,000, 6 groups",
          lambda: fairness_metric("fped", y, yp, grp))
    src = np.repeat(np.arange(1000), 6)
    cf_group = np.tile(list("abcdef"), 1000)
    probs = rng.uniform(0, 1, 6000)
    timed("fairness_metric('cf_gap'), 1000 templates × 6 groups",
          lambda: fairness_metric("cf_gap", None, None, cf_group, probs=probs, source=src),
          repeat=1)
    timed("bbu_coverage 5 sizes × 2 shares × 1000 sims",
          lambda: bbu_coverage(cost, group, protected_share=(0.1, 0.5), n_sims=1000,
                               random_seed=0), repeat=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
