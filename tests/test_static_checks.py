"""The package passes its configured static checks: ruff (with the numpydoc docstring rules
for ``embias/``) and mypy, as ``pyproject.toml`` sets them up."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=600)


def test_ruff_finds_nothing_in_the_package_tests_and_benchmarks() -> None:
    done = _run("ruff", "check", "embias", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_ruff_applies_the_numpy_docstring_rules_to_the_package(tmp_path: Path) -> None:
    """The D rules are on for embias/: a public function whose docstring has no summary
    line ending in a period is reported (so the check above is not vacuous)."""
    probe = tmp_path / "probe.py"
    probe.write_text('"""Probe module."""\n\n\ndef f() -> None:\n    """no period"""\n')
    done = _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
                str(probe))
    assert done.returncode == 1 and "D400" in done.stdout, done.stdout


@pytest.mark.slow
def test_mypy_finds_no_type_error_in_the_package() -> None:
    done = _run("mypy")
    assert done.returncode == 0 and "Success" in done.stdout, done.stdout[-3000:]
