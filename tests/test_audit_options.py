"""The audit page's content choices as one object (embias.audit.AuditOptions).

The same page is built from keywords and from an options object; a keyword that disagrees
with the object is refused by name; audit_report returns the page's path and audit_html the
page as a string (the old return_html=True pair still works, with a FutureWarning).

One small real fit (PyMC, dataset level, 20 of the neutral words of the authors' Reddit
table, 1 chain × 100 draws: the page is checked, not the posterior) is shared by the module.
"""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

import embias
from embias.audit import AuditOptions, audit_html, audit_report
from embias.audit.options import FROM_OPTIONS, options_from_keywords

#: Content choices that all differ from the defaults.
CHOICES = {"ci_prob": 0.95, "ci_kind": "eti", "rope": 0.05, "figures": "png",
           "random_seed": 3, "title": "Religion on Reddit", "command": "make page"}


@pytest.fixture(scope="module")
def fit() -> embias.BiasFit:
    table = embias.load_published_table("religion", "reddit")
    neutral = table.loc[table["connection"] == "none", "word_to_compare"].unique()[:20]
    table = table[(table["connection"] != "none") | table["word_to_compare"].isin(neutral)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 100 draws: the convergence checks fail, on the page
        return embias.fit_bias_model(table, level="dataset", draws=100, tune=100, chains=1,
                                     sampler="pymc", random_seed=1, progress=False)


def without_time(html: str) -> str:
    """The page without the minute it was made."""
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", html)


def test_page_from_keywords_equals_page_from_options(fit, tmp_path):
    out = tmp_path / "page.html"
    path = audit_report(fits={"reddit": fit}, out=out, **CHOICES)
    from_keywords = out.read_text(encoding="utf-8")
    out.unlink()
    path_again = audit_report(fits={"reddit": fit}, out=out, options=AuditOptions(**CHOICES))
    from_options = out.read_text(encoding="utf-8")
    assert path == path_again == out
    assert without_time(from_keywords) == without_time(from_options)
    # the choices are on the page: the title, the intervals, the ROPE, PNG figures, the seed
    assert "<title>Religion on Reddit</title>" in from_options
    assert "95% ETI" in from_options and "ROPE ±0.05" in from_options
    images = re.findall(r'<img [^>]*src="([^"]{0,22})', from_options)
    assert images == ["data:image/png;base64,"] * 2
    assert "posterior predictive draws: random_seed=3" in from_options
    assert "make page" in from_options
    # and differ from the default page
    default = without_time(audit_html(fits={"reddit": fit}))
    assert "89% HDI" in default and "95% ETI" not in default


def test_page_as_a_string_equals_the_page_written(fit, tmp_path):
    out = tmp_path / "page.html"
    options = AuditOptions(rope=0.05, title="T")
    audit_report(fits={"reddit": fit}, out=out, options=options)
    html = audit_html(fits={"reddit": fit}, options=options)
    # the two differ only in the page named by the Python call that rebuilds it
    written = out.read_text(encoding="utf-8").replace(f"&#39;{out}&#39;",
                                                      "&#39;report.html&#39;")
    assert written != out.read_text(encoding="utf-8")
    assert without_time(written) == without_time(html)


def test_keyword_that_disagrees_with_the_options_is_refused_by_name(fit, tmp_path):
    out = tmp_path / "page.html"
    options = AuditOptions(rope=0.05, ci_kind="eti")
    with pytest.raises(ValueError, match=r"^audit_report\(\) got options= and rope=0\.02, "
                                         r"which disagrees with options\.rope=0\.05; give rope "
                                         r"in one place$"):
        audit_report(fits=fit, out=out, options=options, rope=0.02)
    with pytest.raises(ValueError, match=r"ci_kind='hdi', which disagrees with "
                                         r"options\.ci_kind='eti'"):
        audit_report(fits=fit, out=out, options=options, ci_kind="hdi")
    table = pd.DataFrame({"a": [1]})
    with pytest.raises(ValueError, match=r"got options= and seat='DataFrame', which disagrees "
                                         r"with options\.seat=None"):
        audit_report(fits=fit, out=out, options=options, seat=table)
    assert not out.exists()
    # a keyword that agrees with the options is no conflict; None means "not given"
    audit_report(fits=fit, out=out, options=options, rope=0.05, title=None)
    assert "ROPE ±0.05" in out.read_text(encoding="utf-8")


def test_options_are_checked_when_made():
    with pytest.raises(ValueError, match=r"ci_prob must be .*got 1\.5"):
        AuditOptions(ci_prob=1.5)
    with pytest.raises(ValueError, match=r"ci_kind='hpd' is not one of \['hdi', 'eti'\]"):
        AuditOptions(ci_kind="hpd")
    with pytest.raises(ValueError, match=r"figures='pdf' is not one of \['svg', 'png'\]"):
        AuditOptions(figures="pdf")
    with pytest.raises(ValueError, match=r"rope must be a non-negative half-width, got -0\.1"):
        AuditOptions(rope=-0.1)
    with pytest.raises(ValueError, match=r"random_seed must be a non-negative integer"):
        AuditOptions(random_seed=-1)
    with pytest.raises(ValueError, match=r"encoder='bert' is not a known sentence encoder"):
        AuditOptions(encoder="bert")
    with pytest.raises(ValueError, match=r"give either encoder= .* or seat="):
        AuditOptions(encoder="minilm", seat=pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match=r"options must be an AuditOptions, got dict"):
        options_from_keywords({"rope": 0.05}, {})  # type: ignore[arg-type]


def test_keywords_left_out_take_the_options_values():
    options = AuditOptions(rope=0.05, random_seed=7)
    assert options_from_keywords(options, {"rope": FROM_OPTIONS, "ci_prob": None}) is options
    built = options_from_keywords(None, {"rope": 0.05, "ci_prob": None, "figures": "png"})
    assert (built.rope, built.ci_prob, built.figures) == (0.05, 0.89, "png")
    # random_seed=None asks for a fresh seed (recorded), as before
    fresh = options_from_keywords(None, {"random_seed": None})
    assert isinstance(fresh.random_seed, int) and fresh.random_seed >= 0


def test_audit_report_needs_out_and_return_html_is_deprecated(fit, tmp_path):
    with pytest.raises(ValueError, match=r"audit_report\(\) needs out= .*call "
                                         r"embias\.audit\.audit_html\(\)"):
        audit_report(fits=fit)
    out = tmp_path / "page.html"
    with pytest.warns(FutureWarning, match=r"audit_report\(return_html=True\) is deprecated.*"
                                           r"removed in embias 0\.5"):
        path, html = audit_report(fits=fit, out=out, return_html=True)
    assert path == out and out.read_text(encoding="utf-8") == html
    with pytest.warns(FutureWarning):
        none, page = audit_report(fits=fit, return_html=True)
    assert none is None
    assert without_time(page) == without_time(audit_html(fits=fit))
