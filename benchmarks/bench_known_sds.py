"""Real-word calibration with parts of the truth given to the model: where the width goes.

Run: .venv/bin/python benchmarks/bench_known_sds.py [--populations NAME ...] [--studies N]
[--json FILE]

The studies, seeds and candidate are those of ``bench_real_word_models.py`` (design 5
protected and 4 attribute words per class and 100 neutral words, GloVe 6B 50d, the
candidate ``strata+corr+wide_mean``: protected classes as strata, a protected word's
coefficients correlated across the connections). Two diagnostic fits of every study:

* ``known correlation``: the correlation matrix of a protected word's coefficients is fixed
  at its value on the whole populations (the within-class correlation, across the protected
  population words, of their mean distances to the attribute and neutral populations);
* ``known correlation and sds``: also the word-level sds — the protected coefficients' sd
  per connection (within class) and the compared words' effect sd per kind (a word's mean
  distance to the whole protected population, minus its connection's) — fixed at their
  population values.

This is a diagnostic, not a model a user can fit: it replaces two of the model's priors
(``embias.bayes.model.prior._correlation_cholesky`` and ``LevelStructure.sd_variable``) in
this process only. It prints, per population set and fit, the coverage of the 89% HDIs of
every connection mean and contrast (binomial MC se), the posterior covariance of the
connection means (mean over studies) against the covariance of their posterior means across
studies, and the sd of a random vocabulary word's mean distance to 1,000 random words (what
the embedding alone says about word-level sds).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DESIGN = "protected=5,attributes=4,neutral=100"
CANDIDATE = "strata+corr+wide_mean"


def population_values(name: str, kv: object) -> dict[str, object]:
    """The populations' within-class coefficient correlation and sds, and word-effect sds."""
    from embias.embeddings import is_uncased, lookup_words
    from embias.populations import load_populations

    pops = load_populations(name)
    lists = {**{f"protected:{c}": w for c, w in pops.protected.items()},
             **{f"attributes:{c}": w for c, w in pops.attributes.items()},
             "neutral": pops.neutral}
    _, vectors, _ = lookup_words(kv, lists, missing="raise", lowercase=is_uncased(kv))
    unit = {k: v / np.linalg.norm(v, axis=1, keepdims=True) for k, v in vectors.items()}
    centre = {k: v.mean(axis=0) for k, v in unit.items()}
    coefs = []
    for c in pops.protected:
        words = unit[f"protected:{c}"]
        own = pops.associations[c]
        others = np.mean([centre[f"attributes:{k}"] for k in pops.attributes if k != own],
                         axis=0)
        m = np.c_[1 - words @ centre[f"attributes:{own}"], 1 - words @ others,
                  1 - words @ centre["neutral"]]
        coefs.append(m - m.mean(axis=0))
    within = np.vstack(coefs)
    protected = np.vstack([unit[f"protected:{c}"] for c in pops.protected])

    def effects(compared: np.ndarray) -> np.ndarray:
        """Each compared word's mean distance to the protected population, centred."""
        mean = (1 - protected @ compared.T).mean(axis=0)
        return mean - mean.mean()

    # within each attribute class: a class's offset is in its connection means (strata)
    attribute = np.concatenate([effects(unit[f"attributes:{k}"]) for k in pops.attributes])
    return {"correlation": np.corrcoef(within.T),
            "tau": dict(zip(("associated", "different", "none"),
                            within.std(axis=0, ddof=1).tolist(), strict=True)),
            "tau_word": {"attribute": float(attribute.std(ddof=1)),
                         "neutral": float(effects(unit["neutral"]).std(ddof=1))}}


def vocabulary_sd(kv: object, *, words: int = 50_000, sample: int = 1_000) -> float:
    """Sd of a random vocabulary word's mean cosine distance to ``sample`` random words."""
    rng = np.random.default_rng(0)
    v = np.asarray(kv.vectors[:words], dtype=float)  # type: ignore[attr-defined]
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    a, b = (rng.choice(len(v), sample, replace=False) for _ in range(2))
    return float((1 - v[a] @ v[b].T).mean(axis=1).std(ddof=1))


#: The values the patched priors return (set per population set by :func:`give_the_model`).
_GIVEN: dict[str, object] = {}


def give_the_model(values: dict[str, object], *, sds: bool) -> None:
    """Fix the correlation (and, with ``sds``, the word-level sds) in this process."""
    import pymc as pm
    import pytensor.tensor as pt

    import embias.bayes.model.prior as prior
    from embias.bayes.model.structure import LevelStructure

    first = not _GIVEN
    _GIVEN.update(values, sds=sds)
    if not first:
        return
    prior._correlation_cholesky = lambda size, structure: pt.as_tensor(
        np.linalg.cholesky(np.asarray(_GIVEN["correlation"])))
    own = LevelStructure.sd_variable

    def sd_variable(self: LevelStructure, name: str, **kwargs: object) -> object:
        coords = pm.modelcontext(None).coords
        if _GIVEN["sds"] and name == "tau":
            return pt.as_tensor(np.array([_GIVEN["tau"][c] for c in coords["connection"]]))
        if _GIVEN["sds"] and name == "tau_word":
            return pt.as_tensor(np.array([_GIVEN["tau_word"][k]
                                          for k in coords["word_kind"]]))
        return own(self, name, **kwargs)

    LevelStructure.sd_variable = sd_variable  # type: ignore[method-assign]


def run(name: str, kv: object, n_studies: int) -> dict[str, object]:
    import pandas as pd
    from bench_real_word_models import CANDIDATES, coverage_rows, fit_tables, summarize

    import embias
    from embias.bayes import derived_seed
    from embias.calibration import draw_population_studies, population_answers

    truths = {(r.estimand, r.group): float(r.truth)
              for r in population_answers(name, kv, design=DESIGN).itertuples()}
    studies = draw_population_studies(name, design=DESIGN, n_studies=n_studies,
                                      random_seed=0)
    tables = [embias.cosine_table(kv, s, missing="raise", embedding_name="glove-6b-50d")
              for s in studies]
    start = time.perf_counter()
    rows, covariances, means = [], [], []
    for block in range(0, len(tables), 64):
        seed = derived_seed(0, name, CANDIDATE, str(block)) % 2**31
        for k, tree in enumerate(fit_tables(tables[block:block + 64], CANDIDATES[CANDIDATE],
                                            seed=seed)):
            rows += coverage_rows(tree, truths, study=block + k, candidate=CANDIDATE)
            draws = tree["posterior"]["connection_mean"]
            flat = draws.values.reshape(-1, draws.sizes["connection"])
            covariances.append(np.cov(flat.T))
            means.append(flat.mean(axis=0))
    summary = summarize(pd.DataFrame(rows))
    return {"coverage": summary.drop(columns="candidate").to_dict(orient="records"),
            "connections": [str(c) for c in draws["connection"].values],
            "posterior_covariance": np.mean(covariances, axis=0).tolist(),
            "covariance_of_means": np.cov(np.array(means).T).tolist(),
            "seconds": time.perf_counter() - start}


def main() -> None:
    import subprocess
    import sys

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--populations", nargs="+", default=["names", "sentiment"])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--given", choices=["correlation", "correlation+sds"], default=None,
                    help="(one fit in a fresh process; without it, both, each in its own)")
    ap.add_argument("--json", default=str(HERE / "results" / "known_sds.json"))
    args = ap.parse_args()
    if args.given is None:  # each diagnostic in its own process: the patches stay there
        out = {}
        for given in ("correlation", "correlation+sds"):
            part = Path(args.json).with_suffix(f".{given}.json")
            subprocess.run([sys.executable, __file__, "--populations", *args.populations,
                            "--studies", str(args.studies), "--given", given,
                            "--json", str(part)], check=True)
            out[given] = json.loads(part.read_text())
            part.unlink()
        from record import provenance, write_json

        write_json(Path(args.json), {**provenance(), "design": DESIGN,
                                     "candidate": CANDIDATE, "studies": args.studies,
                                     "fits": out})
        return

    import embias

    kv = embias.load_embeddings("glove-6b-50d")
    print(f"sd of a random vocabulary word's mean distance to 1,000 random words: "
          f"{vocabulary_sd(kv):.4f}")
    results = {}
    for name in args.populations:
        values = population_values(name, kv)
        give_the_model(values, sds=args.given == "correlation+sds")
        r = run(name, kv, args.studies)
        results[name] = {"values": {"correlation": np.asarray(values["correlation"]).tolist(),
                                    "tau": values["tau"], "tau_word": values["tau_word"]},
                         **r}
        print(f"\n{name}, given {args.given}: {args.studies} studies, {r['seconds']:.0f} s")
        print("population values: tau", {k: round(v, 4) for k, v in values["tau"].items()},
              "tau_word", {k: round(v, 4) for k, v in values["tau_word"].items()})
        for row in r["coverage"]:
            print(f"  {row['quantity']:24s} {row['coverage']:.3f} ± {row['mc_se']:.3f}")
        print("  posterior covariance of the connection means (mean over studies) × 1e4:",
              np.round(np.asarray(r["posterior_covariance"]) * 1e4, 1).tolist())
        print("  covariance of their posterior means across studies × 1e4:          ",
              np.round(np.asarray(r["covariance_of_means"]) * 1e4, 1).tolist())
    Path(args.json).write_text(json.dumps(
        {"vocabulary_sd": vocabulary_sd(kv), "given": args.given, "sets": results}, indent=1))


if __name__ == "__main__":
    main()
