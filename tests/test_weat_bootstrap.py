"""WEAT's two-way item bootstrap: exact enumeration of a tiny test,
seeding, the zero-spread rule, bad input, the coverage simulation and the CLI."""

from __future__ import annotations

import itertools
import math
import statistics
import warnings

import numpy as np
import pytest

import embias
from embias.classic import DEFAULT_N_BOOT, WeatBootstrap, weat_item_bootstrap
from embias.simulate import simulate_weat_bootstrap_coverage, vector_model_effect_size

# 2 + 2 targets, 2 + 2 attributes in the plane. x1 = (1, 1) and y1 = −x1 are equally close
# to a1 = (1, 0) and b1 = (0, 1), so the resample X* = {x1, x1}, Y* = {y1, y1},
# A* = {a1, a1}, B* = {b1, b1} has s = 0 for every word: zero spread, no effect size.
# No other resample ties (a2, b2, x2, y2 are generic).
TINY = {"a1": [1, 0], "a2": [2, 1], "b1": [0, 1], "b2": [1, 3],
        "x1": [1, 1], "x2": [3, 1], "y1": [-1, -1], "y2": [1, 4]}
SETS = (["x1", "x2"], ["y1", "y2"], ["a1", "a2"], ["b1", "b2"])


def _cos(u: list[float], v: list[float]) -> float:
    return sum(a * b for a, b in zip(u, v, strict=True)) / (math.hypot(*u) * math.hypot(*v))


def plain_effect(vectors, xs, ys, a_s, b_s, ddof=1):
    """WEAT effect size by plain loops (independent of embias); None for zero spread."""
    s = [statistics.fmean(_cos(vectors[w], vectors[a]) for a in a_s)
         - statistics.fmean(_cos(vectors[w], vectors[b]) for b in b_s) for w in (*xs, *ys)]
    sd = statistics.stdev(s) if ddof == 1 else statistics.pstdev(s)
    if sd < 1e-12:
        return None
    return (statistics.fmean(s[:len(xs)]) - statistics.fmean(s[len(xs):])) / sd


def enumerate_bootstrap(vectors, X, Y, A, B, ddof=1):
    """Every equally likely ordered resample of the four lists: the effect sizes of the
    defined ones and the number with zero spread."""
    effects, degenerate = [], 0
    for xs in itertools.product(X, repeat=len(X)):
        for ys in itertools.product(Y, repeat=len(Y)):
            for a_s in itertools.product(A, repeat=len(A)):
                for b_s in itertools.product(B, repeat=len(B)):
                    d = plain_effect(vectors, xs, ys, a_s, b_s, ddof)
                    if d is None:
                        degenerate += 1
                    else:
                        effects.append(d)
    return np.array(effects), degenerate


def exact_quantile(atoms: np.ndarray, probs: np.ndarray, q: float) -> float:
    """Smallest atom v with P(d ≤ v) ≥ q (atoms sorted)."""
    cdf = np.cumsum(probs)
    return float(atoms[np.searchsorted(cdf, q - 1e-12)])


@pytest.fixture(scope="module")
def tiny_exact():
    effects, degenerate = enumerate_bootstrap(TINY, *SETS)
    atoms, counts = np.unique(np.round(effects, 9), return_counts=True)
    return atoms, counts / counts.sum(), degenerate, effects.size + degenerate


def test_tiny_bootstrap_equals_the_enumerated_distribution(make_kv, tiny_exact):
    atoms, probs, degenerate, total = tiny_exact
    assert total == 4 ** 4  # 4 ordered resamples of each 2-word list
    assert degenerate == 1  # only the resample described above TINY
    # hand check: X* = {x1, x1}, Y* = {y1, y1} with s(y1) = −s(x1) = −u gives s = u, u, −u,
    # −u, mean difference 2u, sd 2u/√3: d = √3 (the ceiling for 2 + 2 words); it happens
    # for the 15 attribute resamples other than the degenerate one
    k = np.flatnonzero(np.isclose(atoms, math.sqrt(3), atol=1e-9))
    assert k.size == 1 and probs[k[0]] >= 15 / 255 - 1e-12
    kv = make_kv(TINY, dtype=np.float64)
    n_boot = 200_000
    r = embias.weat(kv, *SETS, n_boot=n_boot, random_seed=0)
    assert r.effect_size == pytest.approx(plain_effect(TINY, *SETS), abs=1e-12)
    boot = r.bootstrap
    assert isinstance(boot, WeatBootstrap) and boot.n_boot == n_boot
    assert np.isfinite(boot.effect_sizes).all()  # no NaN: the tie was redrawn
    # every replicate is one of the enumerated values …
    nearest = np.clip(np.searchsorted(atoms, boot.effect_sizes), 1, atoms.size - 1)
    gap = np.minimum(np.abs(boot.effect_sizes - atoms[nearest - 1]),
                     np.abs(boot.effect_sizes - atoms[nearest]))
    assert gap.max() < 1e-8
    # … with the enumerated probability (conditional on a defined effect size), each
    # frequency within 4.5 binomial standard errors
    index = np.where(np.abs(boot.effect_sizes - atoms[nearest - 1])
                     <= np.abs(boot.effect_sizes - atoms[nearest]), nearest - 1, nearest)
    freq = np.bincount(index, minlength=atoms.size) / n_boot
    assert np.all(np.abs(freq - probs) <= 4.5 * np.sqrt(probs * (1 - probs) / n_boot) + 1e-12)
    # the zero-spread draws: 1 in 256, redrawn; redraws per kept replicate ~ p/(1 − p)
    p = degenerate / total
    expected, sd = n_boot * p / (1 - p), math.sqrt(n_boot * p) / (1 - p)
    assert abs(boot.n_redrawn - expected) <= 4.5 * sd
    # the percentile interval lies between the exact quantiles at q ∓ 4.5 Monte Carlo se
    for ci_prob in (0.89, 0.5):
        lo, hi = r.interval(ci_prob)
        for q, end in (((1 - ci_prob) / 2, lo), ((1 + ci_prob) / 2, hi)):
            eps = 4.5 * math.sqrt(q * (1 - q) / n_boot)
            assert (exact_quantile(atoms, probs, q - eps) - 1e-9 <= end
                    <= exact_quantile(atoms, probs, q + eps) + 1e-9), (ci_prob, q)
    row = r.to_interval_table().iloc[0]
    assert (row.lower, row.upper, row.ci_prob) == (*r.interval(0.89), 0.89)
    assert row.n_boot == n_boot and row.boot_redrawn == boot.n_redrawn


def test_tiny_bootstrap_with_ddof_0_and_targets_only(make_kv):
    """The same enumeration with the population sd, and with the attribute lists fixed."""
    effects, degenerate = enumerate_bootstrap(TINY, *SETS, ddof=0)
    assert degenerate == 1
    kv = make_kv(TINY, dtype=np.float64)
    r = embias.weat(kv, *SETS, ddof=0, n_boot=100_000, random_seed=1)
    np.testing.assert_allclose(np.sort(np.unique(np.round(r.bootstrap.effect_sizes, 9))),
                               np.unique(np.round(effects, 9)), atol=1e-8)
    # targets only: the attribute lists stay as they are, 4 × 4 = 16 target resamples
    fixed = [plain_effect(TINY, xs, ys, SETS[2], SETS[3])
             for xs in itertools.product(SETS[0], repeat=2)
             for ys in itertools.product(SETS[1], repeat=2)]
    assert len(fixed) == 16 and None not in fixed
    unit = {w: np.array(v, float) / np.linalg.norm(v) for w, v in TINY.items()}
    targets = np.array([unit[w] for w in (*SETS[0], *SETS[1])])
    sim_a = targets @ np.array([unit[w] for w in SETS[2]]).T
    sim_b = targets @ np.array([unit[w] for w in SETS[3]]).T
    boot = weat_item_bootstrap(sim_a, sim_b, 2, n_boot=20_000, resample="targets",
                               random_seed=2)
    assert boot.resample == "targets" and boot.n_redrawn == 0
    np.testing.assert_allclose(np.unique(np.round(boot.effect_sizes, 9)),
                               np.unique(np.round(fixed, 9)), atol=1e-8)


def test_bootstrap_is_seeded_and_leaves_the_permutation_test_alone(glove):
    a = embias.weat_test("weat9", glove, permutations=500, n_boot=3000, random_seed=7)
    b = embias.weat_test("weat9", glove, permutations=500, n_boot=3000,
                         random_seed=np.random.default_rng(7))
    np.testing.assert_array_equal(a.bootstrap.effect_sizes, b.bootstrap.effect_sizes)
    assert a.bootstrap.random_seed == 7 and a.random_seed == 7
    # the bootstrap draws from its own stream: it does not depend on `permutations`
    exact = embias.weat_test("weat9", glove, permutations="exact", n_boot=3000, random_seed=7)
    np.testing.assert_array_equal(exact.bootstrap.effect_sizes, a.bootstrap.effect_sizes)
    assert exact.random_seed == 7  # recorded now that the bootstrap draws from it
    other = embias.weat_test("weat9", glove, permutations=500, n_boot=3000, random_seed=8)
    assert not np.array_equal(other.bootstrap.effect_sizes, a.bootstrap.effect_sizes)
    fresh = embias.weat_test("weat9", glove, n_boot=3000, random_seed=None)
    again = embias.weat_test("weat9", glove, n_boot=3000, random_seed=fresh.random_seed)
    assert again.interval() == fresh.interval()  # the recorded seed repeats the run
    # the observed effect size is the bootstrap's identity resample
    assert a.bootstrap.effect_sizes.min() <= a.effect_size <= a.bootstrap.effect_sizes.max()


def test_crossed_interval_is_wider_than_targets_only_on_glove(glove):
    """weat7 (8 + 8 targets, 8 + 8 attributes): resampling the attribute lists too more
    than doubles the bootstrap sd of d (0.62 vs 0.13)."""
    X, Y, A, B = embias.load_study("weat7").weat_sets()
    unit = {k: glove[[w.lower() for w in ws]] for k, ws in zip("XYAB", (X, Y, A, B),
                                                                strict=True)}
    unit = {k: v / np.linalg.norm(v, axis=1, keepdims=True) for k, v in unit.items()}
    targets = np.vstack([unit["X"], unit["Y"]])
    sims = targets @ unit["A"].T, targets @ unit["B"].T
    crossed = weat_item_bootstrap(*sims, 8, n_boot=5000, random_seed=0)
    naive = weat_item_bootstrap(*sims, 8, n_boot=5000, resample="targets", random_seed=0)
    assert crossed.effect_sizes.std() > 2 * naive.effect_sizes.std()
    r = embias.weat_test("weat7", glove, n_boot=5000, random_seed=0)
    assert r.bootstrap.effect_sizes.std() == pytest.approx(crossed.effect_sizes.std(),
                                                           rel=0.05)


def test_zero_spread_everywhere_is_refused_by_name():
    # every target word has the same s value under every resample: no effect size ever
    sim_a, sim_b = np.full((4, 3), 0.5), np.full((4, 2), 0.25)
    with pytest.raises(ValueError) as info:
        weat_item_bootstrap(sim_a, sim_b, 2, n_boot=100, random_seed=0)
    assert str(info.value) == (
        "2,000 of 2,000 bootstrap resamples gave s values with zero spread (no effect "
        "size): the words' s values are too often tied for an item bootstrap")


def test_bad_input_names_the_value(make_kv, glove):
    kv = make_kv(TINY, dtype=np.float64)
    with pytest.raises(ValueError) as info:
        embias.weat(kv, *SETS, n_boot=0)
    assert str(info.value) == "n_boot must be an integer ≥ 1, got 0"
    with pytest.raises(ValueError, match=r"n_boot must be an integer ≥ 1, got 1.5"):
        weat_item_bootstrap(np.eye(4), np.eye(4), 2, n_boot=1.5)
    r = embias.weat(kv, *SETS, n_boot=10, random_seed=0)
    for bad in (0, 1, 1.5, -0.1, 89):
        with pytest.raises(ValueError) as info:
            r.to_interval_table(ci_prob=bad)
        assert str(info.value) == f"ci_prob must be in (0, 1), got {bad!r}"
        with pytest.raises(ValueError, match=rf"ci_prob must be in \(0, 1\), got {bad!r}"):
            r.interval(bad)
    with pytest.raises(ValueError, match=r"ci_prob must be in \(0, 1\), got 1.5"):
        embias.weat_overview(glove, ci_prob=1.5)
    with pytest.raises(ValueError, match=r"ci_prob must be in \(0, 1\), got 0"):
        embias.weat_pairs(glove, "religion", ci_prob=0)
    with pytest.raises(ValueError) as info:
        weat_item_bootstrap(np.eye(4), np.eye(4), 2, resample="attributes")
    assert str(info.value) == ("resample='attributes' is not one of "
                               "['targets and attributes', 'targets']")
    with pytest.raises(ValueError, match=r"shapes \(4, 4\) and \(3, 4\)"):
        weat_item_bootstrap(np.eye(4), np.eye(4)[:3], 2)
    with pytest.raises(ValueError, match=r"number of Y words .* must be an integer ≥ 2, got 1"):
        weat_item_bootstrap(np.eye(4)[:3], np.eye(4)[:3], 2)
    with pytest.raises(ValueError, match=r"must be finite"):
        weat_item_bootstrap(np.full((4, 2), np.nan), np.eye(4), 2)
    with pytest.raises(ValueError, match=r"n_sims must be an integer ≥ 1, got 0"):
        simulate_weat_bootstrap_coverage(((8, 8),), n_sims=0)
    with pytest.raises(ValueError, match=r"attribute_separation must be a positive"):
        simulate_weat_bootstrap_coverage(((8, 8),), attribute_separation=0)
    with pytest.raises(ValueError, match=r"each design must be a .* pair, got 8"):
        simulate_weat_bootstrap_coverage((8,))
    with pytest.raises(ValueError, match=r"target words per group must be an integer ≥ 2"):
        simulate_weat_bootstrap_coverage(((1, 8),))


# --------------------------------------------------------------------------- coverage
def test_population_effect_size_of_the_vector_model():
    """The four-scalar reduction against one big study drawn in full (40,000 words per
    list; WEAT's s(w) is ŵ · (mean â_A − mean â_B), so no 40,000² matrix is needed). The
    big study's d has sd ≈ √(2/40,000 · (1 + δ²/8)) ≈ 0.008: tolerance 0.035."""
    delta, se = vector_model_effect_size(random_seed=0)
    assert se < 1e-3 and delta == pytest.approx(1.2009, abs=4 * se)
    assert vector_model_effect_size(association=0.0) == (0.0, 0.0)  # antithetic draws
    rng = np.random.default_rng(5)
    n, dim = 40_000, 50

    def words(mean):
        v = rng.standard_normal((n, dim))
        v[:, :3] += mean
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    m = words([3, 3, 0]).mean(axis=0) - words([3, -3, 0]).mean(axis=0)
    big = embias.weat_effect_size(words([3, 0.75, 3]) @ m, words([3, -0.75, -3]) @ m)
    assert big == pytest.approx(delta, abs=0.035)


def test_pinned_coverage_simulation():
    """400 simulated 8 + 8 × 8 + 8 studies (seed 0, 500 replicates each), pinned. The
    crossed 89% interval covers the population effect size within Monte Carlo error of
    0.89 and of the benchmark's 1,000-study figure (0.895 ± 0.010,
    benchmarks/bench_weat_bootstrap.py); the targets-only interval undercovers."""
    table = simulate_weat_bootstrap_coverage(((8, 8),), n_sims=400, n_boot=500,
                                             random_seed=0).set_index("resample")
    crossed, naive = table.loc["targets and attributes"], table.loc["targets"]
    assert crossed.effect_size == pytest.approx(1.2009, abs=1e-3)
    assert (crossed.coverage, naive.coverage) == (PINNED_CROSSED, PINNED_NAIVE)
    assert crossed.coverage_se == pytest.approx(math.sqrt(
        crossed.coverage * (1 - crossed.coverage) / 400))
    assert abs(crossed.coverage - 0.89) <= 3 * crossed.coverage_se
    assert abs(crossed.coverage - BENCH_CROSSED_8x8) <= 3 * math.hypot(crossed.coverage_se,
                                                                       0.010)
    # the naive interval: narrower, and it misses the population value far more often
    assert naive.mean_width < 0.8 * crossed.mean_width
    assert naive.coverage < crossed.coverage - 3 * math.hypot(naive.coverage_se,
                                                              crossed.coverage_se)
    assert crossed.below + crossed.above + crossed.coverage == pytest.approx(1)


PINNED_CROSSED, PINNED_NAIVE = 0.865, 0.6925  # 346 and 277 of 400 studies
BENCH_CROSSED_8x8 = 0.895


# --------------------------------------------------------------------------- CLI
def test_cli_weat_shows_the_interval_next_to_the_p_value(capsys):
    from embias.cli import build_parser, main
    from embias.cli.tables import DEFAULT_N_BOOT as CLI_DEFAULT_N_BOOT
    from embias.cli.tables import WEAT_CI_PROB
    from embias.settings import DEFAULT_CI_PROB

    assert CLI_DEFAULT_N_BOOT == DEFAULT_N_BOOT and WEAT_CI_PROB == DEFAULT_CI_PROB
    assert build_parser().parse_args(["weat", "weat1"]).n_boot == DEFAULT_N_BOOT
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["weat", "weat1", "--n-boot", "0"])
    assert info.value.code == 2
    assert "argument --n-boot: n_boot must be an integer ≥ 1, got 0" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert main(["weat", "all", "--permutations", "200", "--n-boot", "500"]) == 0
    out = capsys.readouterr().out
    assert "lower/upper = 89% item-bootstrap interval" in out
    header = next(line for line in out.splitlines() if line.startswith("| test"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[:6] == ["test", "effect_size", "lower", "upper", "ci_prob", "p_value"]
    line = next(x for x in out.splitlines() if x.startswith("| weat6 "))
    cells = dict(zip(cols, (c.strip() for c in line.strip("|").split("|")), strict=True))
    # the command draws a fresh seed and prints it: passing it back repeats the interval
    seed = int(next(x for x in out.splitlines() if x.startswith("seed "))[len("seed "):])
    assert int(cells["random_seed"]) == seed
    glove = embias.load_embeddings()
    r = embias.weat_test("weat6", glove, permutations=200, n_boot=500, random_seed=seed)
    lo, hi = r.interval(0.89)
    assert (cells["lower"], cells["upper"]) == (f"{lo:.3f}", f"{hi:.3f}")
