"""Design analysis: how many attribute words per class give an 80% chance of a credible
associated − different, and what the shipped lists give.

Run: .venv/bin/python benchmarks/bench_design.py [--studies N] [--attribute-words N ...]
[--protected-words N|pilot ...] [--protected-sweep N ...] [--no-shipped] [--tables NAME ...]
[--seed S] [--out FILE]

For each shipped study of ``--tables`` (default religion, race and gender) on GloVe 6B
50d: fits the study at the crossed level (the library's defaults, seed ``--seed``), then
:func:`embias.design.design_analysis` draws ``--studies`` studies (default 100) per design
from that fit's posterior predictive — first the shipped lists' own sizes ("pilot"), then
every ``--attribute-words`` size (default 4 8 16 32), with the pilot's protected, neutral
and human words unless ``--protected-words`` says otherwise — fits each with the batch
settings and prints per design and contrast P(credible difference: 89% HDI outside
±0.02) with its binomial Monte Carlo se and the mean HDI width with its se; then the
smallest attribute list reaching P ≥ 0.8 per contrast, the wall time of the
``--attribute-words`` sizes (target: < 3 min for 4 sizes × 100 studies of the religion
shape on 2 cores) and the machine's load average. ``--protected-sweep N ...`` adds, with
the shipped attribute lists, designs of N protected words per class (what a longer
protected list buys); ``--no-shipped`` and an empty ``--attribute-words`` skip those
parts. Writes everything to ``benchmarks/results/design.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

TARGET = 0.8


def smallest(summary, *, target: float = TARGET) -> dict:
    """Per protected size and contrast: the smallest attribute words per class whose
    estimated P(credible) reaches ``target`` (None when no size does)."""
    out: dict = {}
    for (protected, contrast), rows in summary.groupby(["protected_words", "contrast"],
                                                       sort=False):
        reached = rows[rows["p_credible"] >= target].sort_values("attribute_words")
        out[f"protected={protected:g}: {contrast}"] = (
            None if reached.empty else float(reached["attribute_words"].iloc[0]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=100)
    ap.add_argument("--attribute-words", type=int, nargs="*", default=[4, 8, 16, 32])
    ap.add_argument("--protected-words", nargs="+", default=["pilot"])
    ap.add_argument("--protected-sweep", type=int, nargs="*", default=[])
    ap.add_argument("--no-shipped", action="store_true")
    ap.add_argument("--tables", nargs="+", default=["religion", "race", "gender"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "design.json"))
    args = ap.parse_args()
    protected = [p if p == "pilot" else int(p) for p in args.protected_words]

    import pandas as pd
    from record import provenance

    import embias
    from embias.design import design_analysis

    record: dict = {**provenance(), "studies": args.studies,
                    "attribute_words": args.attribute_words, "protected_words": protected,
                    "seed": args.seed, "cpus": os.cpu_count(),
                    "load_before": os.getloadavg(), "tables": {}}
    columns = ["design", "contrast", "truth", "p_credible", "p_se", "width_mean", "width_se",
               "n_studies", "n_failed_fits"]
    for name in args.tables:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # one neutral word not in GloVe
            table = embias.study_table(name, "glove-6b-50d")
        start = time.perf_counter()
        pilot = embias.fit_bias_model(table, level="crossed", random_seed=args.seed,
                                      progress=False)
        pilot_seconds = time.perf_counter() - start
        contrasts = pilot.to_interval_table()
        contrasts = contrasts[contrasts["estimand"] == "contrast"]
        print(f"\n{name} on GloVe 6B 50d, pilot fit ({pilot_seconds:.0f} s, problems: "
              f"{pilot.problems() or 'none'}):")
        print(embias.to_markdown(contrasts, columns=["group", "estimate", "lower", "upper",
                                                     "rope_decision"]))
        entry: dict = {"pilot": {
            "seconds": pilot_seconds, "problems": pilot.problems(),
            "random_seed": pilot.settings["random_seed"],
            "contrasts": contrasts[["group", "estimate", "lower", "upper",
                                    "rope_decision"]].to_dict("records")}}
        parts = []
        if not args.no_shipped:
            shipped = design_analysis(pilot, attribute_words="pilot",
                                      protected_words=protected, n_studies=args.studies,
                                      random_seed=args.seed, progress=False)
            parts.append(shipped.summary())
            entry["shipped_seconds"] = shipped.seconds
            entry["fit_settings"] = shipped.settings["fit"]
        if args.attribute_words:
            load = os.getloadavg()
            start = time.perf_counter()
            sizes = design_analysis(pilot, attribute_words=args.attribute_words,
                                    protected_words=protected, n_studies=args.studies,
                                    random_seed=args.seed, progress=False)
            wall = time.perf_counter() - start
            parts.append(sizes.summary())
            fits = len(sizes.designs) * args.studies
            print(f"{len(sizes.designs)} sizes × {args.studies} studies = {fits} fits: "
                  f"{wall:.0f} s ({wall / fits:.2f} s a fit; load average before "
                  f"{load[0]:.1f} on {os.cpu_count()} CPUs, after "
                  f"{os.getloadavg()[0]:.1f})")
            entry.update({"sizes_seconds": wall, "sizes_fits": fits,
                          "load_before_sizes": load, "load_after_sizes": os.getloadavg(),
                          "fit_settings": sizes.settings["fit"]})
        if args.protected_sweep:
            sweep = design_analysis(pilot, attribute_words="pilot",
                                    protected_words=args.protected_sweep,
                                    n_studies=args.studies, random_seed=args.seed,
                                    progress=False)
            parts.append(sweep.summary())
            entry["sweep_seconds"] = sweep.seconds
            entry["fit_settings"] = sweep.settings["fit"]
        summary = pd.concat(parts, ignore_index=True)
        print(embias.to_markdown(summary, columns=columns))
        reached = smallest(summary)
        for key, value in reached.items():
            print(f"  smallest attribute list with P(credible) ≥ {TARGET}: {key}: "
                  f"{'not reached' if value is None else f'{value:g} per class'}")
        entry.update({"summary": summary.to_dict("records"), "smallest_for_0.8": reached})
        record["tables"][name] = entry
    record["load_after"] = os.getloadavg()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
