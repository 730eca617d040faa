"""Foundation speed figures: default embeddings load, religion cosine table, WEAT p-value.

Run: .venv/bin/python benchmarks/bench_foundation.py   (prints its figures)
"""

from __future__ import annotations

import subprocess
import sys
import warnings

from timing import best_of


def main() -> None:
    # cold load in a fresh interpreter (import of embias + gensim included, then load alone)
    code = ("import time; t0 = time.perf_counter(); import embias; t1 = time.perf_counter(); "
            "kv = embias.load_embeddings(); t2 = time.perf_counter(); "
            "print(f'{t1 - t0:.3f} {t2 - t1:.3f}')")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(3)]
    imp = min(float(r[0]) for r in runs)
    load = min(float(r[1]) for r in runs)
    print(f"load_embeddings('glove-6b-50d'), fresh process: {load:.3f} s "
          f"(import embias: {imp:.3f} s)   target < 2 s")

    import embias

    kv = embias.load_embeddings()
    warnings.simplefilter("ignore", UserWarning)
    t, table = best_of(lambda: embias.cosine_table(kv, "religion"))
    print(f"cosine_table(glove, 'religion') [{len(table)} rows]: {t * 1e3:.1f} ms")
    t, table = best_of(lambda: embias.cosine_table(kv, "weat3"))
    print(f"cosine_table(glove, 'weat3') [{len(table)} rows]: {t * 1e3:.1f} ms")

    t, r = best_of(lambda: embias.weat_test("weat2", kv, permutations=100_000, random_seed=0),
                   repeat=3)
    print(f"WEAT 25+25 (weat2), 100,000 Monte Carlo permutations: {t:.3f} s "
          f"(p = {r.p_value:.2e} ± {r.p_value_se:.1e})   target well under 1 s")
    t, r = best_of(lambda: embias.weat_test("weat7", kv), repeat=3)
    print(f"WEAT 8+8 (weat7), exact over {r.n_permutations:,} partitions: {t * 1e3:.1f} ms")
    t, r = best_of(lambda: embias.weat_test("weat9", kv, permutations="exact"), repeat=3)
    print(f"WEAT 6+6 (weat9), exact over {r.n_permutations:,} partitions: {t * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
