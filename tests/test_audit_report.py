"""The audit report: one self-contained HTML page per study.

One real religion/GloVe fit (PyMC, 2 chains × 300 draws: the page is checked, not the
posterior) is saved once per module; every page below is built from it (or from a small
comparison of the authors' Reddit tables) without refitting. The page is parsed with
html5lib in strict mode, its numbers are read back from its HTML tables and compared with
the fit's own interval table to the printed precision (3 decimals: |page − fit| ≤ 0.0005).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import warnings
from pathlib import Path

import html5lib
import numpy as np
import pandas as pd
import pytest

import embias
from embias.audit import AuditOptions, audit_html, audit_report
from embias.audit.content import table_weat_tests
from embias.audit.render import number
from embias.cli import main

pytestmark = pytest.mark.xdist_group("audit")

#: Every section of the page, in the reader's order.
SECTIONS = ("glance", "measured", "classic", "bayes", "trust", "words", "across", "reproduce")
#: Printed precision of the page's numbers.
HALF_LAST_DIGIT = 0.0005 + 1e-12
SMALL = {"draws": 300, "tune": 300, "chains": 2, "random_seed": 11, "sampler": "pymc",
         "level": "hierarchical"}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def fit(models: Path) -> embias.BiasFit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 300 draws: ESS < 400, said on the page
        return embias.fit_study_model("religion", models_dir=models, progress=False,
                                      **SMALL)


@pytest.fixture(scope="module")
def page(fit: embias.BiasFit, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("page") / "religion.html"
    path = audit_report("religion", fits=fit.path, out=out)
    assert path == out
    return out, out.read_text(encoding="utf-8")


def parse(html: str):
    """The page as an element tree; html5lib's strict parser raises on any parse error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)


def text(element) -> str:
    return "".join(element.itertext()).strip()


def read_table(doc, table_id: str) -> pd.DataFrame:
    """An HTML table of the page as text cells, headed by its header row."""
    table = doc.find(f".//table[@id='{table_id}']")
    assert table is not None, f"no table {table_id!r} on the page"
    headers = [text(th) for th in table.find("thead").iter("th")]
    rows = [[text(td) for td in tr.iter("td")] for tr in table.find("tbody").iter("tr")]
    return pd.DataFrame(rows, columns=headers)


def as_number(cell: str) -> float:
    return float(cell) if cell else np.nan


# --------------------------------------------------------------------------- the page
def test_page_is_html5_with_every_section_in_order_and_nothing_external(page):
    _, html = page
    doc = parse(html)
    ids = [s.get("id") for s in doc.iter("section")]
    assert ids == list(SECTIONS)
    assert text(doc.find(".//title")) == "Audit report: religion"
    # self-contained: no script, no link, every reference is inline data or an anchor
    assert doc.find(".//script") is None and doc.find(".//link") is None
    for element in doc.iter():
        for name in ("src", "href", "srcset", "action", "data", "poster"):
            value = element.get(name)
            if value is not None:
                assert value.startswith(("data:", "#")), (element.tag, name, value[:60])
    style = "".join(text(s) for s in doc.iter("style"))
    assert "@import" not in style and "url(" not in style
    assert not re.search(r"(?i)\b(https?:|ftp:)//|(?<![:\w])//[\w.-]+\.\w", html.replace(
        "data:image", "")), "an external URL on the page"
    # figures: inlined SVG with alt text
    images = list(doc.iter("img"))
    assert len(images) == 2 and all(i.get("src").startswith("data:image/svg+xml;base64,")
                                    for i in images)
    assert all(len(i.get("alt")) > 20 for i in images)
    # real tables, and every part computed elsewhere says it is not computed
    assert len(list(doc.iter("table"))) >= 10
    missing = [text(p) for p in doc.iter("div") if p.get("class") == "not-computed"]
    assert any("SEAT" in m or "sentence" in m for m in missing)
    assert any("word-influence" in m for m in missing)
    assert any("Item-resampling" in m for m in missing) or "item bootstrap" in html


def test_page_numbers_equal_the_fits_interval_table(page, fit):
    _, html = page
    doc = parse(html)
    expected = fit.to_interval_table()
    top = expected[expected["estimand"].isin(["connection_mean", "contrast"])]
    shown = read_table(doc, "intervals-glove-6b-50d-hierarchical")
    assert list(shown["estimand"]) == list(top["estimand"])
    assert list(shown["group"]) == list(top["group"])
    for column, header in (("estimate", "estimate"), ("lower", "lower"), ("upper", "upper"),
                           ("prob_gt_0", "P(> 0)"), ("prob_in_rope", "P(in ROPE)")):
        page_values = shown[header].map(as_number).to_numpy()
        np.testing.assert_allclose(page_values, top[column].to_numpy(), rtol=0,
                                   atol=HALF_LAST_DIGIT, err_msg=column)
    assert list(shown["decision"]) == list(top["rope_decision"].fillna(""))
    assert set(shown["interval"]) == {"89% HDI"}
    # every word coefficient, read back from the "estimate [lower, upper]" cells
    words = read_table(doc, "words-glove-6b-50d-hierarchical")
    coef = expected[expected["estimand"] == "word_coefficient"]
    assert len(words) == coef["protected_word"].nunique() == 15
    for _, row in coef.iterrows():
        cell = words.loc[words["protected word"] == row["protected_word"],
                         row["connection"]].item()
        numbers = [float(x) for x in re.findall(r"-?\d+\.\d+", cell)]
        np.testing.assert_allclose(numbers, row[["estimate", "lower", "upper"]].astype(float),
                                   atol=HALF_LAST_DIGIT)
    # the diagnostics and the classic MAC are the fit's own
    checks = read_table(doc, "diagnostics-glove-6b-50d-hierarchical")
    overview = fit.diagnostics_overview().iloc[0]
    assert float(checks.loc[0, "value"]) == pytest.approx(overview["max_r_hat"],
                                                         abs=HALF_LAST_DIGIT)
    assert int(checks.loc[3, "value"]) == overview["divergences"]
    mac = read_table(doc, "mac")
    classic = fit.classic[fit.classic["estimand"] == "mac"]
    np.testing.assert_allclose(mac["MAC"].astype(float), classic["estimate"],
                               atol=HALF_LAST_DIGIT)
    # the contrasts in words carry the same numbers and decisions
    sentences = [text(li) for ul in doc.iter("ul") if ul.get("class") == "sentences"
                 for li in ul.iter("li")]
    for (_, row), sentence in zip(top[top["estimand"] == "contrast"].iterrows(), sentences,
                                  strict=False):
        shown = [number(row[c]) for c in ("estimate", "lower", "upper")]
        assert f"{shown[0]} [{shown[1]}, {shown[2]}]" in sentence
        assert row["rope_decision"] in sentence


def test_weat_from_the_table_equals_weat_on_the_embeddings(fit, glove):
    # independent path: weat_pairs reads the word vectors, the page the fitted table's
    # similarities; the permutation test is exact (C(10, 5) = 252 partitions)
    from_table = table_weat_tests(fit.table, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'literaly' is not in GloVe (neutral list only)
        on_vectors = embias.weat_pairs(glove, "religion", random_seed=0)
    assert list(from_table["group"]) == list(on_vectors["group"]) == [
        "christian vs jewish", "christian vs muslim", "jewish vs muslim"]
    np.testing.assert_allclose(from_table["estimate"], on_vectors["estimate"], atol=1e-12)
    np.testing.assert_allclose(from_table["p_value"], on_vectors["p_value"], atol=1e-15)
    assert (from_table["n_permutations"] == 252).all() and from_table["exact"].all()
    counts = from_table["p_value"] * 252  # exact p-values are counts of partitions / 252
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    # and the effect sizes are those of the fit's classic scores
    weat = fit.classic[fit.classic["estimand"] == "weat_effect_size"]
    np.testing.assert_allclose(from_table["estimate"], weat["estimate"], atol=1e-12)


def test_page_rebuilds_from_the_saved_fit_without_refitting(page, fit, tmp_path, monkeypatch,
                                                            capsys):
    _, html = page
    import embias.bayes.fit as fitting

    def no_sampling(*args, **kwargs):
        raise AssertionError("the report sampled")

    monkeypatch.setattr(fitting, "sample_posterior", no_sampling)
    # the figures drawn for the first page are kept with the fit and reused
    kept = sorted(p.name.split("-")[0] for p in (Path(fit.path) / "report-cache").iterdir())
    assert kept == ["forest", "ppc"]
    import embias.plots

    for name in ("plot_bias_fit", "plot_predictive_check"):
        monkeypatch.setattr(embias.plots, name, no_sampling)
    # the page's own rebuild command, run as it is printed (with another output file)
    doc = parse(html)
    reproduce = doc.find(".//section[@id='reproduce']")
    commands = [text(code) for code in reproduce.iter("code") if text(code).startswith(
        "embias report")]
    rebuild = shlex.split(commands[0])
    assert rebuild[:4] == ["embias", "report", "religion", "--fits"]
    assert rebuild[4] == fit.path and rebuild[-2] == "--out"
    again = tmp_path / "again.html"
    assert main([*rebuild[1:-1], str(again)]) == 0
    assert capsys.readouterr().out.strip() == f"audit report: {again} (report seed 0)"

    def stable(page_html: str) -> str:  # the same page but for the time it was made
        page_html = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", page_html)
        return page_html.replace(str(again), "OUT")

    first = stable(html.replace(rebuild[-1], str(again)))
    made = stable(again.read_text(encoding="utf-8"))
    # made by the rebuild command itself, the page says so in one line
    said = ("This page was made from the saved fits (nothing was refitted), and is rebuilt, "
            "by:")
    assert said in made
    assert made.replace(said, "Rebuild it from the saved fits (nothing is refitted):") == first
    # a folder of saved fits works as well: the fits of the study in it
    from embias.audit.sources import collect_fits

    (entry,) = collect_fits(Path(fit.path).parent, study="religion", embeddings=None,
                            levels=None)
    assert entry.fit.path == fit.path and entry.label == "glove-6b-50d"
    (entry,) = collect_fits(Path(fit.path).parent, study="religion",
                            embeddings={"glove": "glove-6b-50d"}, levels=["hierarchical"])
    assert entry.label == "glove" and entry.anchor == "glove-hierarchical"


def test_a_folder_of_fits_ignores_a_save_in_progress(fit, tmp_path):
    # a save writes a hidden ".NAME.tmp" sibling (and swaps the old fit aside as
    # ".NAME.old-…"): while it exists it holds a settings.json, but it is not a fit
    from embias.audit.sources import collect_fits

    folder = tmp_path / "models"
    shutil.copytree(fit.path, folder / Path(fit.path).name)
    shutil.copytree(fit.path, folder / f".{Path(fit.path).name}.tmp")
    (entry,) = collect_fits(folder, study="religion", embeddings=None, levels=None)
    assert Path(entry.fit.path) == folder / Path(fit.path).name


def test_report_that_fits_reuses_the_identical_saved_fit(fit, models, tmp_path,
                                                         monkeypatch, capsys):
    import embias.bayes.fit as fitting

    def no_sampling(*args, **kwargs):
        raise AssertionError("the report sampled")

    monkeypatch.setattr(fitting, "sample_posterior", no_sampling)
    out = tmp_path / "fitted.html"
    argv = ["report", "religion", "--draws", "300", "--tune", "300", "--chains", "2",
            "--seed", "11", "--sampler", "pymc", "--level", "hierarchical", "--models",
            str(models), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == f"audit report: {out} (report seed 0)"
    reproduce = parse(out.read_text(encoding="utf-8")).find(".//section[@id='reproduce']")
    commands = [text(code) for code in reproduce.iter("code")]
    # the command as given (options in the parser's order; --chains 2 is the default),
    # then the rebuild from the saved fit
    assert commands[0] == ("embias report religion --level hierarchical --draws 300 --tune "
                           f"300 --sampler pymc --seed 11 --models {models} --out {out} "
                           "--no-progress")
    assert commands[1] == f"embias report religion --fits {fit.path} --out {out}"


def test_several_levels_and_parts_computed_elsewhere(fit, monkeypatch):
    # a second "level" of the same table (the same posterior relabelled): the levels of one
    # embedding go to embias.compare_models (PSIS-LOO, tested with the models; replaced here
    # by a stand-in that records its input: the LOO of 4815 rows × 600 draws costs ~10 s)
    coarse = fit.replace(settings={**fit.settings, "level": "word"}, path=None)
    import embias.bayes.loo

    called = []

    def compare_models(fits, *, by, progress):
        called.append((dict(fits), by, progress))
        return pd.DataFrame({"model": list(fits), "rank": [0, 1], "elpd": [2100.0, 2100.0],
                             "elpd_diff": [0.0, 0.0]})

    monkeypatch.setattr(embias.bayes.loo, "compare_models", compare_models)
    influence = pd.DataFrame({"word": ["greedy", "terrorist"], "influence": [0.031, -0.012]})
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    html = audit_html(fits=[fit, coarse],
                      options=AuditOptions(word_influence=influence, seat=figure,
                                           figures="png"))
    doc = parse(html)
    ((given, by, progress),) = called
    assert given == {"word": coarse, "hierarchical": fit} and by == "row"
    assert progress is False  # audit_html's default: the page shows no bars
    compared = read_table(doc, "model-comparison-0")
    assert compared["model"].tolist() == ["word", "hierarchical"]
    assert set(compared["embedding"]) == {"glove-6b-50d"}
    assert compared["elpd_diff"].tolist() == ["0.000", "0.000"]
    shown = read_table(doc, "word-influence-0")
    assert list(shown["word"]) == ["greedy", "terrorist"]
    assert list(shown["influence"]) == ["0.031", "-0.012"]
    images = [i.get("src") for i in doc.iter("img")]
    assert len(images) == 5 and all(i.startswith("data:image/png;base64,") for i in images)
    assert "fit-glove-6b-50d-word" in html and "fit-glove-6b-50d-hierarchical" in html
    # an unsaved fit: the page says so instead of a rebuild command
    assert "Not saved: glove-6b-50d/word" in html
    assert "embias report religion --fits" not in html


@pytest.mark.slow
def test_the_comparison_across_embeddings(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = embias.compare_embeddings(
            {"reddit": "published:reddit", "hard": "published:reddit-debiased"}, "religion",
            draws=200, tune=200, chains=2, cores=1, random_seed=3, sampler="pymc",
            level="dataset", progress=False, warn=False)
    expected = comparison.change_summary()
    bayes = expected["estimand"].str.startswith("change_").to_numpy()

    def check(html: str) -> None:
        doc = parse(html)
        shown = read_table(doc, "changes")
        assert list(shown["estimand"]) == list(expected["estimand"])
        assert list(shown["group"]) == list(expected["group"])
        for column in ("estimate", "lower", "upper"):
            np.testing.assert_allclose(shown[column].map(as_number), expected[column],
                                       atol=HALF_LAST_DIGIT)
        assert list(shown["decision"][bayes]) == list(expected.loc[bayes, "rope_decision"])
        assert len(list(doc.iter("img"))) == 2 * 2 + 1  # forest + PPC per fit, comparison

    # the comparison's own fits, saved, and the comparison: one page
    saved = {label: embias.save_fit(f, tmp_path / label) for label, f in comparison.fits.items()}
    html = audit_html("religion", fits=saved, comparison=comparison)
    check(html)
    assert "Convergence of the comparison&#39;s fits" in html
    # the table `embias compare` saves gives the same change table, and the page built from
    # it rebuilds from it
    csv = tmp_path / "compare.csv"
    comparison.to_interval_table().to_csv(csv, index=False)
    from embias.audit.content import across_section
    from embias.audit.render import environment
    from embias.audit.sources import read_comparison

    part = across_section(read_comparison(csv, ci_prob=0.89, ci_kind="hdi", rope=0.02),
                          labels=list(saved), fmt="svg")
    macros = environment().get_template("macros.html.j2").module
    check(f"<!DOCTYPE html><html><head><title>t</title></head><body>"
          f"{macros.table(part['table'])}{macros.picture(part['figure'])}"
          + "<img alt='a' src='data:,'>" * 4 + "</body></html>")
    from embias.audit.rebuild import rebuild_command as _rebuild_command
    from embias.audit.sources import collect_fits

    entries = collect_fits(saved, study="religion", embeddings=None, levels=None)
    command = _rebuild_command("religion", entries, out=None, comparison_path=str(csv),
                               files={}, ci_prob=0.89, ci_kind="hdi", rope=0.02,
                               figures="svg", random_seed=0)
    assert command.startswith(f"embias report religion --fits {tmp_path / 'reddit'} --fits ")
    assert f"--comparison {csv} --out report.html" in command


def test_compared_words_that_move_their_rows(fit):
    # the crossed level's rows (compared_word_effect, compared_word_sd) added by hand to a
    # copy of the fit's interval table: every attribute word, then the 5 control words of
    # each kind with the largest |u|, largest first
    from embias.audit.content import word_effect_tables
    from embias.audit.sources import FitEntry
    from embias.report import interval_table

    words = {"greedy": ("attribute", 0.05), "terrorist": ("attribute", -0.20),
             **{f"n{i}": ("neutral", (-1) ** i * i / 100) for i in range(1, 9)},
             "h1": ("human", 0.01)}
    rows = [{"estimand": "compared_word_effect", "group": w, "estimate": u,
             "lower": u - 0.01, "upper": u + 0.01, "word_kind": kind}
            for w, (kind, u) in words.items()]
    rows.append({"estimand": "compared_word_sd", "group": "neutral", "estimate": 0.1,
                 "lower": 0.09, "upper": 0.11, "word_kind": "neutral"})
    crossed = fit.replace(settings={**fit.settings, "level": "crossed"}, path=None)
    table = pd.concat([fit.to_interval_table(), interval_table(rows, ci_prob=0.89,
                                                              ci_kind="hdi")],
                      ignore_index=True)
    crossed.restore_post_processing(interval_table=table)
    (shown,) = word_effect_tables([FitEntry("glove", crossed)], ci_prob=0.89, ci_kind="hdi",
                                  rope=0.02)
    assert [r[0].text for r in shown.rows] == ["terrorist", "greedy", "n8", "n7", "n6",
                                               "n5", "n4", "h1"]
    assert [r[2].text for r in shown.rows][:3] == ["-0.200", "0.050", "0.080"]


def test_seat_with_the_offline_encoder(fit):
    pytest.importorskip("onnxruntime", reason="SEAT needs the 'sentence' extra")
    from embias.encoders import default_encoder
    from embias.sentences import seat_test

    html = audit_html(fits=fit, options=AuditOptions(encoder="minilm"))
    shown = read_table(parse(html), "seat")
    study = embias.load_study("religion")
    assert list(shown["X vs Y (classes)"]) == ["christian vs jewish", "christian vs muslim",
                                               "jewish vs muslim"]
    for (_, row), (cx, cy) in zip(shown.iterrows(), [("christian", "jewish"),
                                                     ("christian", "muslim"),
                                                     ("jewish", "muslim")], strict=True):
        pair = study.replace(name=f"{cx} vs {cy}",
                             protected={c: study.protected[c] for c in (cx, cy)},
                             associations={c: study.associations[c] for c in (cx, cy)})
        result = seat_test(pair, default_encoder(), random_seed=0)
        assert float(row["effect size d"]) == pytest.approx(result.effect_size,
                                                            abs=HALF_LAST_DIGIT)
        assert float(row["p-value (two-sided)"]) == pytest.approx(result.p_value,
                                                                  rel=0.005)
        lower, upper = result.interval(0.89)
        assert float(row["lower"]) == pytest.approx(lower, abs=HALF_LAST_DIGIT)
        assert float(row["upper"]) == pytest.approx(upper, abs=HALF_LAST_DIGIT)
    assert "embias report religion --fits" in html and "--encoder minilm" in html


# --------------------------------------------------------------------------- bad input
def test_a_page_is_written_into_a_missing_folder(fit, tmp_path):
    out = tmp_path / "missing" / "deeper" / "r.html"
    path = audit_report("religion", fits=fit, out=out)
    assert path == out
    page = out.read_text(encoding="utf-8")  # the whole page, valid HTML
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert text(parse(page).find(".//title")) == "Audit report: religion"


def test_bad_input_is_one_clear_error_naming_it(fit, tmp_path, capsys):
    folder = Path(fit.path)
    out = tmp_path / "r.html"
    # a saved-fit folder that is missing: load_fit's error, naming it
    with pytest.raises(FileNotFoundError, match=re.escape(repr(str(tmp_path / "nope")))):
        audit_report("religion", fits=tmp_path / "nope", out=out)
    # from an older format
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    record = json.loads((old / "settings.json").read_text())
    (old / "settings.json").write_text(json.dumps({**record, "format": 1}))
    with pytest.raises(ValueError, match=r"saved fit '.*old': settings.json says fit format 1; "
                                         r"this embias reads format \d"):
        audit_report("religion", fits=old, out=out)
    # unreadable: settings.json and posterior.nc truncated (load_fit's error today)
    broken = tmp_path / "broken"
    shutil.copytree(folder, broken)
    (broken / "settings.json").write_text(record and "{\"format\": 2, \"sett")
    with pytest.raises(ValueError):
        audit_report("religion", fits=broken, out=out)
    truncated = tmp_path / "truncated"
    shutil.copytree(folder, truncated)
    data = (truncated / "posterior.nc").read_bytes()
    (truncated / "posterior.nc").write_bytes(data[: len(data) // 3])
    with pytest.raises((OSError, ValueError)):
        audit_report("religion", fits=truncated, out=out)
    assert not out.exists()
    # an output path that cannot be written, or not a page (a missing folder is created,
    # as for every embias output: test_a_page_is_written_into_a_missing_folder)
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ValueError, match=r"out '.*a-file/r.html': '.*a-file' is a file, not "
                                         r"a folder"):
        audit_report("religion", fits=fit, out=tmp_path / "a-file" / "r.html")
    with pytest.raises(ValueError, match=r"give a \.html file name"):
        audit_report("religion", fits=fit, out=tmp_path / "r.pdf")
    # a study with no fitted level among the fits given
    with pytest.raises(ValueError, match=r"study 'race' has no fitted level in '.*'; the "
                                         r"saved fits there are religion/glove-6b-50d/"
                                         r"hierarchical; fit it first: embias fit race"):
        audit_report("race", fits=folder.parent, out=out)
    with pytest.raises(ValueError, match=r"study 'religion' has no fitted level \(level "
                                         r"word\)"):
        audit_report("religion", fits=folder.parent, levels="word", out=out)
    with pytest.raises(ValueError, match=r"is a fit of study 'religion', not 'race'"):
        audit_report("race", fits=folder, out=out)
    with pytest.raises(ValueError, match=r"two fits of glove-6b-50d at level 'hierarchical'"):
        audit_report(fits=[folder, fit], out=out)
    with pytest.raises(ValueError, match=r"encoder='bert' is not a known sentence encoder; "
                                         r"known: \['all-minilm-l6-v2', 'minilm'\]"):
        audit_report(fits=fit, encoder="bert", out=out)
    with pytest.raises(ValueError, match=r"give either encoder= .* or seat="):
        audit_report(fits=fit, encoder="minilm", seat=pd.DataFrame({"a": [1]}), out=out)
    assert not out.exists()
    # on the command line: one line on stderr, exit 1, nothing written
    for argv, message in (
            (["report", "religion", "--fits", str(tmp_path / "nope")], "no such folder"),
            (["report", "religion", "--fits", str(old)], "settings.json says fit format 1"),
            (["report", "race", "--fits", str(folder.parent)],
             "study 'race' has no fitted level"),
            (["report", "religion", "--fits", str(folder), "--draws", "10"],
             "--draws: options for fitting, but --fits builds the page from saved fits")):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert err.startswith("embias: error: ") and message in err, (argv, err)
        assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_page_that_draws_its_figures_forks_no_process(fit, tmp_path):
    """The first page of a saved fit draws its figures (none kept yet) in the caller's
    process, which may run other threads (a notebook's kernel, JAX): nothing is forked,
    and the page has both figures."""
    import subprocess
    import sys

    copy = Path(shutil.copytree(fit.path, tmp_path / "fit"))
    shutil.rmtree(copy / "report-cache", ignore_errors=True)  # figures to draw
    out = tmp_path / "page.html"
    script = ("import os, threading\n"
              "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
              "os.register_at_fork(before=lambda: print('FORK', flush=True))\n"
              "from embias.audit import audit_report\n"
              f"audit_report('religion', fits={str(copy)!r}, out={str(out)!r})\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "FORK" not in run.stdout
    assert out.read_text(encoding="utf-8").count("data:image/svg+xml;base64,") == 2
    kept = sorted(p.name.split("-")[0] for p in (copy / "report-cache").iterdir())
    assert kept == ["forest", "ppc"]
