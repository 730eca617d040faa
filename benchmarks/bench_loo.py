"""Model comparison and word influence on the authors' religion/Reddit table, with timings.

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

``--skip-refits`` keeps what needs no refit: the fits, the PSIS-LOO comparisons and the
PSIS word influence ranking (no reloo, no refits of word influence, no nutpie refits).

Run: ``.venv/bin/python benchmarks/bench_loo.py [--models-dir models] [--glove] [--kfold]
[--skip-refits]``;
writes ``benchmarks/results/bench_loo.json``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from record import Tables

SEED = 20240601
LEVELS = ("dataset", "word", "hierarchical", "crossed")
#: The authors' WAIC of their religion/Reddit models, by the embias level that
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


def cells(table: pd.DataFrame, columns: Sequence[str], digits: int = 1,
          **column_digits: int) -> list[list[str]]:
    """The rows of ``table``'s ``columns`` as text, floats with ``digits`` decimals (or the
    column's own in ``column_digits``), as :func:`embias.report.to_markdown` prints them."""
    from embias.report import format_number

    return [[format_number(row[c], column_digits.get(c, digits)) for c in columns]
            for _, row in table.iterrows()]


def fit_levels(out: Tables, embedding: str, models_dir: str) -> dict:
    import embias

    fits, rows = {}, []
    for level in LEVELS:
        with Clock() as clock, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[level] = embias.fit_study_model("religion", embedding, level=level,
                                                 random_seed=SEED, models_dir=models_dir,
                                                 progress=False)
        fit = fits[level]
        rows.append([level, f"{clock.wall:.1f}", f"{clock.cpu:.1f}",
                     f"{fit.timings.get('total_seconds', float('nan')):.1f}",
                     "; ".join(fit.problems()) or "none"])
    out.table(f"The four levels on religion/{embedding}: fitted or loaded", [
        "level", "wall s", "CPU s", "sampling s when fitted", "problems"], rows,
        note="wall/CPU: this run (loading a saved fit from --models-dir when one matches, "
             "else fitting); sampling s: the fit's own record of its sampling time.")
    return fits


COLUMNS = ["model", "elpd", "se", "elpd_diff", "dse", "p", "looic", "looic_diff",
           "authors_waic", "authors_waic_diff", "pareto_k_max", "pareto_k_bad"]
REFIT_COLUMNS = ["model", "elpd", "se", "elpd_diff", "dse", "p", "looic", "pareto_k_max",
                 "refits"]


def comparison(fits: dict, by: str) -> tuple[pd.DataFrame, Clock]:
    from embias.bayes.loo import compare_models

    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models(fits, by=by)
    table["looic_diff"] = table["looic"] - table["looic"].min()
    table["authors_waic"] = table["model"].map(AUTHORS_WAIC)
    best = min(AUTHORS_WAIC.values())
    table["authors_waic_diff"] = table["authors_waic"] - best
    return table, clock


def section_compare(out: Tables, fits: dict, *, kfold: bool, refits: bool) -> None:
    from embias.bayes.exact_loo import compare_models_refit

    for by in ("row", "word"):
        table, clock = comparison(fits, by)
        out.table(f"PSIS-LOO by {by} (religion/Reddit) next to the authors' WAIC",
                  COLUMNS, cells(table, COLUMNS, pareto_k_max=2),
                  note="LOOIC = −2·elpd, the deviance scale of the authors' WAIC (lower is "
                       "better); *_diff: to the best model. The authors' WAIC: baseline "
                       "(↔ dataset) −2283, per-word coefficients (↔ word) −2328, "
                       "per-connection coefficients (↔ hierarchical) −2400; none for "
                       "crossed. pareto_k_bad: points with k > 0.7. "
                       f"Computed in {clock}.")
    if not refits:
        return
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models_refit(fits, by="word", refit="reloo")
    out.table("By compared word with exact refits where k > 0.7 (reloo)", REFIT_COLUMNS,
              cells(table, REFIT_COLUMNS, pareto_k_max=2),
              note=f"refits: embias refits without the word. Computed in {clock}.")
    if kfold:
        columns = ["model", "elpd", "se", "elpd_diff", "dse", "looic", "refits"]
        with Clock() as clock, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = compare_models_refit(fits, by="word", refit="kfold", folds=10)
        out.table("Exact 10-fold, whole compared words held out (loo_kfold)", columns,
                  cells(table, columns), note=f"Computed in {clock}.")


def section_psis_influence(out: Tables, fit: Any) -> None:
    """Word influence by PSIS alone (no refit): the ranking and its cost."""
    from embias.bayes.influence import rank_words, word_influence

    with Clock() as clock:
        psis = word_influence(fit, refit="never")
    columns = ["rank", "word", "word_role", "influence", "contrast", "change", "change_sd",
               "method", "pareto_k", "rows"]
    out.table("The 12 most influential words by PSIS alone (word_influence(fit, "
              "refit='never'), rank_words)", columns, cells(rank_words(psis).head(12),
                                                            columns, 3),
              note="influence: |change| of the contrast the word changes most; a Pareto k "
                   f"above 0.7 makes the PSIS change unreliable. Computed in {clock}.")


def section_influence(out: Tables, fit: Any) -> None:
    import dataclasses

    from embias.bayes.influence import rank_words, word_influence

    costs: list[list[str]] = []

    def cost(what: str, clock: Clock, refits: int) -> None:
        per = (f"{clock.wall / refits:.1f} / {clock.cpu / refits:.1f}" if refits else "—")
        costs.append([what, str(refits), f"{clock.wall:.1f}", f"{clock.cpu:.1f}", per])

    with Clock() as clock:
        psis = word_influence(fit, refit="never")
    cost("PSIS change of every contrast, 26 words (no refit)", clock, 0)
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = word_influence(fit, refit="always")
    cost("refit without each word, numpyro (one compile per table)", clock, len(
        exact["word"].unique()))
    key = ["word", "word_role", "contrast"]
    both = psis.merge(exact[[*key, "change"]], on=key, suffixes=("_psis", "_refit"))
    both["error"] = both["change_psis"] - both["change_refit"]
    per_word = both.groupby(["word", "word_role"], sort=False).agg(
        pareto_k=("pareto_k", "first"), largest_refit_change=(
            "change_refit", lambda s: s.iloc[np.argmax(np.abs(s.to_numpy()))]),
        max_abs_error=("error", lambda s: s.abs().max())).reset_index()
    per_word = per_word.sort_values("pareto_k").reset_index(drop=True)
    columns = ["word", "word_role", "pareto_k", "largest_refit_change", "max_abs_error"]
    out.table("Word influence on the hierarchical fit: PSIS against a refit without the word",
              columns, cells(per_word, columns, 4),
              note="pareto_k: of leaving the word's rows out; largest_refit_change: the "
                   "contrast the refit moved most (cosine-distance units); max_abs_error: "
                   "the largest |PSIS − refit| change over the contrasts.")
    groups = []
    for name, part in (("k ≤ 0.7", both[both["pareto_k"] <= 0.7]),
                       ("k > 0.7", both[both["pareto_k"] > 0.7])):
        if len(part):
            groups.append([name, part["word"].nunique(), f"{part['error'].abs().max():.4f}",
                           f"{np.sqrt((part['error'] ** 2).mean()):.4f}",
                           f"{part['change_refit'].abs().max():.4f}"])
    out.table("PSIS against refits by Pareto k", [
        "Pareto k", "words", "max |PSIS − refit|", "rms", "largest |refit change|"], groups,
        note="Over every word × contrast of the table above.")
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = word_influence(fit)
    cost("word_influence(fit): refit where k > 0.7", clock, int(auto.attrs["refits"]))
    ranked = rank_words(auto).head(12)
    columns = ["rank", "word", "word_role", "influence", "contrast", "change", "change_sd",
               "method", "pareto_k", "rows"]
    out.table("The 12 most influential words (word_influence(fit), rank_words)", columns,
              cells(ranked, columns, 3),
              note="influence: |change| of the contrast the word changes most; method: "
                   "psis, or refit where its Pareto k > 0.7.")
    attributes = list(exact.loc[exact["word_role"] == "attribute", "word"].unique())
    nutpie = dataclasses.replace(fit.fit_settings, sampler="nutpie")
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = word_influence(fit, words=attributes, refit="always", refit_settings=nutpie)
    cost("attribute-word refits, nutpie (one compile per shape)", clock, len(attributes))
    merged = fast.merge(exact[[*key, "change"]], on=key, suffixes=("_nutpie", "_numpyro"))
    gap = np.abs(merged["change_nutpie"] - merged["change_numpyro"]).max()
    out.table("Cost of word influence (hierarchical fit, religion/Reddit)", [
        "what", "refits", "wall s", "CPU s", "per refit wall / CPU s"], costs,
        note="Each refit: 2 chains × (1000 + 3000) iterations. CPU: this process's, JAX's "
             f"threads included. nutpie against numpyro refits: max |Δ change| {gap:.4f}.")


def section_glove(out: Tables, models_dir: str) -> None:
    import arviz as az

    from embias.bayes.exact_loo import compare_models_refit
    from embias.bayes.loo import loo_tree

    fits = fit_levels(out, "glove-6b-50d", models_dir)
    rows = []
    for level, fit in fits.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loo = az.loo(loo_tree(fit, "word"), pointwise=True, var_name="compared_word")
        k = loo.pareto_k.to_series().sort_values(ascending=False)
        rows.append([level, ", ".join(f"{w} {v:.2f}" for w, v in k.head(5).items()),
                     int((k > 0.7).sum())])
    out.table("religion/GloVe 6B 50d: Pareto k of leaving one compared word out",
              ["level", "largest five", "words above 0.7"], rows)
    with Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models_refit(fits, by="word", refit="reloo")
    out.table("religion/GloVe 6B 50d: by word with refits where k > 0.7", REFIT_COLUMNS,
              cells(table, REFIT_COLUMNS, pareto_k_max=2), note=f"Computed in {clock}.")


def main() -> None:
    from embias.settings import DEFAULT_CHAINS, DEFAULT_DRAWS, DEFAULT_TUNE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", default="models")
    parser.add_argument("--glove", action="store_true", help="also the religion/GloVe table")
    parser.add_argument("--kfold", action="store_true", help="also exact 10-fold by word")
    parser.add_argument("--skip-refits", action="store_true",
                        help="PSIS only: no reloo comparison, no refits of word influence")
    args = parser.parse_args()
    out = Tables(__file__, title="Model comparison (PSIS-LOO) and word influence",
                 settings={"table": "religion/Reddit (the authors')", "seed": SEED,
                           "chains": DEFAULT_CHAINS, "tune": DEFAULT_TUNE,
                           "draws": DEFAULT_DRAWS, "levels": list(LEVELS),
                           "glove": args.glove, "kfold": args.kfold,
                           "refits": not args.skip_refits})
    fits = fit_levels(out, "published:reddit", args.models_dir)
    section_compare(out, fits, kfold=args.kfold, refits=not args.skip_refits)
    if args.skip_refits:
        section_psis_influence(out, fits["hierarchical"])
    else:
        section_influence(out, fits["hierarchical"])
    if args.glove:
        section_glove(out, args.models_dir)
    out.write()


if __name__ == "__main__":
    main()
