"""The WEAT and SEAT overviews show the population effect size and its interval next to
the effect size of the listed words."""

from __future__ import annotations

import numpy as np
import pytest

import embias
from embias.sentences import seat_overview, seat_test


def _encoder(sentences):
    """A sentence encoder with a fixed vector per sentence (seeded by its text)."""
    return np.array([np.random.default_rng(list(s.encode())).normal(size=8)
                     for s in sentences])


def test_weat_overview_rows_carry_each_tests_population_interval(glove):
    table = embias.weat_overview(glove, permutations=200, n_boot=200, random_seed=4,
                                 ci_prob=0.8)
    row = table.set_index("test").loc["weat7"]
    single = embias.weat_test("weat7", glove, permutations=200, n_boot=200, random_seed=4)
    expected = single.population_columns(0.8)
    assert expected["population_lower"] < expected["population_upper"]
    for name, value in expected.items():
        assert row[name] == pytest.approx(value, rel=1e-12), name
    # the disattenuated effect size removes noise from the pooled sd: never smaller in size
    finite = table.dropna(subset=["population_estimate"])
    assert len(finite) >= 5
    assert (finite["population_estimate"].abs() >= finite["effect_size"].abs() - 1e-9).all()


def test_seat_overview_rows_carry_each_tests_population_interval():
    study = embias.Study(name="toy", protected={"x": ("alpha", "beta", "iota", "mu"),
                                                "y": ("gamma", "delta", "kappa", "nu")},
                         attributes={"x_stereotype": ("epsilon", "eta", "omicron"),
                                     "y_stereotype": ("zeta", "theta", "lambda")})
    templates = ["This is {term}.", "{term} is here.", "Look at {term}."]
    table = seat_overview(_encoder, tests=[study], templates=templates, permutations=40,
                          random_seed=7, ci_prob=0.7)
    single = seat_test(study, _encoder, templates=templates, permutations=40, random_seed=7)
    row = table.iloc[0]
    assert row["effect_size"] == pytest.approx(single.effect_size, rel=1e-12)
    assert row["ci_prob"] == 0.7
    for name, value in single.population_columns(0.7).items():
        if np.isnan(value):
            assert np.isnan(row[name]), name
        else:
            assert row[name] == pytest.approx(value, rel=1e-12), name
    with pytest.raises(ValueError, match="ci_prob"):
        seat_overview(_encoder, tests=[study], templates=templates, ci_prob=1.2)
