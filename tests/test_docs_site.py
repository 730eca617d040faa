"""The documentation site builds and works: ``sphinx-build -W -n`` (as ``make docs``) into a
temporary folder, then every internal link of every page must resolve (file and anchor),
every image must decode, every public name must have its API page, the benchmark tables must
carry the numbers of the results files they are generated from, and headless Chromium must
load the home page, a user-guide page, the API page of ``fit_bias_model`` and a gallery
notebook with no console error, no broken image and no request to any host.

The build is shared by the module (one ``sphinx-build`` subprocess, the slow part). Chromium
is Debian's ``chromium`` (``apt-get install chromium``; ``make test`` installs it when it
can); without it the browser test is skipped and says why. ``EMBIAS_DOCS_SHOTS=DIR`` keeps
screenshots of the home page and the API page there.
"""

from __future__ import annotations

import gzip
import html
import html.parser
import json
import math
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from browser import check_in_browser, find_chromium

import embias

# one build per test session: the build writes its generated sources into docs/ (api/,
# _generated/), so two xdist workers must not build at once
pytestmark = pytest.mark.xdist_group("docs_site")

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RESULTS = ROOT / "benchmarks" / "results"


# ----------------------------------------------------------------------------- the checker
class _Page(html.parser.HTMLParser):
    """The ids a page defines and the links and images it uses."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v for k, v in attrs if v is not None}
        for key in ("id", "name") if tag == "a" else ("id",):
            if key in a:
                self.ids.add(a[key])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "link" and "href" in a and a.get("rel") != "preconnect":
            self.links.append(a["href"])
        elif tag == "script" and "src" in a:
            self.links.append(a["src"])
        elif tag == "img" and "src" in a:
            self.images.append(a["src"])
            self.links.append(a["src"])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> tuple[list[str], int]:
    """Every internal link of the site that misses its file or its anchor, and the count."""
    # the site's pages (the theme's _static/ holds HTML templates, not pages)
    pages = {p: _parse(p) for p in site.rglob("*.html")
             if p.relative_to(site).parts[0] != "_static"}
    broken, checked = [], 0
    for page, parsed in pages.items():
        for href in parsed.links:
            url = urllib.parse.urlsplit(href)
            if url.scheme or url.netloc or href.startswith(("mailto:", "data:", "javascript:")):
                continue
            target = (page.parent / urllib.parse.unquote(url.path)).resolve() if url.path \
                else page
            checked += 1
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {href} (no file)")
                continue
            if url.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if urllib.parse.unquote(url.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {href} (no anchor)")
    return broken, checked


def undecodable_images(site: Path) -> tuple[list[str], int]:
    """Every image file of the site that does not decode, and the count."""
    from xml.etree import ElementTree

    from PIL import Image

    bad, count = [], 0
    for path in site.rglob("*"):
        suffix = path.suffix.lower()
        if suffix in {".png", ".jpg", ".jpeg", ".gif", ".webp"}:
            count += 1
            try:
                with Image.open(path) as image:
                    image.load()
                    assert image.width > 0 and image.height > 0
            except Exception as exc:  # any failure to decode is the finding
                bad.append(f"{path.relative_to(site)}: {exc}")
        elif suffix == ".svg":
            count += 1
            try:
                ElementTree.parse(path)
            except ElementTree.ParseError as exc:
                bad.append(f"{path.relative_to(site)}: {exc}")
    return bad, count


def test_the_checker_finds_a_missing_file_a_missing_anchor_and_a_broken_image(tmp_path):
    # a tiny site that breaks each rule once, so a clean result on the real site means
    # something
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(
        '<a id="top" href="sub/page.html#here">ok</a> <a href="sub/page.html#nowhere">x</a>'
        '<a href="missing.html">x</a> <a href="https://example.org/">external</a>'
        '<a href="#top">self</a> <img src="sub/bad.png">', encoding="utf-8")
    (tmp_path / "sub" / "page.html").write_text('<h1 id="here">h</h1><a href="../">up</a>',
                                                encoding="utf-8")
    (tmp_path / "sub" / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    broken, checked = broken_links(tmp_path)
    assert checked == 6  # the external link is not counted
    assert sorted(broken) == ["index.html: missing.html (no file)",
                              "index.html: sub/page.html#nowhere (no anchor)"]
    bad, count = undecodable_images(tmp_path)
    assert count == 1 and len(bad) == 1 and bad[0].startswith("sub/bad.png")


# ----------------------------------------------------------------------------- the build
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-j", "2",
         "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert build.returncode == 0, f"sphinx-build failed:\n{build.stderr[-6000:]}"
    assert build.stderr.strip() == "", build.stderr
    return out / "html"


@pytest.mark.slow
def test_every_internal_link_resolves(site: Path) -> None:
    broken, checked = broken_links(site)
    assert checked > 1000  # the API pages alone link to each other hundreds of times
    assert broken == []


@pytest.mark.slow
def test_every_image_decodes(site: Path) -> None:
    bad, count = undecodable_images(site)
    # the three figures of docs/ and the notebooks' stored plots at least
    assert count >= 3 + 17
    assert bad == []


def _stub_names() -> list[str]:
    stub = (ROOT / "embias" / "__init__.pyi").read_text(encoding="utf-8")
    return re.findall(r"^from \.[\w.]* import (\w+) as \1$", stub, re.MULTILINE)


@pytest.mark.slow
def test_every_public_name_has_an_api_page(site: Path) -> None:
    import embias.classifier
    import embias.studies

    generated = site / "api" / "generated"
    index = (site / "api" / "index.html").read_text(encoding="utf-8")
    # the two subpackages with a section of their own on the index page
    for package in ("embias.classifier", "embias.studies"):
        assert f'id="module-{package}"' in index
    names = [f"embias.{n}" for n in _stub_names() if n not in ("classifier", "studies")]
    names += [f"embias.classifier.{n}" for n in embias.classifier.__all__]
    names += [f"embias.studies.{n}" for n in embias.studies.__all__]
    assert len(names) > 150
    missing = [n for n in names if not (generated / f"{n}.html").is_file()]
    assert missing == []
    # grouped as the stub groups them: the headings in the stub's order
    stub = (ROOT / "embias" / "__init__.pyi").read_text(encoding="utf-8")
    groups = re.findall(r"^# -{3,} (.+)$", stub, re.MULTILINE)
    headings = [re.sub(r"<[^>]+>", "", h).strip()
                for h in re.findall(r"<h2>(.*?)<a class=\"headerlink\"", index)]
    expected = [g[:1].upper() + g[1:] for g in groups]
    assert headings[:len(expected)] == expected
    assert headings[len(expected):] == ["embias.classifier", "embias.studies"]


def _cells(page: str, first_cell: str) -> list[str]:
    """The cells of the first table row of ``page`` whose first cell is ``first_cell``."""
    for cells in _rows(page):
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row starting with {first_cell!r}")


def _plain(text: str) -> str:
    """Text as Sphinx's smart quotes leave it, quotes straightened again."""
    text = text.replace("---", "—").replace("--", "–").replace("...", "…")
    return text.translate(str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})).strip()


def _rows(page: str) -> list[list[str]]:
    """The text of every table row of ``page``, cell by cell."""
    return [[_plain(html.unescape(re.sub(r"<[^>]+>", "", c)))
             for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)]


def _number(cell: str) -> float:
    return float(cell.split("±")[0].replace("−", "-").replace(",", "").strip())


@pytest.mark.slow
def test_benchmark_tables_carry_the_results_files_numbers(site: Path) -> None:
    page = (site / "benchmarks.html").read_text(encoding="utf-8")
    # batch.json: the cold run's wall time and fits missing the ESS bar, with its date
    batch = json.loads((RESULTS / "batch.json").read_text(encoding="utf-8"))
    cold = _cells(page, "cold")
    assert _number(cold[2]) == pytest.approx(batch["fits"]["cold"]["wall_seconds"], abs=0.05)
    assert _number(cold[9]) == len(batch["fits"]["cold"]["failing"])
    assert batch["date"] in page
    # every results file records its machine and date, and the page shows them
    assert "Not recorded in the file" not in page
    design = json.loads((RESULTS / "design.json").read_text(encoding="utf-8"))
    assert design["date"] in page
    # the files benchmark scripts write through benchmarks/record.py: title, date, every row
    for path in sorted(RESULTS.glob("bench_*.json")):
        recorded = json.loads(path.read_text(encoding="utf-8"))
        assert _plain(recorded["title"]) in _plain(html.unescape(page)), path.name
        assert recorded["date"] in page, path.name
        rows = _rows(page)
        for table in recorded["tables"]:
            for row in table["rows"]:
                shown = [_plain(re.sub(r"[`*]", "", c)) for c in row]
                assert shown in rows, (path.name, shown)
    # the calibration rows: coverage recomputed here from the CSV, binomial se alongside
    import csv

    with gzip.open(RESULTS / "calibration" / "calibration_names.csv.gz", "rt",
                   encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh)
                if r["level"] == "hierarchical" and r["group"] == "associated"]
    coverage = sum(r["covered"] == "True" for r in rows) / len(rows)
    cell = _cells(page, "names, hierarchical")[1]
    assert _number(cell) == pytest.approx(coverage, abs=0.0005)
    se = float(cell.split("±")[1])
    assert se == pytest.approx(math.sqrt(coverage * (1 - coverage) / len(rows)), abs=0.0005)


# ----------------------------------------------------------------------------- in a browser
PAGES = {
    "home": ("index.html", "embias"),
    "user guide": ("user_guide/model_levels.html", "Model levels"),
    "API": ("api/generated/embias.fit_bias_model.html", "embias.fit_bias_model"),
    "gallery": ("gallery/01_religion.html", "Religion bias in GloVe"),
}


@pytest.mark.slow
@pytest.mark.skipif(find_chromium() is None,
                    reason="Chromium is not installed (Debian/Ubuntu: apt-get install "
                           "chromium; `make test` installs it when run as root)")
@pytest.mark.parametrize("which", list(PAGES))
def test_chromium_loads_the_page_without_errors_or_requests(site: Path, which: str) -> None:
    path, title = PAGES[which]
    shots = os.environ.get("EMBIAS_DOCS_SHOTS")
    screenshot = bool(shots) and which in ("home", "API")
    seen = check_in_browser(site / path, screenshot="viewport" if screenshot else False)
    assert seen.title.startswith(title) and seen.title.endswith(f"embias {embias.__version__}")
    assert seen.console_errors == []
    assert seen.broken_images == []
    # nothing from any host: the page, its files and inline data only
    assert all(u.startswith(("file://", "data:")) for u in seen.requests), seen.requests
    assert seen.page_height > 900  # laid out, not an empty page
    if which == "gallery":
        assert len(seen.images) >= 2  # the notebook's stored figures
    if screenshot:
        Path(shots).mkdir(parents=True, exist_ok=True)
        (Path(shots) / f"{which.lower()}.png").write_bytes(seen.screenshot)
