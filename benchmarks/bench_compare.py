"""Comparison speed and the reported figures: the authors' Reddit religion tables, biased
vs hard-debiased, at the default draws of fit_bias_model (2 chains; DEFAULT_DRAWS,
DEFAULT_TUNE).

Prints the wall time of the three fits (two embeddings + the change model) run one
after another, in the local process pool and on a Dask LocalCluster of two worker
processes, checks that all three give the same draws, and prints the change table.

Run: .venv/bin/python benchmarks/bench_compare.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np

REDDIT = {"biased": "published:reddit", "hard": "published:reddit-debiased"}
SEED = 20240601


def _arrays(result) -> dict[str, np.ndarray]:
    out = {}
    for label, fit in [*result.fits.items(), *result.change_fits.items()]:
        post = fit.posterior["posterior"].to_dataset()
        out |= {f"{label} {type(fit).__name__} {v}": post[v].to_numpy() for v in post.data_vars}
    return out


def main() -> None:
    from dask.distributed import Client, LocalCluster
    from embias.compare import compare_embeddings

    from embias.report import to_markdown

    warnings.simplefilter("ignore", UserWarning)
    runs = {}
    for name, kwargs in (("one after another", {"max_workers": 1}),
                         ("local process pool (2 workers)", {"max_workers": 2})):
        t0 = time.perf_counter()
        runs[name] = compare_embeddings(REDDIT, "religion", random_seed=SEED, progress=False,
                                        **kwargs)
        print(f"{name}: {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        t1 = time.perf_counter()
        runs["dask"] = compare_embeddings(REDDIT, "religion", random_seed=SEED, progress=False,
                                          executor=client.get_executor())
    print(f"Dask LocalCluster (2 worker processes): {time.perf_counter() - t0:.1f} s "
          f"(cluster start {t1 - t0:.1f} s)")
    first, *others = (_arrays(r) for r in runs.values())
    same = all(first.keys() == o.keys() and all(np.array_equal(first[k], o[k]) for k in first)
               for o in others)
    print(f"identical draws in all three runs: {same} ({len(first)} arrays)")
    result = runs["local process pool (2 workers)"]
    print(to_markdown(result.change_summary(),
                      columns=["estimand", "group", "estimate", "lower", "upper", "ci_prob",
                               "ci_kind", "prob_gt_0", "rope_decision", "p_value"]))
    print(to_markdown(result.diagnostics_overview()))


if __name__ == "__main__":
    main()
