"""Design analysis (embias.design): the probability that a study of a given size finds a
credible difference, estimated from a pilot fit's posterior predictive, against the rate
observed on fresh studies drawn from the known truth; studies of real words from
populations; bad input; the ``embias design`` command."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors
from scipy import stats

import embias
from embias.bayes import FitJob, fit_many
from embias.design import design_analysis
from embias.populations import WordPopulations
from embias.settings import FitSettings
from embias.simulate_words import WordSamplingParameters, simulate_word_table

#: The known truth: associated − none = −0.06, associated − different = −0.05 (both near
#: the edge of what 3 protected words per class can call credible at ROPE 0.02: rates
#: between 0 and 1), different − none = −0.01 (inside the ROPE: a low rate).
TRUTH = WordSamplingParameters(
    bar={"associated": 0.80, "different": 0.85, "none": 0.86},
    tau={"associated": 0.02, "different": 0.02, "none": 0.02},
    sigma={"associated": 0.06, "different": 0.06, "none": 0.06},
    tau_word={"attribute": 0.03, "neutral": 0.03})
ROPE = 0.02
#: The design compared: 3 protected words per class, 4 attribute words per class, 10
#: neutral words.
PROTECTED, ATTRIBUTES, NEUTRAL = 3, 4, 10
N_STUDIES = 48
#: Sampler settings of every simulated study's fit, the same on both sides.
SETTINGS = {"draws": 1000, "tune": 500}


def rows_of(protected: int, attributes: int, neutral: int) -> pd.DataFrame:
    """The rows of a two-class study, written out by hand (every protected word against
    every compared word; x ↔ x_stereotype, y ↔ y_stereotype)."""
    rows = []
    for pc in ("x", "y"):
        for i in range(protected):
            for ac in ("x", "y"):
                for j in range(attributes):
                    rows.append((f"{pc}{i}", pc, f"{ac}_attr{j}", f"{ac}_stereotype",
                                 "associated" if ac == pc else "different"))
            for j in range(neutral):
                rows.append((f"{pc}{i}", pc, f"neutral{j}", "neutral", "none"))
    table = pd.DataFrame(rows, columns=["protected_word", "protected_class",
                                        "word_to_compare", "word_class", "connection"])
    table["cosine_similarity"] = 0.0
    table["cosine_distance"] = 1.0
    table["embedding"] = "test"
    return table


def balanced_pilot_table(protected: int, attributes: int, neutral: int, *,
                         seed: int) -> pd.DataFrame:
    """A table of the crossed model whose realised parts have exactly the truth's moments:
    per connection the protected words' coefficients have mean bar and sd tau, per word
    class the compared words' effects mean 0 and sd tau_word, and the noise has mean 0 in
    every block (one protected class × one word class) and sd sigma per connection (its
    means per protected word and per compared word stay random, as the model has them).
    A pilot study drawn at random differs from its truth by its own sampling error (about
    0.007 in a contrast at this size), which a design analysis rightly inherits; this one
    does not, so the analysis can be compared with studies drawn from the truth itself."""
    table = rows_of(protected, attributes, neutral)
    rng = np.random.default_rng(seed)

    def standard(n: int) -> np.ndarray:
        q = stats.norm.ppf((np.arange(n) + 0.5) / n)
        return rng.permutation((q - q.mean()) / q.std(ddof=1))

    words = table["protected_word"].unique()
    coef = {con: dict(zip(words, TRUTH.bar[con] + TRUTH.tau[con] * standard(len(words)),
                          strict=True)) for con in TRUTH.bar}
    effect = {}
    for cls, members in table.groupby("word_class")["word_to_compare"].unique().items():
        kind = "neutral" if cls == "neutral" else "attribute"
        effect.update(zip(members, TRUTH.tau_word[kind] * standard(len(members)),
                          strict=True))
    noise = pd.Series(rng.normal(size=len(table)))
    noise = noise - noise.groupby([table["protected_class"], table["word_class"]]).transform(
        "mean")
    sigma = table["connection"].map(TRUTH.sigma)
    noise = noise / noise.groupby(table["connection"]).transform("std") * sigma
    distance = (np.array([coef[c][p] for p, c in zip(table["protected_word"],
                                                     table["connection"], strict=True)])
                + table["word_to_compare"].map(effect).to_numpy() + noise.to_numpy())
    table["cosine_distance"] = distance
    table["cosine_similarity"] = 1.0 - distance
    return table


@pytest.fixture(scope="module")
def pilot() -> embias.BiasFit:
    """A crossed fit of a large pilot study with the truth's moments (30 protected words
    and 30 attribute words per class, 60 neutral words): its posterior centres on the
    truth."""
    table = balanced_pilot_table(30, 30, 60, seed=11)
    return embias.fit_bias_model(table, settings=FitSettings.for_batch(random_seed=12),
                                 progress=False, warn=False)


@pytest.fixture(scope="module")
def analysis(pilot) -> embias.design.DesignAnalysis:
    return design_analysis(pilot, attribute_words=ATTRIBUTES, protected_words=PROTECTED,
                           neutral_words=NEUTRAL, n_studies=N_STUDIES, rope=ROPE,
                           settings=SETTINGS, random_seed=5, progress=False)


def test_estimated_probability_matches_the_rate_on_fresh_studies_from_the_truth(analysis):
    """The posterior predictive's P(credible difference) against the share of fresh
    studies drawn from the known parameters (hand-written rows, fitted through fit_many,
    decided by BiasFit.to_interval_table) — within 3 combined binomial se."""
    design = rows_of(PROTECTED, ATTRIBUTES, NEUTRAL)
    jobs = [FitJob(simulate_word_table(design, TRUTH, random_seed=np.random.default_rng(
        [99, i])), FitSettings.for_batch(random_seed=1000 + i, **SETTINGS),
        label=f"fresh {i}") for i in range(N_STUDIES)]
    decisions = []
    for fit in fit_many(jobs, progress=False, warn=False):
        table = fit.to_interval_table(rope=ROPE)
        decisions.append(table[table["estimand"] == "contrast"].set_index("group")
                         ["rope_decision"])
    fresh = (pd.DataFrame(decisions) == "credible difference").mean()
    summary = analysis.summary().set_index("contrast")
    assert set(summary.index) == {"associated - none", "associated - different",
                                  "different - none"}
    for contrast, row in summary.iterrows():
        assert row["n_studies"] == N_STUDIES
        pooled = (row["p_credible"] + fresh[contrast]) / 2
        se = math.sqrt(pooled * (1 - pooled) * 2 / N_STUDIES)
        assert abs(row["p_credible"] - fresh[contrast]) <= 3 * se + 1e-12, (
            contrast, row["p_credible"], fresh[contrast])
    # the truth the rows report is each study's posterior draw of the contrast; the
    # balanced pilot's posterior mean is the known value, so their mean is within 4 Monte
    # Carlo se of it (the studies' draws, and the pilot's own draws at ESS ≥ 400)
    draws = analysis.results.groupby("contrast")["truth"]
    for contrast, mean in draws.mean().items():
        a, b = contrast.split(" - ")
        se = draws.std()[contrast] * math.sqrt(1 / N_STUDIES + 1 / 400)
        assert abs(mean - (TRUTH.bar[a] - TRUTH.bar[b])) <= 4 * se


def test_summary_is_the_per_study_decisions_with_their_monte_carlo_se(analysis):
    rows = analysis.results
    # a decision is "credible difference" exactly when the HDI lies outside [−rope, rope]
    outside = (rows["lower"] > ROPE) | (rows["upper"] < -ROPE)
    assert (rows["credible"] == outside).all()
    assert np.allclose(rows["width"], rows["upper"] - rows["lower"])
    summary = analysis.summary()
    for r in summary.itertuples():
        mine = rows[rows["contrast"] == r.contrast]
        p = mine["credible"].mean()
        assert r.p_credible == pytest.approx(p)
        assert r.p_se == pytest.approx(math.sqrt(p * (1 - p) / len(mine)))
        assert r.width_mean == pytest.approx(mine["width"].mean())
        assert r.width_se == pytest.approx(mine["width"].std(ddof=1) / math.sqrt(len(mine)))
        assert r.n_failed_fits == (mine["problems"] != "").sum()


def test_a_designs_studies_do_not_change_when_other_sizes_are_added(pilot):
    alone = design_analysis(pilot, attribute_words=[3], protected_words=2, neutral_words=4,
                            n_studies=2, rope=ROPE, settings=SETTINGS, random_seed=8,
                            progress=False)
    more = design_analysis(pilot, attribute_words=[2, 3], protected_words=2, neutral_words=4,
                           n_studies=2, rope=ROPE, settings=SETTINGS, random_seed=8,
                           progress=False)
    assert alone.settings["random_seed"] == 8
    same = more.results[more.results["attribute_words"] == 3].reset_index(drop=True)
    pd.testing.assert_frame_equal(same, alone.results)
    assert len(more.results) == 2 * 2 * 3  # designs × studies × contrasts


def test_a_fresh_seed_is_drawn_recorded_and_repeats_the_analysis(pilot):
    # the shape of the test above (its batch program is compiled already)
    result = design_analysis(pilot, attribute_words=3, protected_words=2, neutral_words=4,
                             n_studies=2, settings=SETTINGS, progress=False)
    seed = result.settings["random_seed"]
    assert isinstance(seed, int) and seed >= 0 and f"random_seed={seed}" in repr(result)
    again = design_analysis(pilot, attribute_words=3, protected_words=2, neutral_words=4,
                            n_studies=2, settings=SETTINGS, random_seed=seed, progress=False)
    pd.testing.assert_frame_equal(again.results, result.results)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"attribute_words": [0, 4]}, r"attribute_words must be an integer ≥ 1, got 0"),
    ({"protected_words": 0}, r"protected_words must be an integer ≥ 1, got 0"),
    ({"attribute_words": [4, 4]}, r"attribute_words lists \['4'\] more than once"),
    ({"attribute_words": "four"}, r"attribute_words: 'four' is not a size"),
    ({"rope": 0}, r"rope must be a positive half-width .* got 0"),
    ({"rope": -0.01}, r"rope must be a positive half-width .* got -0.01"),
    ({"n_studies": 1}, r"n_studies must be an integer ≥ 2, got 1"),
    ({"human_words": 5}, r"human_words=5: the pilot study has no 'human' rows"),
    ({"settings": {"random_seed": 3}}, r"settings.random_seed=3"),
])
def test_bad_designs_are_refused_naming_the_value(pilot, kwargs, message):
    with pytest.raises(ValueError, match=message):
        design_analysis(pilot, **{"n_studies": 2, **kwargs}, progress=False)


def test_a_pilot_fit_below_the_crossed_level_is_refused_naming_its_level():
    table = simulate_word_table(rows_of(2, 2, 3), TRUTH, random_seed=2)
    fit = embias.fit_bias_model(table, level="hierarchical", draws=50, tune=50,
                                random_seed=1, progress=False, warn=False)
    with pytest.raises(ValueError, match=r"this fit is at level 'hierarchical' — fit the "
                                         r"pilot study with level='crossed'"):
        design_analysis(fit, progress=False)


def test_a_fitted_source_takes_no_embeddings(pilot, make_kv):
    with pytest.raises(ValueError, match="embeddings= is for populations"):
        design_analysis(pilot, make_kv({"a": [1.0, 0.0]}), progress=False)


# --------------------------------------------------------------------------- populations
def small_populations(make_kv) -> tuple[WordPopulations, KeyedVectors]:
    """Two classes of 6 protected and 6 attribute words and 8 neutral words in 6
    dimensions, the attribute words of a class near its protected words."""
    rng = np.random.default_rng(3)
    centre = {"x": np.eye(6)[0] * 2, "y": np.eye(6)[1] * 2}
    vectors, protected, attributes = {}, {}, {}
    for c in ("x", "y"):
        protected[c] = [f"{c}p{i}" for i in range(6)]
        attributes[c] = [f"{c}a{i}" for i in range(6)]
        for w in protected[c] + attributes[c]:
            vectors[w] = (centre[c] + rng.normal(size=6)).tolist()
    neutral = [f"n{i}" for i in range(8)]
    for w in neutral:
        vectors[w] = rng.normal(size=6).tolist()
    populations = WordPopulations.from_dicts("tiny", protected, attributes,
                                             associations={"x": "x", "y": "y"},
                                             neutral=neutral)
    return populations, make_kv(vectors)


def test_populations_truth_is_the_mean_distance_over_all_population_pairs(make_kv):
    populations, kv = small_populations(make_kv)
    result = design_analysis(populations, kv, attribute_words=[2], protected_words=3,
                             neutral_words=4, n_studies=2, rope=ROPE, settings=SETTINGS,
                             random_seed=4, progress=False)

    def mean_distance(xs, ys):
        return np.mean([1 - kv.similarity(a, b) for a in xs for b in ys])

    # equal class sizes: every protected class weighs ½
    answer = {
        "associated": np.mean([mean_distance(populations.protected[c],
                                             populations.attributes[c]) for c in "xy"]),
        "different": np.mean([mean_distance(populations.protected[c],
                                            populations.attributes[o])
                              for c, o in (("x", "y"), ("y", "x"))]),
        "none": np.mean([mean_distance(populations.protected[c], populations.neutral)
                         for c in "xy"]),
    }
    summary = result.summary().set_index("contrast")
    for contrast, row in summary.iterrows():
        a, b = contrast.split(" - ")
        assert row["truth"] == pytest.approx(answer[a] - answer[b], abs=1e-6)
        assert row["n_studies"] == 2
    assert result.settings["source"] == "populations"


def test_a_size_larger_than_a_population_is_refused_naming_it(make_kv):
    populations, kv = small_populations(make_kv)
    with pytest.raises(ValueError, match=r"attributes\['x'\] has 6 words, fewer than the "
                                         r"design's attributes=7"):
        design_analysis(populations, kv, attribute_words=[4, 7], neutral_words=4, n_studies=2,
                        progress=False)
    with pytest.raises(ValueError, match=r"neutral has 8 words, fewer than the design's "
                                         r"neutral=100"):
        design_analysis(populations, kv, attribute_words=2, n_studies=2, progress=False)
    with pytest.raises(ValueError, match=r"attribute_words: 'pilot' .* needs a fitted pilot"):
        design_analysis(populations, kv, attribute_words="pilot", neutral_words=4,
                        n_studies=2, progress=False)


# --------------------------------------------------------------------------- command line
def run_embias(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embias", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=900,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"})


@pytest.fixture
def tiny_study(tmp_path: Path) -> tuple[Path, Path]:
    """A study folder (2 classes × 3 protected words, 3 attribute words per class, 6
    neutral words) and a .kv file with its words."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    words = []
    for c in ("x", "y"):
        (folder / f"protected.{c}.txt").write_text("\n".join(f"{c}p{i}" for i in range(3)))
        (folder / f"attributes.{c}.txt").write_text("\n".join(f"{c}a{i}" for i in range(3)))
        words += [f"{c}p{i}" for i in range(3)] + [f"{c}a{i}" for i in range(3)]
    (folder / "associations.txt").write_text("x x\ny y\n")
    (folder / "neutral.txt").write_text("\n".join(f"n{i}" for i in range(6)))
    words += [f"n{i}" for i in range(6)]
    kv = KeyedVectors(8)
    kv.add_vectors(words, np.random.default_rng(0).normal(size=(len(words), 8)))
    path = tmp_path / "tiny.kv"
    kv.save(str(path))
    return folder, path


def test_design_command_prints_the_table_and_writes_rows_and_plot(tmp_path, tiny_study):
    folder, vectors = tiny_study
    done = run_embias("design", str(folder), "--embedding", str(vectors),
                      "--attribute-words", "pilot", "2", "--studies", "3", "--draws", "300",
                      "--tune", "300", "--seed", "7", "--out", "out/rows.csv", "--plot",
                      "out/design.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "seed 7" in done.stdout
    rows = pd.read_csv(tmp_path / "out" / "rows.csv", keep_default_na=False)
    assert (tmp_path / "out" / "design.png").stat().st_size > 0
    # 2 designs (the pilot's 3 per class, and 2) × 3 studies × 3 contrasts
    assert len(rows) == 2 * 3 * 3
    assert sorted(set(rows["attribute_words"])) == [2.0, 3.0]
    outside = (rows["lower"] > 0.02) | (rows["upper"] < -0.02)
    assert (rows["credible"] == outside).all()
    # every printed probability is the share of its rows
    table = [line for line in done.stdout.splitlines() if re.match(r"\| \d", line)]
    assert len(table) == 6
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        attribute, contrast, p = float(cells[1]), cells[4], float(cells[6])
        mine = rows[(rows["attribute_words"] == attribute) & (rows["contrast"] == contrast)]
        assert p == pytest.approx(mine["credible"].mean(), abs=5e-4)


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["--rope", "0"], 2, "rope must be a positive finite number, got 0.0"),
    (["--attribute-words", "0"], 2, "--attribute-words takes integers ≥ 1"),
    (["--populations", "names"], 1, "not both"),
    (["--attribute-words", "8", "--protected-words", "300"], 1,
     "has 200 words, fewer than the design's protected=300"),
])
def test_design_command_refuses_bad_input(tmp_path, argv, code, message):
    study = [] if "--protected-words" in argv else ["religion"]
    if "--protected-words" in argv:
        argv = ["--populations", "names", *argv]
    done = run_embias("design", *study, *argv, "--studies", "2", cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert message in done.stderr
