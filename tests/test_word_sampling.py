"""embias.simulate_words: the compared words' share of the variance, the calibrated crossed
model, simulated tables, and a small run of the false-claims simulation pinned against the
full benchmark (benchmarks/bench_word_sampling.py) within Monte Carlo error."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from mcmc_bounds import max_divergences, max_rhat_bound

import embias
from embias.simulate_words import (
    WordSamplingParameters,
    calibrate_word_sampling,
    published_conclusions,
    simulate_word_sampling,
    simulate_word_table,
    summarize_word_sampling,
    word_effect_shares,
)

# the same xdist worker as tests/test_crossed_recovery.py: one nutpie compile per shape
pytestmark = pytest.mark.xdist_group("nutpie-religion-design")


@pytest.fixture(scope="module")
def religion() -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the one neutral word GloVe lacks
        return embias.study_table("religion", "glove-6b-50d")


def _table(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["protected_word", "word_to_compare", "connection",
                                       "cosine_distance"])


# --------------------------------------------------------------------------- shares
def test_word_share_by_hand():
    # residuals from the cell means (p1: .8, p2: .7): p1 .2 0 −.2, p2 .2 .2 −.4;
    # word means .2 .1 −.3 → variance .07; residual variance .32 / 5 = .064
    table = _table([("p1", "a", "none", 1.0), ("p1", "b", "none", 0.8),
                    ("p1", "c", "none", 0.6), ("p2", "a", "none", 0.9),
                    ("p2", "b", "none", 0.9), ("p2", "c", "none", 0.3)])
    shares = word_effect_shares(table)
    assert list(shares.index) == ["none"]
    assert shares["none"] == pytest.approx(0.07 / 0.064, rel=1e-12)


def test_word_shares_of_the_religion_tables_are_the_issue_figures(religion):
    # measured: GloVe 6B 50d .88 / .67 / .50 / .65; the authors' Reddit table .86 / .76 /
    # .58 / .60 (associated, different, human, none)
    glove = word_effect_shares(religion)
    assert glove.round(2).to_dict() == {"associated": 0.88, "different": 0.67,
                                        "human": 0.50, "none": 0.65}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reddit = word_effect_shares(embias.load_published_table("religion", "reddit"))
    assert reddit.round(2).to_dict() == {"associated": 0.86, "different": 0.76,
                                         "human": 0.58, "none": 0.60}


# --------------------------------------------------------------------------- parameters
PARAMETERS = WordSamplingParameters(
    bar={"associated": 0.80, "different": 0.86, "human": 0.80, "none": 0.94},
    tau={"associated": 0.09, "different": 0.08, "human": 0.07, "none": 0.04},
    sigma={"associated": 0.08, "different": 0.085, "human": 0.087, "none": 0.105},
    tau_word={"attribute": 0.12, "neutral": 0.13, "human": 0.08})


def test_the_null_equals_the_attribute_means_to_the_neutral_one():
    null = PARAMETERS.without_association()
    assert null.bar == {"associated": 0.94, "different": 0.94, "human": 0.80, "none": 0.94}
    assert null.tau == PARAMETERS.tau and null.tau_word == PARAMETERS.tau_word
    assert null.contrast_truth("associated - none") == 0.0
    assert PARAMETERS.contrast_truth("human - none") == pytest.approx(-0.14)
    frame = PARAMETERS.to_frame()
    assert list(frame["connection"]) == ["associated", "different", "human", "none"]
    assert list(frame["tau_word"]) == [0.12, 0.12, 0.08, 0.13]


@pytest.mark.parametrize(("change", "message"), [
    ({"sigma": {"associated": -0.1, "different": 0.1, "human": 0.1, "none": 0.1}},
     r"sigma\['associated'\] must be a finite non-negative number, got -0.1"),
    ({"tau": {"associated": 0.1}}, r"tau must name the connections of bar"),
    ({"tau_word": {"attribute": 0.1, "neutral": 0.1}}, r"tau_word must name the word kinds"),
    ({"bar": {"associated": 0.8, "different": 0.8, "human": 0.8, "nothing": 0.9}},
     r"unknown connection\(s\) \['nothing'\]"),
    ({"bar": {}}, r"bar must be a non-empty mapping"),
])
def test_bad_parameters_are_refused(change, message):
    fields = {name: getattr(PARAMETERS, name) for name in ("bar", "tau", "sigma", "tau_word")}
    with pytest.raises(ValueError, match=message):
        WordSamplingParameters(**{**fields, **change})


def test_calibration_of_the_religion_table(religion):
    # method of moments on the real table (the figures the benchmark prints)
    p = calibrate_word_sampling(religion)
    assert p.bar == pytest.approx({"associated": 0.7768, "different": 0.8535,
                                   "human": 0.7983, "none": 0.9376}, abs=5e-5)
    assert p.sigma == pytest.approx({"associated": 0.0926, "different": 0.0918,
                                     "human": 0.0871, "none": 0.1050}, abs=5e-5)
    assert p.tau_word == pytest.approx({"attribute": 0.1170, "neutral": 0.1342,
                                        "human": 0.0801}, abs=5e-5)
    assert p.tau == pytest.approx({"associated": 0.0911, "different": 0.0797,
                                   "human": 0.0696, "none": 0.0385}, abs=5e-5)


def test_calibration_recovers_the_parameters_of_simulated_tables(religion):
    # the moment estimators are (nearly) unbiased: averaged over 12 tables drawn from known
    # parameters they land within 3 Monte Carlo se of the truth (se from the 12 estimates)
    estimates = [calibrate_word_sampling(simulate_word_table(
        religion, PARAMETERS, random_seed=np.random.default_rng([5, i]))) for i in range(12)]
    for name in ("sigma", "tau_word", "tau"):
        truth = getattr(PARAMETERS, name)
        for key, value in truth.items():
            draws = np.array([getattr(e, name)[key] for e in estimates])
            se = draws.std(ddof=1) / math.sqrt(len(draws))
            assert abs(draws.mean() - value) <= 3 * se + 1e-3, (name, key, draws.mean(),
                                                                 value, se)


# --------------------------------------------------------------------------- one table
def test_a_simulated_table_is_the_crossed_model_with_the_design_rows(religion):
    table = simulate_word_table(religion, PARAMETERS, random_seed=3)
    again = simulate_word_table(religion, PARAMETERS, random_seed=3)
    pd.testing.assert_frame_equal(table, again)
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection"):
        assert (table[col].to_numpy() == religion[col].astype(str).to_numpy()).all()
    assert (table["embedding"] == "simulated").all()
    np.testing.assert_allclose(table["cosine_similarity"], 1 - table["cosine_distance"])
    coef, u = table.attrs["truth"]["coef"], table.attrs["truth"]["word_effect"]
    assert coef.shape == (15, 4) and len(u) == 321
    noise = (table["cosine_distance"]
             - coef.stack().loc[list(zip(table["protected_word"], table["connection"],
                                         strict=True))].to_numpy()
             - u.loc[table["word_to_compare"]].to_numpy())
    # the noise left after the drawn coefficients and word effects has the sd σ[con]
    for con, sd in noise.groupby(table["connection"]).std().items():
        n = (table["connection"] == con).sum()
        assert sd == pytest.approx(PARAMETERS.sigma[con], rel=4 / math.sqrt(2 * n))
    # one effect per word, whatever the connection: an attribute word's u is in both
    attribute = table[table["connection"].isin(["associated", "different"])]
    assert attribute.groupby("word_to_compare")["connection"].nunique().eq(2).all()


def test_a_design_with_a_word_of_two_kinds_is_refused():
    table = _table([("p1", "a", "none", 1.0), ("p2", "a", "human", 0.8),
                    ("p1", "b", "none", 0.6), ("p2", "b", "none", 0.9)])
    with pytest.raises(ValueError, match=r"rows of two kinds, e.g. \[\('a', \['human', "
                                         r"'neutral'\]\)\]"):
        calibrate_word_sampling(table)


# --------------------------------------------------------------------------- summaries
def test_summary_rates_and_their_monte_carlo_errors_by_hand():
    rows = []
    for table, (lo, hi) in enumerate([(-0.1, 0.1), (0.01, 0.2), (-0.3, -0.05),
                                      (-0.1, 0.01)]):
        rows.append({"table": table, "level": "crossed", "estimand": "contrast",
                     "group": "associated - none", "truth": 0.0, "estimate": (lo + hi) / 2,
                     "lower": lo, "upper": hi, "covered": lo <= 0 <= hi,
                     "excludes_zero": lo > 0 or hi < 0,
                     "rope_decision": embias.rope_decision(lo, hi, 0.02).item(),
                     "problems": "" if table else "r_hat > 1.01"})
    summary = summarize_word_sampling(pd.DataFrame(rows))
    (r,) = summary.itertuples()
    assert (r.n_tables, r.coverage, r.excludes_zero) == (4, 0.5, 0.5)
    assert r.coverage_se == pytest.approx(math.sqrt(0.25 / 4))
    assert r.credible_difference == 0.25  # only (−0.3, −0.05) lies outside ±0.02
    assert r.mean_width == pytest.approx((0.2 + 0.19 + 0.25 + 0.11) / 4)
    assert r.null and r.failed_fits == 1
    (c,) = summarize_word_sampling(pd.DataFrame(rows), converged_only=True).itertuples()
    assert (c.n_tables, c.excludes_zero) == (3, pytest.approx(2 / 3))


def test_published_conclusions_verdicts_by_hand():
    def row(embedding, level, lo, hi):
        return {"study": "religion", "embedding": embedding, "level": level,
                "estimand": "contrast", "group": "associated - none",
                "estimate": (lo + hi) / 2, "lower": lo, "upper": hi,
                "rope_decision": embias.rope_decision(lo, hi, 0.02).item(),
                "excludes_zero": lo > 0 or hi < 0}
    refits = pd.DataFrame([
        row("a", "hierarchical", -0.2, -0.05), row("a", "crossed", -0.25, -0.01),
        row("b", "hierarchical", -0.2, -0.05), row("b", "crossed", -0.25, 0.03),
        row("c", "hierarchical", -0.1, 0.05), row("c", "crossed", -0.12, 0.06),
        row("d", "hierarchical", -0.1, 0.05), row("d", "crossed", 0.01, 0.2),
    ])
    table = published_conclusions(refits)
    assert list(table["verdict"]) == ["survives", "lost", "no claim", "new claim"]
    assert table["hierarchical"].iloc[0] == "-0.125 [-0.200, -0.050]"
    assert table["crossed_decision"].iloc[0] == "undecided"
    with pytest.raises(ValueError, match=r"other='word' is not a model of the refits"):
        published_conclusions(refits, other="word")


def test_bad_simulation_options_are_refused(religion):
    with pytest.raises(ValueError, match="n_tables"):
        simulate_word_sampling(religion, n_tables=0)
    with pytest.raises(ValueError, match="levels"):
        simulate_word_sampling(religion, levels=("county",))
    with pytest.raises(ValueError, match="parameters must be a WordSamplingParameters"):
        simulate_word_sampling(religion, parameters={"bar": 1})


# --------------------------------------------------------------------------- the simulation
#: benchmarks/bench_word_sampling.py --tables 200 --draws 3000 --tune 1000 --seed 0 (tables
#: 0–199): (rate, Monte Carlo se) per model and figure — HDI of a null contrast excluding 0,
#: coverage of a connection mean's HDI.
BENCHMARK = {
    ("hierarchical", "associated - none", "excludes_zero"): (0.315, 0.033),
    ("crossed", "associated - none", "excludes_zero"): (0.105, 0.022),
    ("hierarchical", "associated - different", "excludes_zero"): (0.080, 0.019),
    ("crossed", "associated - different", "excludes_zero"): (0.115, 0.023),
    ("hierarchical", "different - none", "excludes_zero"): (0.340, 0.033),
    ("crossed", "different - none", "excludes_zero"): (0.100, 0.021),
    ("hierarchical", "associated", "coverage"): (0.675, 0.033),
    ("crossed", "associated", "coverage"): (0.870, 0.024),
    ("hierarchical", "different", "coverage"): (0.590, 0.035),
    ("crossed", "different", "coverage"): (0.905, 0.021),
    ("hierarchical", "human", "coverage"): (0.875, 0.023),
    ("crossed", "human", "coverage"): (0.925, 0.019),
    ("hierarchical", "none", "coverage"): (0.830, 0.027),
    ("crossed", "none", "coverage"): (0.915, 0.020),
}
SMALL_TABLES = 20
#: Parameters behind a fit's largest r̂ (the crossed model of the religion design has ~470,
#: the hierarchical ~140): the union bound of tests/mcmc_bounds.py takes the larger.
WORD_SAMPLING_PARAMETERS = 500
#: Smallest ESS of any fit of the small run (see test_small_run_structure).
MIN_ESS_SMALL_RUN = 10


@pytest.fixture(scope="module")
def small_run(religion):
    # 20 further tables of the benchmark's stream (tables 1000–1019, independent of its
    # 200), 2 × (300 + 500) draws: one nutpie compile per model (~12 s CPU each), then
    # ~1 s per fit
    return simulate_word_sampling(religion, n_tables=SMALL_TABLES, first_table=1000,
                                  draws=500, tune=300, random_seed=0, progress=False)


@pytest.mark.slow
def test_small_run_structure(small_run, religion):
    results = small_run.results
    assert len(results) == SMALL_TABLES * 2 * 8
    assert sorted(results["table"].unique()) == list(range(1000, 1000 + SMALL_TABLES))
    assert small_run.parameters == calibrate_word_sampling(religion).without_association()
    assert (results.loc[results["group"] == "associated - none", "truth"] == 0).all()
    fits = results.drop_duplicates(["table", "level"])
    assert len(fits) == SMALL_TABLES * 2
    # Sampler diagnostics are checked within their Monte Carlo spread, not at one machine's
    # values (tests/mcmc_bounds.py). 2 × 500 draws leave some parameters with an ESS of a few
    # tens. Measured over seeds 0–3 of this run (40 fits each): smallest ESS (bulk or tail)
    # of a fit 27, 60, 64, 83, median 142–168; largest r̂ 1.069, 1.042, 1.055, 1.036; 93–98%
    # of the fits miss the 1.01 bar, as the theory expects for ~500 parameters at ESS ~150;
    # no divergences. So: each fit's largest r̂ is within what well-mixed chains give at its
    # own smallest ESS (false alarm ≤ 10⁻³ over the run; the measured fits used at most 36%
    # of that margin), that ESS is large enough for the bound to mean something (≥ 10, a
    # third of the smallest measured), and divergences stay below 0.5% of the draws.
    ess = fits[["min_ess_bulk", "min_ess_tail"]].min(axis=1)
    bound = [max_rhat_bound(e, WORD_SAMPLING_PARAMETERS, false_alarm=1e-3 / len(fits))
             for e in ess]
    assert (fits["max_r_hat"] <= bound).all(), fits.assign(bound=bound)
    assert ess.min() >= MIN_ESS_SMALL_RUN, ess.describe()
    assert (fits["divergences"] <= max_divergences(500, 2)).all(), fits["divergences"]


def _per_table_errors(results: pd.DataFrame, level: str) -> pd.Series:
    """False claims among associated − none and different − none plus connection means
    missed, per table (0–6)."""
    rows = results[results["level"] == level]
    claims = rows[rows["group"].isin(["associated - none", "different - none"])]
    missed = rows[rows["estimand"] == "connection_mean"]
    return (claims.groupby("table")["excludes_zero"].sum()
            + (~missed["covered"]).groupby(missed["table"]).sum())


@pytest.mark.slow
def test_crossed_false_claims_are_at_the_nominal_rate(small_run):
    rows = small_run.results
    rows = rows[(rows["level"] == "crossed") & rows["group"].isin(
        ["associated - none", "associated - different", "different - none"])]
    per_table = rows.groupby("table")["excludes_zero"].mean()
    se = max(per_table.std(ddof=1) / math.sqrt(SMALL_TABLES),
             math.sqrt(0.11 * 0.89 / len(rows)))
    assert abs(per_table.mean() - 0.11) <= 3 * se, (per_table.mean(), se)


@pytest.mark.slow
def test_hierarchical_model_errs_more_on_the_same_tables(small_run):
    # paired over the same tables: (false claims against the neutral words + connection
    # means missed) of the hierarchical model minus the crossed model's, > 3 se
    difference = (_per_table_errors(small_run.results, "hierarchical")
                  - _per_table_errors(small_run.results, "crossed"))
    se = difference.std(ddof=1) / math.sqrt(SMALL_TABLES)
    assert difference.mean() > 3 * se, (difference.mean(), se)


@pytest.mark.slow
def test_small_run_agrees_with_the_benchmark_within_monte_carlo_error(small_run):
    summary = small_run.summary().set_index(["level", "group"])
    for (level, group, column), (rate, se_full) in BENCHMARK.items():
        row = summary.loc[(level, group)]
        se_small = math.sqrt(max(rate * (1 - rate), 0.05) / SMALL_TABLES)
        assert abs(row[column] - rate) <= 3 * math.hypot(se_small, se_full), (
            level, group, column, row[column], rate)


def test_simulated_distances_stay_within_the_range_of_a_cosine_distance(religion) -> None:
    """The crossed model's Normal noise can carry a row below 0 (table 36 of seed 2026 had
    two rows at −0.044 and −0.056, at 'tavern' with 'bible' and 'quran'), which no cosine
    distance is and the table checks refuse: such a row's noise is drawn again."""
    from embias.simulate_words import calibrate_word_sampling, simulate_word_table

    parameters = calibrate_word_sampling(religion).without_association()
    table = simulate_word_table(religion, parameters,
                                random_seed=np.random.default_rng([2026, 36]))
    assert table["cosine_distance"].between(0.0, 2.0).all()
    np.testing.assert_allclose(table["cosine_similarity"], 1.0 - table["cosine_distance"])
    from embias.bayes.data import cell_statistics

    assert len(cell_statistics(table)) == 60  # the checks every fit makes accept it
