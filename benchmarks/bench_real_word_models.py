"""Model structures tried on real words: coverage of the population answers per structure.

Run: .venv/bin/python benchmarks/bench_real_word_models.py --candidates NAME [NAME ...]
[--populations NAME ...] [--studies N] [--seed S] [--out-dir DIR] [--elpd]

The same studies as ``benchmarks/bench_calibration.py`` (the shipped population sets,
design 5 protected + 4 attribute words per class + 100 neutral words, GloVe 6B 50d, study
``i`` drawn with seed ``(S, i)``), each fitted with every candidate structure of the
hierarchical family (:class:`embias.bayes.model.LevelStructure`: the crossed level's
compared-word effects, protected classes as strata, a protected-word offset shared by its
connections, the priors) through the batch sampler's compiled programs
(:mod:`embias.bayes.batch_sampling`, batch settings 2 × (500 + 1500), target acceptance
0.9). Prints, per population set and candidate, the share of 89% HDIs of every connection
mean and contrast that cover the population answer, with its binomial Monte Carlo se, the
mean bias and width, the fits that missed r̂ ≤ 1.01 / ESS ≥ 400 / no divergence, and the
mean |coverage − 0.89|. ``--elpd`` adds, per candidate, the compared-word PSIS-LOO elpd of
religion/GloVe 6B 50d and its single-fit time at the default settings (2 × (1000 + 3000)).
``--out-dir DIR`` writes the per-study rows as ``real_word_models_<populations>.csv.gz``
(appending candidates already there).

A candidate is run here before it is a level of the library: its starting values and
first mass matrix come from the crossed level's (:func:`embias.bayes.data.initial_values`,
:func:`~embias.bayes.data.approximate_posterior_sd`), mapped onto its variables.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from embias.bayes.model import LevelStructure

#: The structures tried (see the module notes of :mod:`embias.bayes.model`).
CANDIDATES: dict[str, LevelStructure] = {
    "crossed": LevelStructure(word_effects=True),
    "wide_mean": LevelStructure(word_effects=True, mean_prior_sd=1.0),
    "strata": LevelStructure(word_effects=True, strata=True),
    "offset": LevelStructure(word_effects=True, protected_offset=True),
    "strata+offset": LevelStructure(word_effects=True, strata=True, protected_offset=True),
    "strata+offset+wide_mean": LevelStructure(word_effects=True, strata=True,
                                              protected_offset=True, mean_prior_sd=1.0),
    "strata+wide_mean": LevelStructure(word_effects=True, strata=True, mean_prior_sd=1.0),
    "strata+offset+wide_mean+sd10": LevelStructure(
        word_effects=True, strata=True, protected_offset=True, mean_prior_sd=1.0,
        sd_prior_scale=0.1),
    "corr": LevelStructure(word_effects=True, correlated=True),
    "strata+corr+wide_mean": LevelStructure(word_effects=True, strata=True, correlated=True,
                                            mean_prior_sd=1.0),
    "wide_mean+exp10": LevelStructure(word_effects=True, mean_prior_sd=1.0,
                                      sd_prior_scale=0.1),
    "wide_mean+hn15": LevelStructure(word_effects=True, mean_prior_sd=1.0,
                                     sd_prior="halfnormal", sd_prior_scale=0.15),
    "strata+wide_mean+hn15": LevelStructure(word_effects=True, strata=True, mean_prior_sd=1.0,
                                            sd_prior="halfnormal", sd_prior_scale=0.15),
    "offset+wide_mean": LevelStructure(word_effects=True, protected_offset=True,
                                       mean_prior_sd=1.0),
    "offset+wide_mean+hn15": LevelStructure(word_effects=True, protected_offset=True,
                                            mean_prior_sd=1.0, sd_prior="halfnormal",
                                            sd_prior_scale=0.15),
    "strata+offset+wide_mean+hn15": LevelStructure(
        word_effects=True, strata=True, protected_offset=True, mean_prior_sd=1.0,
        sd_prior="halfnormal", sd_prior_scale=0.15),
    "pair+wide_mean": LevelStructure(word_effects=True, attribute_pair=True,
                                     mean_prior_sd=1.0),
    "strata+pair+wide_mean": LevelStructure(word_effects=True, strata=True,
                                            attribute_pair=True, mean_prior_sd=1.0),
    "offset+pair+wide_mean": LevelStructure(word_effects=True, protected_offset=True,
                                            attribute_pair=True, mean_prior_sd=1.0),
    "strata+offset+pair+wide_mean": LevelStructure(
        word_effects=True, strata=True, protected_offset=True, attribute_pair=True,
        mean_prior_sd=1.0),
    "offset+corr+wide_mean": LevelStructure(word_effects=True, protected_offset=True,
                                            correlated=True, mean_prior_sd=1.0),
    "strata+wide_mean+exp10": LevelStructure(word_effects=True, strata=True,
                                             mean_prior_sd=1.0, sd_prior_scale=0.1),
    "offset+wide_mean+exp10": LevelStructure(word_effects=True, protected_offset=True,
                                             mean_prior_sd=1.0, sd_prior_scale=0.1),
    "strata+offset+wide_mean+exp10": LevelStructure(
        word_effects=True, strata=True, protected_offset=True, mean_prior_sd=1.0,
        sd_prior_scale=0.1),
    "int:wide_mean": LevelStructure(word_effects=True, mean_prior_sd=1.0,
                                    integrate_coefficients=True),
    "int:strata+offset+wide_mean": LevelStructure(
        word_effects=True, strata=True, protected_offset=True, mean_prior_sd=1.0,
        integrate_coefficients=True),
    "int:strata+offset+wide_mean+exp10": LevelStructure(
        word_effects=True, strata=True, protected_offset=True, mean_prior_sd=1.0,
        sd_prior_scale=0.1, integrate_coefficients=True),
    "int:offset+wide_mean+exp10": LevelStructure(
        word_effects=True, protected_offset=True, mean_prior_sd=1.0, sd_prior_scale=0.1,
        integrate_coefficients=True),
    "int:offset+wide_mean": LevelStructure(
        word_effects=True, protected_offset=True, mean_prior_sd=1.0,
        integrate_coefficients=True),
    "int:offset+wide_mean+hn15": LevelStructure(
        word_effects=True, protected_offset=True, mean_prior_sd=1.0, sd_prior="halfnormal",
        sd_prior_scale=0.15, integrate_coefficients=True),
    "strata+corr1+wide_mean": LevelStructure(word_effects=True, strata=True, correlated=True,
                                             correlation_eta=1.0, mean_prior_sd=1.0),
    "int:corr+wide_mean": LevelStructure(word_effects=True, correlated=True,
                                         mean_prior_sd=1.0, integrate_coefficients=True),
    "int:strata+corr+wide_mean": LevelStructure(
        word_effects=True, strata=True, correlated=True, mean_prior_sd=1.0,
        integrate_coefficients=True),
    "int:strata+corr1+wide_mean": LevelStructure(
        word_effects=True, strata=True, correlated=True, correlation_eta=1.0,
        mean_prior_sd=1.0, integrate_coefficients=True),
    "int:strata+corr+wide_mean+hn15": LevelStructure(
        word_effects=True, strata=True, correlated=True, mean_prior_sd=1.0,
        sd_prior="halfnormal", sd_prior_scale=0.15, integrate_coefficients=True),
}

CHAINS, TUNE, DRAWS, TARGET_ACCEPT = 2, 500, 1500, 0.9
CI_PROB = 0.89


def _starts(cells: pd.DataFrame, structure: LevelStructure, centred: tuple[str, ...],
            seed: int, kinds: list[str], chains: int) -> tuple[list[dict], dict]:
    """Starting points per chain and approximate posterior sds of a candidate's variables,
    mapped from the crossed level's."""
    from embias.bayes.data import approximate_posterior_sd, initial_values
    from embias.bayes.model import structure_starting_values

    base = initial_values(cells, level="crossed", centred=centred, chains=chains,
                          random_seed=seed, word_kinds=kinds)
    sds = approximate_posterior_sd(cells, level="crossed", centred=centred)
    return structure_starting_values(cells, structure, base, sds, centred=centred,
                                     random_seed=seed)


def fit_tables(tables: list[pd.DataFrame], structure: LevelStructure, *, seed: int,
               chains: int = CHAINS, tune: int = TUNE, draws: int = DRAWS,
               threads: int = 2) -> list[Any]:
    """The posterior draws (DataTree: posterior, sample_stats) of every table under
    ``structure``, all tables of one shape in one compiled batch program."""
    from concurrent.futures import ThreadPoolExecutor

    import jax.numpy as jnp

    from embias.bayes.batch_nuts import STAT_NAMES, run_lanes
    from embias.bayes.batch_sampling import _compile_shape, _constrain, _tree, lane_seed
    from embias.bayes.data import cell_statistics, choose_centring
    from embias.bayes.model import build_model, summary_model_data

    prepared = []
    for i, table in enumerate(tables):
        cells = cell_statistics(table)
        centred = tuple(choose_centring(cells))
        coords, data = summary_model_data(cells, level="crossed", table=table,
                                          centred=centred, structure=structure)
        starts, sds = _starts(cells, structure, centred, seed + i,
                              list(coords["word_kind"]), chains)
        key = tuple(sorted((k, np.shape(v)) for k, v in data.items()))
        prepared.append((key, cells, centred, coords, data, starts, sds))
    trees: list[Any] = [None] * len(tables)
    by_key: dict[Any, list[int]] = {}
    for i, p in enumerate(prepared):
        by_key.setdefault(p[0], []).append(i)
    for members in by_key.values():
        _, cells, centred, *_ = prepared[members[0]]
        shape = _compile_shape(build_model(cells, level="crossed", table=tables[members[0]],
                                           centred=centred, structure=structure))
        lanes_data = [np.stack([np.asarray(prepared[i][4][name], dtype=dtype)
                                for i in members for _ in range(chains)])
                      for name, dtype in zip(shape.data_names, shape.data_dtypes, strict=True)]
        starts, masses = [], []
        for i in members:
            p = prepared[i]
            per_var, sd_var = [], []
            for name, var_shape, transform in zip(shape.value_names, shape.value_shapes,
                                                  shape.transforms, strict=True):
                log = transform == "LogTransform"
                per_var.append(np.stack([
                    (np.log if log else np.asarray)(np.broadcast_to(
                        np.asarray(s[name], float), var_shape)).ravel() for s in p[5]]))
                sd_var.append(np.broadcast_to(np.asarray(p[6].get(name, 1.0), float),
                                              var_shape).ravel())
            starts.append(np.concatenate(per_var, axis=1))
            masses += [np.concatenate(sd_var) ** 2] * chains
        start = np.concatenate(starts)
        inverse_mass = np.stack(masses)
        seeds = np.array([lane_seed(seed + i, c) for i in members for c in range(chains)],
                         dtype=np.uint64)
        lanes = len(seeds)
        size = -(-lanes // threads)
        size = 8 * -(-size // 8)
        parts = [np.arange(k * size, min(lanes, (k + 1) * size))
                 for k in range(threads) if k * size < lanes]

        def run(index: np.ndarray, shape: Any = shape, lanes_data: list = lanes_data,
                start: np.ndarray = start, inverse_mass: np.ndarray = inverse_mass,
                seeds: np.ndarray = seeds, size: int = size) -> Any:
            padded = np.concatenate([index, np.full(size - len(index), index[-1])])
            return run_lanes(shape.potential, [jnp.asarray(d[padded]) for d in lanes_data],
                             start[padded], inverse_mass[padded], seeds[padded], tune=tune,
                             draws=draws, target_accept=TARGET_ACCEPT)

        with ThreadPoolExecutor(len(parts)) as pool:
            results = list(pool.map(run, parts))
        positions = np.concatenate([r.positions[:len(p)] for r, p in zip(results, parts,
                                                                          strict=True)])
        stats = {n: np.concatenate([r.stats[n][:len(p)] for r, p in zip(results, parts,
                                                                        strict=True)])
                 for n in STAT_NAMES}
        constrained = _constrain(shape, positions, lanes_data)
        for j, i in enumerate(members):
            lane = slice(j * chains, (j + 1) * chains)
            trees[i] = _tree(prepared[i][3], shape, [c[lane] for c in constrained],
                             {n: s[lane] for n, s in stats.items()}, {}, prepared[i][4])
    return trees


def coverage_rows(tree: Any, truths: dict[tuple[str, str], float], *, study: int,
                  candidate: str) -> list[dict[str, Any]]:
    """Connection means and contrasts of one fit against the population answers."""
    import xarray as xr

    from embias.bayes.diagnostics import (
        convergence_diagnostics,
        convergence_problems,
        count_divergences,
    )
    from embias.bayes.summary import contrast_draws, interval_bounds

    post = tree["posterior"].to_dataset()
    checked = post.drop_vars([v for v in ("coef", "coef_correlation", "word_correlation")
                              if v in post])
    diagnostics = convergence_diagnostics(xr.DataTree.from_dict({"posterior": checked}))
    divergences = count_divergences(tree)
    problems = "; ".join(convergence_problems(diagnostics, divergences))
    means = post["connection_mean"]
    parts = {("connection_mean", str(c)): means.sel(connection=c).values.ravel()
             for c in means["connection"].values}
    contrast = contrast_draws(means)
    for c in contrast["contrast"].values:
        parts["contrast", str(c)] = contrast.sel(contrast=c).values.ravel()
    rows = []
    for key, draws in parts.items():
        lower, upper = interval_bounds(draws[None, :], CI_PROB, "hdi")
        truth = truths[key]
        rows.append({"candidate": candidate, "study": study, "estimand": key[0],
                     "group": key[1], "estimate": float(draws.mean()),
                     "lower": float(lower[0]), "upper": float(upper[0]), "truth": truth,
                     "covered": bool(lower[0] <= truth <= upper[0]),
                     "width": float(upper[0] - lower[0]), "divergences": divergences,
                     "problems": problems})
    return rows


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (candidate, group), r in rows.groupby(["candidate", "group"], sort=False):
        p = float(r["covered"].mean())
        n = len(r)
        out.append({"candidate": candidate, "quantity": group, "coverage": p,
                    "mc_se": float(np.sqrt(p * (1 - p) / n)),
                    "bias": float((r["estimate"] - r["truth"]).mean()),
                    "sd_estimate": float(r["estimate"].std()),
                    "mean_width": float(r["width"].mean()), "n": n,
                    "failed": int((r["problems"].fillna("") != "").sum())})
    return pd.DataFrame(out)


def elpd_and_time(structure: LevelStructure, *, seed: int = 1) -> tuple[float, float, float]:
    """Compared-word PSIS-LOO elpd (and its se) of religion/GloVe 6B 50d under
    ``structure``, and the wall seconds of its single fit at the default settings (2 ×
    (1000 + 3000), this module's batch program with one table, compile included)."""
    import warnings

    import arviz as az
    import xarray as xr

    from embias.bayes.crossed import crossed_design, draw_word_effects
    from embias.bayes.data import cell_statistics
    from embias.bayes.loo import word_log_likelihood
    from embias.tables import study_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        table = study_table("religion", "glove-6b-50d")
    start = time.perf_counter()
    [tree] = fit_tables([table], structure, seed=seed, tune=1000, draws=3000, threads=1)
    seconds = time.perf_counter() - start
    cells = cell_statistics(table)
    design = crossed_design(table, cells)
    u = draw_word_effects(tree, table, cells, design, random_seed=seed)
    post = tree["posterior"].to_dataset()
    post["word_effect"] = xr.DataArray(u, dims=("chain", "draw", "word_to_compare"),
                                       coords={"chain": post["chain"], "draw": post["draw"],
                                               "word_to_compare": design.words})
    tree = xr.DataTree.from_dict({"posterior": post,
                                  "log_likelihood": word_log_likelihood(
                                      xr.DataTree.from_dict({"posterior": post}), table,
                                      cells)})
    loo = az.loo(tree)
    return float(loo["elpd"]), float(loo["se"]), seconds


def _append(path: Path, frame: pd.DataFrame) -> None:
    """Write ``frame``'s rows to ``path``, replacing the rows of its candidates there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        old = pd.read_csv(path)
        old = old[~old["candidate"].isin(frame["candidate"].unique())]
        frame = pd.concat([old, frame], ignore_index=True)
    frame.to_csv(path, index=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES),
                    choices=list(CANDIDATES))
    ap.add_argument("--populations", nargs="+", default=["sentiment", "names"])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--design", default="protected=5,attributes=4,neutral=100")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--out-dir", default=None, metavar="DIR")
    ap.add_argument("--elpd", action="store_true")
    args = ap.parse_args()

    import embias
    from embias.bayes import derived_seed
    from embias.calibration import draw_population_studies, population_answers

    kv = embias.load_embeddings("glove-6b-50d")
    for name in args.populations:
        truths_frame = population_answers(name, kv, design=args.design)
        truths = {(r.estimand, r.group): float(r.truth) for r in truths_frame.itertuples()}
        studies = draw_population_studies(name, design=args.design, n_studies=args.studies,
                                          random_seed=args.seed)
        tables = [embias.cosine_table(kv, s, missing="raise", embedding_name="glove-6b-50d")
                  for s in studies]
        all_rows = []
        for candidate in args.candidates:
            start = time.perf_counter()
            rows = []
            for block in range(0, len(tables), args.block):
                part = tables[block:block + args.block]
                seed = derived_seed(args.seed, name, candidate, str(block)) % 2**31
                trees = fit_tables(part, CANDIDATES[candidate], seed=seed)
                for k, tree in enumerate(trees):
                    rows += coverage_rows(tree, truths, study=block + k, candidate=candidate)
            frame = pd.DataFrame(rows)
            all_rows.append(frame)
            if args.out_dir:  # after every candidate: a stopped run keeps what it did
                _append(Path(args.out_dir) / f"real_word_models_{name}.csv.gz", frame)
            wall = time.perf_counter() - start
            summary = summarize(frame)
            dev = (summary["coverage"] - CI_PROB).abs().mean()
            print(f"\n{name} / {candidate}: {args.studies} studies, {wall:.0f} s, "
                  f"mean |coverage − {CI_PROB}| = {dev:.3f}")
            print(embias.to_markdown(summary.round(4)))
    if args.elpd:
        for candidate in args.candidates:
            elpd, se, seconds = elpd_and_time(CANDIDATES[candidate])
            print(f"religion/GloVe {candidate}: word-LOO elpd {elpd:.1f} (se {se:.1f}), "
                  f"single fit {seconds:.1f} s")


if __name__ == "__main__":
    main()
