"""Coverage of WEAT's intervals for the population effect size, on real word populations
and on the word-vector model.

Run: .venv/bin/python benchmarks/bench_weat_population.py [--n-studies N] [--n-boot N]
[--with-replacement] (prints the table and writes benchmarks/results/weat_population.json;
2000 studies a design by default, as in the README: a few minutes on two cores).

``--with-replacement`` draws the real designs' words with replacement (each list an iid
sample of its 200-word population, as from a category much larger than the list) and runs
the real designs only, writing ``weat_population_with_replacement.json``. The default draws
without replacement, as a user's list would be: 25 of 200 words then leave less noise in
the s-values than :func:`~embias.weat_population.disattenuated_effect_size` assumes (it
assumes categories much larger than the list), which this option separates out.

The estimand is the effect size of the populations the words are drawn from
(:func:`embias.weat_population.population_effect_size`: the limit of WEAT's d as all four
lists grow). Two intervals are compared, each at 89% (``DEFAULT_CI_PROB``):

* today's: the percentile interval of the two-way item bootstrap of WEAT's d
  (:func:`embias.classic.weat_item_bootstrap`, what :func:`embias.weat` reports as
  ``lower``/``upper``);
* the population interval: the noise-adjusted two-way bootstrap of the disattenuated
  effect size (:func:`embias.weat_population.weat_population_bootstrap`, reported by
  :func:`embias.weat` as ``population_lower``/``population_upper``).

Designs:

* the shipped real populations (``sentiment``: VADER extremes; ``names``: 1990 Census
  first names; embeddings GloVe 6B 50d): X, Y = the two protected classes' populations,
  A, B = their associated attribute classes (200 words each); each study draws n words
  per list without replacement (as ``WordPopulations.draw_study`` does), n = 8 and 25;
* the word-vector model of :func:`embias.simulate.simulate_weat_bootstrap_coverage` (the
  README's designs 5/4, 8/8, 25/8, 25/25 targets per group / attributes per set), in the
  three scenarios of ``benchmarks/bench_weat_bootstrap.py``: association 0.75 (population
  effect 1.20), no association (0), and less coherent attribute lists (separation 1.5).
  Studies are seeded as there, so today's column repeats that function's coverage.

Coverage is the share of studies whose interval contains the population effect size, with
its binomial Monte Carlo se √(c(1 − c)/n); ``below``/``above`` are the shares of intervals
wholly below / above it. Target: every design within ±0.05 of 0.89. At 400 studies a design
(se ≈ 0.012) a design whose coverage is 0.936 reads outside about a third of the time; 2000
studies (se ≈ 0.005) tell such a design from one outside.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "weat_population.json"
SYNTHETIC = ((0.75, 3.0), (0.0, 3.0), (0.75, 1.5))
SYNTHETIC_DESIGNS = ((5, 4), (8, 8), (25, 8), (25, 25))
REAL_SIZES = (8, 25)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def real_populations(name: str, kv: object) -> tuple[np.ndarray, ...]:
    """Unit vectors of X, Y (protected classes) and A, B (their attribute classes)."""
    import embias

    return tuple(_unit(np.asarray(kv[list(words)], dtype=float))
                 for words in embias.load_populations(name).weat_sets())


def _summary(truth: float, bounds: np.ndarray) -> dict[str, float]:
    lo, hi = bounds[:, 0], bounds[:, 1]
    cov = float(np.mean((lo <= truth) & (truth <= hi)))
    return {"coverage": cov, "coverage_se": math.sqrt(cov * (1 - cov) / len(bounds)),
            "below": float(np.mean(hi < truth)), "above": float(np.mean(lo > truth)),
            "mean_width": float(np.mean(hi - lo))}


#: The header of the printed coverage table (:func:`print_coverage_row`).
COVERAGE_HEADER = ("| design | d_pop | mean d | mean disattenuated | today: coverage (± se) | "
                   "below | width | population interval: coverage (± se) | below | width |\n"
                   "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|")


def print_coverage_row(r: dict) -> None:
    """Print one design's row of the coverage table."""
    t, p = r["today"], r["population"]
    print(f"| {r['design']} | {r['population_effect_size']:.3f} | {r['mean_d']:.3f} | "
          f"{r['mean_disattenuated']:.3f} | {t['coverage']:.3f} (± {t['coverage_se']:.3f}) | "
          f"{t['below']:.3f} | {t['mean_width']:.2f} | {p['coverage']:.3f} "
          f"(± {p['coverage_se']:.3f}) | {p['below']:.3f} | {p['mean_width']:.2f} |", flush=True)


def print_coverage_summary(rows: list[dict], ci_prob: float) -> None:
    """Print, for both intervals, the mean and largest |coverage − nominal| and how many
    designs are within ±0.05."""
    for key in ("today", "population"):
        # rounded: a share of k of 400 studies that is exactly 0.05 from 0.89 counts as within
        dev = [round(abs(r[key]["coverage"] - ci_prob), 9) for r in rows]
        print(f"{key}: mean |coverage − {ci_prob}| = {np.mean(dev):.3f}, largest "
              f"{max(dev):.3f}; designs within ±0.05: {sum(d <= 0.05 for d in dev)} of "
              f"{len(dev)}")


def coverage_run(one_study, truth: float, n_studies: int, ci_prob: float,
                 seed_key: tuple[int, ...]) -> dict[str, object]:
    """Both intervals on ``n_studies`` studies; ``one_study(rng)`` runs one and returns
    WEAT's d, the disattenuated estimate, and the item-bootstrap and population results
    (each with ``interval(ci_prob)``)."""
    start = time.perf_counter()
    today = np.empty((n_studies, 2))
    new = np.empty((n_studies, 2))
    d = np.empty(n_studies)
    d_dis = np.empty(n_studies)
    for i in range(n_studies):
        d[i], d_dis[i], item, population = one_study(np.random.default_rng([*seed_key, i]))
        today[i] = item.interval(ci_prob)
        new[i] = population.interval(ci_prob)
    return {"population_effect_size": truth, "mean_d": float(d.mean()),
            "mean_disattenuated": float(d_dis.mean()),
            "sd_disattenuated": float(d_dis.std(ddof=1)),
            "today": _summary(truth, today), "population": _summary(truth, new),
            "n_studies": n_studies, "seconds": time.perf_counter() - start}


def run_design(draw, truth: float, n_studies: int, n_boot: int, ci_prob: float,
               seed_key: tuple[int, ...]) -> dict[str, object]:
    """Both intervals on ``n_studies`` studies; ``draw(rng)`` gives (sim_a, sim_b, n_x)."""
    from embias.classic import association_scores, weat_effect_size, weat_item_bootstrap
    from embias.weat_population import weat_population_bootstrap

    def one_study(rng: np.random.Generator):
        sim_a, sim_b, n_x = draw(rng)
        s = association_scores(sim_a, sim_b)
        item = weat_item_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot, random_seed=rng)
        pop = weat_population_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot, random_seed=rng)
        return weat_effect_size(s[:n_x], s[n_x:]), pop.estimate, item, pop

    return coverage_run(one_study, truth, n_studies, ci_prob, seed_key)


def designs(kv: object, *, with_replacement: bool = False):
    """(label, kind, truth, draw, seed key) of every design.

    With ``with_replacement`` the real designs only, their words drawn with replacement.
    """
    from embias.simulate import vector_model_effect_size
    from embias.simulate.coverage import vector_model_study
    from embias.weat_population import population_effect_size

    for k, name in enumerate(("sentiment", "names")):
        X, Y, A, B = real_populations(name, kv)
        truth = population_effect_size(X, Y, A, B)
        for n in REAL_SIZES:
            def draw(rng, n=n, X=X, Y=Y, A=A, B=B):
                ix, iy, ia, ib = (rng.choice(len(p), size=n, replace=with_replacement)
                                  for p in (X, Y, A, B))
                targets = np.vstack([X[ix], Y[iy]])
                return targets @ A[ia].T, targets @ B[ib].T, n
            yield (f"{name}, {n} words per list", {"population_set": name, "n_targets": n,
                                                   "n_attributes": n}, truth, draw, (27, k, n))
    if with_replacement:
        return
    for association, separation in SYNTHETIC:
        truth = vector_model_effect_size(association=association, random_seed=0)[0]
        for n_t, n_a in SYNTHETIC_DESIGNS:
            def draw(rng, n_t=n_t, n_a=n_a, association=association, separation=separation):
                return (*vector_model_study(rng, n_t, n_a, 50, 3.0, association, separation,
                                             3.0), n_t)
            yield (f"vector model, association {association}, separation {separation}, "
                   f"{n_t}/{n_a}", {"association": association,
                                    "attribute_separation": separation, "n_targets": n_t,
                                    "n_attributes": n_a}, truth, draw, (0, n_t, n_a))


def main() -> None:
    import embias
    from embias.settings import DEFAULT_CI_PROB

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-studies", type=int, default=2000)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--with-replacement", action="store_true",
                        help="the real designs only, their words drawn with replacement")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    output = args.output or (RESULTS.with_name("weat_population_with_replacement.json")
                             if args.with_replacement else RESULTS)
    from record import provenance

    started = provenance()
    ci_prob = DEFAULT_CI_PROB
    kv = embias.load_embeddings()
    rows = []
    print(f"coverage of the {ci_prob:.0%} intervals for WEAT's population effect size; "
          f"{args.n_studies} studies per design, {args.n_boot} replicates each")
    print(COVERAGE_HEADER)
    for label, design, truth, draw, key in designs(kv, with_replacement=args.with_replacement):
        r = run_design(draw, truth, args.n_studies, args.n_boot, ci_prob, key)
        rows.append({"design": label, **design, **r})
        print_coverage_row(rows[-1])
    print_coverage_summary(rows, ci_prob)
    from record import write_json

    write_json(output, {**started, "ci_prob": ci_prob, "n_boot": args.n_boot,
                        "embedding": "glove-6b-50d",
                        "draws": "with replacement" if args.with_replacement else
                        "without replacement", "designs": rows})


if __name__ == "__main__":
    main()
