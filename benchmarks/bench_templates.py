"""Template sensitivity: how far SEAT moves with the templates it happened to
use, next to the width of the crossed model's interval, on the religion study and the
offline all-MiniLM-L6-v2.

Over random subsets of k templates (k = 1, 2, 4, 8 per kind of protected word — the
protected words are mass nouns with 4 templates and person/thing nouns with 13–14; the
compared words keep all their templates, as in the sentence table's rows), it measures

- SEAT (May et al. 2019; WEAT on the sentences, every sentence one item) of each pair of
  religions: the effect size's mean, sd and range over the subsets, the mean width of its
  89% item-bootstrap interval (sentences resampled: what SEAT's own machinery claims),
  and the share of those intervals that hold the all-template effect size;
- the crossed model of the sentence table (compared words and templates as random
  effects) fitted to each subset: the associated − different and associated − none
  contrasts — sd of their posterior means over the subsets, mean width of the 89% HDI, and
  the share of HDIs holding the all-template estimate — and the template sd;
- the religion sentence table's size and build time, and the fit time of the crossed model
  of all templates at the default settings (2 × (1000 + 3000) draws), wall and CPU.

No target is stated for these figures. They are printed and written to
``benchmarks/results/bench_templates.json``.

With ``--png FILE`` it also draws the template-sensitivity figure from those results
(README, ``docs/template_sensitivity.png``): SEAT's effect size of every subset next to the
crossed model's contrasts with their 89% HDIs, over k.

Run: .venv/bin/python benchmarks/bench_templates.py [--subsets 6] [--draws 1000] [--png F]
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
import pandas as pd
from record import Tables

import embias
from embias.encoders import default_encoder

CONTRASTS = ("associated - different", "associated - none")


def seat_from_vectors(vectors: dict[str, np.ndarray], sentences: pd.DataFrame,
                      study: embias.Study, pair: tuple[str, str], templates: set[str], *,
                      n_boot: int, random_seed: int) -> tuple[float, tuple[float, float]]:
    """SEAT of one pair of classes with the protected words in ``templates`` only: the
    effect size (ddof = 1) and the 89% two-way item-bootstrap interval over sentences."""
    by_word = sentences.groupby("word", sort=False)

    def side(words, keep=None):
        rows = pd.concat([by_word.get_group(w) for w in words])
        if keep is not None:
            rows = rows[rows["template"].isin(keep)]
        return np.stack([vectors[s] for s in rows["sentence"]])

    x = side(study.protected[pair[0]], templates)
    y = side(study.protected[pair[1]], templates)
    a = side(study.attributes[study.associations[pair[0]]])
    b = side(study.attributes[study.associations[pair[1]]])
    targets = np.concatenate([x, y])
    sim_a, sim_b = targets @ a.T, targets @ b.T
    s = sim_a.mean(axis=1) - sim_b.mean(axis=1)
    effect = embias.weat_effect_size(s[: len(x)], s[len(x):])
    boot = embias.weat_item_bootstrap(sim_a, sim_b, len(x), n_boot=n_boot,
                                      random_seed=random_seed)
    return float(effect), boot.interval(0.89)


def template_subsets(sentences: pd.DataFrame, kinds: dict[str, str], protected: list[str],
                     k: int, count: int, rng: np.random.Generator) -> list[set[str]]:
    """``count`` random subsets: k templates of each kind of protected word (all of a
    kind's templates when it has fewer)."""
    by_kind: dict[str, list[str]] = {}
    for word in protected:
        rows = sentences[sentences["word"] == word]
        by_kind.setdefault(kinds[word], [])
        by_kind[kinds[word]] += [t for t in rows["template"] if t not in by_kind[kinds[word]]]
    out = []
    for _ in range(count):
        chosen: set[str] = set()
        for templates in by_kind.values():
            pick = rng.choice(len(templates), size=min(k, len(templates)), replace=False)
            chosen |= {templates[i] for i in pick}
        out.append(chosen)
    return out


def model_figures(table: pd.DataFrame, *, draws: int, tune: int, seed: int
                  ) -> tuple[dict[str, tuple[float, float, float]], float, embias.BiasFit]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = embias.fit_bias_model(table, level="crossed", draws=draws, tune=tune,
                                    random_seed=seed, progress=False)
    t = fit.to_interval_table().set_index(["estimand", "group"])
    contrasts = {c: (t.loc[("contrast", c), "estimate"], t.loc[("contrast", c), "lower"],
                     t.loc[("contrast", c), "upper"]) for c in CONTRASTS}
    return contrasts, float(t.loc[("template_sd", "template"), "estimate"]), fit


def tidy_results(results: pd.DataFrame, full_seat: dict, full_model: dict,
                 pairs: list[tuple[str, str]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The results as :func:`embias.plots.plot_template_sensitivity` takes them: one row
    per SEAT effect size and one per model contrast (k = "all": every template)."""
    seat = [{"k": k, "pair": f"{a} vs {b}", "d": d}
            for a, b in pairs
            for k, d in [*zip(results["k"], results[f"seat {a}-{b}"], strict=True),
                         ("all", full_seat[(a, b)][0])]]
    model = [{"k": k, "contrast": c, "estimate": est, "lower": lo, "upper": hi}
             for c in CONTRASTS
             for k, est, lo, hi in [*zip(results["k"], results[f"model {c}"],
                                         results[f"model {c} lower"],
                                         results[f"model {c} upper"], strict=True),
                                    ("all", *full_model[c])]]
    return pd.DataFrame(seat), pd.DataFrame(model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subsets", type=int, default=6, help="random subsets per k")
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--draws", type=int, default=1000, help="draws per chain (subsets)")
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-default-fit", action="store_true")
    parser.add_argument("--png", help="write the template-sensitivity figure here")
    args = parser.parse_args()
    out = Tables(__file__, title="Template sensitivity: SEAT and the crossed model on the "
                 "religion sentences (all-MiniLM-L6-v2)",
                 settings={"subsets per k": args.subsets, "k": ", ".join(map(str, args.ks)),
                           "draws per chain (subsets)": args.draws, "tune": args.tune,
                           "bootstrap replicates": args.n_boot, "seed": args.seed})

    study = embias.load_study("religion")
    enc = default_encoder()
    t0, c0 = time.perf_counter(), time.process_time()
    table = embias.sentence_table(enc, study)
    costs = [["religion sentence table (encoder load and encoding included)",
              f"{len(table):,} rows, {table['template'].nunique()} protected-side templates, "
              f"{table.attrs['sentences']:,} sentences", f"{time.perf_counter() - t0:.1f}",
              f"{time.process_time() - c0:.1f}", ""]]
    protected = [w for ws in study.protected.values() for w in ws]
    attributes = [w for ws in study.attributes.values() for w in ws]
    sentences = embias.word_sentences(protected + attributes)
    vectors = dict(zip(sentences["sentence"], enc(list(sentences["sentence"])), strict=True))
    kinds = table.attrs["word_kinds"]
    pairs = list(itertools.combinations(study.protected, 2))
    all_templates = set(sentences["template"])

    # the all-template reference: SEAT of each pair, and the model at the defaults
    full_seat = {p: seat_from_vectors(vectors, sentences, study, p, all_templates,
                                      n_boot=args.n_boot, random_seed=args.seed)
                 for p in pairs}
    for p in pairs:  # the hand-made SEAT is embias's seat_test on all templates
        pair_study = study.replace(protected={c: study.protected[c] for c in p},
                                   associations={c: study.associations[c] for c in p},
                                   name="-".join(p))
        check = embias.seat_test(pair_study, enc, permutations=1000, n_boot=100,
                                 random_seed=0)
        # (seat_test keeps float32 vectors: agreement to ~1e-8)
        assert abs(check.effect_size - full_seat[p][0]) < 1e-6, (p, check.effect_size)
    if not args.skip_default_fit:
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full_fit = embias.fit_bias_model(table, level="crossed", random_seed=args.seed,
                                             progress=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        overview = full_fit.diagnostics_overview().iloc[0]
        costs.append(["crossed model, all templates, defaults (2 × (1000 + 3000) draws, "
                      "numpyro)", f"{full_fit.timings['sample_seconds']:.1f} s sampling",
                      f"{wall:.1f}", f"{cpu:.1f}",
                      f"max r̂ {overview['max_r_hat']:.3f}, min ESS "
                      f"{min(overview['min_ess_bulk'], overview['min_ess_tail']):.0f}, "
                      f"{int(overview['divergences'])} divergences"])
    out.table("Building the sentence table and fitting the default model",
              ["step", "size / detail", "wall (s)", "CPU (s)", "diagnostics"], costs,
              note="CPU time is this process's (JAX runs the chains in its own threads of "
                   "the process). No target is stated for these times.")
    full_model, full_sd, _ = model_figures(table, draws=args.draws, tune=args.tune,
                                           seed=args.seed)
    rows = []
    for p in pairs:
        d, (lo, hi) = full_seat[p]
        rows.append([f"SEAT {p[0]}-{p[1]} (effect size d)", f"{d:+.3f}",
                     f"[{lo:+.3f}, {hi:+.3f}] (sentence bootstrap)"])
    for c in CONTRASTS:
        est, lo, hi = full_model[c]
        rows.append([f"model {c}", f"{est:+.4f}", f"[{lo:+.4f}, {hi:+.4f}] (HDI)"])
    rows.append(["model template sd", f"{full_sd:.4f}", ""])
    out.table("All templates: the reference values", ["quantity", "estimate", "89% interval"],
              rows, note=f"The model here is fitted at the subsets' settings ({args.draws} "
                         f"draws, {args.tune} tune per chain); contrasts in cosine distance.")

    rng = np.random.default_rng(args.seed)
    rows = []
    for k in args.ks:
        for i, subset in enumerate(template_subsets(sentences, kinds, protected, k,
                                                    args.subsets, rng)):
            row: dict[str, float] = {"k": k, "templates": len(subset)}
            for p in pairs:
                d, (lo, hi) = seat_from_vectors(vectors, sentences, study, p, subset,
                                                n_boot=args.n_boot, random_seed=args.seed)
                name = f"{p[0]}-{p[1]}"
                row[f"seat {name}"] = d
                row[f"seat {name} width"] = hi - lo
                row[f"seat {name} covers"] = float(lo <= full_seat[p][0] <= hi)
            t0 = time.perf_counter()
            model, sd, fit = model_figures(table[table["template"].isin(subset)],
                                           draws=args.draws, tune=args.tune,
                                           seed=args.seed + i)
            row["fit seconds"] = time.perf_counter() - t0
            row["divergences"] = fit.divergences
            row["template sd"] = sd
            for c in CONTRASTS:
                est, lo, hi = model[c]
                row[f"model {c}"] = est
                row[f"model {c} width"] = hi - lo
                row[f"model {c} lower"], row[f"model {c} upper"] = lo, hi
                row[f"model {c} covers"] = float(lo <= full_model[c][0] <= hi)
            rows.append(row)
            print(f"  k={k} subset {i + 1}: {len(subset)} templates, fit "
                  f"{row['fit seconds']:.0f} s", flush=True)
    results = pd.DataFrame(rows)

    lines = []
    for k, part in results.groupby("k"):
        for p in pairs:
            name = f"{p[0]}-{p[1]}"
            d = part[f"seat {name}"]
            lines.append([k, name, *(f"{v:.3f}" for v in (
                d.mean(), d.std(ddof=1), d.min(), d.max(), part[f"seat {name} width"].mean(),
                part[f"seat {name} covers"].mean()))])
    out.table("SEAT over random template subsets",
              ["k", "pair", "d mean", "d sd", "d min", "d max", "interval width",
               "covers all-template d"], lines,
              note=f"Effect size d over {args.subsets} subsets per k; the width and the share "
                   "of the subsets whose 89% sentence-bootstrap interval holds the "
                   "all-template d.")
    lines = []
    for k, part in results.groupby("k"):
        for c in CONTRASTS:
            est = part[f"model {c}"]
            lines.append([k, c, *(f"{v:.4f}" for v in (
                est.mean(), est.std(ddof=1), part[f"model {c} width"].mean(),
                part[f"model {c} covers"].mean(), part["template sd"].mean())),
                int(part["divergences"].sum())])
    out.table("Crossed model over the same subsets",
              ["k", "contrast", "mean", "sd over subsets", "HDI width",
               "covers all-template estimate", "template sd", "divergences"], lines,
              note="Contrast in cosine distance; the mean width of its 89% HDI and the share "
                   "of the subsets whose HDI holds the all-template estimate; the template sd "
                   "averaged and the divergences summed over the subsets.")
    lines = []
    for k, part in results.groupby("k"):
        seat_ratio = np.mean([part[f"seat {a}-{b}"].std(ddof=1)
                              / part[f"seat {a}-{b} width"].mean() for a, b in pairs])
        model_ratio = np.mean([part[f"model {c}"].std(ddof=1) / part[f"model {c} width"].mean()
                               for c in CONTRASTS])
        lines.append([k, f"{seat_ratio:.2f}", f"{model_ratio:.2f}"])
    out.table("Scale-free: sd over subsets / interval width", ["k", "SEAT", "model"], lines,
              note="SEAT's interval is about the sentences drawn, the model's about words and "
                   "templates: a ratio near or above 1 means the choice of templates moves the "
                   "figure by as much as its interval is wide.")
    out.write()
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        from embias.plots import plot_template_sensitivity

        seat, model = tidy_results(results, full_seat, full_model, pairs)
        plot_template_sensitivity(seat, model).savefig(args.png, dpi=110)
        print(f"\nfigure: {args.png}")


if __name__ == "__main__":
    main()
