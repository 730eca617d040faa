"""What the wheel and the sdist carry: built here by hatchling (the project's build backend,
``python -m hatchling build``, a real subprocess) into a temporary folder.

The wheel is the installed package only (no tests, benchmarks, notebooks or docs) with its
type information and data, the licence files (embias's, NOTICE and the shipped data's own),
and metadata whose version is ``embias.__version__`` — the one place the version is written
(``pyproject.toml`` reads it from ``embias/__init__.py``; ``CITATION.cff`` repeats it). The
sdist carries the licences, the citation file and the sources the tests and docs need.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import embias

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    build = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-t", "sdist", "-d",
         str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert build.returncode == 0, build.stderr[-4000:]
    wheel, = out.glob("embias-*.whl")
    sdist, = out.glob("embias-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "embias/__init__.py"
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^version: (\S+)$", citation, re.MULTILINE)[1] == embias.__version__


def test_the_wheel_is_the_package_with_its_licences_and_metadata(dist) -> None:
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = wheel.namelist()
        info = f"embias-{embias.__version__}.dist-info"
        metadata = Parser().parsestr(wheel.read(f"{info}/METADATA").decode())
    tops = {n.split("/")[0] for n in names}
    assert tops == {"embias", info}  # no tests/, benchmarks/, notebooks/, docs/
    assert not any("/tests/" in n or "conftest" in n for n in names)
    for needed in ("embias/py.typed", "embias/__init__.pyi", "embias/wordlists/neutral.txt",
                   "embias/data/published/LICENSE", f"{info}/licenses/LICENSE",
                   f"{info}/licenses/NOTICE", f"{info}/licenses/embias/data/published/LICENSE"):
        assert needed in names, needed
    assert metadata["Version"] == embias.__version__
    assert metadata["License-Expression"] == "MIT"
    requires = metadata.get_all("Requires-Dist")
    for direct in ("arviz-base", "arviz-stats", "pymc", "numpyro"):
        assert any(r.startswith(direct) for r in requires), direct
    assert "docs" in metadata.get_all("Provides-Extra")
    assert any(c.startswith("Programming Language :: Python :: 3.12")
               for c in metadata.get_all("Classifier"))


def test_the_sdist_has_the_licences_citation_and_sources(dist) -> None:
    with tarfile.open(dist["sdist"]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for needed in ("LICENSE", "NOTICE", "CITATION.cff", "README.md", "CHANGELOG.md",
                   "pyproject.toml", "embias/__init__.py", "tests/conftest.py",
                   "docs/conf.py", "embias/data/published/LICENSE"):
        assert needed in names, needed
    assert not any(n.startswith(("docs/_build", "docs/api/", "docs/_generated")) for n in names)
