"""Model comparison and word influence on the authors' religion/Reddit table (issue 13,
items 3 and 4), with timings.

1. The four levels (dataset, word, hierarchical, crossed) fitted with the default settings
   (2 chains × 3000 draws after 1000 tuning steps), saved in ``--models-dir`` and reused
   on a second run (the same fits ``embias compare-models`` makes).
2. PSIS-LOO by row and by compared word (``embias.bayes.loo.compare_models``), LOOIC
   = −2·elpd next to the authors' WAIC (baseline −2283, per-word coefficients −2328,
   per-connection coefficients −2400; deviance scale, lower is better); then by word with
   exact refits where Pareto k > 0.7 (ArviZ ``reloo`` through embias fits).
3. Word influence of the 15 protected and 11 attribute words on the hierarchical fit:
   PSIS (no refit) against an actual refit without each word, and the cost of the refits
   with numpyro (one compile per table) and nutpie (one compile per shape).
4. With ``--glove``: the Pareto k of leaving one compared word out on the religion/GloVe
   table (GloVe 6B 50d), per level, and the comparison with refits.

Run: .venv/bin/python benchmarks/bench_loo.py [--models-dir models] [--glove] [--kfold]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

SEED = 20240601
LEVELS = ("dataset", "word", "hierarchical", "crossed")
#: The authors' WAIC of their religion/Reddit models (issue 13), by the embias level that
#: corresponds: baseline m + co[con] ↔ dataset, per-word coefficients m[pw] + co[con] ↔
#: word, separate per-connection coefficients coef[pw, con] ↔ hierarchical.
AUTHORS_WAIC = {"dataset": -2283.0, "word": -2328.0, "hierarchical": -2400.0}


class Clock:
    """Wall and CPU seconds of a block (CPU of this process: JAX's threads included)."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu

    def __str__(self) -> str:
        return f"{self.wall:.1f} s wall, {self.cpu:.1f} s CPU"


def fit_levels(embedding: str, models_dir: str) -> dict:
    import embias

    fits = {}
    for level in LEVELS:
        with Clock() as clock, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[level] = embias.fit_study_model("religion", embedding, level=level,
                                                 random_seed=SEED, models_dir=models_dir,
                                                 progress=False)
        fit = fits[level]
        print(f"- {level}: {clock} (sampling when fitted: "
              f"{fit.timings.get('total_seconds', float('nan')):.1f} s); "
              f"problems: {fit.problems() or 'none'}")
    return fits


def comparison(fits: dict, by: str) -> pd.DataFrame:
    from embias.bayes.loo import compare_models

    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models(fits, by=by)
    print(f"PSIS-LOO by {by}: {clock}")
    table["looic_diff"] = table["looic"] - table["looic"].min()
    table["authors_waic"] = table["model"].map(AUTHORS_WAIC)
    best = min(AUTHORS_WAIC.values())
    table["authors_waic_diff"] = table["authors_waic"] - best
    return table


COLUMNS = ["model", "elpd", "se", "elpd_diff", "dse", "p", "looic", "looic_diff",
           "authors_waic", "authors_waic_diff", "pareto_k_max", "pareto_k_bad"]


def section_compare(fits: dict, *, kfold: bool) -> None:
    from embias.bayes.exact_loo import compare_models_refit
    from embias.report import to_markdown

    for by in ("row", "word"):
        table = comparison(fits, by)
        print(to_markdown(table, columns=COLUMNS, digits=1))
        print()
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models_refit(fits, by="word", refit="reloo")
    print(f"by word with exact refits where k > 0.7 (reloo): {clock}")
    print(to_markdown(table, columns=["model", "elpd", "se", "elpd_diff", "dse", "p", "looic",
                                      "pareto_k_max", "refits"], digits=1))
    print()
    if kfold:
        with Clock() as clock, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = compare_models_refit(fits, by="word", refit="kfold", folds=10)
        print(f"exact 10-fold, whole compared words held out (loo_kfold): {clock}")
        print(to_markdown(table, columns=["model", "elpd", "se", "elpd_diff", "dse", "looic",
                                          "refits"], digits=1))
        print()


def section_influence(fit) -> None:
    import dataclasses

    from embias.bayes.influence import rank_words, word_influence
    from embias.report import to_markdown

    with Clock() as clock:
        psis = word_influence(fit, refit="never")
    print(f"PSIS change of every contrast for 26 words (no refit): {clock}")
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = word_influence(fit, refit="always")
    print(f"26 refits (numpyro, one compile each, 2 × (1000 + 3000) iterations): {clock}; "
          f"{clock.wall / 26:.1f} s wall, {clock.cpu / 26:.1f} s CPU per refit")
    key = ["word", "word_role", "contrast"]
    both = psis.merge(exact[[*key, "change"]], on=key, suffixes=("_psis", "_refit"))
    both["error"] = both["change_psis"] - both["change_refit"]
    per_word = both.groupby(["word", "word_role"], sort=False).agg(
        pareto_k=("pareto_k", "first"), largest_refit_change=(
            "change_refit", lambda s: s.iloc[np.argmax(np.abs(s.to_numpy()))]),
        max_abs_error=("error", lambda s: s.abs().max())).reset_index()
    per_word = per_word.sort_values("pareto_k").reset_index(drop=True)
    print(to_markdown(per_word, digits=4))
    for name, part in (("k ≤ 0.7", both[both["pareto_k"] <= 0.7]),
                       ("k > 0.7", both[both["pareto_k"] > 0.7])):
        if len(part):
            print(f"{name}: {part['word'].nunique()} words, |PSIS − refit| max "
                  f"{part['error'].abs().max():.4f}, rms {np.sqrt((part['error'] ** 2).mean()):.4f}"
                  f" (changes up to {part['change_refit'].abs().max():.4f})")
    print()
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = word_influence(fit)
    print(f"word_influence(fit) (refit where k > 0.7: {auto.attrs['refits']} refits): {clock}")
    print(to_markdown(rank_words(auto).head(12), digits=3))
    print()
    attributes = list(exact.loc[exact["word_role"] == "attribute", "word"].unique())
    nutpie = dataclasses.replace(fit.fit_settings, sampler="nutpie")
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = word_influence(fit, words=attributes, refit="always", refit_settings=nutpie)
    print(f"{len(attributes)} attribute-word refits with nutpie (one compile for the shape): "
          f"{clock}")
    merged = fast.merge(exact[[*key, "change"]], on=key, suffixes=("_nutpie", "_numpyro"))
    gap = np.abs(merged["change_nutpie"] - merged["change_numpyro"]).max()
    print(f"nutpie vs numpyro refits: max |Δ| {gap:.4f}")
    print()


def section_glove(models_dir: str) -> None:
    import arviz as az

    from embias.bayes.exact_loo import compare_models_refit
    from embias.bayes.loo import loo_tree
    from embias.report import to_markdown

    print("## religion / GloVe 6B 50d")
    fits = fit_levels("glove-6b-50d", models_dir)
    for level, fit in fits.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loo = az.loo(loo_tree(fit, "word"), pointwise=True, var_name="compared_word")
        k = loo.pareto_k.to_series().sort_values(ascending=False)
        print(f"- {level}: Pareto k of leaving one compared word out, largest: "
              + ", ".join(f"{w} {v:.2f}" for w, v in k.head(5).items())
              + f"; {int((k > 0.7).sum())} above 0.7")
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models_refit(fits, by="word", refit="reloo")
    print(f"by word with refits where k > 0.7: {clock}")
    print(to_markdown(table, columns=["model", "elpd", "se", "elpd_diff", "dse", "p", "looic",
                                      "pareto_k_max", "refits"], digits=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", default="models")
    parser.add_argument("--glove", action="store_true", help="also the religion/GloVe table")
    parser.add_argument("--kfold", action="store_true", help="also exact 10-fold by word")
    args = parser.parse_args()
    print("## religion / Reddit (the authors' table)")
    fits = fit_levels("published:reddit", args.models_dir)
    print()
    section_compare(fits, kfold=args.kfold)
    section_influence(fits["hierarchical"])
    if args.glove:
        section_glove(args.models_dir)


main()
