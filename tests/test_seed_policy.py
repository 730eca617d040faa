"""The one seed policy of the Python functions that draw random numbers.

``random_seed=None`` (the default) draws a fresh seed from the OS entropy; the seed used is
stored with the result (a field, a ``random_seed`` column or ``attrs["random_seed"]``) and
shown when the result is printed, and passing it back repeats the result exactly (same
machine, numpy only: equality, not a tolerance). Two default calls draw two seeds: they
collide with probability 2⁻³¹, so "the defaults differ" is a sound check that the default
is no longer a fixed 0.

The MCMC entry point (:func:`embias.simulate_word_sampling`) is run once at the smallest
settings: only that its seed is recorded and is the one its tables and fits used.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import embias
from embias.bayes import derived_seed
from embias.classifier import bbu_coverage, genre_population
from embias.classifier.parity import parity_hdi_coverage, simulate_detection
from embias.sentences import seat_overview
from embias.simulate import (
    SeededEstimate,
    WeatSimulationGrid,
    simulate_weat,
    simulate_weat_bootstrap_coverage,
    simulate_weat_grid,
    summarize_simulations,
    vector_model_effect_size,
)
from embias.simulate_words import (
    WordSamplingParameters,
    simulate_word_sampling,
    simulate_word_table,
    word_effect_shares,
)
from embias.studies import downstream_fairness, sentiment_classifier


def _drop_seconds(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=[c for c in ("seconds",) if c in frame.columns])


def _assert_repeats(first: pd.DataFrame, again: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(_drop_seconds(first), _drop_seconds(again), check_exact=True)


def _seed_of_table(table: pd.DataFrame) -> int:
    """The seed a table records: ``attrs`` and every row of its ``random_seed`` column."""
    seed = table.attrs["random_seed"]
    assert isinstance(seed, int)
    assert (table["random_seed"] == seed).all()
    assert str(seed) in table.to_string()  # shown when the table is printed
    return seed


# --------------------------------------------------------------------------- WEAT / SEAT
def test_weat_overview_draws_one_seed_for_the_table_and_repeats_with_it(glove):
    kwargs = {"permutations": 300, "n_boot": 20}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # missing words: the table's column
        first = embias.weat_overview(glove, **kwargs)
        seed = _seed_of_table(first)
        again = embias.weat_overview(glove, random_seed=seed, **kwargs)
        other = embias.weat_overview(glove, **kwargs)
    _assert_repeats(first, again)
    assert again.attrs["random_seed"] == seed
    assert other.attrs["random_seed"] != seed
    # every test starts from the table's seed: its row is weat_test at that seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        weat4 = embias.weat_test("weat4", glove, random_seed=seed, **kwargs)
    row = first.set_index("test").loc["weat4"]
    assert (row["p_value"], row["lower"], row["upper"]) == (
        weat4.p_value, *weat4.interval(row["ci_prob"]))


def _encoder(sentences):
    """A sentence encoder with a fixed vector per sentence (seeded by its text)."""
    return np.array([np.random.default_rng(list(s.encode())).normal(size=8)
                     for s in sentences])


def test_seat_overview_draws_one_seed_for_the_table_and_repeats_with_it():
    study = embias.Study(name="toy", protected={"x": ("alpha", "beta", "iota"),
                                                "y": ("gamma", "delta", "kappa")},
                         attributes={"x_stereotype": ("epsilon", "eta"),
                                     "y_stereotype": ("zeta", "theta")})
    kwargs = {"tests": [study, study.replace(name="toy2")],
              "templates": ["This is {term}.", "{term} is here."], "permutations": 40}
    first = seat_overview(_encoder, **kwargs)
    seed = _seed_of_table(first)
    _assert_repeats(first, seat_overview(_encoder, random_seed=seed, **kwargs))
    assert seat_overview(_encoder, **kwargs).attrs["random_seed"] != seed


# --------------------------------------------------------------------------- simulations
def test_simulate_weat_grid_records_the_grid_seed_and_repeats_with_it():
    design = {"n_protected_per_group": (2, 4), "association": (0.0, 0.1), "n_sims": 200}
    grid = simulate_weat_grid(**design)
    assert isinstance(grid, WeatSimulationGrid) and len(grid) == 4
    assert isinstance(grid.random_seed, int)
    assert f"random_seed={grid.random_seed}" in repr(grid)
    again = simulate_weat_grid(random_seed=grid.random_seed, **design)
    assert [s.seed for s in again] == [s.seed for s in grid]
    for a, b in zip(grid, again, strict=True):
        np.testing.assert_array_equal(a.scores, b.scores)
    assert simulate_weat_grid(**design).random_seed != grid.random_seed
    # the summary names the grid's seed and each cell's own, which repeats the cell alone
    table = summarize_simulations(grid)
    assert table.attrs["random_seed"] == grid.random_seed
    assert table["random_seed"].tolist() == [s.seed for s in grid]
    cell = grid[3]
    alone = simulate_weat(n_protected_per_group=4, association=0.1, n_sims=200,
                          random_seed=int(table["random_seed"].iloc[3]))
    np.testing.assert_array_equal(alone.scores, cell.scores)


def test_vector_model_effect_size_records_its_seed_and_repeats_with_it():
    first = vector_model_effect_size(n_draws=20_000)
    assert isinstance(first, SeededEstimate) and isinstance(first.random_seed, int)
    assert f"random_seed={first.random_seed}" in repr(first)
    effect, se = first  # still the (estimate, se) pair
    assert (effect, se) == vector_model_effect_size(n_draws=20_000,
                                                    random_seed=first.random_seed)
    assert vector_model_effect_size(n_draws=20_000).random_seed != first.random_seed
    # the antithetic draws give exactly 0 without association, whatever the seed
    assert vector_model_effect_size(association=0.0, n_draws=20_000) == (0.0, 0.0)


def test_bootstrap_coverage_records_its_seed_and_repeats_with_it():
    kwargs = {"designs": ((2, 2),), "n_sims": 3, "n_boot": 20, "resample": ("targets",)}
    first = simulate_weat_bootstrap_coverage(**kwargs)
    seed = _seed_of_table(first)
    _assert_repeats(first, simulate_weat_bootstrap_coverage(random_seed=seed, **kwargs))
    assert simulate_weat_bootstrap_coverage(**kwargs).attrs["random_seed"] != seed


# --------------------------------------------------------------------------- classifier side
def test_simulate_detection_records_its_seed_and_repeats_with_it():
    first = simulate_detection([100, 1000], n_sims=500)
    seed = _seed_of_table(first)
    _assert_repeats(first, simulate_detection([100, 1000], n_sims=500, random_seed=seed))
    assert simulate_detection(100, n_sims=500).attrs["random_seed"] != seed


def test_parity_hdi_coverage_records_its_seed_and_repeats_with_it():
    first = parity_hdi_coverage(0.3, 40, n_sims=200)
    seed = _seed_of_table(first)
    _assert_repeats(first, parity_hdi_coverage(0.3, 40, n_sims=200, random_seed=seed))
    assert parity_hdi_coverage(0.3, 40, n_sims=200).attrs["random_seed"] != seed


def test_bbu_coverage_records_its_seed_and_repeats_with_it():
    cost, group = genre_population("verbatim", n_in=200, n_out=800)
    kwargs = {"sample_sizes": (100, 400), "n_sims": 100}
    first = bbu_coverage(cost, group, **kwargs)
    seed = _seed_of_table(first)
    _assert_repeats(first, bbu_coverage(cost, group, random_seed=seed, **kwargs))
    assert bbu_coverage(cost, group, **kwargs).attrs["random_seed"] != seed


@pytest.mark.parametrize("function", [simulate_detection, parity_hdi_coverage, bbu_coverage])
def test_classifier_simulations_refuse_a_bad_seed(function):
    args = {simulate_detection: (100,), parity_hdi_coverage: (0.3, 40),
            bbu_coverage: genre_population("verbatim", n_in=20, n_out=80)}[function]
    with pytest.raises(ValueError, match=r"random_seed must be a non-negative integer or "
                                         r"None, got -1"):
        function(*args, random_seed=-1)


# --------------------------------------------------------------------------- sentiment study
@pytest.fixture
def toy_kv(make_kv):
    return make_kv({
        "good": [2.0, 0.1], "great": [1.5, -0.2], "nice": [1.0, 0.3], "fine": [0.8, 0.6],
        "bad": [-2.0, 0.2], "awful": [-1.5, -0.1], "poor": [-1.0, 0.0], "sad": [-0.7, 0.4],
        "people": [0.3, 1.0], "here": [0.1, -1.0],
        "alpha": [0.4, 0.0], "beta": [-0.4, 0.0], "gamma": [0.2, 0.2],
    })


LEXICON = {"good": 2.0, "great": 3.0, "nice": 1.5, "fine": 1.2, "bad": -2.5, "awful": -3.0,
           "poor": -1.5, "sad": -2.0}


def test_sentiment_classifier_default_seed_is_drawn_shown_and_repeats(toy_kv):
    first = sentiment_classifier(toy_kv, lexicon=LEXICON, margin=0.5, test_size=0.5)
    assert isinstance(first.random_seed, int)
    assert f"random_seed={first.random_seed}" in repr(first)
    again = sentiment_classifier(toy_kv, lexicon=LEXICON, margin=0.5, test_size=0.5,
                                 random_seed=first.random_seed)
    pd.testing.assert_frame_equal(first.words, again.words, check_exact=True)
    np.testing.assert_array_equal(first.model.coef_, again.model.coef_)
    other = sentiment_classifier(toy_kv, lexicon=LEXICON, margin=0.5, test_size=0.5)
    assert other.random_seed != first.random_seed


def test_downstream_fairness_default_seed_is_drawn_shown_and_repeats(toy_kv):
    study = embias.Study.from_dicts(
        "toy", protected={"first": ["alpha"], "second": ["beta", "gamma"]},
        attributes={"x": ["good"]})
    kwargs = {"lexicon": LEXICON, "margin": 0.5, "test_size": 0.5,
              "templates": ["{} people are here"]}
    first = downstream_fairness(toy_kv, study, **kwargs)
    seed = first.settings["random_seed"]
    assert isinstance(seed, int)
    assert first.table.attrs["random_seed"] == seed
    assert f"'random_seed': {seed}" in repr(first)
    assert first.classifiers["original"].random_seed == seed
    again = downstream_fairness(toy_kv, study, random_seed=seed, **kwargs)
    pd.testing.assert_frame_equal(first.table, again.table, check_exact=True)
    pd.testing.assert_frame_equal(first.scores, again.scores, check_exact=True)
    assert downstream_fairness(toy_kv, study, **kwargs).settings["random_seed"] != seed


# --------------------------------------------------------------------------- word sampling
PARAMETERS = WordSamplingParameters(
    bar={"associated": 0.9, "different": 0.95, "none": 1.0},
    tau={"associated": 0.05, "different": 0.05, "none": 0.03},
    sigma={"associated": 0.1, "different": 0.1, "none": 0.1},
    tau_word={"attribute": 0.1, "neutral": 0.1})


@pytest.fixture(scope="module")
def design(make_kv):
    rng = np.random.default_rng(7)
    words = ["he", "man", "she", "woman", "career", "office", "home", "family", "chair",
             "table", "river", "cloud"]
    kv = make_kv({w: rng.normal(size=5).tolist() for w in words})
    study = embias.Study.from_dicts(
        "toy", protected={"male": ["he", "man"], "female": ["she", "woman"]},
        attributes={"work": ["career", "office"], "family": ["home", "family"]},
        associations={"male": "work", "female": "family"},
        neutral=["chair", "table", "river", "cloud"])
    return embias.cosine_table(kv, study)


def test_simulate_word_table_records_its_seed_and_repeats_with_it(design):
    first = simulate_word_table(design, PARAMETERS)
    seed = first.attrs["random_seed"]
    assert isinstance(seed, int)
    again = simulate_word_table(design, PARAMETERS, random_seed=seed)
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    assert simulate_word_table(design, PARAMETERS).attrs["random_seed"] != seed
    given = simulate_word_table(design, PARAMETERS, random_seed=np.random.default_rng(1))
    assert given.attrs["random_seed"] is None  # a Generator has no seed to record


def test_simulate_word_sampling_records_the_seed_its_tables_and_fits_used(design):
    assert inspect.signature(simulate_word_sampling).parameters["random_seed"].default is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 20 draws of one chain: the diagnostics say so
        sim = simulate_word_sampling(design, n_tables=1, parameters=PARAMETERS,
                                     levels=("hierarchical",), draws=20, tune=20, chains=1,
                                     sampler="pymc", progress=False)
    seed = sim.settings["random_seed"]
    assert isinstance(seed, int)
    assert f"'random_seed': {seed}" in repr(sim)
    # the fit ran with the seed derived from the recorded one (read back from the fit)
    assert set(sim.results["random_seed"]) == {derived_seed(seed, "0", "hierarchical")}
    # the table came from (seed, 0): redrawn here without MCMC, its shares are the recorded
    table = simulate_word_table(design, PARAMETERS,
                                random_seed=np.random.default_rng([seed, 0]))
    shares = word_effect_shares(table)
    assert sim.tables["seed"].tolist() == [f"({seed}, 0)"]
    for con, share in shares.items():
        assert sim.tables[f"share_{con}"].iloc[0] == float(share)


def test_refit_published_tables_draws_a_seed_for_its_fits_and_records_it():
    # the default settings have no seed: one is drawn (it used to be refused), and every
    # row names the seed its fit ran with (read back from the fit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 20 draws of one chain: the diagnostics say so
        refits = embias.refit_published_tables(
            "religion", "reddit", levels=("hierarchical",),
            settings=embias.FitSettings(sampler="pymc", draws=20, tune=20, chains=1),
            progress=False)
    seed = refits.attrs["random_seed"]
    assert isinstance(seed, int)
    assert (refits["random_seed"] == seed).all()
    assert str(seed) in refits.to_string()
