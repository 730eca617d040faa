"""WEAT and MAC against hand computations, brute force, and the published figures."""

from __future__ import annotations

import dataclasses
import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import embias
from embias.classic import partition_sums


@pytest.fixture
def toy(make_kv):
    # a=(1,0), b=(0,1); s(w) = cos(w,a) − cos(w,b) is hand-computable
    return make_kv({"a": [1, 0], "b": [0, 1], "x1": [1, 0], "x2": [1, 1], "y1": [0, 1],
                    "y2": [1, 2]}, dtype=np.float64)


def test_weat_hand_computed_2x2(toy):
    r = embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"])
    # s(x1) = 1 − 0 = 1; s(x2) = 1/√2 − 1/√2 = 0; s(y1) = 0 − 1 = −1; s(y2) = (1 − 2)/√5
    s = [1.0, 0.0, -1.0, -1 / math.sqrt(5)]
    np.testing.assert_allclose(r.s_values["s"], s, atol=1e-12)
    mean_x, mean_y = 0.5, (-1 - 1 / math.sqrt(5)) / 2
    m = sum(s) / 4
    sd = math.sqrt(sum((v - m) ** 2 for v in s) / 3)
    assert r.effect_size == pytest.approx((mean_x - mean_y) / sd, abs=1e-12)
    assert r.effect_size == pytest.approx(1.44538, abs=1e-5)
    assert r.statistic == pytest.approx(1 - (-1 - 1 / math.sqrt(5)), abs=1e-12)
    # 6 partitions of 4 words into 2+2; X={x1,x2} is the most extreme one and its mirror
    # Y={...} the most extreme the other way: two-sided p = 2/6, one-sided p = 1/6
    assert r.exact and r.n_permutations == 6
    assert r.p_value == pytest.approx(2 / 6)
    one = embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"], alternative="greater")
    assert one.p_value == pytest.approx(1 / 6)
    r0 = embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"], ddof=0)
    assert r0.effect_size == pytest.approx(r.effect_size / math.sqrt(3 / 4), abs=1e-12)


def brute_force_p(s, n_x, alternative):
    """Exact permutation p-value by explicit enumeration (independent of embias)."""
    s = list(s)
    total = sum(s)
    obs = sum(s[:n_x]) - (total - sum(s[:n_x]))
    center = (2 * n_x - len(s)) * total / len(s)
    hits = count = 0
    for idx in itertools.combinations(range(len(s)), n_x):
        part = sum(s[i] for i in idx)
        stat = part - (total - part)
        count += 1
        if alternative == "greater":
            hits += stat >= obs - 1e-12
        elif alternative == "less":
            hits += stat <= obs + 1e-12
        else:
            hits += abs(stat - center) >= abs(obs - center) - 1e-12
    return hits / count


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_p_equals_brute_force_on_glove(glove, alternative):
    r = embias.weat_test("weat7", glove, alternative=alternative)
    assert r.exact and r.n_permutations == math.comb(16, 8) == 12_870
    expected = brute_force_p(r.s_values["s"].to_numpy(), 8, alternative)
    assert r.p_value == pytest.approx(expected, abs=1e-15)


def test_unequal_sizes_exact_p_brute_force(glove):
    with pytest.warns(UserWarning, match="gladiola"):
        r = embias.weat(glove, ["aster", "clover", "hyacinth", "marigold", "poppy", "azalea",
                                "crocus", "gladiola", "iris"],
                        ["ant", "flea", "spider", "gnat", "moth", "wasp"],
                        embias.load_study("weat1").attributes["pleasant"],
                        embias.load_study("weat1").attributes["unpleasant"])
    n_x = int((r.s_values.target == "X").sum())
    assert n_x == 8  # gladiola is not in GloVe 6B
    assert r.p_value == pytest.approx(brute_force_p(r.s_values["s"], n_x, "two-sided"))


def test_monte_carlo_p_within_its_standard_error_of_exact(glove):
    exact = embias.weat_test("weat9", glove)  # C(12, 6) = 924 partitions, p ≈ 0.045
    mc = embias.weat_test("weat9", glove, permutations=20_000, random_seed=1)
    assert exact.exact and not mc.exact and mc.n_permutations == 20_000
    assert mc.random_seed == 1
    assert abs(mc.p_value - exact.p_value) <= 3 * mc.p_value_se  # 3 MC standard errors
    again = embias.weat_test("weat9", glove, permutations=20_000, random_seed=1)
    assert again.p_value == mc.p_value  # seeded: repeatable


def test_monte_carlo_draws_partitions_without_replacement():
    # s = powers of two: every subset has a distinct sum, so each sampled sum decodes to
    # the exact set of words drawn; all must be sets of exactly n_x distinct words
    s = 2.0 ** np.arange(20)
    sums, exact = partition_sums(s, 10, 5000, np.random.default_rng(3))
    assert not exact
    bits = np.array([[(int(v) >> k) & 1 for k in range(20)] for v in sums])
    assert (bits.sum(axis=1) == 10).all()
    # and every word is drawn about half the time (binomial sd of the mean ≈ 0.007)
    np.testing.assert_allclose(bits.mean(axis=0), 0.5, atol=0.03)


def test_sign_flips_when_x_and_y_swap_and_scale_invariance(glove, make_kv):
    X, Y, A, B = embias.load_study("weat8").weat_sets()
    r = embias.weat(glove, X, Y, A, B)
    swapped = embias.weat(glove, Y, X, A, B)
    assert swapped.effect_size == pytest.approx(-r.effect_size, abs=1e-12)
    assert swapped.p_value == pytest.approx(r.p_value, abs=1e-12)
    rng = np.random.default_rng(0)
    words = [w.lower() for w in (*X, *Y, *A, *B)]
    scaled = make_kv({w: (glove[w] * rng.uniform(0.1, 10)).tolist() for w in words})
    r2 = embias.weat(scaled, X, Y, A, B)
    assert r2.effect_size == pytest.approx(r.effect_size, abs=1e-5)
    assert r2.p_value == pytest.approx(r.p_value, abs=1e-9)


def test_effect_sizes_match_an_independent_loop_over_gensim(glove):
    """All ten tests: embias's vectorised WEAT vs a plain loop over KeyedVectors.similarity."""
    for i in range(1, 11):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            r = embias.weat_test(f"weat{i}", glove, permutations=10, random_seed=0)
        X, Y, A, B = ([w.lower() for w in ws if w.lower() in glove.key_to_index]
                      for ws in embias.load_study(f"weat{i}").weat_sets())

        def s(w, A=A, B=B):
            return (np.mean([glove.similarity(w, a) for a in A])
                    - np.mean([glove.similarity(w, b) for b in B]))

        sx, sy = [s(w) for w in X], [s(w) for w in Y]
        d = (np.mean(sx) - np.mean(sy)) / np.std(sx + sy, ddof=1)
        assert r.effect_size == pytest.approx(d, abs=1e-5), f"weat{i}"


def test_weat_glove_figures_for_the_readme(glove):
    # GloVe 6B 50d effect sizes (ddof=1), as printed by `embias weat all` and the README;
    # cross-checked against the independent loop above
    expected = [1.080, 1.544, 0.960, 0.947, 0.995, 1.708, 1.495, 1.485, 1.137, 0.990]
    for i, e in enumerate(expected, start=1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            r = embias.weat_test(f"weat{i}", glove, permutations=10, random_seed=0)
        assert r.effect_size == pytest.approx(e, abs=5e-4)


def test_weat_validation(toy, make_kv):
    with pytest.raises(ValueError, match=r"permutations must be 'auto', 'exact' or a positive"):
        embias.weat(toy, ["x1"], ["y1"], ["a"], ["b"], permutations=0)
    with pytest.raises(ValueError, match=r"alternative='bigger' is not one of"):
        embias.weat(toy, ["x1"], ["y1"], ["a"], ["b"], alternative="bigger")
    # every target on the diagonal: s = cos(w, a) − cos(w, b) = 0 for all four words
    flat = make_kv({"a": [1, 0], "b": [0, 1], "p": [1, 1], "q": [2, 2], "r": [3, 3],
                    "t": [-1, -1]}, dtype=np.float64)
    with pytest.raises(ValueError, match=r"zero spread"):
        embias.weat(flat, ["p", "q"], ["r", "t"], ["a"], ["b"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n_x=st.integers(2, 5), n_y=st.integers(2, 5),
       dim=st.integers(2, 5))
def test_property_weat_on_random_embeddings(make_kv, seed, n_x, n_y, dim):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_x + n_y + 4)]
    kv = make_kv({w: rng.normal(size=dim).tolist() for w in words}, dtype=np.float64)
    X, Y, A, B = words[:n_x], words[n_x:n_x + n_y], words[-4:-2], words[-2:]
    r = embias.weat(kv, X, Y, A, B)
    assert r.exact and r.n_permutations == math.comb(n_x + n_y, n_x)
    assert 0 < r.p_value <= 1
    assert r.p_value == pytest.approx(brute_force_p(r.s_values["s"], n_x, "two-sided"))
    assert embias.weat(kv, Y, X, A, B).effect_size == pytest.approx(-r.effect_size)
    # swapping A and B also flips the sign
    assert embias.weat(kv, X, Y, B, A).effect_size == pytest.approx(-r.effect_size)
    # |d| with ddof=1 is bounded: for n words, |mean_X − mean_Y|/sd ≤ sqrt((n-1)(1/n_x+1/n_y))
    n = n_x + n_y
    assert abs(r.effect_size) <= math.sqrt((n - 1) * (1 / n_x + 1 / n_y)) + 1e-9


# --------------------------------------------------------------------------- MAC
def hand_mac(table):
    """MAC by explicit loops: mean over words t and attribute classes j of mean distance."""
    rows = table[table.connection.isin(["associated", "different"])]
    values = []
    for t in dict.fromkeys(rows.protected_word):
        for j in dict.fromkeys(rows.word_class):
            d = rows[(rows.protected_word == t) & (rows.word_class == j)].cosine_distance
            if len(d):
                values.append(sum(d) / len(d))
    return sum(values) / len(values), len(values)


def test_mac_on_the_authors_religion_reddit_table():
    table = embias.load_published_table("religion", "reddit")
    result = embias.mac(table)
    expected, n = hand_mac(table)
    assert n == 45  # 15 protected words × 3 attribute classes
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.value == pytest.approx(0.8614, abs=1e-4)
    # Manzini et al. reported 0.859 for the same (biased Reddit) embedding
    assert abs(result.value - 0.859) < 0.005
    debiased = embias.mac(embias.load_published_table("religion", "reddit-debiased"))
    assert debiased.value == pytest.approx(hand_mac(
        embias.load_published_table("religion", "reddit-debiased"))[0], abs=1e-12)
    assert abs(debiased.value - 0.934) < 0.005  # Manzini: hard-debiased 0.934
    test = embias.mac_ttest(result, debiased)
    d = (result.s_values.set_index(["protected_word", "word_class"]).S
         - debiased.s_values.set_index(["protected_word", "word_class"]).S)
    t_hand = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
    assert test.statistic == pytest.approx(t_hand, rel=1e-10)
    assert test.pvalue < 1e-4


def test_mac_from_embeddings_equals_mac_from_table(glove):
    with pytest.warns(UserWarning):
        table = embias.cosine_table(glove, "religion")
    from_table = embias.mac(table)
    from_kv = embias.mac(glove, "religion")
    assert from_kv.value == pytest.approx(from_table.value, abs=1e-12)
    assert from_kv.value == pytest.approx(hand_mac(table)[0], abs=1e-12)
    by = from_kv.by_class.set_index(["protected_class", "word_class"]).S
    manual = table[(table.protected_class == "jewish")
                   & (table.word_class == "jewish_stereotype")].cosine_distance.mean()
    assert by[("jewish", "jewish_stereotype")] == pytest.approx(manual)


def test_mac_interval_table_and_errors(glove):
    r = embias.mac(embias.load_published_table("religion", "reddit"))
    t = r.to_interval_table(ci_prob=0.95).set_index("group")
    assert t.loc["all", "estimate"] == pytest.approx(r.value)
    assert t.loc["all", "ci_kind"] == "t" and t.loc["all", "n_S"] == 45
    s = r.s_values.S
    half = 2.015368 * s.std(ddof=1) / math.sqrt(45)  # t(0.975, 44) = 2.015368
    assert t.loc["all", "upper"] - t.loc["all", "estimate"] == pytest.approx(half, rel=1e-5)
    with pytest.raises(ValueError, match=r"mac\(\) on embeddings needs a study"):
        embias.mac(glove)
    controls_only = embias.load_published_table("religion", "reddit").query("connection == 'none'")
    with pytest.raises(ValueError, match=r"needs 'associated'/'different' rows"):
        embias.mac(controls_only)


def test_weat_refuses_fewer_than_two_words_per_target_set(toy):
    why = ("WEAT compares two samples of target words, and one word is no sample: with one "
           "word in each set the effect size is always ±√2 — the sample sd of two values is "
           "|difference|/√2 — whatever the embeddings")
    # one word listed: refused by the word-list check, before any lookup
    with pytest.raises(ValueError) as info:
        embias.weat(toy, ["x1"], ["y1", "y2"], ["a"], ["b"])
    assert str(info.value) == f"X has 1 word; it needs at least 2 ({why})"
    with pytest.raises(ValueError) as info:
        embias.weat(toy, ["x1", "x2"], ["y1"], ["a"], ["b"], set_names=("p", "q", "A", "B"))
    assert str(info.value) == f"Y ('q') has 1 word; it needs at least 2 ({why})"
    # two listed words of which one is missing from the embeddings: one found, refused
    with pytest.warns(UserWarning, match="zzz"), pytest.raises(ValueError) as info:
        embias.weat(toy, ["x1", "zzz"], ["y1", "y2"], ["a"], ["b"])
    assert str(info.value) == (
        f"the number of X words found in the embeddings must be an integer ≥ 2, got 1 ({why})")


def test_weat_counts_case_variants_once(glove):
    X, Y = ["Muslim", "muslim", "islam"], ["jew", "judaism"]
    with pytest.warns(UserWarning, match=r"list 'X': 'muslim' is 'Muslim'"):
        r = embias.weat(glove, X, Y, ["violent"], ["greedy"])
    assert list(r.s_values.word) == ["Muslim", "islam", "jew", "judaism"]
    assert r.exact and r.n_permutations == math.comb(4, 2)  # not C(5, 3)

    def s(w):
        return float(glove.similarity(w, "violent") - glove.similarity(w, "greedy"))

    sx, sy = [s("muslim"), s("islam")], [s("jew"), s("judaism")]
    d = (np.mean(sx) - np.mean(sy)) / np.std(sx + sy, ddof=1)
    assert r.effect_size == pytest.approx(d, abs=1e-5)


def test_weat_seed_is_random_seed(toy, glove):
    with pytest.raises(ValueError) as info:
        embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"], permutations=5,
                    random_seed=-1)
    assert str(info.value) == ("random_seed must be a non-negative integer, a numpy Generator "
                               "or None, got -1")
    with pytest.raises(TypeError, match=r"random_state"):
        embias.weat(toy, ["x1", "x2"], ["y1", "y2"], ["a"], ["b"], random_state=0)
    a = embias.weat_test("weat9", glove, permutations=500, random_seed=7)
    b = embias.weat_test("weat9", glove, permutations=500,
                         random_seed=np.random.default_rng(7))
    assert a.random_seed == 7 and b.random_seed is None
    np.testing.assert_array_equal(a.null_effect_sizes, b.null_effect_sizes)
    fresh = embias.weat_test("weat9", glove, permutations=500, random_seed=None)
    again = embias.weat_test("weat9", glove, permutations=500, random_seed=fresh.random_seed)
    assert again.p_value == fresh.p_value  # the drawn seed is recorded and repeats the run
    pairs = embias.weat_pairs(glove, "religion", permutations=200, random_seed=3)
    assert list(pairs.group) == ["christian vs jewish", "christian vs muslim",
                                 "jewish vs muslim"]


def _independent_null_effects(s: np.ndarray, n_x: int) -> np.ndarray:
    """Effect size of every equal-size re-partition of X ∪ Y, by brute force (ddof=1)."""
    sd = np.std(s, ddof=1)
    out = []
    for idx in itertools.combinations(range(s.size), n_x):
        mask = np.zeros(s.size, bool)
        mask[list(idx)] = True
        out.append((s[mask].mean() - s[~mask].mean()) / sd)
    return np.array(out)


def test_weat_rows_have_no_null_quantiles_in_interval_columns(glove):
    # `embias summary religion` showed 1.193 with lower/upper −1.173/1.173 and
    # ci_kind="permutation": an "interval" that excludes its own estimate. The interval
    # columns hold an interval for the estimate or nothing; the null goes elsewhere.
    # They hold the item-bootstrap interval for the estimate.
    pairs = embias.weat_pairs(glove, "religion", random_seed=3, null_ci_prob=0.95)
    assert (pairs["ci_kind"] == "bootstrap").all() and (pairs["ci_prob"] == 0.89).all()
    assert (pairs["resampled"] == "targets and attributes").all()
    assert ((pairs["lower"] < pairs["estimate"]) & (pairs["estimate"] < pairs["upper"])).all()
    row = pairs.set_index("group").loc["christian vs jewish"]
    assert row.estimate == pytest.approx(1.193, abs=5e-4)  # the summary's printed value
    assert row.p_value == pytest.approx(10 / 252, abs=1e-12)  # exact: 10 of C(10, 5)
    # the null's central 95% range, in its own columns, against brute-force enumeration
    study = embias.load_study("religion")
    pair = ("christian", "jewish")
    r = embias.weat_test(study.replace(
        name="christian vs jewish",
        protected={k: study.protected[k] for k in pair},
        associations={k: study.associations[k] for k in pair}), glove)
    null = _independent_null_effects(r.s_values["s"].to_numpy(), 5)
    assert null.size == 252
    lo, hi = np.quantile(null, [0.025, 0.975])
    assert (row.null_lower, row.null_upper) == (pytest.approx(lo, abs=1e-9),
                                                pytest.approx(hi, abs=1e-9))
    assert row.null_lower == pytest.approx(-1.173, abs=5e-4)
    assert row.null_upper == pytest.approx(1.173, abs=5e-4)
    assert row.null_ci_prob == 0.95
    # by default the null's range has embias's one interval probability, 0.89
    default = embias.weat_pairs(glove, "religion", random_seed=3).set_index("group")
    lo, hi = np.quantile(null, [0.055, 0.945])
    assert default.loc["christian vs jewish", "null_ci_prob"] == 0.89
    assert (default.loc["christian vs jewish", "null_lower"],
            default.loc["christian vs jewish", "null_upper"]) == (
        pytest.approx(lo, abs=1e-9), pytest.approx(hi, abs=1e-9))
    # one result, other null probability; the interval columns keep the bootstrap interval
    result = embias.weat_test("weat6", glove, random_seed=0)
    t = result.to_interval_table(null_ci_prob=0.9)
    one = t.iloc[0]
    assert one.ci_kind == "bootstrap" and (one.lower, one.upper) == result.interval(0.89)
    assert one.null_ci_prob == 0.9 and one.estimate == pytest.approx(1.708, abs=5e-4)
    # a result without a bootstrap: a point estimate, the interval columns empty
    bare = dataclasses.replace(result, bootstrap=None).to_interval_table().iloc[0]
    assert bare.ci_kind == "none" and np.isnan(bare.lower) and np.isnan(bare.upper)
    assert list(t.columns[:7]) == ["estimand", "group", "estimate", "lower", "upper",
                                   "ci_prob", "ci_kind"]
    with pytest.raises(ValueError, match=r"null_ci_prob must be in \(0, 1\), got 95"):
        embias.weat_test("weat6", glove).to_interval_table(null_ci_prob=95)


def test_cli_prints_weat_as_point_estimates_with_named_null_columns(capsys):
    from embias.cli import main

    assert main(["summary", "religion"]) == 0
    out = capsys.readouterr().out
    weat = out[out.index("== WEAT"):]
    header = next(line for line in weat.splitlines() if line.startswith("| estimand"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert "lower" not in cols and "upper" not in cols and "ci_kind" not in cols
    assert {"estimate", "p_value", "null_lower", "null_upper"} <= set(cols)
    line = next(x for x in weat.splitlines() if "christian vs jewish" in x)
    cells = dict(zip(cols, (c.strip() for c in line.strip("|").split("|")), strict=True))
    # the null's central 89% range (embias's default interval probability; its brute-force
    # check is in the test above)
    assert (cells["estimate"], cells["null_lower"], cells["null_upper"]) == (
        "1.193", "-0.979", "0.979")
    assert "permutation" not in cells.values()  # no ci_kind column, no 'permutation' kind
    assert main(["weat", "weat6", "--permutations", "exact", "--n-boot", "2000"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| estimand"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    # the interval columns hold the item-bootstrap interval for d, the null its own columns
    assert cols[:6] == ["estimand", "group", "estimate", "lower", "upper", "ci_prob"]
    assert "null_upper" in header and "| permutation |" not in out
    assert "item-bootstrap interval (2,000 resamples" in out
