"""Speed of the pre-averaging simulations.

Run: .venv/bin/python benchmarks/bench_simulate.py   (prints its figures and writes
``benchmarks/results/bench_simulate.json``)
Target: 10,000 simulations of the 16-word design (8 + 8 protected words, 8 + 8
attributes) in under a second.
"""

from __future__ import annotations

from record import Tables
from timing import best_of


def main() -> None:
    from embias.simulate import exact_weat_distribution, simulate_weat, simulate_weat_grid

    out = Tables(__file__, title="Pre-averaging simulations (embias.simulate): speed",
                 settings={"random_seed": 0, "timing": "best wall time of 5 runs (3 for the "
                           "100,000-simulation, grid and quadrature rows)"})
    rows = []
    for numerator in ("mean", "first-word"):
        t, r = best_of(lambda numerator=numerator: simulate_weat(
            n_sims=10_000, numerator=numerator, random_seed=0))
        lo, hi = r.interval
        rows.append([f"simulate_weat, 8+8 words × 8+8 attributes, 10,000 sims, numerator "
                     f"{numerator}", f"{t * 1e3:.1f}", "< 1 s",
                     f"95% range {lo:.3f}, {hi:.3f}; "
                     f"{r.share_above:.1%} with WEAT ≥ 1.81 in size"])
    t, r = best_of(lambda: simulate_weat(n_sims=100_000, random_seed=0), repeat=3)
    rows.append(["simulate_weat, 8+8 × 8+8, 100,000 sims", f"{t * 1e3:.1f}", "—", ""])
    t, _ = best_of(lambda: simulate_weat_grid(n_protected_per_group=(1, 2, 4, 8, 16, 25),
                                                 n_attributes=(5, 50), n_sims=10_000,
                                                 random_seed=0),
                      repeat=3)
    rows.append(["simulate_weat_grid, 12 designs (n 1…25, m 5/50) × 10,000 sims",
                 f"{t * 1e3:.1f}", "—", ""])
    t, _ = best_of(lambda: exact_weat_distribution(association=0.1,
                                                   numerator="first-word").interval(),
                   repeat=3)
    rows.append(["exact first-word law with association 0.1 (quadrature), 95% range",
                 f"{t * 1e3:.1f}", "—", ""])
    out.table("Simulation calls: best wall time", ["call", "time (ms)", "target",
                                                   "result"], rows,
              note="Time is the best wall time of repeated runs on the machine above (its "
                   "load average is recorded). The target, 10,000 simulations of the 16-word "
                   "design in under a second, applies to the first two rows; the others have "
                   "none (—).")
    out.write()


if __name__ == "__main__":
    main()
