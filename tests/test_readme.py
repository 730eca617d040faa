"""The README's tables come from the code as it is (issue 11, item 16).

The tables of "WEAT and MAC on GloVe 6B 50d" (``embias weat all``) and "Pre-averaging"
(``embias simulate weat --published``) are regenerated here from the commands' own output
(both deterministic: seed 0, exact or seeded Monte Carlo p-values) and compared with the
README text; a difference fails with a diff and the table to paste. Neither table holds an
MCMC number (issue 26, item 1): their Monte Carlo parts — bootstrap intervals, permutation
p-values, simulated WEAT ranges — come from NumPy's seeded ``Generator``, whose streams are
the same on every platform for one NumPy version, so they are compared as text. To
rewrite the two tables in place after a deliberate change::

    make readme        # or: .venv/bin/python tests/test_readme.py --write
"""

from __future__ import annotations

import contextlib
import difflib
import io
import itertools
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
WEAT_SECTION = "## WEAT and MAC on GloVe 6B 50d"
PREAVERAGING_SECTION = "## Pre-averaging"
#: The associations of the published scenarios and how the README names them.
SCENARIOS = {"0.000": "0 (pure noise)", "0.100": "0.1", "0.400": "0.4"}


def _run(argv: list[str]) -> str:
    """Stdout of ``embias ARGV`` (run in this process)."""
    from embias.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


def _markdown_rows(text: str) -> list[dict[str, str]]:
    """The rows of the first markdown table in ``text``, as header → cell text."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    # column borders from the rule line (a header may contain "|", as in "share |W|≥t")
    bars = [i for i, ch in enumerate(lines[1]) if ch == "|"]

    def split(line: str) -> list[str]:
        return [line[a + 1:b].strip() for a, b in itertools.pairwise(bars)]

    header = split(lines[0])
    return [dict(zip(header, split(ln), strict=True)) for ln in lines[2:]]


def _num(text: str) -> str:
    """A number as printed by the CLI, with a typographic minus sign."""
    return "−" + text[1:] if text.startswith("-") else text


def _pct(text: str) -> str:
    """A share printed with 3 decimals (0.213) as a percentage (21.3%), exactly."""
    return f"{float(text) * 100:.1f}%"


def weat_table(cli_output: str) -> str:
    """The README's WEAT/MAC table from ``embias weat all``'s output."""
    lines = [
        "| test   | effect size | 89% interval (words resampled) |  p-value | p method   "
        "|   MAC | Caliskan 840B | words missing (per list) |",
        "|:-------|------------:|:-------------------------------|---------:|:-----------"
        "|------:|--------------:|:-------------------------|",
    ]
    for r in _markdown_rows(cli_output):
        missing = ", ".join(part.replace(":", ": ") for part in r["missing"].split(", "))
        interval = f"[{_num(r['lower'])}, {_num(r['upper'])}]"
        lines.append(
            f"| {r['test']:<6} | {_num(r['effect_size']):>11} | {interval:<30} "
            f"| {_num(r['p_value']):>8} "
            f"| {r['p_method']:<10} | {r['mac']:>5} | {float(r['caliskan_840B']):>13.2f} "
            f"| {missing:<24} |")
    return "\n".join(lines)


def preaveraging_table(cli_output: str) -> str:
    """The README's pre-averaging table from ``embias simulate weat --published``."""
    rows = _markdown_rows(cli_output)
    by = {(r["association"], r["numerator"]): r for r in rows}

    def cell(r: dict[str, str], prefix: str = "") -> str:
        return (f"({_num(r[prefix + 'lower'])}, {_num(r[prefix + 'upper'])}), "
                f"{_pct(r[prefix + 'share' if prefix else 'share |W|≥t'])}")

    lines = ["| association | published | first-word (embias) | WEAT (embias) |",
             "|:--|:--|:--|:--|"]
    for key, name in SCENARIOS.items():
        first, mean = by[(key, "first-word")], by[(key, "mean")]
        lines.append(f"| {name} | {cell(first, 'published ')} | {cell(first)} "
                     f"| {cell(mean)} |")
    return "\n".join(lines)


def _section_table(text: str, heading: str) -> tuple[int, int]:
    """Start and end offsets of the first markdown table under ``heading``."""
    start = text.index(heading + "\n") if heading + "\n" in text else text.index(heading)
    end_section = text.find("\n## ", start + len(heading))
    end_section = len(text) if end_section < 0 else end_section
    lines = text[start:end_section].splitlines(keepends=True)
    offset = start
    table_start = table_end = None
    for line in lines:
        if line.startswith("|") and table_start is None:
            table_start = offset
        if table_start is not None and not line.startswith("|"):
            table_end = offset
            break
        offset += len(line)
    if table_start is None:
        raise AssertionError(f"README.md has no table under {heading!r}")
    return table_start, (offset if table_end is None else table_end)


def readme_table(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    start, end = _section_table(text, heading)
    return text[start:end].rstrip("\n")


def _compare(heading: str, expected: str) -> None:
    actual = readme_table(heading)
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(
            actual.splitlines(), expected.splitlines(), "README.md", "the code's output",
            lineterm=""))
        pytest.fail(f"README.md's table under {heading!r} is stale (make readme rewrites "
                    f"it):\n{diff}", pytrace=False)


@pytest.fixture(scope="module")
def weat_all_output() -> str:
    return _run(["weat", "all", "--seed", "0"])


@pytest.fixture(scope="module")
def simulate_output() -> str:
    return _run(["simulate", "weat", "--published"])


def test_readme_weat_table_is_embias_weat_all(weat_all_output):
    expected = weat_table(weat_all_output)
    # known answers that do not depend on this file's formatting: WEAT6, exact over
    # C(16, 8) = 12,870 partitions (two-sided p = 2/12,870 = 1.55e-04)
    assert ("| weat6  |       1.708 | [1.557, 1.831]                 | 1.55e-04 | exact      |"
            in expected)
    _compare(WEAT_SECTION, expected)


def test_readme_preaveraging_table_is_simulate_weat_published(simulate_output):
    expected = preaveraging_table(simulate_output)
    # the figures (seed 0): first-word null (−2.692, 2.753), 21.3%
    assert "| 0 (pure noise) | (−2.763, 2.698), 21.4% | (−2.692, 2.753), 21.3% |" in expected
    _compare(PREAVERAGING_SECTION, expected)


def test_readme_reddit_mac_is_embias_mac():
    # the sentence under the WEAT table: MAC on the authors' Reddit tables
    text = " ".join(README.read_text(encoding="utf-8").split())
    for embedding, name in (("reddit", "biased"), ("reddit-debiased", "hard-debiased")):
        out = _run(["mac", "religion", "--embedding", f"published:{embedding}"])
        value = out.split("):", 1)[1].split()[0]
        assert f"{name} {value}" in text, f"README.md should say '{name} {value}'"


def write_tables() -> None:
    """Rewrite the two tables in README.md from the commands' output."""
    text = README.read_text(encoding="utf-8")
    for heading, table in ((WEAT_SECTION, weat_table(_run(["weat", "all", "--seed", "0"]))),
                           (PREAVERAGING_SECTION,
                            preaveraging_table(_run(["simulate", "weat", "--published"])))):
        start, end = _section_table(text, heading)
        text = text[:start] + table + "\n" + text[end:]
    README.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_readme.py --write")
    write_tables()
