"""Speed of the pre-averaging simulations.

Run: .venv/bin/python benchmarks/bench_simulate.py   (prints its figures)
Target: 10,000 simulations of the 16-word design (8 + 8 protected words, 8 + 8
attributes) in under a second.
"""

from __future__ import annotations

from timing import best_of


def main() -> None:
    from embias.simulate import exact_weat_distribution, simulate_weat, simulate_weat_grid

    for numerator in ("mean", "first-word"):
        t, r = best_of(lambda numerator=numerator: simulate_weat(
            n_sims=10_000, numerator=numerator, random_seed=0))
        lo, hi = r.interval
        print(f"simulate_weat 8+8 words × 8+8 attributes, 10,000 sims, {numerator:>10}: "
              f"{t * 1e3:6.1f} ms  (95% range {lo:.3f}, {hi:.3f}; "
              f"{r.share_above:.1%} |WEAT| ≥ 1.81)   target < 1 s")
    t, r = best_of(lambda: simulate_weat(n_sims=100_000, random_seed=0), repeat=3)
    print(f"simulate_weat 8+8 × 8+8, 100,000 sims: {t:.3f} s")
    t, _ = best_of(lambda: simulate_weat_grid(n_protected_per_group=(1, 2, 4, 8, 16, 25),
                                                 n_attributes=(5, 50), n_sims=10_000,
                                                 random_seed=0),
                      repeat=3)
    print(f"simulate_weat_grid, 12 designs (n 1…25, m 5/50) × 10,000 sims: {t:.3f} s")
    t, _ = best_of(lambda: exact_weat_distribution(association=0.1,
                                                   numerator="first-word").interval(),
                   repeat=3)
    print(f"exact first-word law with association (quadrature), 95% range: {t * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
