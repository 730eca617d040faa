"""The README's numbers and figure, and the command-generated tables of the docs, come from
the code as it is.

README.md keeps one worked number (WEAT7 on GloVe 6B 50d: its exact permutation p-value and
its 89% item-bootstrap interval) and one figure: the number is recomputed here and compared
within a stated tolerance, the p-value also against an exact enumeration of the 12,870
partitions; the figure must exist and decode. The README is at most 150 lines. Its
sections that quote results are compared with their sources: the design analysis with
``benchmarks/results/design.json`` (``benchmarks/bench_design.py``), the published claims
re-judged with notebook 05's stored verdict table, the real-word coverage table with
the docs' table generated from ``benchmarks/results/calibration/``, the predictive check
with ``predictive_check_crossed.json``, the false-claim table with the printed results of
``bench_word_sampling.py --attribute-offsets own_and_other`` and the WEAT coverage table
with ``weat_population.json`` and ``seat_population.json``.

The tables of the user guide's classic-scores page (``docs/user_guide/classic_scores.md``:
"WEAT and MAC on GloVe 6B 50d" from ``embias weat all``, "Pre-averaging" from ``embias
simulate weat --published``) are regenerated from the commands' own output (both
deterministic: seed 0, exact or seeded Monte Carlo p-values) and compared with the page; a
difference fails with a diff and the table to paste. Neither table holds an MCMC number:
their Monte Carlo parts — bootstrap intervals, permutation p-values, simulated WEAT ranges —
come from NumPy's seeded ``Generator``, whose streams are the same on every platform for one
NumPy version, so they are compared as text. To rewrite the two tables in place after a
deliberate change::

    make readme        # or: .venv/bin/python tests/test_readme.py --write
"""

from __future__ import annotations

import contextlib
import difflib
import io
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: the docs page that holds the command-generated tables (and the Reddit MAC sentence)
CLASSIC_PAGE = ROOT / "docs" / "user_guide" / "classic_scores.md"
WEAT_SECTION = "## WEAT and MAC on GloVe 6B 50d"
PREAVERAGING_SECTION = "## Pre-averaging"
#: The associations of the published scenarios and how the page names them.
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
    """The WEAT/MAC table of the classic-scores page from ``embias weat all``'s output."""
    lines = [
        "| test   | effect size | 89% interval (words resampled) | population effect [89%] "
        "|  p-value | p method   |   MAC | Caliskan 840B | words missing (per list) |",
        "|:-------|------------:|:-------------------------------|:------------------------"
        "|---------:|:-----------|------:|--------------:|:-------------------------|",
    ]
    for r in _markdown_rows(cli_output):
        missing = ", ".join(part.replace(":", ": ") for part in r["missing"].split(", "))
        interval = f"[{_num(r['lower'])}, {_num(r['upper'])}]"
        population = (f"{_num(r['population_estimate'])} [{_num(r['population_lower'])}, "
                      f"{_num(r['population_upper'])}]")
        lines.append(
            f"| {r['test']:<6} | {_num(r['effect_size']):>11} | {interval:<30} "
            f"| {population:<23} | {_num(r['p_value']):>8} "
            f"| {r['p_method']:<10} | {r['mac']:>5} | {float(r['caliskan_840B']):>13.2f} "
            f"| {missing:<24} |")
    return "\n".join(lines)


def preaveraging_table(cli_output: str) -> str:
    """The classic-scores page's pre-averaging table (``embias simulate weat --published``)."""
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
        raise AssertionError(f"{CLASSIC_PAGE.name} has no table under {heading!r}")
    return table_start, (offset if table_end is None else table_end)


def page_table(heading: str) -> str:
    text = CLASSIC_PAGE.read_text(encoding="utf-8")
    start, end = _section_table(text, heading)
    return text[start:end].rstrip("\n")


def _compare(heading: str, expected: str) -> None:
    actual = page_table(heading)
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(
            actual.splitlines(), expected.splitlines(), str(CLASSIC_PAGE.relative_to(ROOT)),
            "the code's output", lineterm=""))
        pytest.fail(f"{CLASSIC_PAGE.name}'s table under {heading!r} is stale (make readme "
                    f"rewrites it):\n{diff}", pytrace=False)


@pytest.fixture(scope="module")
def weat_all_output() -> str:
    return _run(["weat", "all", "--seed", "0"])


@pytest.fixture(scope="module")
def simulate_output() -> str:
    return _run(["simulate", "weat", "--published"])


def test_docs_weat_table_is_embias_weat_all(weat_all_output):
    expected = weat_table(weat_all_output)
    # known answers that do not depend on this file's formatting: WEAT6, exact over
    # C(16, 8) = 12,870 partitions (two-sided p = 2/12,870 = 1.55e-04)
    weat6 = next(r for r in _markdown_rows(weat_all_output) if r["test"] == "weat6")
    assert float(weat6["p_value"]) == pytest.approx(2 / 12_870, rel=5e-3)
    assert weat6["p_method"] == "exact"
    assert float(weat6["lower"]) < float(weat6["effect_size"]) < float(weat6["upper"])
    _compare(WEAT_SECTION, expected)


def test_docs_preaveraging_table_is_simulate_weat_published(simulate_output):
    expected = preaveraging_table(simulate_output)
    # the figures (seed 0): first-word null (−2.692, 2.753), 21.3%
    assert "| 0 (pure noise) | (−2.763, 2.698), 21.4% | (−2.692, 2.753), 21.3% |" in expected
    _compare(PREAVERAGING_SECTION, expected)


def test_docs_reddit_mac_is_embias_mac():
    # the classic-scores page's MAC section: MAC on the authors' Reddit tables
    text = " ".join(CLASSIC_PAGE.read_text(encoding="utf-8").split())
    for embedding, name in (("reddit", "biased"), ("reddit-debiased", "hard-debiased")):
        out = _run(["mac", "religion", "--embedding", f"published:{embedding}"])
        value = out.split("):", 1)[1].split()[0]
        assert f"{name} {value}" in text, f"{CLASSIC_PAGE.name} should say '{name} {value}'"


# ------------------------------------------------------------------------- the README itself
def _readme_text() -> str:
    return " ".join(README.read_text(encoding="utf-8").split())


def _readme_section(heading: str) -> str:
    """The README's text under ``heading`` up to the next heading, whitespace collapsed."""
    text = README.read_text(encoding="utf-8")
    start = text.index(heading + "\n") + len(heading)
    end = text.find("\n## ", start)
    return " ".join(text[start:None if end < 0 else end].split())


def test_readme_is_at_most_150_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the docs site holds the rest"


@pytest.fixture(scope="module")
def weat7():
    import embias

    return embias.weat_test("weat7", random_seed=0)


def test_readme_weat7_p_value_is_the_exact_permutation_p_value(weat7):
    match = re.search(r"exact permutation p-value of ([0-9.e+-]+)", _readme_text())
    assert match, "README.md should state WEAT7's exact permutation p-value"
    stated = float(match[1])
    # independent answer: enumerate every split of the 16 target words' s values into 8 + 8
    by_target = weat7.s_values.groupby("target")["s"]
    x, y = (np.asarray(by_target.get_group(t), dtype=float) for t in ("X", "Y"))
    s = np.concatenate([x, y])
    assert x.size == y.size == 8 and weat7.exact and weat7.n_permutations == 12_870
    observed = abs(x.mean() - y.mean())
    total = s.sum()
    extreme = sum(abs(2 * s[list(x)].sum() / 8 - total / 8) >= observed - 1e-12
                  for x in itertools.combinations(range(16), 8))
    exact = extreme / 12_870
    assert weat7.p_value == pytest.approx(exact, rel=1e-12)
    # the README prints 3 significant digits: half a unit of the last one
    assert stated == pytest.approx(exact, abs=0.5e-6)


def test_readme_weat7_interval_is_the_item_bootstrap_interval(weat7):
    match = re.search(r"words resampled is \[([−0-9.]+), ([−0-9.]+)\]", _readme_text())
    assert match, "README.md should state WEAT7's 89% item-bootstrap interval"
    lower, upper = (float(x.replace("−", "-")) for x in match.groups())
    row = weat7.to_interval_table().iloc[0]
    assert row["ci_prob"] == pytest.approx(0.89)
    # Tolerance 0.05: the Monte Carlo se of the 5.5% / 94.5% quantiles of 10,000 bootstrap
    # replicates is √(p(1−p)/B) / f(q) ≈ 0.0023 / 0.18 ≈ 0.013 (bootstrap sd of d ≈ 0.62),
    # so 0.05 is about 4 se: another seed or NumPy stream stays inside it.
    assert lower == pytest.approx(row["lower"], abs=0.05)
    assert upper == pytest.approx(row["upper"], abs=0.05)
    # the README's claim: the interval crosses 0 although p < 0.001
    assert row["lower"] < 0 < row["upper"] and weat7.p_value < 0.001


def test_readme_figures_exist_and_decode():
    from PIL import Image

    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.read_text(encoding="utf-8"))
    assert figures, "README.md should show its figure"
    for figure in figures:
        path = ROOT / figure
        assert path.is_file(), f"README.md shows {figure}, which does not exist"
        with Image.open(path) as image:
            image.load()
            assert image.width > 400 and image.height > 200, (figure, image.size)


def test_readme_names_files_that_exist():
    text = README.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:docs|embias)/[\w./-]*|[A-Z]+(?:\.md|\.cff)?)`", text))
    # not files: the environment variable; the build output `make docs` writes
    named = {n for n in named if n != "PATH" and not n.startswith("docs/_build")}
    assert {"LICENSE", "NOTICE", "CITATION.cff", "CHANGELOG.md", "CONTRIBUTING.md",
            "docs/benchmarks.md"} <= named
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert missing == [], f"README.md names files that do not exist: {missing}"


def test_readme_design_figures_are_the_design_benchmarks():
    import json

    results = json.loads((ROOT / "benchmarks" / "results" / "design.json").read_text())
    paragraph = _readme_section("## How many words does a claim need?")
    for study, in_words in (("religion", "religion"), ("race", "race"), ("gender", "gender")):
        rows = [r for r in results["tables"][study]["summary"]
                if r["contrast"] == "associated - different"]
        shipped, at_32 = rows[0], next(r for r in rows if r["attribute_words"] == 32)
        assert f"{shipped['p_credible']:.2f} ± {shipped['p_se']:.2f} ({in_words})" in paragraph
        assert f"{at_32['p_credible']:.2f}" in paragraph
        assert max(r["p_credible"] for r in rows) < 0.8  # "no list up to 32 reaches 0.8"
    for study, size in (("religion", 16), ("race", 32)):
        row = next(r for r in results["tables"][study]["summary"]
                   if r["contrast"] == "associated - none" and r["attribute_words"] == size)
        assert f"({row['p_credible']:.2f} ± {row['p_se']:.2f})" in paragraph
        assert row["p_credible"] >= 0.8


def test_readme_published_claims_are_notebook_05s_verdicts():
    # the README's count of surviving and lost claims is the stored verdict table of
    # notebook 05 (re-executed by the notebook tests, which compare it within MC error)
    import json

    notebook = json.loads((ROOT / "notebooks" / "05_word_lists.ipynb").read_text())
    tables = ["".join(o.get("text", "")) for c in notebook["cells"] if c["cell_type"] == "code"
              for o in c.get("outputs", []) if "| verdict" in "".join(o.get("text", ""))]
    verdicts = [row["verdict"] for row in _markdown_rows(tables[0])]
    survives, lost = verdicts.count("survives"), verdicts.count("lost")
    paragraph = _readme_section("## The published conclusions, re-judged")
    assert f"{survives} of the {survives + lost} claims" in paragraph
    assert f"{lost} are lost" in paragraph


def test_readme_real_word_table_is_the_calibration_benchmarks():
    # the README's coverage table is the docs' generated table of the calibration results
    # (benchmarks/results/calibration/*.csv.gz), verbatim
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import benchtables
    finally:
        sys.path.pop(0)
    generated = benchtables.calibration_table(ROOT / "benchmarks" / "results" / "calibration")
    table = generated.split("\n\n", 1)[1].strip()
    assert table.count("\n") >= 9  # header, rule and 8 rows (2 sets × 4 levels)
    assert table in README.read_text(encoding="utf-8")


NULL_SIMULATION_FILES = ("word_sampling_null_own_and_other.txt",
                         "word_sampling_null_own_and_other_dataset_word.txt")
NULL_LEVELS = {"crossed": "crossed (default)", "hierarchical": "hierarchical (published)",
               "dataset": "dataset", "word": "word"}
NULL_CONTRASTS = ("associated - none", "associated - different", "different - none")


def null_simulation_table() -> str:
    """The README's false-claim table, from the printed tables of bench_word_sampling.py.

    Each results file prints "false claims of bias: …" followed by a Markdown table with a
    row per (level, contrast): the share of simulated null tables whose 89% HDI excludes 0,
    its Monte Carlo se, and the fits that failed a convergence check.
    """
    cells: dict[str, dict[str, str]] = {}
    failed: dict[str, str] = {}
    for name in NULL_SIMULATION_FILES:
        lines = (ROOT / "benchmarks" / "results" / name).read_text(encoding="utf-8").splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("false claims of bias"))
        header = [c.strip() for c in lines[start + 1].strip("|").split("|")]
        for line in lines[start + 3:]:
            if not line.startswith("|"):
                break
            row = dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
            cells.setdefault(row["level"], {})[row["group"]] = (
                f"{float(row['excludes_zero']):.3f} ± {float(row['excludes_zero_se']):.3f}")
            failed[row["level"]] = row["failed_fits"]
    lines = ["| level | " + " | ".join(c.replace(" - ", " − ") for c in NULL_CONTRASTS)
             + " | fits failing a check |", "|:--|--:|--:|--:|--:|"]
    for level, label in NULL_LEVELS.items():
        lines.append(f"| {label} | " + " | ".join(cells[level][c] for c in NULL_CONTRASTS)
                     + f" | {failed[level]} |")
    return "\n".join(lines)


def benchmark_results(name: str) -> dict:
    """A results file of benchmarks/results/, ``<name>.json``."""
    import json

    return json.loads((ROOT / "benchmarks" / "results" / f"{name}.json").read_text())


def within_005(coverage: float, nominal: float) -> bool:
    """Whether a coverage is within ±0.05 of nominal (a share exactly 0.05 away counts)."""
    return round(abs(coverage - nominal), 9) <= 0.05


def weat_population_table(d: dict, seat: dict) -> str:
    """The README's WEAT coverage table, from ``bench_weat_population.py``'s results ``d``
    and ``bench_seat_population.py``'s ``seat``.

    The four real-word designs one per row; the word-vector model's designs as one row, and
    SEAT's four real designs as one row (the range of their coverage and how many are
    within ±0.05 of 0.89).
    """
    lines = ["| design | population d | item bootstrap (`lower`, `upper`) | population interval "
             "(`population_lower`, `population_upper`) |", "|:--|--:|--:|--:|"]
    synthetic = [r for r in d["designs"] if "population_set" not in r]
    for r in d["designs"]:
        if "population_set" in r:
            t, q = r["today"], r["population"]
            lines.append(f"| {r['design']} | {r['population_effect_size']:.3f} | "
                         f"{t['coverage']:.3f} ± {t['coverage_se']:.3f} | "
                         f"{q['coverage']:.3f} ± {q['coverage_se']:.3f} |")
    truths = sorted({round(r["population_effect_size"], 3) for r in synthetic})

    def summary(results: dict, rows: list[dict], key: str) -> str:
        cov = [r[key]["coverage"] for r in rows]
        within = sum(within_005(c, results["ci_prob"]) for c in cov)
        return f"{min(cov):.3f}–{max(cov):.3f}, {within} of {len(cov)} within ±0.05"

    lines.append(f"| word-vector model, {len(synthetic)} designs | "
                 + " and ".join(f"{t:g}" for t in truths)
                 + f" | {summary(d, synthetic, 'today')} | "
                 f"{summary(d, synthetic, 'population')} |")
    seat_truths = sorted({round(r["population_effect_size"], 3) for r in seat["designs"]})
    lines.append(f"| SEAT (MiniLM, 2 templates a word), these {len(seat['designs'])} designs | "
                 + " and ".join(f"{t:.3f}" for t in seat_truths)
                 + f" | {summary(seat, seat['designs'], 'today')} | "
                 f"{summary(seat, seat['designs'], 'population')} |")
    return "\n".join(lines)


def test_readme_null_simulation_table_is_the_word_sampling_benchmarks():
    # the README's false-claim table is the benchmark's printed results, level by level
    table = null_simulation_table()
    assert table.count("\n") == 5  # header, rule and the four levels
    assert table in README.read_text(encoding="utf-8")


def test_readme_weat_table_is_the_weat_population_benchmark():
    d = benchmark_results("weat_population")
    seat = benchmark_results("seat_population")
    table = weat_population_table(d, seat)
    # header, rule, four real designs, the model's row and SEAT's
    assert table.count("\n") == 7
    assert table in README.read_text(encoding="utf-8")
    section = _readme_section("## Honest on real words?")
    n_studies = {r["n_studies"] for r in d["designs"]}
    assert len(n_studies) == 1 and f"{n_studies.pop()} studies a design" in section
    within = {key: sum(within_005(r[key]["coverage"], d["ci_prob"]) for r in d["designs"])
              for key in ("population", "today")}
    mean_dev = sum(abs(r["population"]["coverage"] - d["ci_prob"]) for r in d["designs"]) / len(
        d["designs"])
    assert (f"the population interval is within ±0.05 on {within['population']} of "
            f"{len(d['designs'])} designs (mean |coverage − 0.89| {mean_dev:.3f}), the item "
            f"bootstrap on {within['today']} of {len(d['designs'])}") in section


def test_readme_predictive_check_figures_are_the_benchmarks():
    # the README's predictive-check means and band count are those of the crossed level's
    # results file (benchmarks/bench_predictive_check.py)
    import json

    results = json.loads((ROOT / "benchmarks" / "results" /
                          "predictive_check_crossed.json").read_text())
    rows = results["rows"]
    paragraph = _readme_section("## Honest on real words?")
    for connection in ("associated", "different", "human", "none"):
        means = [sum(r["inside"] for r in rows
                     if r["connection"] == connection and r["ci_prob"] == p) / 12
                 for p in (0.5, 0.89)]
        assert f"{connection} {means[0]:.3f} / {means[1]:.3f}" in paragraph
    in_band = sum(r["in_band"] for r in rows)
    assert f"{in_band} of the {len(rows)} cells lie inside their 99% binomial band" in paragraph
    in_family = sum(r["in_family_band"] for r in rows)
    assert f"{in_family} of {len(rows)} inside their family-wise 99% band" in paragraph
    in_sample = sum(r["inside_in_sample"] for r in rows
                    if r["connection"] == "associated" and r["ci_prob"] == 0.89) / 12
    assert f"associated rows read {in_sample:.3f} at 89%" in paragraph


def write_tables() -> None:
    """Rewrite the two tables of the classic-scores page from the commands' output."""
    text = CLASSIC_PAGE.read_text(encoding="utf-8")
    for heading, table in ((WEAT_SECTION, weat_table(_run(["weat", "all", "--seed", "0"]))),
                           (PREAVERAGING_SECTION,
                            preaveraging_table(_run(["simulate", "weat", "--published"])))):
        start, end = _section_table(text, heading)
        text = text[:start] + table + "\n" + text[end:]
    CLASSIC_PAGE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_readme.py --write")
    write_tables()

