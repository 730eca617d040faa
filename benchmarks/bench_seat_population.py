"""Coverage of SEAT's intervals for the population effect size, on real word populations.

Run: .venv/bin/python benchmarks/bench_seat_population.py [--n-studies N] [--n-boot N]
(prints the table and writes benchmarks/results/seat_population.json; 400 studies a design
by default: a few minutes on two cores, the sentences encoded once).

SEAT (May et al. 2019) is WEAT on sentences: every word of X, Y, A and B is put in its
templates and every sentence is one item. Here every word takes the two templates May et
al. use for the most kinds of word (``FALLBACK_TEMPLATES``: "This is {term}." and "That is
{term}."), encoded by the default offline encoder (all-MiniLM-L6-v2). The estimand is the
effect size of the populations' sentences (:func:`embias.weat_population.population_effect_size`
over every sentence of every population word, X and Y weighted equally).

Designs: the shipped real populations (``sentiment``: VADER extremes; ``names``: 1990 Census
first names; 200 words per class): X, Y = the two protected classes, A, B = their
associated attribute classes; each study draws n words per list without replacement, n = 8
and 25, and runs :func:`embias.weat` on their sentences with ``item_words`` (what
:func:`embias.seat_test` passes). Two intervals at 89%:

* today's: the two-way item bootstrap of d with every sentence an item (``lower``/``upper``);
* the population interval, which samples words: a word's attribute sentences averaged, a
  word's target sentences drawn together (``population_lower``/``population_upper``).

Coverage is the share of studies whose interval contains the population effect size, with
its binomial Monte Carlo se √(c(1 − c)/n); ``below``/``above`` are the shares of intervals
wholly below / above it. Target: every design within ±0.05 of 0.89.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results" / "seat_population.json"
SIZES = (8, 25)
PERMUTATIONS = 1000  # the p-value is not measured here; a small Monte Carlo keeps it cheap


def sentence_populations(name: str, encoder: object):
    """The four populations' words, their sentences (word → sentences) and the vectors."""
    import embias
    from embias.embeddings import keyed_vectors
    from embias.sentences.templates import FALLBACK_TEMPLATES, word_sentences

    words = [list(ws) for ws in embias.load_populations(name).weat_sets()]
    table = word_sentences([w for ws in words for w in ws], templates=list(FALLBACK_TEMPLATES))
    by_word = {w: list(g["sentence"]) for w, g in table.groupby("word", sort=False)}
    distinct = list(dict.fromkeys(table["sentence"]))
    vectors = np.asarray(encoder(distinct), dtype=float)
    item_words = dict(zip(table["sentence"], table["word"], strict=True))
    return words, by_word, item_words, keyed_vectors(distinct, np.ascontiguousarray(vectors))


def run_design(name: str, n: int, populations, n_studies: int, n_boot: int, ci_prob: float,
               seed_key: tuple[int, ...]) -> dict[str, object]:
    """Both intervals on ``n_studies`` studies of ``n`` words per list."""
    from bench_weat_population import coverage_run

    import embias
    from embias.weat_population import population_effect_size

    words, by_word, item_words, kv = populations
    sentences = [[s for w in ws for s in by_word[w]] for ws in words]
    truth = population_effect_size(*(kv[s] for s in sentences))

    def one_study(rng: np.random.Generator):
        drawn = [[s for j in rng.choice(len(ws), size=n, replace=False) for s in by_word[ws[j]]]
                 for ws in words]
        r = embias.weat(kv, *drawn, item_words=item_words, lowercase=False,
                        permutations=PERMUTATIONS, n_boot=n_boot, random_seed=rng)
        return r.effect_size, r.population.estimate, r.bootstrap, r.population

    return {"design": f"{name}, {n} words per list ({2 * n} sentences)", "population_set": name,
            "n_targets": n, "n_attributes": n,
            **coverage_run(one_study, truth, n_studies, ci_prob, seed_key)}


def main() -> None:
    from bench_weat_population import (
        COVERAGE_HEADER,
        print_coverage_row,
        print_coverage_summary,
    )

    from embias.encoders import as_encoder
    from embias.settings import DEFAULT_CI_PROB

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-studies", type=int, default=400)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    from record import provenance, write_json

    started = provenance()
    encoder = as_encoder(None)
    rows = []
    print(f"coverage of SEAT's {DEFAULT_CI_PROB:.0%} intervals for the population effect size; "
          f"{args.n_studies} studies per design, {args.n_boot} replicates each")
    print(COVERAGE_HEADER)
    for k, name in enumerate(("sentiment", "names")):
        populations = sentence_populations(name, encoder)
        for n in SIZES:
            rows.append(run_design(name, n, populations, args.n_studies, args.n_boot,
                                   DEFAULT_CI_PROB, (31, k, n)))
            print_coverage_row(rows[-1])
    print_coverage_summary(rows, DEFAULT_CI_PROB)
    write_json(args.output, {**started, "ci_prob": DEFAULT_CI_PROB, "n_boot": args.n_boot,
                             "embedding": f"{encoder.name} (sentences)",
                             "templates": "FALLBACK_TEMPLATES",
                             "draws": "without replacement", "designs": rows})


if __name__ == "__main__":
    main()
