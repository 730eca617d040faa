"""The WEAT and SEAT overviews show the population effect size and its interval next to
the effect size of the listed words."""

from __future__ import annotations

import numpy as np
import pytest

import embias
from embias.sentences import seat_overview, seat_test, word_sentences
from embias.weat_population import disattenuated_effect_size


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


STUDY = embias.Study(name="toy", protected={"x": ("alpha", "beta", "iota", "mu"),
                                            "y": ("gamma", "delta", "kappa", "nu")},
                     attributes={"x_stereotype": ("epsilon", "eta", "omicron"),
                                 "y_stereotype": ("zeta", "theta", "lambda")})
TEMPLATES = ["This is {term}.", "{term} is here.", "Look at {term}."]


def test_seat_overview_rows_carry_each_tests_population_interval():
    study, templates = STUDY, TEMPLATES
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


def test_seat_population_interval_samples_words_not_sentences():
    # the estimate is that of one column per attribute word (the mean similarity with its
    # three sentences), not of the sentences as attribute items
    result = seat_test(STUDY, _encoder, templates=TEMPLATES, permutations=40, random_seed=7)
    lists = [list(ws) for ws in STUDY.weat_sets()]
    table = word_sentences([w for ws in lists for w in ws], templates=TEMPLATES)
    unit = {t: v / np.linalg.norm(v) for t, v in
            zip(table["sentence"], _encoder(list(table["sentence"])), strict=True)}
    by_word = {w: list(g["sentence"]) for w, g in table.groupby("word", sort=False)}
    targets = np.array([unit[t] for w in lists[0] + lists[1] for t in by_word[w]])
    word_sims = [np.array([[np.mean([t @ unit[a] for a in by_word[w]]) for w in ws]
                           for t in targets]) for ws in lists[2:]]
    assert result.population.estimate == pytest.approx(
        disattenuated_effect_size(*word_sims, 12), abs=1e-9)
    sentence_sims = [targets @ np.array([unit[a] for w in ws for a in by_word[w]]).T
                     for ws in lists[2:]]
    assert disattenuated_effect_size(*sentence_sims, 12) != pytest.approx(
        result.population.estimate, abs=1e-3)
