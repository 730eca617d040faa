"""Comparison speed and the reported figures: the authors' Reddit religion tables, biased
vs hard-debiased, at the default draws of fit_bias_model (2 chains; DEFAULT_DRAWS,
DEFAULT_TUNE).

Measures the wall time of the three fits (two embeddings + the change model) run one
after another, in the local process pool and on a Dask LocalCluster of two worker
processes, checks that all three give the same draws, and shows the change table and the
fits' diagnostics. No target is stated for the times.

Run: .venv/bin/python benchmarks/bench_compare.py   (prints its figures and writes
``benchmarks/results/bench_compare.json``)
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from record import Tables

REDDIT = {"biased": "published:reddit", "hard": "published:reddit-debiased"}
SEED = 20240601


def _arrays(result) -> dict[str, np.ndarray]:
    out = {}
    for label, fit in [*result.fits.items(), *result.change_fits.items()]:
        post = fit.posterior["posterior"].to_dataset()
        out |= {f"{label} {type(fit).__name__} {v}": post[v].to_numpy() for v in post.data_vars}
    return out


def cells(table: pd.DataFrame, columns: list[str] | None = None
          ) -> tuple[list[str], list[list[str]]]:
    """Header and rows of ``table`` with its numbers formatted as ``embias`` prints them."""
    from embias.report import format_number, is_scientific_column

    cols = list(table.columns if columns is None else columns)
    sci = [is_scientific_column(c) for c in cols]
    return cols, [[format_number(v, scientific=e) for v, e in zip(row, sci, strict=True)]
                  for row in table[cols].itertuples(index=False)]


def main() -> None:
    from dask.distributed import Client, LocalCluster

    from embias import compare_embeddings
    from embias.settings import DEFAULT_CHAINS, DEFAULT_DRAWS, DEFAULT_TUNE

    warnings.simplefilter("ignore", UserWarning)
    out = Tables(__file__, title="Comparing embeddings: the Reddit religion tables, biased vs "
                 "hard-debiased", settings={"embeddings": ", ".join(REDDIT.values()),
                                            "random_seed": SEED, "chains": DEFAULT_CHAINS,
                                            "draws": DEFAULT_DRAWS, "tune": DEFAULT_TUNE})
    runs, rows = {}, []
    for name, kwargs in (("one after another", {"max_workers": 1}),
                         ("local process pool (2 workers)", {"max_workers": 2})):
        t0 = time.perf_counter()
        runs[name] = compare_embeddings(REDDIT, "religion", random_seed=SEED, progress=False,
                                        **kwargs)
        rows.append([name, f"{time.perf_counter() - t0:.1f}", ""])
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        t1 = time.perf_counter()
        runs["dask"] = compare_embeddings(REDDIT, "religion", random_seed=SEED, progress=False,
                                          executor=client.get_executor())
    rows.append(["Dask LocalCluster (2 worker processes)", f"{time.perf_counter() - t0:.1f}",
                 f"cluster start {t1 - t0:.1f} s included"])
    first, *others = (_arrays(r) for r in runs.values())
    same = all(first.keys() == o.keys() and all(np.array_equal(first[k], o[k]) for k in first)
               for o in others)
    out.table("compare_embeddings: three fits (two embeddings + the change model)",
              ["how the fits run", "wall (s)", "detail"], rows,
              note=f"One run each. Identical draws in all three runs: {same} ({len(first)} "
                   "arrays compared). The script states no target for these times.")
    result = runs["local process pool (2 workers)"]
    out.table("Change from biased to hard-debiased", *cells(
        result.change_summary(), ["estimand", "group", "estimate", "lower", "upper",
                                  "ci_prob", "ci_kind", "prob_gt_0", "rope_decision",
                                  "p_value"]))
    diagnostics = result.diagnostics_overview()
    ess = [c for c in diagnostics.columns if c.startswith("min_ess")]
    diagnostics[ess] = diagnostics[ess].round().astype(int)
    out.table("Diagnostics of the fits", *cells(diagnostics))
    out.write()


if __name__ == "__main__":
    main()
