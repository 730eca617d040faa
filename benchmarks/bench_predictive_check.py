"""Posterior predictive check of a model level on the 12 shipped tables.

Run: .venv/bin/python benchmarks/bench_predictive_check.py [--level LEVEL] [--seed S]
[--json FILE]

Fits religion, race and gender on GloVe 6B 50d (the embedded vectors) and on the authors'
published Reddit, Google and GloVe tables at ``--level`` (default the library's) with the
default sampler settings — all 12 through one :func:`embias.fit_many` call — and prints,
per table and connection, the share of observed distances inside their posterior
predictive 50% and 89% intervals (:meth:`embias.BiasFit.predictive_check`), with the 99%
binomial band of the connection's distinct compared words (a table's attribute rows rest
on 11–25 words, so one cell is noisy), then the mean over the 12 tables per connection.

With 96 cells (12 tables × 4 connections × 2 levels) a calibrated check puts each cell
outside its own 99% band with probability 0.01, so about one cell outside is what
calibration looks like (P(at least one) = 1 − 0.99⁹⁶ = 0.62). The script therefore also
gives every cell its family-wise 99% band (Bonferroni: the 1 − 0.01/96 binomial band), which
all 96 cells stay inside with probability ≥ 0.99 when the check is calibrated, whatever the
dependence between cells.

Each row is judged by the fit without its compared word (PSIS; the words whose Pareto k
exceeds 0.7 by actual refits, ``refit="auto"``). The in-sample share (every row judged by
the fit it informed, ``leave_out="nothing"``) is printed next to it.
Writes the rows to ``benchmarks/results/predictive_check_<level>.json``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def binomial_band(prob: float, words: int, ci_prob: float, inside: float
                  ) -> tuple[float, float, bool]:
    """The ``prob`` binomial band of a share over ``words`` trials, and whether it holds it."""
    from scipy import stats

    low, high = stats.binom.interval(prob, words, ci_prob)
    return low / words, high / words, bool(low / words <= inside <= high / words)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--level", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import warnings

    import pandas as pd

    import embias
    from embias.settings import DEFAULT_LEVEL
    from embias.tables import study_table

    level = args.level or DEFAULT_LEVEL
    tables = {}
    for study in ("religion", "race", "gender"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # missing words are reported
            tables[study, "glove-6b-50d"] = study_table(study, "glove-6b-50d")
            for embedding in ("reddit", "google", "glove"):
                tables[study, f"published {embedding}"] = embias.load_published_table(
                    study, embedding)
    jobs = [embias.FitJob(t, embias.FitSettings(level=level, random_seed=args.seed + k),
                          label=f"{s}/{e}") for k, ((s, e), t) in enumerate(tables.items())]
    start = time.perf_counter()
    fits = embias.fit_many(jobs, progress=True, warn=True)
    wall = time.perf_counter() - start
    rows, per_table = [], []
    start = time.perf_counter()
    for ((study, embedding), table), fit in zip(tables.items(), fits, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the refits' own convergence notes
            check = fit.predictive_check(refit="auto")
        in_sample = fit.predictive_check(leave_out="nothing").coverage.set_index(
            ["connection", "ci_prob"])["inside"]
        left_out = check.words_left_out
        overview = fit.diagnostics_overview().iloc[0].to_dict()
        per_table.append({"study": study, "embedding": embedding, **overview,
                         "words": len(left_out),
                         "refits": int((left_out["method"] == "refit").sum()),
                         "max_pareto_k": float(left_out["pareto_k"].max())})
        words = table.groupby("connection")["word_to_compare"].nunique()
        for r in check.coverage.itertuples(index=False):
            if r.connection == "all":
                continue
            n = int(words[r.connection])
            low, high, in_band = binomial_band(0.99, n, r.ci_prob, r.inside)
            rows.append({"study": study, "embedding": embedding, "connection": r.connection,
                         "ci_prob": float(r.ci_prob), "inside": float(r.inside),
                         "inside_in_sample": float(in_sample[r.connection, r.ci_prob]),
                         "rows": int(r.rows), "words": n, "band_low": low,
                         "band_high": high, "in_band": in_band,
                         "sampler": fit.settings["sampler"]})
    check_wall = time.perf_counter() - start
    family_prob = 1 - 0.01 / len(rows)
    for r in rows:
        low, high, in_band = binomial_band(family_prob, r["words"], r["ci_prob"], r["inside"])
        r.update(family_band_low=low, family_band_high=high, in_family_band=in_band)
    frame = pd.DataFrame(rows)
    for prob, part in frame.groupby("ci_prob"):
        wide = part.pivot_table(index=["study", "embedding"], columns="connection",
                                values="inside", sort=False)
        print(f"\n{level} level, {prob:.0%} predictive intervals: share of rows inside")
        print(wide.round(3).to_string())
        mean = part.groupby("connection", sort=False)["inside"].agg(["mean", "min", "max"])
        mean["within ±0.05"] = (mean["mean"] - prob).abs() <= 0.05
        mean["in-sample mean"] = part.groupby("connection", sort=False)[
            "inside_in_sample"].mean()
        print(mean.round(3).to_string())
        outside = part[~part["in_band"]]
        print(f"cells outside their 99% binomial band: {len(outside)} of {len(part)}"
              + "".join(f"\n  {r.study}/{r.embedding} {r.connection}: {r.inside:.3f} "
                        f"(band {r.band_low:.3f}–{r.band_high:.3f}, {r.words} words)"
                        for r in outside.itertuples()))
    n_cells = len(frame)
    print(f"\nall {n_cells} cells: outside their own 99% band {int((~frame['in_band']).sum())} "
          f"(a calibrated check: {0.01 * n_cells:.2f} expected, P(at least one) = "
          f"{1 - 0.99 ** n_cells:.2f}); outside their family-wise 99% band (Bonferroni, "
          f"{family_prob:.5f} each) {int((~frame['in_family_band']).sum())}")
    tables_frame = pd.DataFrame(per_table)
    print("\nthe 12 fits at the default settings (r̂, ESS, divergences):")
    print(tables_frame.drop(columns=["words", "refits", "max_pareto_k"]).round(3).to_string(
        index=False))
    print(f"\nwords refitted (Pareto k > 0.7): {tables_frame['refits'].sum()} of "
          f"{tables_frame['words'].sum()}; largest k {tables_frame['max_pareto_k'].max():.2f}")
    print(f"12 fits in {wall:.0f} s; the checks (refits included) in {check_wall:.0f} s")
    out = Path(args.json or HERE / "results" / f"predictive_check_{level}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    from record import provenance, write_json

    write_json(out, {**provenance(), "level": level, "seconds": wall,
                     "family_band_prob": family_prob,
                     "check_seconds": check_wall, "leave_out": "word", "refits": per_table,
                     "rows": rows})


if __name__ == "__main__":
    main()
