"""What a reader of the audit page sees first: "At a glance" and the connection glossary.

A custom occupations study (two classes, job words, neutral words, no human words) is
fitted on small real KeyedVectors built here — one "biased" embedding whose job words share
a person topic with every protected word and a class direction with their own class, and a
"debiased" copy with the class directions removed from the job words — and the two are
compared with the paired change model (PyMC, dataset level, 2 chains × 200 draws: the page is
checked, not the posterior). The page is parsed with html5lib in strict mode; every number
of "At a glance" is compared with the fit's (or the comparison's) own interval table as the
page prints numbers (:func:`embias.audit.render.number`).
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import html5lib
import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors

import embias
from embias.audit import audit_html, audit_report
from embias.audit.render import number

pytestmark = pytest.mark.xdist_group("audit")

#: The order "At a glance" lists the contrasts in: the within-attribute one first.
ORDER = ["associated - different", "associated - none", "different - none", "human - none"]
SMALL = {"draws": 200, "tune": 200, "chains": 2, "random_seed": 3, "sampler": "pymc",
         "level": "dataset"}

PROTECTED = {"women": ["she", "her", "woman", "girl"], "men": ["he", "him", "man", "boy"]}
JOBS = {"care": ["nurse", "nanny", "maid", "midwife"],
        "build": ["engineer", "mason", "pilot", "welder"]}
NEUTRAL = ["table", "river", "paper", "cloud", "stone", "window"]
HUMAN = ["person", "someone", "people", "individual"]


def occupations(*, human: bool = False) -> embias.Study:
    return embias.Study.from_dicts("occupations", PROTECTED, JOBS, neutral=NEUTRAL,
                                   human=HUMAN if human else (),
                                   associations={"women": "care", "men": "build"})


def embeddings(*, debiased: bool) -> KeyedVectors:
    """20-d vectors: noise, plus a shared person topic (protected, job and human words)
    and a class direction (each class's protected words and its own job words); the
    debiased copy takes 80% of the class direction out of the job words."""
    rng = np.random.default_rng(0)
    people = [w for lists in (PROTECTED, JOBS) for ws in lists.values() for w in ws]
    words = [*people, *NEUTRAL, *HUMAN]
    dim = 20
    person, women, men = rng.normal(size=(3, dim))
    vectors = {w: rng.normal(size=dim) for w in words}
    for w in [*people, *HUMAN]:
        vectors[w] += 2 * person
    for cls, jobs, direction in (("women", "care", women), ("men", "build", men)):
        for w in PROTECTED[cls]:
            vectors[w] += direction
        for w in JOBS[jobs]:
            vectors[w] += (0.2 if debiased else 1.0) * direction
    if debiased:  # another embedding: every vector moves a little
        vectors = {w: v + 0.05 * rng.normal(size=dim) for w, v in vectors.items()}
    kv = KeyedVectors(dim)
    kv.add_vectors(words, np.array([vectors[w] for w in words]))
    return kv


@pytest.fixture(scope="module")
def comparison() -> embias.EmbeddingComparison:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 200 draws: ESS < 400, said on the page
        return embias.compare_embeddings(
            {"biased": embeddings(debiased=False), "debiased": embeddings(debiased=True)},
            occupations(), progress=False, warn=False, **SMALL)


@pytest.fixture(scope="module")
def comparison_page(comparison) -> str:
    return audit_html(occupations(), fits=comparison.fits, comparison=comparison)


@pytest.fixture(scope="module")
def human_fit() -> embias.BiasFit:
    table = embias.cosine_table(embeddings(debiased=False), occupations(human=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return embias.fit_bias_model(table, progress=False, warn=False, **SMALL)


def parse(html: str):
    """The page as an element tree; html5lib's strict parser raises on any parse error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)


def text(element) -> str:
    return "".join(element.itertext()).strip()


def glance_groups(html: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(kind, heading, [(contrast, sentence)]) of every group of "At a glance"."""
    section = parse(html).find(".//section[@id='glance']")
    groups, heading = [], None
    for element in section:
        if element.tag == "h3":
            heading = text(element)
        elif element.tag == "ul" and (element.get("class") or "").startswith("glance-"):
            lines = [(li.get("data-contrast"), text(li)) for li in element.iter("li")]
            groups.append((element.get("class").removeprefix("glance-"), heading, lines))
    return groups


def printed(row: pd.Series) -> str:
    """``estimate [lower, upper]`` as the page prints it."""
    return f"{number(row['estimate'])} [{number(row['lower'])}, {number(row['upper'])}]"


def glossary(html: str) -> list[str]:
    return [text(dt) for dt in parse(html).find(".//dl[@class='connections']").iter("dt")]


# --------------------------------------------------------------------------- contrasts
def test_glance_lists_every_contrast_of_each_fit_within_attribute_first(comparison,
                                                                          comparison_page):
    groups = [g for g in glance_groups(comparison_page) if g[0] == "contrast"]
    assert [heading for _, heading, _ in groups] == ["biased, dataset model",
                                                     "debiased, dataset model"]
    for (_, _, lines), (label, fit) in zip(groups, comparison.fits.items(), strict=True):
        table = fit.to_interval_table()
        contrasts = table[table["estimand"] == "contrast"].set_index("contrast")
        # every contrast the fit has (no human words: three), associated − different first
        assert sorted(contrasts.index) == sorted(ORDER[:3])
        assert [c for c, _ in lines] == ORDER[:3], label
        for contrast, sentence in lines:
            row = contrasts.loc[contrast]
            shown = contrast.replace(" - ", " − ")
            assert f"{shown} = {printed(row)}" in sentence, (label, sentence)
            assert f"P(> 0) = {number(row['prob_gt_0'])}" in sentence
            assert row["rope_decision"] in sentence
    # what each contrast asks, in words
    (_, _, biased), _ = groups
    said = dict(biased)
    assert "tie each protected class more closely to its own attribute words than to the " \
           "other classes' attribute words" in said["associated - different"]
    assert "closer to its protected words than random neutral words" in \
           said["associated - none"]
    assert "topic relatedness" in said["associated - none"]
    assert "topic relatedness alone" in said["different - none"]


def test_the_biased_embeddings_show_a_class_tie_the_debiased_do_not_reach(comparison):
    # the vectors were built so: a guard that the page test reads a real contrast, not 0
    biased = comparison.fits["biased"].to_interval_table().set_index("group")
    debiased = comparison.fits["debiased"].to_interval_table().set_index("group")
    assert biased.loc["associated - different", "upper"] < -0.02
    assert debiased.loc["associated - different", "lower"] > \
           biased.loc["associated - different", "upper"]


def test_a_study_with_human_words_lists_all_four_contrasts_and_glosses_human(human_fit):
    html = audit_html(fits=human_fit)
    ((kind, heading, lines),) = glance_groups(html)
    assert kind == "contrast" and heading.endswith(", dataset model")
    assert [c for c, _ in lines] == ORDER
    table = human_fit.to_interval_table()
    contrasts = table[table["estimand"] == "contrast"].set_index("contrast")
    for contrast, sentence in lines:
        assert printed(contrasts.loc[contrast]) in sentence
    assert "baseline of topic relatedness" in dict(lines)["human - none"]
    assert glossary(html) == ["associated", "different", "none", "human"]
    # one embedding: no change to show
    assert 'class="glance-change"' not in html


# --------------------------------------------------------------------------- glossary
def test_the_glossary_lists_only_the_connections_of_the_study(comparison_page):
    assert glossary(comparison_page) == ["associated", "different", "none"]
    dl = parse(comparison_page).find(".//dl[@class='connections']")
    assert "human" not in text(dl)


# --------------------------------------------------------------------------- changes
def test_a_comparison_page_shows_the_paired_change_of_every_contrast(comparison,
                                                                      comparison_page):
    changes = [g for g in glance_groups(comparison_page) if g[0] == "change"]
    ((_, heading, lines),) = changes
    assert heading == ("Change from biased to debiased (paired change model: debiased − "
                       "biased)")
    table = comparison.to_interval_table()
    rows = table[table["estimand"] == "change_contrast"].set_index("contrast")
    assert sorted(rows.index) == sorted(ORDER[:3])
    assert [c for c, _ in lines] == ORDER[:3]
    for contrast, sentence in lines:
        row = rows.loc[contrast]
        assert sentence.startswith(f"debiased − biased, contrast "
                                   f"{contrast.replace(' - ', ' − ')}: {printed(row)} ")
    # the class directions were mostly taken out of the job words: the within-attribute
    # contrast rose towards 0, and the page says which way the words moved
    within = rows.loc["associated - different"]
    assert within["lower"] > 0.02 and within["rope_decision"] == "credible difference"
    assert ("a credible change (up). In debiased the protected words sit farther from the "
            "stereotype words of their own class, relative to the stereotype words of the "
            "other classes, than in biased.") in dict(lines)["associated - different"]


def test_the_glance_of_a_page_from_the_comparison_csv_shows_the_change(comparison, tmp_path):
    # a table written elsewhere may leave the contrast column empty (NaN when read back):
    # the group names the contrast then
    csv = tmp_path / "compare.csv"
    table = comparison.to_interval_table()
    table.assign(contrast="").to_csv(csv, index=False)
    html = audit_html(occupations(), fits=comparison.fits, comparison=csv)
    ((_, _, lines),) = [g for g in glance_groups(html) if g[0] == "change"]
    rows = table[table["estimand"] == "change_contrast"].set_index("group")
    assert [c for c, _ in lines] == ORDER[:3]
    for contrast, sentence in lines:
        assert printed(rows.loc[contrast]) in sentence


# --------------------------------------------------------------------------- library/CLI
def test_the_audit_package_does_not_import_the_command_line():
    package = Path(embias.__file__).parent
    for path in sorted((package / "audit").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                assert not re.match(r"^(\.\.cli|embias\.cli)\b", module), (path.name, module)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("embias.cli") for a in node.names), path.name


def test_a_models_dir_that_is_a_file_is_refused_before_any_fit(tmp_path):
    models = tmp_path / "models"
    models.write_text("not a folder")
    with pytest.raises(ValueError, match=re.escape(f"models_dir {str(models)!r} is a file, "
                                                   "not a folder")):
        audit_report(occupations(), embeddings={"a": "x.kv", "b": "y.kv"},
                     models_dir=models, out=tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_a_page_that_fits_several_embeddings_saves_their_comparison_and_shows_the_change(
        tmp_path):
    sources = {}
    for label in ("biased", "debiased"):
        path = tmp_path / f"{label}.txt"
        embeddings(debiased=label == "debiased").save_word2vec_format(str(path))
        sources[label] = str(path)
    models = tmp_path / "models" / "new"  # a folder that does not exist yet
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        html = audit_html(occupations(), embeddings=sources,
                          settings=embias.FitSettings(**SMALL), models_dir=models)
    (saved,) = models.glob("compare_*.csv")
    table = pd.read_csv(saved)
    rows = table[table["estimand"] == "change_contrast"].set_index("contrast")
    ((_, heading, lines),) = [g for g in glance_groups(html) if g[0] == "change"]
    assert heading.startswith("Change from biased to debiased")
    assert [c for c, _ in lines] == ORDER[:3]
    for contrast, sentence in lines:
        assert printed(rows.loc[contrast]) in sentence
