"""The audit report in a real browser: headless Chromium (Debian's ``chromium`` package,
``apt-get install chromium``; ``make test`` installs it when it can) loads the page from its
file with no network, and every figure must decode (natural width > 0), the console must
stay free of errors, nothing may be requested but the page itself and its inline data, and
the page must print (PDF, A4, its print style sheet). Skipped, saying so, without Chromium.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from browser import check_in_browser, find_chromium

import embias
from embias.audit import audit_report

pytestmark = [
    pytest.mark.xdist_group("audit"),
    pytest.mark.skipif(find_chromium() is None,
                       reason="Chromium is not installed (Debian/Ubuntu: apt-get install "
                              "chromium; `make test` installs it when run as root)"),
]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # the authors' Reddit religion table, the default (crossed) model, tiny chains: the page is
    # checked, not the posterior
    table = embias.load_published_table("religion", "reddit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = embias.fit_bias_model(table, draws=150, tune=150, chains=2, cores=1,
                                    random_seed=2, sampler="pymc", progress=False,
                                    warn=False)
    out = tmp_path_factory.mktemp("browser") / "religion.html"
    return audit_report("religion", fits={"reddit": fit}, out=out)


def test_chromium_renders_every_figure_without_errors_or_requests(page: Path) -> None:
    seen = check_in_browser(page, pdf=True)
    html = page.read_text(encoding="utf-8")
    assert seen.title == "Audit report: religion"
    assert len(seen.images) == html.count("<img ") == 2  # forest plot, predictive check
    assert seen.broken_images == []
    assert all(i["naturalWidth"] > 400 and i["naturalHeight"] > 200 for i in seen.images)
    assert seen.console_errors == []
    assert seen.requests[0] == page.resolve().as_uri()
    assert all(url.startswith("data:") for url in seen.requests[1:]), seen.requests
    assert seen.page_height > 3000  # laid out, not an empty or failed page
    assert seen.pdf is not None and seen.pdf.startswith(b"%PDF")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", seen.pdf))
    assert pages >= 4  # measured, Bayesian fit, trust and reproduce start new pages


def test_the_checker_sees_broken_figures_console_errors_and_requests(tmp_path: Path) -> None:
    # the same checks on a page that breaks each rule, so a clean result above means
    # something
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><head><title>bad</title></head><body>"
                   "<img alt='truncated' src='data:image/png;base64,iVBORw0KGgo='>"
                   "<img alt='elsewhere' src='https://example.org/figure.png'>"
                   "<script>console.error('boom')</script></body></html>", encoding="utf-8")
    seen = check_in_browser(bad)
    assert seen.broken_images == ["truncated", "elsewhere"]
    assert "console: boom" in seen.console_errors
    assert "https://example.org/figure.png" in seen.requests
