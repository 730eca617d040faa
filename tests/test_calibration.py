"""Calibration on real words: word populations, their answers, studies drawn from them, the
coverage of the fitted intervals, its plot and ``embias calibrate``."""

from __future__ import annotations

import io
import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import embias
from embias.bayes import derived_seed
from embias.calibration import RESULT_COLUMNS, SUMMARY_COLUMNS
from embias.populations import BUILTIN_POPULATIONS, populations_dir

REPO = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- small world
VECTORS = {
    "p1": [1.0, 0.2, 0.1], "p2": [0.9, -0.3, 0.4], "p3": [0.7, 0.5, -0.2],
    "q1": [-0.2, 1.0, 0.3], "q2": [0.1, 0.8, -0.6],
    "a1": [0.8, 0.1, 0.5], "a2": [0.6, -0.4, 0.3],
    "b1": [0.2, 0.9, 0.1], "b2": [-0.5, 0.7, 0.4], "b3": [0.3, 0.6, 0.9],
    "c1": [0.1, -0.2, 1.0],
    "n1": [0.5, 0.5, 0.5], "n2": [-0.3, 0.2, 0.8], "n3": [0.9, 0.9, -0.1], "n4": [0.0, 0.4, 1.2],
    "h1": [0.4, -0.6, 0.2], "h2": [-0.7, 0.3, 0.3],
}
SMALL = {"protected": {"a": ["p1", "p2", "p3"], "b": ["q1", "q2"]},
         "attributes": {"a": ["a1", "a2"], "b": ["b1", "b2", "b3"], "c": ["c1"]},
         "neutral": ["n1", "n2", "n3", "n4"], "human": ["h1", "h2"]}
#: protected class a: 2 words, b: 1 → weights 2/3, 1/3; attribute c is nobody's own class
SMALL_DESIGN = embias.PopulationDesign(protected={"a": 2, "b": 1},
                                       attributes={"a": 1, "b": 2, "c": 1}, neutral=1, human=1)


def small_populations() -> embias.WordPopulations:
    return embias.WordPopulations.from_dicts("small", SMALL["protected"], SMALL["attributes"],
                                             neutral=SMALL["neutral"], human=SMALL["human"])


def cos_distance(u: str, v: str) -> float:
    x, y = np.asarray(VECTORS[u]), np.asarray(VECTORS[v])
    return 1.0 - float(x @ y) / math.sqrt(float(x @ x) * float(y @ y))


def pair_mean(xs: list[str], ys: list[str]) -> float:
    return sum(cos_distance(x, y) for x in xs for y in ys) / (len(xs) * len(ys))


def test_population_answers_are_class_weighted_means_over_all_pairs(make_kv):
    kv = make_kv(VECTORS, dtype=np.float64)
    got = embias.population_answers(small_populations(), kv, design=SMALL_DESIGN)
    P, A = SMALL["protected"], SMALL["attributes"]
    w = {"a": 2 / 3, "b": 1 / 3}
    associated = w["a"] * pair_mean(P["a"], A["a"]) + w["b"] * pair_mean(P["b"], A["b"])
    # different: a meets b (2 words in the design) and c (1); b meets a (1) and c (1)
    different = (w["a"] * (2 / 3 * pair_mean(P["a"], A["b"]) + 1 / 3 * pair_mean(P["a"], A["c"]))
                 + w["b"] * (pair_mean(P["b"], A["a"]) + pair_mean(P["b"], A["c"])) / 2)
    none = w["a"] * pair_mean(P["a"], SMALL["neutral"]) + w["b"] * pair_mean(P["b"],
                                                                            SMALL["neutral"])
    human = w["a"] * pair_mean(P["a"], SMALL["human"]) + w["b"] * pair_mean(P["b"],
                                                                           SMALL["human"])
    expected = {("connection_mean", "associated"): associated,
                ("connection_mean", "different"): different,
                ("connection_mean", "human"): human, ("connection_mean", "none"): none,
                ("contrast", "associated - none"): associated - none,
                ("contrast", "associated - different"): associated - different,
                ("contrast", "different - none"): different - none,
                ("contrast", "human - none"): human - none}
    assert list(got.columns) == ["estimand", "group", "truth"]
    keys = zip(got["estimand"], got["group"], strict=True)
    assert dict(zip(keys, got["truth"], strict=True)) == pytest.approx(expected, abs=1e-12)


def test_population_answer_is_the_mean_of_every_possible_study(make_kv):
    # exhaustive enumeration: averaged over every study the design can draw, a study's
    # connection mean (mean over its protected words of their cell means, from the cosine
    # table) is the population answer
    kv = make_kv(VECTORS, dtype=np.float64)
    pops = small_populations()
    truth = embias.population_answers(pops, kv, design=SMALL_DESIGN)
    truth = dict(zip(truth["group"], truth["truth"], strict=True))
    P, A = SMALL["protected"], SMALL["attributes"]
    sums: dict[str, float] = {}
    count = 0
    for pa, pb, aa, ab, ac, n, h in itertools.product(
            itertools.combinations(P["a"], 2), itertools.combinations(P["b"], 1),
            itertools.combinations(A["a"], 1), itertools.combinations(A["b"], 2),
            itertools.combinations(A["c"], 1), itertools.combinations(SMALL["neutral"], 1),
            itertools.combinations(SMALL["human"], 1)):
        study = embias.Study.from_dicts("s", {"a": pa, "b": pb}, {"a": aa, "b": ab, "c": ac},
                                        neutral=n, human=h, associations={"a": "a", "b": "b"})
        table = embias.cosine_table(kv, study, missing="raise")
        cells = table.groupby(["protected_word", "connection"])["cosine_distance"].mean()
        means = cells.groupby(level="connection").mean()
        for con, value in means.items():
            sums[con] = sums.get(con, 0.0) + value
        count += 1
    assert count == 3 * 2 * 2 * 3 * 1 * 4 * 2
    assert {con: s / count for con, s in sums.items()} == pytest.approx(
        {con: truth[con] for con in ("associated", "different", "human", "none")}, abs=1e-12)


# --------------------------------------------------------------------------- bad input
def test_a_population_smaller_than_the_design_is_refused_naming_it(make_kv):
    pops = small_populations()
    with pytest.raises(ValueError, match=r"protected\['a'\] has 3 words, fewer than the "
                                         r"design's protected=4"):
        embias.calibrate_on_populations(pops, make_kv(VECTORS), design="protected=4",
                                        n_studies=1, progress=False)
    with pytest.raises(ValueError, match=r"attributes\['c'\] has 1 words, fewer than the "
                                         r"design's attributes=2"):
        pops.draw_study("protected=1,attributes=2,neutral=1", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"neutral has 4 words, fewer than the design's "
                                         r"neutral=100"):
        embias.population_answers(pops, make_kv(VECTORS), design=embias.PopulationDesign(
            protected=1, attributes=1))
    no_human = embias.WordPopulations.from_dicts("nohuman", SMALL["protected"],
                                                 SMALL["attributes"], neutral=SMALL["neutral"])
    with pytest.raises(ValueError, match=r"'nohuman': human has 0 words, fewer than the "
                                         r"design's human=1"):
        embias.draw_population_studies(no_human, design=SMALL_DESIGN, random_seed=0)


def test_overlapping_populations_are_refused_naming_the_word_and_both_lists():
    with pytest.raises(ValueError, match=r"the word 'p1' is in both protected\['a'\] and "
                                         r"protected\['b'\]"):
        embias.WordPopulations.from_dicts("x", {"a": ["p1", "p2"], "b": ["p1", "q1"]},
                                          {"a": ["a1"], "b": ["b1"]})
    with pytest.raises(ValueError, match=r"the word 'a1' is in both attributes\['a'\] and "
                                         r"neutral"):
        embias.WordPopulations.from_dicts("x", {"a": ["p1"]}, {"a": ["a1", "a2"]},
                                          neutral=["n1", "a1"])
    with pytest.raises(ValueError, match=r"the word 'p1' is in both protected\['a'\] and "
                                         r"human"):
        embias.WordPopulations.from_dicts("x", {"a": ["p1", "p2"]}, {"a": ["a1"]}, human=["p1"])
    with pytest.raises(ValueError, match=r"attributes\['a'\] lists \['a1'\] more than once"):
        embias.WordPopulations.from_dicts("x", {"a": ["p1"]}, {"a": ["a1", "a2", "a1"]})


def test_a_design_without_attribute_words_is_refused():
    with pytest.raises(ValueError, match=r"design attributes=0: a design needs at least one "
                                         r"attribute word per attribute class"):
        embias.PopulationDesign(attributes=0)
    with pytest.raises(ValueError, match=r"design attributes\['b'\]=0: a design needs"):
        embias.PopulationDesign(attributes={"a": 2, "b": 0})
    with pytest.raises(ValueError, match=r"design attributes=0"):
        embias.calibrate_on_populations(small_populations(), design="attributes=0",
                                        progress=False)


def test_other_bad_populations_designs_and_settings_are_named(make_kv, tmp_path):
    pops = small_populations()
    with pytest.raises(ValueError, match=r"protected\['a'\] has no words"):
        embias.WordPopulations.from_dicts("x", {"a": []}, {"a": ["a1"]})
    with pytest.raises(ValueError, match=r"must be a list of words, got the string 'a1'"):
        embias.WordPopulations.from_dicts("x", {"a": ["p1"]}, {"a": "a1"})
    with pytest.raises(ValueError, match=r"protected class\(es\) \['a'\] have no associated "
                                         r"attribute class"):
        embias.WordPopulations.from_dicts("x", {"a": ["p1"]}, {"z": ["a1"]})
    with pytest.raises(ValueError, match=r"'protectd=3' is not ROLE=N .*did you mean "
                                         r"'protected'"):
        embias.PopulationDesign.parse("protectd=3")
    with pytest.raises(ValueError, match=r"design protected=\{'a': 1\} does not fit "
                                         r"populations 'small'.*without a number: \['b'\]"):
        pops.draw_study({"protected": {"a": 1}}, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"unknown populations 'sentimnet' \(did you mean "
                                         r"'sentiment'\?\)"):
        embias.load_populations("sentimnet")
    with pytest.raises(ValueError, match=r"settings.random_seed=5: every fit's seed is "
                                         r"derived"):
        embias.calibrate_on_populations(pops, make_kv(VECTORS), design=SMALL_DESIGN,
                                        settings={"random_seed": 5}, progress=False)
    with pytest.raises(ValueError, match=r"levels='crosed' is not one of"):
        embias.calibrate_on_populations(pops, make_kv(VECTORS), design=SMALL_DESIGN,
                                        levels="crosed", progress=False)
    missing = {k: v for k, v in VECTORS.items() if k != "b3"}
    with pytest.raises(embias.MissingWordsError, match="b3"):
        embias.population_answers(pops, make_kv(missing), design=SMALL_DESIGN)
    folder = tmp_path / "pops"
    folder.mkdir()
    (folder / "protected.a.txt").write_text("p1\n")
    (folder / "attributes.a.txt").write_text("a1\n")
    (folder / "atributes.b.txt").write_text("b1\n")
    with pytest.raises(ValueError, match=r"file\(s\) not recognised: 'atributes.b.txt'"):
        embias.load_populations(folder)


def test_populations_read_from_a_folder_equal_the_same_dicts(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    for role in ("protected", "attributes"):
        for cls, words in SMALL[role].items():
            (folder / f"{role}.{cls}.txt").write_text("# source\n" + "\n".join(words) + "\n")
    (folder / "associations.txt").write_text("b b\na a\n")
    (folder / "neutral.txt").write_text("\n".join(SMALL["neutral"]))
    (folder / "human.txt").write_text("\n".join(SMALL["human"]))
    (folder / "README.md").write_text("provenance")
    pops = embias.load_populations(folder)
    assert pops.name == "mine"
    assert list(pops.protected) == ["b", "a"]  # the order of associations.txt
    assert {c: list(w) for c, w in pops.protected.items()} == {"b": ["q1", "q2"],
                                                                "a": ["p1", "p2", "p3"]}
    assert {c: list(w) for c, w in pops.attributes.items()} == SMALL["attributes"]
    assert dict(pops.associations) == {"b": "b", "a": "a"}
    assert list(pops.neutral) == SMALL["neutral"] and list(pops.human) == SMALL["human"]


# --------------------------------------------------------------------------- shipped sets
def test_shipped_population_sets_have_hundreds_of_words_per_class_all_in_glove(glove):
    for name in BUILTIN_POPULATIONS:
        pops = embias.load_populations(name)
        assert {c: len(w) for c, w in pops.protected.items()} == dict.fromkeys(
            pops.protected, 200)
        assert {c: len(w) for c, w in pops.attributes.items()} == dict.fromkeys(
            pops.attributes, 200)
        assert len(pops.neutral) == 1000 and pops.human == ()
        assert dict(pops.associations) == {c: c for c in pops.protected}
        assert (populations_dir() / name / "LICENSE").is_file()
        # every word is in GloVe 6B 50d: the answers need all of them
        truth = embias.population_answers(pops, glove)
        assert list(truth["group"]) == ["associated", "different", "none",
                                        "associated - none", "associated - different",
                                        "different - none"]


def test_the_sentiment_set_is_rebuilt_exactly_from_the_vader_lexicon(tmp_path):
    pytest.importorskip("vaderSentiment")
    run = subprocess.run([sys.executable, str(REPO / "tools" / "build_populations.py"),
                          "--out", str(tmp_path)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    shipped = populations_dir() / "sentiment"
    built = sorted(p.name for p in (tmp_path / "sentiment").iterdir())
    assert built == sorted(p.name for p in shipped.glob("*.txt"))
    for name in built:
        assert (tmp_path / "sentiment" / name).read_bytes() == (shipped / name).read_bytes()


# --------------------------------------------------------------------------- a real run
@pytest.fixture(scope="module")
def sentiment_run(glove):
    """8 studies of the sentiment set at the dataset level, few draws (sampled for real);
    the seed is left to the function (a fresh one, recorded)."""
    return embias.calibrate_on_populations(
        "sentiment", glove, design="protected=3,attributes=3,neutral=20", n_studies=8,
        levels="dataset", settings={"draws": 300, "tune": 300, "sampler": "pymc"},
        progress=False)


@pytest.mark.slow
def test_calibration_rows_hold_every_study_quantity_and_its_population_answer(sentiment_run,
                                                                              glove):
    rows = sentiment_run.results
    assert list(rows.columns) == list(RESULT_COLUMNS)
    assert len(rows) == 8 * 6
    assert sorted(set(rows["study"])) == list(range(8))
    truth = embias.population_answers("sentiment", glove,
                                      design="protected=3,attributes=3,neutral=20")
    pd.testing.assert_frame_equal(sentiment_run.truths, truth)
    expected = dict(zip(truth["group"], truth["truth"], strict=True))
    assert rows["truth"].tolist() == [expected[g] for g in rows["group"]]
    assert rows["covered"].tolist() == [lo <= t <= up for lo, t, up in zip(
        rows["lower"], rows["truth"], rows["upper"], strict=True)]
    np.testing.assert_allclose(rows["width"], rows["upper"] - rows["lower"])
    assert (rows["ci_prob"] == 0.89).all()
    seed = sentiment_run.settings["random_seed"]
    assert rows["random_seed"].tolist() == [derived_seed(seed, str(s), "dataset")
                                            for s in rows["study"]]


@pytest.mark.slow
def test_dataset_level_estimates_are_the_drawn_studies_row_means(sentiment_run, glove):
    # the interval rows come from the drawn studies' own tables: at the dataset level the
    # posterior mean of a connection mean is that connection's mean over the study's rows,
    # up to Monte Carlo error (sd / √ESS, sd ≈ HDI width / (2 × 1.598)) and the priors'
    # pull (prior sd 0.5 against a posterior sd near 0.01: < 1e-3)
    rows = sentiment_run.results
    for i, study in enumerate(sentiment_run.studies):
        table = embias.cosine_table(glove, study, missing="raise")
        means = table.groupby("connection")["cosine_distance"].mean()
        fit = rows[(rows["study"] == i) & (rows["estimand"] == "connection_mean")]
        for r in fit.itertuples():
            mc_error = r.width / (2 * 1.598) / math.sqrt(r.min_ess_bulk)
            assert abs(r.estimate - means[r.group]) <= 5 * mc_error + 1e-3, (i, r.group)


@pytest.mark.slow
def test_calibration_summary_is_coverage_with_its_binomial_se(sentiment_run):
    summary = sentiment_run.summary()
    assert list(summary.columns) == list(SUMMARY_COLUMNS)
    assert summary["quantity"].tolist() == ["associated", "different", "none",
                                            "associated - none", "associated - different",
                                            "different - none"]
    rows = sentiment_run.results
    for r in summary.itertuples():
        mine = rows[rows["group"] == r.quantity]
        p = mine["covered"].mean()
        assert r.coverage == p and r.n_studies == 8 and r.ci_prob == 0.89
        assert r.mc_se == pytest.approx(math.sqrt(p * (1 - p) / 8), abs=1e-15)
        assert r.mean_width == pytest.approx(mine["width"].mean())
        assert r.bias == pytest.approx(mine["estimate"].mean() - r.truth)
    # read back from a CSV, the rows give the same summary
    pd.testing.assert_frame_equal(
        embias.summarize_calibration(pd.read_csv(io.StringIO(rows.to_csv(
            index=False)), keep_default_na=False)), summary)


@pytest.mark.slow
def test_the_seed_is_recorded_and_draws_the_same_studies_again(sentiment_run):
    seed = sentiment_run.settings["random_seed"]
    assert isinstance(seed, int) and seed >= 0
    assert f"random_seed={seed}" in repr(sentiment_run)
    again = embias.draw_population_studies(
        "sentiment", design="protected=3,attributes=3,neutral=20", n_studies=8,
        random_seed=seed)
    for old, new in zip(sentiment_run.studies, again, strict=True):
        assert dict(old.protected) == dict(new.protected)
        assert dict(old.attributes) == dict(new.attributes)
        assert old.neutral == new.neutral and old.human == new.human
    # a slice of the run draws the same studies as the whole
    tail = embias.draw_population_studies(
        "sentiment", design="protected=3,attributes=3,neutral=20", n_studies=3,
        first_study=5, random_seed=seed)
    assert [dict(s.protected) for s in tail] == [dict(s.protected)
                                                 for s in sentiment_run.studies[5:]]
    other = embias.draw_population_studies(
        "sentiment", design="protected=3,attributes=3,neutral=20", n_studies=8,
        random_seed=seed + 1)
    assert [dict(s.protected) for s in other] != [dict(s.protected)
                                                  for s in sentiment_run.studies]


@pytest.mark.slow
def test_plot_calibration_draws_the_summary_coverage_against_the_nominal_line(sentiment_run):
    import matplotlib.pyplot as plt

    summary = sentiment_run.summary()
    fig = embias.plot_calibration(sentiment_run)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == summary["quantity"].tolist()
    (line,) = [c.lines[0] for c in ax.containers]  # one level: one errorbar series
    np.testing.assert_allclose(line.get_ydata(), summary["coverage"])
    dashed = [h for h in ax.lines if h.get_linestyle() == "--"]
    assert [list(h.get_ydata()) for h in dashed] == [[0.89, 0.89]]  # the nominal line
    plt.close(fig)
    plt.close(embias.plot_calibration(summary))
    with pytest.raises(ValueError, match=r"takes a PopulationCalibration or its summary"):
        embias.plot_calibration([1, 2])


# --------------------------------------------------------------------------- CLI
def embias_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "embias", *args], capture_output=True,
                          text=True, timeout=600)


def test_cli_calibrate_help_and_bad_values():
    run = embias_cli("calibrate", "--help")
    assert run.returncode == 0
    assert "POPULATIONS" in run.stdout and "--design" in run.stdout
    run = embias_cli("calibrate", "sentiment", "--design", "protected=2,attributes=0")
    assert run.returncode == 2
    assert "design attributes=0: a design needs at least one attribute word" in run.stderr
    run = embias_cli("calibrate", "sentimnet")
    assert run.returncode == 1
    assert "embias: error: unknown populations 'sentimnet'" in run.stderr


@pytest.mark.slow
def test_cli_calibrate_writes_the_per_study_rows_and_the_plot(tmp_path, glove):
    out, png = tmp_path / "out" / "rows.csv", tmp_path / "plot.png"
    run = embias_cli("calibrate", "names", "--design", "protected=2,attributes=2,neutral=5",
                     "--studies", "2", "--level", "dataset", "--draws", "200", "--tune",
                     "200", "--sampler", "pymc", "--seed", "3", "--out", str(out), "--png",
                     str(png))
    assert run.returncode == 0, run.stderr
    assert "seed 3" in run.stdout and "coverage" in run.stdout
    rows = pd.read_csv(out, keep_default_na=False)
    assert list(rows.columns) == list(RESULT_COLUMNS) and len(rows) == 2 * 6
    assert rows["random_seed"].tolist() == [derived_seed(3, str(s), "dataset")
                                            for s in rows["study"]]
    truth = embias.population_answers("names", glove,
                                      design="protected=2,attributes=2,neutral=5")
    expected = dict(zip(truth["group"], truth["truth"], strict=True))
    np.testing.assert_allclose(rows["truth"], [expected[g] for g in rows["group"]])
    assert png.stat().st_size > 0
