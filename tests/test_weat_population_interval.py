"""WEAT's population effect size, its disattenuated estimate and the interval that covers
it: hand-computed cases, an independent recomputation of the bootstrap, a coverage run on
a shipped real population set, and bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import embias
from embias.classic import bootstrap_counts, weat_effect_size, weat_item_bootstrap
from embias.settings import DEFAULT_CI_PROB
from embias.weat_population import (
    disattenuated_effect_size,
    population_effect_size,
    weat_population_bootstrap,
)


# --------------------------------------------------------------------------- the estimand
def test_population_effect_size_of_a_hand_computed_plane():
    # A = {(2, 0)}, B = {(0, 3)}: mean â − mean b̂ = (1, −1). X = {(1, 0), (1, 1)} gives
    # s_pop = 1, 0; Y = {(0, 5), (1, 1)} gives −1, 0. m_X − m_Y = 1, v_X = v_Y = 1/4.
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    Y = np.array([[0.0, 5.0], [1.0, 1.0]])
    A, B = np.array([[2.0, 0.0]]), np.array([[0.0, 3.0]])
    # w = 1/2: 1 / √(1/4 + 1/4 · 1) = √2
    assert population_effect_size(X, Y, A, B) == pytest.approx(math.sqrt(2), abs=1e-12)
    # w = 1/4: 1 / √(1/4 + 3/16) = 1 / √(7/16)
    assert population_effect_size(X, Y, A, B, x_share=0.25) == pytest.approx(
        1 / math.sqrt(7 / 16), abs=1e-12)


def test_population_effect_size_is_weat_d_of_the_whole_populations():
    rng = np.random.default_rng(3)
    X, Y, A, B = (rng.normal(size=(n, 6)) + shift for n, shift in
                  ((30, 0.4), (20, -0.4), (12, 0.8), (9, -0.2)))
    unit = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in (X, Y, A, B)]
    s = [t @ unit[2].T for t in unit[:2]]
    s = [s_t.mean(axis=1) - (t @ unit[3].T).mean(axis=1) for s_t, t in zip(s, unit[:2],
                                                                          strict=True)]
    # the lists are the populations and X's share of the union is 30 / 50: WEAT's d with
    # the population sd (ddof=0) is d_pop exactly
    assert population_effect_size(X, Y, A, B, x_share=0.6) == pytest.approx(
        weat_effect_size(s[0], s[1], ddof=0), abs=1e-12)


def test_weat_d_of_long_lists_tends_to_the_population_effect_size():
    # populations of 4,000 words per role; lists of 2,000 drawn from them: the attribute
    # noise and the target sampling error of d are then ≈ 0.02, far below the attenuation
    # of 8-word lists
    rng = np.random.default_rng(11)
    mean = {"X": 0.6, "Y": -0.6, "A": 1.5, "B": -1.5}
    pops = {k: rng.normal(size=(4000, 20)) + np.r_[m, np.zeros(19)] for k, m in mean.items()}
    truth = population_effect_size(*pops.values())
    unit = {k: v / np.linalg.norm(v, axis=1, keepdims=True) for k, v in pops.items()}

    def weat_d(n: int) -> float:
        idx = {k: rng.choice(4000, size=n, replace=False) for k in unit}
        t = np.vstack([unit["X"][idx["X"]], unit["Y"][idx["Y"]]])
        s = (t @ unit["A"][idx["A"]].T).mean(axis=1) - (t @ unit["B"][idx["B"]].T).mean(axis=1)
        return weat_effect_size(s[:n], s[n:])

    long = [weat_d(2000) for _ in range(3)]
    short = [weat_d(8) for _ in range(300)]
    assert abs(np.mean(long) - truth) < 0.03
    assert np.mean(short) < truth - 0.1  # short lists attenuate


# --------------------------------------------------------------------------- the estimate
# 3 + 3 targets × 3 + 3 attributes, hand-made similarities
SIM_A = np.array([[0.9, 0.5, 0.7], [0.6, 0.2, 0.5], [0.8, 0.6, 0.3],
                  [0.1, 0.3, 0.2], [0.4, 0.0, 0.5], [0.2, 0.1, 0.0]])
SIM_B = np.array([[0.2, 0.4, 0.1], [0.3, 0.1, 0.2], [0.0, 0.3, 0.5],
                  [0.7, 0.5, 0.9], [0.6, 0.8, 0.4], [0.9, 0.3, 0.6]])


def plain_disattenuated(sim_a, sim_b, n_x):
    """The disattenuated effect size by explicit loops over cells (independent of
    embias): within-group variances of s minus the residual mean squares over the list
    lengths."""
    n_t = len(sim_a)
    s = [sum(sim_a[t]) / len(sim_a[t]) - sum(sim_b[t]) / len(sim_b[t]) for t in range(n_t)]
    groups = [range(0, n_x), range(n_x, n_t)]
    means, within = [], 0.0
    for g in groups:
        m = sum(s[t] for t in g) / len(g)
        v = sum((s[t] - m) ** 2 for t in g) / (len(g) - 1)
        noise = 0.0
        for sim in (sim_a, sim_b):
            n_w = len(sim[0])
            row = {t: sum(sim[t]) / n_w for t in g}
            col = [sum(sim[t][j] for t in g) / len(g) for j in range(n_w)]
            grand = sum(row.values()) / len(g)
            ss = sum((sim[t][j] - row[t] - col[j] + grand) ** 2 for t in g for j in range(n_w))
            noise += ss / ((len(g) - 1) * (n_w - 1)) / n_w
        means.append(m)
        within += (len(g) / n_t) * (v - noise)
    delta = means[0] - means[1]
    w = n_x / n_t
    return delta / math.sqrt(max(within, 0.0) + w * (1 - w) * delta ** 2)


def test_disattenuated_effect_size_matches_a_loop_over_cells():
    expected = plain_disattenuated(SIM_A.tolist(), SIM_B.tolist(), 3)
    assert disattenuated_effect_size(SIM_A, SIM_B, 3) == pytest.approx(expected, abs=1e-12)
    # the noise is real here: the estimate is larger than WEAT's d of the same words
    s = SIM_A.mean(axis=1) - SIM_B.mean(axis=1)
    assert expected > weat_effect_size(s[:3], s[3:]) + 0.05


def test_disattenuated_effect_size_sits_at_the_bound_when_the_noise_exceeds_the_spread():
    # s = ±1 in every target up to noise: the rows of each group differ only through the
    # (target, attribute) interaction, so the estimated noise exceeds the spread of s
    sim_a = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, 0.0], [0.0, -1.0]])
    sim_b = np.zeros((4, 2))
    assert disattenuated_effect_size(sim_a, sim_b, 2) == pytest.approx(2.0)


def plain_replicate(adj_a, adj_b, rows_x, rows_y, cols_a, cols_b):
    """The disattenuated effect size of one resample of the bootstrap world by explicit
    loops: s over the drawn columns, the variance of s over the drawn rows (ddof=1), and
    the noise of the drawn lists — the interaction mean square of the distinct rows and
    columns drawn times (Σ k² − n)/(n (n − 1)). None when a list has one distinct word."""
    rows = rows_x + rows_y
    n_x, n_a, n_b = len(rows_x), len(cols_a), len(cols_b)
    if min(len(set(idx)) for idx in (rows_x, rows_y, cols_a, cols_b)) < 2:
        return None
    s = [sum(adj_a[t][j] for j in cols_a) / n_a - sum(adj_b[t][j] for j in cols_b) / n_b
         for t in rows]
    means, within = [], 0.0
    for g_rows, g_s in ((rows_x, s[:n_x]), (rows_y, s[n_x:])):
        n_g = len(g_s)
        m = sum(g_s) / n_g
        v = sum((x - m) ** 2 for x in g_s) / (n_g - 1)
        noise = 0.0
        for sim, cols in ((adj_a, cols_a), (adj_b, cols_b)):
            u_rows, u_cols, n_w = sorted(set(g_rows)), sorted(set(cols)), len(cols)
            row = {t: sum(sim[t][j] for j in u_cols) / len(u_cols) for t in u_rows}
            col = {j: sum(sim[t][j] for t in u_rows) / len(u_rows) for j in u_cols}
            grand = sum(row.values()) / len(u_rows)
            ss = sum((sim[t][j] - row[t] - col[j] + grand) ** 2 for t in u_rows for j in u_cols)
            ms = ss / ((len(u_rows) - 1) * (len(u_cols) - 1))
            sum_k2 = sum(cols.count(j) ** 2 for j in u_cols)
            noise += ms * (sum_k2 - n_w) / (n_w * (n_w - 1))
        means.append(m)
        within += 0.5 * (v - noise)
    delta = means[0] - means[1]
    return delta / math.sqrt(max(within, 0.0) + 0.25 * delta ** 2)


def test_population_bootstrap_replicates_are_the_estimate_on_resampled_worlds():
    seed, n_boot = 5, 9
    result = weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=n_boot, random_seed=seed)
    plain = plain_disattenuated(SIM_A.tolist(), SIM_B.tolist(), 3)
    assert result.estimate == pytest.approx(plain, abs=1e-12)
    # the bootstrap world, built independently: each group's s deviations scaled by λ so
    # that their variance over the three words (ddof=0: the world's population) is the
    # disattenuated v − noise; half the shift on each block
    s = SIM_A.mean(axis=1) - SIM_B.mean(axis=1)
    shift = np.zeros(6)
    for g, lam in zip((slice(0, 3), slice(3, 6)), result.shrinkage, strict=True):
        shift[g] = (1 - lam) * (s[g] - s[g].mean())
    adj_a, adj_b = SIM_A - shift[:, None] / 2, SIM_B + shift[:, None] / 2
    s_adj = adj_a.mean(axis=1) - adj_b.mean(axis=1)
    for g in (slice(0, 3), slice(3, 6)):
        v = np.var(s[g], ddof=1)
        noise = sum(np.sum((blk - blk.mean(1, keepdims=True) - blk.mean(0) + blk.mean()) ** 2)
                    / 4 / 3 for blk in (SIM_A[g], SIM_B[g]))
        assert np.var(s_adj[g]) == pytest.approx(max(v - noise, 0.0), abs=1e-12)
    # the same draws as index lists (redrawing the replicates whose lists repeat one
    # word, chunk by chunk as the function draws them), recomputed by the loops
    rng = np.random.default_rng(seed)
    raw: list[float] = []
    while len(raw) < n_boot:
        k = n_boot - len(raw)
        counts = [bootstrap_counts(rng, k, 3) for _ in range(4)]  # X, Y, A, B
        for r in range(k):
            idx = [np.repeat(np.arange(3), c[r].astype(int)).tolist() for c in counts]
            value = plain_replicate(adj_a.tolist(), adj_b.tolist(), idx[0],
                                    [3 + i for i in idx[1]], idx[2], idx[3])
            if value is not None:
                raw.append(value)
    raw = raw[:n_boot]
    # re-centred on the estimate and kept within ±2
    assert result.centre_shift == pytest.approx(np.median(raw) - plain, abs=1e-10)
    expected = np.clip(np.array(raw) - result.centre_shift, -2, 2)
    assert result.effect_sizes == pytest.approx(expected, abs=1e-10)
    assert result.n_redrawn > 0  # with 3 words a list, some resamples repeat one word
    lo, hi = result.interval(0.8)
    assert (lo, hi) == pytest.approx(tuple(np.quantile(result.effect_sizes, [0.1, 0.9])))


def test_labelling_every_item_as_its_own_word_changes_nothing():
    plain = weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=300, random_seed=4)
    labelled = weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=300, random_seed=4,
                                         target_words=list("uvwxyz"), a_words=[0, 1, 2],
                                         b_words=["p", "q", "r"])
    assert labelled.estimate == plain.estimate
    assert np.array_equal(labelled.effect_sizes, plain.effect_sizes)


def test_an_attribute_words_sentences_are_averaged_into_one_column():
    # two "sentences" per attribute word, ±e around the word's column: their mean is the
    # word's column, so the result is that of the word-level similarities, draw for draw
    rng = np.random.default_rng(0)
    e_a, e_b = rng.normal(scale=0.05, size=(2, 6, 3))
    sent_a = np.repeat(SIM_A, 2, axis=1) + np.stack([e_a, -e_a], axis=2).reshape(6, 6)
    sent_b = np.repeat(SIM_B, 2, axis=1) + np.stack([e_b, -e_b], axis=2).reshape(6, 6)
    words = ["w0", "w0", "w1", "w1", "w2", "w2"]
    grouped = weat_population_bootstrap(sent_a, sent_b, 3, n_boot=300, random_seed=4,
                                        a_words=words, b_words=words)
    reference = weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=300, random_seed=4)
    assert grouped.estimate == pytest.approx(reference.estimate, abs=1e-12)
    assert grouped.effect_sizes == pytest.approx(reference.effect_sizes, abs=1e-10)
    # as sentences of their own the columns would give another estimate
    assert disattenuated_effect_size(sent_a, sent_b, 3) != pytest.approx(grouped.estimate,
                                                                        abs=1e-3)


def test_a_target_words_sentences_are_drawn_together():
    # 3 + 3 target words of two sentences each (rows 2j, 2j + 1), 3 + 3 attribute words
    rng = np.random.default_rng(1)
    sim_a = np.repeat(SIM_A, 2, axis=0) + rng.normal(scale=0.05, size=(12, 3))
    sim_b = np.repeat(SIM_B, 2, axis=0) + rng.normal(scale=0.05, size=(12, 3))
    target_words = [f"{g}{j}" for g in "xy" for j in range(3) for _ in range(2)]
    seed, n_boot = 5, 9
    result = weat_population_bootstrap(sim_a, sim_b, 6, n_boot=n_boot, random_seed=seed,
                                       target_words=target_words)
    assert result.estimate == pytest.approx(
        plain_disattenuated(sim_a.tolist(), sim_b.tolist(), 6), abs=1e-12)
    s = sim_a.mean(axis=1) - sim_b.mean(axis=1)
    shift = np.zeros(12)
    for g, lam in zip((slice(0, 6), slice(6, 12)), result.shrinkage, strict=True):
        shift[g] = (1 - lam) * (s[g] - s[g].mean())
    adj_a, adj_b = (sim_a - shift[:, None] / 2).tolist(), (sim_b + shift[:, None] / 2).tolist()
    # the loops: words drawn with replacement, each bringing both its rows; a group drawn
    # as one word repeated (or a list as one attribute word) is redrawn
    draws = np.random.default_rng(seed)
    raw: list[float] = []
    while len(raw) < n_boot:
        k = n_boot - len(raw)
        counts = [bootstrap_counts(draws, k, 3) for _ in range(4)]  # X, Y words; A, B
        for r in range(k):
            idx = [np.repeat(np.arange(3), c[r].astype(int)).tolist() for c in counts]
            if min(len(set(idx[0])), len(set(idx[1]))) < 2:
                continue
            rows_x = [2 * w + j for w in idx[0] for j in (0, 1)]
            rows_y = [6 + 2 * w + j for w in idx[1] for j in (0, 1)]
            value = plain_replicate(adj_a, adj_b, rows_x, rows_y, idx[2], idx[3])
            if value is not None:
                raw.append(value)
    expected = np.clip(np.array(raw) - (np.median(raw) - result.estimate), -2, 2)
    assert result.effect_sizes == pytest.approx(expected, abs=1e-10)


def test_population_bootstrap_is_seeded():
    one = weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=200, random_seed=9)
    two = weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=200, random_seed=9)
    assert np.array_equal(one.effect_sizes, two.effect_sizes)
    assert one.random_seed == 9 and one.n_boot == 200
    assert one.interval() == one.interval(DEFAULT_CI_PROB)


# --------------------------------------------------------------------------- weat()
def test_weat_reports_the_population_interval_next_to_the_bootstrap(make_kv):
    rng = np.random.default_rng(2)
    words = {f"{k}{i}": (rng.normal(size=5) + off).tolist()
             for k, off in (("x", 0.5), ("y", -0.5), ("a", 1.0), ("b", -1.0)) for i in range(4)}
    kv = make_kv(words)
    X, Y, A, B = ([f"{k}{i}" for i in range(4)] for k in "xyab")
    r = embias.weat(kv, X, Y, A, B, n_boot=500, random_seed=4)
    unit = {w: np.asarray(v) / np.linalg.norm(v) for w, v in words.items()}
    sim = {k: np.array([[unit[t] @ unit[a] for a in L] for t in X + Y]) for k, L in
           (("A", A), ("B", B))}
    assert r.population.estimate == pytest.approx(
        disattenuated_effect_size(sim["A"], sim["B"], 4), abs=1e-6)
    assert r.population.n_boot == 500 and r.population.random_seed == 4
    # today's bootstrap is the one weat() always drew (its stream is spawned first)
    today = weat_item_bootstrap(sim["A"], sim["B"], 4, n_boot=500,
                                random_seed=np.random.default_rng(4).spawn(1)[0])
    assert r.interval() == pytest.approx(today.interval(), abs=1e-6)
    row = r.to_interval_table().iloc[0]
    assert (row["population_lower"], row["population_upper"]) == r.population_interval()
    assert row["population_estimate"] == r.population.estimate
    assert (row["lower"], row["upper"]) == r.interval()


def test_weat_with_one_attribute_word_has_no_population_interval_and_says_why(make_kv):
    kv = make_kv({"x1": [1, 0.2], "x2": [1, 0.5], "y1": [0.1, 1], "y2": [0.3, 1],
                  "a1": [1, 0], "b1": [0, 1]})
    r = embias.weat(kv, ["x1", "x2"], ["y1", "y2"], ["a1"], ["b1"], n_boot=50, random_seed=0)
    assert r.population is None
    with pytest.raises(ValueError, match="no population interval: the disattenuation needs "
                                         "at least 2 words in A and in B"):
        r.population_interval()
    assert "population_lower" not in r.to_interval_table().columns


# --------------------------------------------------------------------------- coverage
def test_population_interval_covers_on_the_shipped_name_populations(glove):
    """250 studies of 8 + 8 target and 8 + 8 attribute words from the shipped ``names``
    populations: the population interval covers d_pop within 3 binomial se of 0.89,
    today's interval (attenuated d) does not."""
    lists = embias.load_populations("names").weat_sets()
    vec = [np.asarray(glove[list(w)], dtype=float) for w in lists]
    vec = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in vec]
    truth = population_effect_size(*vec)
    n_studies, n = 250, 8
    new = today = 0
    for i in range(n_studies):
        rng = np.random.default_rng([27, 1, n, i])
        ix, iy, ia, ib = (rng.choice(len(v), size=n, replace=False) for v in vec)
        t = np.vstack([vec[0][ix], vec[1][iy]])
        sim_a, sim_b = t @ vec[2][ia].T, t @ vec[3][ib].T
        lo, hi = weat_population_bootstrap(sim_a, sim_b, n, n_boot=1000,
                                           random_seed=rng).interval()
        new += lo <= truth <= hi
        lo, hi = weat_item_bootstrap(sim_a, sim_b, n, n_boot=1000, random_seed=rng).interval()
        today += lo <= truth <= hi
    se = math.sqrt(0.89 * 0.11 / n_studies)
    assert abs(new / n_studies - 0.89) <= 3 * se
    assert today / n_studies < 0.89 - 3 * se


def test_seat_population_interval_covers_on_the_shipped_sentiment_populations():
    """200 SEAT studies of 8 + 8 target and 8 + 8 attribute words from the shipped
    ``sentiment`` populations, each word in the two fallback templates, encoded by the
    offline MiniLM: the population interval (words sampled) covers the population's
    sentence effect size within 3 binomial se of 0.89; today's interval (every sentence an
    item) does not."""
    from embias.embeddings import keyed_vectors
    from embias.encoders import default_encoder
    from embias.sentences.templates import FALLBACK_TEMPLATES, word_sentences

    lists = [list(ws) for ws in embias.load_populations("sentiment").weat_sets()]
    table = word_sentences([w for ws in lists for w in ws], templates=list(FALLBACK_TEMPLATES))
    by_word = {w: list(g["sentence"]) for w, g in table.groupby("word", sort=False)}
    item_words = dict(zip(table["sentence"], table["word"], strict=True))
    distinct = list(dict.fromkeys(table["sentence"]))
    kv = keyed_vectors(distinct, np.ascontiguousarray(default_encoder()(distinct)))
    truth = population_effect_size(*(kv[[s for w in ws for s in by_word[w]]] for ws in lists))
    n_studies, n = 200, 8
    new = today = 0
    for i in range(n_studies):
        rng = np.random.default_rng([31, 0, n, i])
        drawn = [[s for j in rng.choice(len(ws), size=n, replace=False) for s in by_word[ws[j]]]
                 for ws in lists]
        r = embias.weat(kv, *drawn, item_words=item_words, lowercase=False, permutations=100,
                        n_boot=1000, random_seed=rng)
        lo, hi = r.population_interval()
        new += lo <= truth <= hi
        lo, hi = r.interval()
        today += lo <= truth <= hi
    se = math.sqrt(0.89 * 0.11 / n_studies)
    assert abs(new / n_studies - 0.89) <= 3 * se
    assert today / n_studies < 0.89 - 3 * se


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "message"), [
    (lambda: disattenuated_effect_size(SIM_A[:, :1], SIM_B, 3),
     r"the number of attribute words in A \(columns of sim_a\) must be an integer ≥ 2, got 1"),
    (lambda: disattenuated_effect_size(SIM_A, SIM_B[:, :1], 3),
     r"attribute words in B .* ≥ 2, got 1 \(the noise of s\(t\)"),
    (lambda: disattenuated_effect_size(SIM_A, SIM_B, 1), r"n_x must be an integer ≥ 2, got 1"),
    (lambda: disattenuated_effect_size(SIM_A, SIM_B, 5),
     r"the number of Y words \(rows after the first n_x\) must be an integer ≥ 2, got 1"),
    (lambda: disattenuated_effect_size(SIM_A, SIM_B[:5], 3), r"shapes \(6, 3\) and \(5, 3\)"),
    (lambda: disattenuated_effect_size(np.where(SIM_A > 0.8, np.nan, SIM_A), SIM_B, 3),
     "must be finite"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=0),
     r"n_boot must be an integer ≥ 1, got 0"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, target_words=list("uvwxy")),
     r"target_words must name the word of every row \(6\), got 5 labels"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, target_words=list("uvwxyu")),
     r"the target word 'u' has rows in both X and Y"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, target_words=list("uuuxyz")),
     r"the number of X words \(distinct target_words\) must be an integer ≥ 2, got 1"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, a_words=[0, 1]),
     r"a_words must name the word of every column \(3\), got 2 labels"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, b_words=[0, 0, 0]),
     r"the number of attribute words in B \(columns of sim_b\) must be an integer ≥ 2, "
     r"got 1"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, random_seed=-1), "random_seed"),
    (lambda: weat_population_bootstrap(SIM_A, SIM_B, 3, n_boot=10).interval(1.5),
     r"ci_prob must be in \(0, 1\), got 1.5"),
    (lambda: population_effect_size(np.eye(2), np.eye(2), np.eye(2), np.eye(2), x_share=1),
     r"x_share must be in \(0, 1\), got 1"),
    (lambda: population_effect_size(np.eye(2), np.zeros((2, 2)), np.eye(2), np.eye(2)),
     r"Y holds a zero vector \(row 0\)"),
    (lambda: population_effect_size(np.eye(2), np.eye(2), np.eye(3), np.eye(2)),
     r"one dimension, got \{'X': 2, 'Y': 2, 'A': 3, 'B': 2\}"),
    (lambda: population_effect_size(np.ones(3), np.eye(3), np.eye(3), np.eye(3)),
     r"X must be a 2-D array of word vectors .* got shape \(3,\)"),
    (lambda: population_effect_size(np.eye(2), np.eye(2), np.ones((1, 2)), np.ones((1, 2))),
     "s_pop has no spread over X ∪ Y"),
])
def test_bad_input_is_refused_with_its_name(call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=message):
            call()


def test_tied_scores_without_a_difference_are_refused():
    # every target has s = 0 and no interaction: Δ = 0 and no spread, d is 0/0
    with pytest.raises(ValueError, match=r"the effect size is undefined \(0/0\)"):
        disattenuated_effect_size(np.ones((4, 2)), np.ones((4, 2)), 2)

