"""Every notebook in notebooks/ runs top to bottom (in a scratch working directory), and its
committed outputs are the outputs the code gives today, on any machine.

Each notebook is executed once per test session (a session fixture shared by both tests,
which run on one xdist worker per notebook). The comparison covers what a reader takes as a
result — the text of ``stdout`` and of ``text/plain`` results — of every code cell. Ignored:
images, ``stderr`` (warnings that name temporary paths, PyMC's sampling messages, progress
bars), temporary paths, timings and memory addresses in the text.

* Deterministic cells must print exactly the committed text.
* Cells tagged ``sampled`` print numbers that come from MCMC draws. Seeded MCMC is
  reproducible on one machine, not across processors (another CPU or XLA build takes
  another floating-point path, and the chains part ways after a few hundred steps), so
  their text around the numbers must match and each number must be within its Monte Carlo
  tolerance of the committed one (see ``tolerance``). The cell's metadata ``sampled``
  states the rule of every number (by markdown column or by the text before it on the
  line), the effective sample size behind them and why.
* Cells tagged ``nondeterministic`` are run but not compared (the notebook says why next
  to the tag, and checks what matters with an ``assert`` in the cell).

A difference in a deterministic cell, or a sampled number beyond its tolerance, means the
committed output is stale: re-execute the notebook (``make notebooks``, or ``python
tests/test_notebooks.py --write notebooks/NAME.ipynb``) and commit it.

Perturbation runs (the proof that the tolerances hold on another machine): set
``EMBIAS_NOTEBOOK_MCMC_SEED`` (another seed for the notebooks' MCMC fits only) and/or
``XLA_FLAGS=--xla_cpu_enable_fast_math=true`` (another floating-point path) and run, one
notebook at a time, ``python -m pytest -n0 tests/test_notebooks.py -k 01_religion``;
``EMBIAS_NOTEBOOK_REPORT=file.jsonl`` writes every compared sampled number with its
tolerance.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
import math
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcmc_bounds import max_rhat_bound

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
#: Cells with this tag are executed but their outputs are not compared.
NONDETERMINISTIC = "nondeterministic"
#: Settings the notebooks read to run faster; the committed outputs are for the defaults.
SPEED_SETTINGS = ("EMBIAS_NOTEBOOK_DRAWS", "EMBIAS_NOTEBOOK_SIMS")
EXECUTE_TIMEOUT = 1800



@dataclass
class Execution:
    path: Path
    committed: Any  # nbformat.NotebookNode as read from disk
    executed: Any  # the same notebook after a fresh run
    workdir: Path
    error: BaseException | None


def execute(path: Path, workdir: Path) -> tuple[Any, Any, BaseException | None]:
    """Run a notebook top to bottom in ``workdir``: (committed, executed, error or None)."""
    import nbformat
    from nbclient import NotebookClient

    committed = nbformat.read(path, as_version=4)
    nb = copy.deepcopy(committed)
    error = None
    with pytest.MonkeyPatch.context() as mp:
        # the inline backend: figures are kept in the notebook (a reader sees them), and it
        # needs no display
        mp.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        try:
            NotebookClient(nb, timeout=EXECUTE_TIMEOUT, kernel_name="python3",
                           resources={"metadata": {"path": str(workdir)}}).execute()
        except Exception as exc:  # reported by test_notebook_runs
            error = exc
    return committed, nb, error


@pytest.fixture(scope="session", params=[
    # both tests of one notebook on one xdist worker: the notebook is executed once
    pytest.param(p, id=p.name, marks=pytest.mark.xdist_group(f"notebook-{p.stem}"))
    for p in NOTEBOOKS])
def execution(request, tmp_path_factory) -> Execution:
    workdir = tmp_path_factory.mktemp(request.param.stem)
    committed, executed, error = execute(request.param, workdir)
    return Execution(request.param, committed, executed, workdir, error)


# --------------------------------------------------------------------------- comparable text
_TMP = re.escape(tempfile.gettempdir().rstrip("/"))
_NORMALISE = (
    (re.compile(_TMP + r"/[^\s'\"),\]]+"), "<tmp>"),  # temporary folders and files
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "0x…"),  # memory addresses in reprs
    (re.compile(r"\btook \d+(\.\d+)? ?(s|seconds?|ms|min)\b"), "took …"),  # timings
    (re.compile(r"\b\d+(\.\d+)? ?(s|ms)/(fit|it)\b"), "…/fit"),
)


def comparable_text(cell: Any) -> str:
    """The result text of a code cell: stdout and text/plain outputs, normalised."""
    parts: list[str] = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stdout":
                parts.append(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if any(k.startswith("image/") for k in data):
                continue  # a figure (its text/plain is only "<Figure …>")
            if "text/plain" in data:
                parts.append(data["text/plain"].rstrip("\n") + "\n")
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}\n")
    text = "".join(parts)
    for pattern, replacement in _NORMALISE:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.splitlines())


# --------------------------------------------------------------------------- sampled outputs
#: Cells whose printed numbers come from MCMC draws carry this tag and a ``sampled`` entry in
#: their metadata: the rule for each number and the effective sample size behind them.
SAMPLED = "sampled"
#: A different seed for the notebooks' MCMC fits only (the simulations and permutation tests
#: keep theirs): the committed outputs must still match within Monte Carlo error.
MCMC_SEED_SETTING = "EMBIAS_NOTEBOOK_MCMC_SEED"
#: If set, a file that receives one JSON line per compared sampled number (old, new, |Δ|,
#: tolerance): the figures behind a perturbation run.
REPORT_SETTING = "EMBIAS_NOTEBOOK_REPORT"

# Tolerances. Two runs that differ only in their floating-point path (another CPU, another
# XLA build) or in the MCMC seed give two independent Monte Carlo estimates of the same
# posterior summary, so their difference has sd √2 × (one run's Monte Carlo se). A number
# is accepted if |new − committed| ≤ Z × √2 × se + the rounding of the two printed values
# (half a unit in the last printed digit of each). Z = 4.5: a false failure has probability
# 7e-6 per number, < 1% over the ~1000 sampled numbers of the notebooks.
Z = 4.5
#: Monte Carlo se of a posterior mean in posterior sds: 1/√ESS.
MEAN_SE = 1.0
#: Monte Carlo se of an 89% HDI end in posterior sds, × 1/√ESS. Measured, not assumed:
#: 2000 replicates of N = 2000 independent normal draws give sd(arviz.hdi end) = 3.81/√N
#: (and sd(5.5% quantile) = 2.03/√N, the theory's √(q(1−q))/φ(z_q) = 2.05). Used for every
#: interval end, equal-tailed ones included.
BOUND_SE = 3.8
#: Monte Carlo se of an 89% HDI's width (upper − lower), likewise measured: 2.64/√N. The ends
#: move partly together, so it is less than √2 × 3.8.
WIDTH_SE = 2.64
#: z of the central 89% interval, to read a posterior sd off a printed interval: sd =
#: (upper − lower) / (2 × 1.598) for a normal posterior.
Z_89 = 1.598


@dataclass(frozen=True)
class Number:
    text: str  # as printed
    value: float
    line: int
    column: str | None  # the markdown table column, None outside tables
    context: str  # the line's text before the number (earlier numbers as "#")
    row: dict[str, str]  # the table row (column → cell text), {} outside tables


NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w]|\.\d)")
_RULE_LINE = re.compile(r"^\|[\s:|-]+\|$")
_BRACKETS = re.compile(r"\[\s*(" + NUMBER.pattern + r")\s*,\s*(" + NUMBER.pattern + r")\s*\]")


def _float(text: str) -> float:
    return float(text.replace(",", ""))


def _half_unit(text: str) -> float:
    """Half a unit in the last printed digit of a number (its rounding)."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _table_columns(line: str) -> list[tuple[int, int]]:
    bars = [i for i, ch in enumerate(line) if ch == "|"]
    return list(itertools.pairwise(bars))


def parse_numbers(text: str) -> tuple[list[str], list[Number]]:
    """(skeleton lines, numbers): every number replaced by ``#``, whitespace collapsed and
    markdown rule lines reduced to their column count, so that column widths (which follow
    the printed numbers) do not count."""
    skeleton, numbers = [], []
    header: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        in_table = line.startswith("|")
        if in_table and _RULE_LINE.match(line):
            skeleton.append("|" + "---|" * (line.count("|") - 1))
            continue
        spans = _table_columns(line) if in_table else []
        cells = [line[a + 1:b].strip() for a, b in spans]
        # a table's header is the line above its rule line (two tables may follow each
        # other without a blank line)
        is_header = in_table and i + 1 < len(lines) and bool(_RULE_LINE.match(lines[i + 1]))
        if is_header:
            header = cells
        elif not in_table:
            header = []
        row = dict(zip(header, cells, strict=False)) if in_table and not is_header else {}
        for m in NUMBER.finditer(line):
            column = None
            if in_table:
                k = next((j for j, (a, b) in enumerate(spans) if a < m.start() < b), None)
                column = "<header>" if is_header else (
                    header[k] if k is not None and k < len(header) else None)
            context = NUMBER.sub("#", line[:m.start()])
            numbers.append(Number(m.group(), _float(m.group()), i, column, context, row))
        skeleton.append(re.sub(r"\s+", " ", NUMBER.sub("#", line)).strip())
    return skeleton, numbers


def _rule_and_spec(number: Number, spec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The number's rule, and the cell's settings with its column's own (``ess``, ``sd`` …)
    on top: a column is given as a rule name or as ``{"rule": …, "ess": …}``."""
    if number.column == "<header>" or (
            "exact_rows" in spec and re.search(spec["exact_rows"], number.context)):
        return "exact", spec  # a header, or a row of classic (deterministic) numbers
    if number.column is not None:
        rule = spec.get("columns", {}).get(number.column, spec.get("table", "exact"))
    else:
        rule = next((r for pattern, r in spec.get("lines", [])
                     if re.search(pattern, number.context)), spec.get("text", "exact"))
    if isinstance(rule, dict):
        return rule["rule"], {**spec, **rule}
    return rule, spec


def _rule_of(number: Number, spec: dict[str, Any]) -> str:
    return _rule_and_spec(number, spec)[0]


def _posterior_sd(number: Number, line: str, spec: dict[str, Any]) -> float:
    """The posterior sd behind a printed summary: read off its own printed 89% interval
    (``[lower, upper]`` in the same table cell or line, or the row's ``lower``/``upper``
    columns), else the cell's declared ``sd``."""
    where = number.row.get(number.column, line) if number.column else line
    m = _BRACKETS.search(where)
    if m:
        lo, hi = _float(m.group(1)), _float(m.group(2))
    elif "lower" in number.row and "upper" in number.row and number.row["lower"] \
            and number.row["upper"]:
        lo, hi = _float(number.row["lower"]), _float(number.row["upper"])
    else:
        return float(spec["sd"])
    return max(hi - lo, 0.0) / (2 * Z_89)


def tolerance(old: Number, new: Number, old_line: str, spec: dict[str, Any],
              reseeded: bool = False) -> float:
    """How far ``new`` may be from ``old`` (the committed value) under the number's rule."""
    rule, spec = _rule_and_spec(old, spec)
    rounding = _half_unit(old.text) + _half_unit(new.text)
    ess = float(spec.get("ess", 1))
    if rule == "exact":
        return 0.0
    if rule == "seed":  # a seed drawn from the MCMC seed: exact unless that was changed
        return math.inf if reseeded else 0.0
    if rule in ("mean", "bound", "width"):
        factor = {"mean": MEAN_SE, "bound": BOUND_SE, "width": WIDTH_SE}[rule]
        se = factor * _posterior_sd(old, old_line, spec)
        return Z * math.sqrt(2) * se / math.sqrt(ess) + rounding
    if rule == "probability":
        # a posterior probability is the mean of an indicator: se = √(p(1 − p)/ESS)
        p = min(max((old.value + new.value) / 2, 1 / ess), 1 - 1 / ess)
        return Z * math.sqrt(2 * p * (1 - p) / ess) + rounding
    if rule == "ess":
        # an ESS estimate is N/τ̂, τ̂ the integrated autocorrelation time summed up to a
        # window of about 2τ lags; its relative sd is √(2(2M + 1)/N) ≈ √(8τ/N) (Madras &
        # Sokal 1988), N the draws of all chains and τ = N/ESS: √(8/ESS)
        relative_sd = math.sqrt(8 / old.value)
        return Z * math.sqrt(2) * relative_sd * old.value + rounding
    if rule == "short_ess":
        # the ESS of a fit short of the bar (a notebook's deliberately short runs): how well
        # its worst parameter mixes depends on the run (its adaptation, its trajectories),
        # so it moves from run to run by more than the estimation error above. What the
        # cell concludes is the side of the bar ("draw more before reporting"): any value on
        # the committed side; the other side only when both values are within the
        # estimation error of the bar, Z · √(8/bar) · bar
        bar = float(spec.get("bar", 400))
        if (new.value < bar) == (old.value < bar):
            return math.inf
        near = Z * math.sqrt(8 / bar) * bar + rounding
        return math.inf if max(abs(old.value - bar), abs(new.value - bar)) <= near else 0.0
    if rule == "rhat":
        # r̂ − 1 ≈ (2/3) χ²₃/ESS for 2 chains (tests/mcmc_bounds.py); the largest of P
        # parameters stays below the 1 − 10⁻³/P quantile
        return max_rhat_bound(ess, int(spec.get("parameters", 100))) - 1 + rounding
    if rule == "count":  # counts that follow a random event (divergences) or a decision
        if "count_tolerance" in spec:
            return float(spec["count_tolerance"])
        # divergences: Poisson, the difference of two counts has variance 2λ; λ is taken
        # as the committed count + 1 (an upper estimate that is not 0)
        return math.floor(Z * math.sqrt(2 * (old.value + 1)))
    if rule == "share":
        # share of observed rows inside their posterior predictive intervals: the interval
        # ends move by Monte Carlo error, and the rows next to them move in or out. For a
        # row count n, at most m rows in one cell (they share their ends), q = 0.25 (the
        # 50% interval, the least favourable of those printed):
        # var = 4 q(1 − q) m / (ESS n) [whole cells] + 3.19 √(q(1 − q)/ESS) / n [single rows]
        n = _float(old.row[spec.get("rows_column", "rows")])
        m = min(n, float(spec["rows_per_cell"]))
        qq = 0.25 * 0.75
        var = 4 * qq * m / (ess * n) + 3.19 * math.sqrt(qq / ess) / n
        return Z * math.sqrt(2 * var) + rounding
    raise ValueError(f"unknown rule {rule!r} for {old.text!r} (column {old.column!r})")


def _labels_flip_explained(old_nums: list[Number], old_line: str, spec: dict[str, Any],
                           reseeded: bool) -> bool:
    """A decision label (``credible difference`` / ``undecided``, ``True`` / ``False``) may
    differ only on a line with an interval end within its tolerance of a decision edge."""
    edges = spec.get("edges", [-0.02, 0.0, 0.02])
    for n in old_nums:
        if _rule_of(n, spec) != "bound":
            continue
        tol = tolerance(n, n, old_line, spec, reseeded)
        if any(abs(n.value - e) <= tol for e in edges):
            return True
    return False


def sampled_differences(before: str, after: str, spec: dict[str, Any], *,
                        reseeded: bool = False, records: list[dict] | None = None
                        ) -> list[str]:
    """Differences between two printings of a sampled cell beyond Monte Carlo error: the
    text around the numbers must match; each number must be within its tolerance."""
    old_lines, new_lines = before.splitlines(), after.splitlines()
    if spec.get("row_order") == "any":  # a table sorted by a sampled estimate
        old_lines, new_lines = (_sorted_rows(x) for x in (old_lines, new_lines))
        before, after = "\n".join(old_lines), "\n".join(new_lines)
    old_skel, old_nums = parse_numbers(before)
    new_skel, new_nums = parse_numbers(after)
    if len(old_skel) != len(new_skel):
        return [f"{len(old_skel)} lines committed, {len(new_skel)} now"]
    problems = []
    labels = spec.get("labels", [])
    by_line_old: dict[int, list[Number]] = {}
    by_line_new: dict[int, list[Number]] = {}
    for n in old_nums:
        by_line_old.setdefault(n.line, []).append(n)
    for n in new_nums:
        by_line_new.setdefault(n.line, []).append(n)
    for i, (a, b) in enumerate(zip(old_skel, new_skel, strict=True)):
        if a != b:
            blank = re.compile("|".join(re.escape(x) for x in sorted(labels, key=len,
                                                                    reverse=True)))
            same = labels and blank.sub("<label>", a) == blank.sub("<label>", b)
            if not (same and _labels_flip_explained(by_line_old.get(i, []), old_lines[i],
                                                     spec, reseeded)):
                problems.append(f"line {i}: text differs:\n  - {old_lines[i]}\n"
                                f"  + {new_lines[i]}")
                continue
        olds, news = by_line_old.get(i, []), by_line_new.get(i, [])
        if len(olds) != len(news):
            problems.append(f"line {i}: {len(olds)} numbers committed, {len(news)} now")
            continue
        for o, n in zip(olds, news, strict=True):
            tol = tolerance(o, n, old_lines[i], spec, reseeded)
            delta = abs(n.value - o.value)
            if records is not None:
                records.append({"line": i, "column": o.column, "rule": _rule_of(o, spec),
                                "committed": o.text, "now": n.text, "delta": delta,
                                "tolerance": tol})
            if delta > tol:
                where = f"column {o.column!r}" if o.column else f"after {o.context[-30:]!r}"
                problems.append(f"line {i}, {where} ({_rule_of(o, spec)}): {o.text} → "
                                f"{n.text}, |Δ| = {delta:.3g} > tolerance {tol:.3g}")
    return problems


def _sorted_rows(lines: list[str]) -> list[str]:
    """Table rows (after header and rule) sorted by their text without numbers."""
    out, block = [], []
    for line in [*lines, ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            head, body = block[:2], block[2:]
            out += head + sorted(body, key=lambda s: NUMBER.sub("#", s))
            block = []
        out.append(line)
    return out[:-1]


def output_differences(committed: Any, executed: Any, name: str, *, reseeded: bool = False,
                       records: list[dict] | None = None) -> list[str]:
    """One message per code cell whose output changed: a unified diff for a deterministic
    cell, the numbers beyond their Monte Carlo tolerance for a ``sampled`` one."""
    diffs = []
    cells = zip(committed.cells, executed.cells, strict=True)
    for i, (old, new) in enumerate(cells):
        tags = old.get("metadata", {}).get("tags", [])
        if old.cell_type != "code" or NONDETERMINISTIC in tags:
            continue
        before, after = comparable_text(old), comparable_text(new)
        head = old.source.strip().splitlines()[0] if old.source.strip() else ""
        if SAMPLED in tags:
            spec = old.metadata.get(SAMPLED)
            if not spec or not spec.get("why"):
                diffs.append(f"cell {i} ({head[:60]!r}) is tagged {SAMPLED!r} but its "
                             f"metadata has no {SAMPLED!r} rules with a 'why'")
                continue
            cell_records: list[dict] = []
            problems = sampled_differences(before, after, spec, reseeded=reseeded,
                                           records=cell_records)
            if records is not None:
                records += [{"notebook": name, "cell": i, **r} for r in cell_records]
            if problems:
                diffs.append(f"cell {i} ({head[:60]!r}), sampled:\n  " + "\n  ".join(problems))
        elif before != after:
            diff = "\n".join(difflib.unified_diff(
                before.splitlines(), after.splitlines(), f"{name} cell {i} (committed)",
                f"{name} cell {i} (executed now)", lineterm="", n=1))
            diffs.append(f"cell {i} ({head[:60]!r}):\n{diff}")
    return diffs


# --------------------------------------------------------------------------- tests
@pytest.mark.slow
def test_notebook_runs(execution):
    assert execution.error is None, f"{execution.path.name} failed:\n{execution.error}"
    errors = [o for c in execution.executed.cells if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    written = [p.name for p in execution.workdir.iterdir() if not p.name.startswith(".")]
    assert not written, f"the notebook wrote files: {sorted(written)}"


@pytest.mark.slow
def test_committed_notebook_outputs_are_todays_outputs(execution):
    if execution.error is not None:
        pytest.skip("the notebook did not run (see test_notebook_runs)")
    changed = [v for v in SPEED_SETTINGS if os.environ.get(v)]
    if changed:
        pytest.skip(f"{', '.join(changed)} set: the committed outputs are for the defaults")
    records: list[dict] = []
    diffs = output_differences(execution.committed, execution.executed,
                               execution.path.name,
                               reseeded=bool(os.environ.get(MCMC_SEED_SETTING)),
                               records=records)
    if os.environ.get(REPORT_SETTING):
        with open(os.environ[REPORT_SETTING], "a", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    assert not diffs, (
        f"{execution.path.name}: {len(diffs)} cell(s) print other text than the committed "
        "outputs, or sampled numbers beyond their Monte Carlo tolerance (re-execute and "
        "commit: python tests/test_notebooks.py --write "
        f"notebooks/{execution.path.name}):\n\n" + "\n\n".join(diffs))


def test_output_comparison_sees_numbers_not_noise():
    # the comparison itself, on hand-made cells: a changed number is a difference; a
    # temporary path, a timing, an image or stderr chatter is not
    import nbformat

    def cell(outputs, tags=()):
        c = nbformat.v4.new_code_cell("print(x)")
        c.outputs = [nbformat.from_dict(o) for o in outputs]
        c.metadata["tags"] = list(tags)
        return c

    tmp = tempfile.gettempdir()
    old = nbformat.v4.new_notebook(cells=[
        cell([{"output_type": "stream", "name": "stdout",
               "text": f"divergences 0\nsaved to {tmp}/embias-models-abc/fit took 20 seconds\n"},
              {"output_type": "stream", "name": "stderr", "text": "Sampling took 20 seconds"},
              {"output_type": "display_data", "metadata": {},
               "data": {"image/png": "AAA", "text/plain": "<Figure size 1x1>"}}]),
        cell([{"output_type": "stream", "name": "stdout", "text": "4.1e-09\n"}],
             tags=[NONDETERMINISTIC]),
    ])
    new = copy.deepcopy(old)
    new.cells[0].outputs[0]["text"] = (
        f"divergences 0\nsaved to {tmp}/embias-models-xyz/fit took 31 seconds\n")
    new.cells[0].outputs[1]["text"] = "Sampling took 31 seconds, ConvergenceWarning"
    new.cells[0].outputs[2]["data"]["image/png"] = "BBB"
    new.cells[1].outputs[0]["text"] = "4.3e-09\n"
    assert output_differences(old, new, "nb") == []
    new.cells[0].outputs[0]["text"] = new.cells[0].outputs[0]["text"].replace(
        "divergences 0", "divergences 3")
    (diff,) = output_differences(old, new, "nb")
    assert "-divergences 0" in diff and "+divergences 3" in diff


def test_sampled_numbers_compare_within_monte_carlo_error():
    # a sampled cell on hand-made text; every tolerance below is worked out by hand from
    # the rules (ESS 1000, Z = 4.5, sd read off the row's 89% interval: 0.2/3.196)
    spec = {"why": "test", "ess": 1000,
            "columns": {"estimate": "mean", "lower": "bound", "upper": "bound",
                        "prob_gt_0": "probability"},
            "labels": ["credible difference", "undecided"]}
    before = ("| group | estimate | lower | upper | prob_gt_0 | decision |\n"
              "|:--|--:|--:|--:|--:|:--|\n"
              "| a | 0.500 | 0.400 | 0.600 | 0.500 | undecided |\n"
              "| b | -0.100 | -0.150 | 0.021 | 0.100 | undecided |")

    def after(a="0.500 | 0.400 | 0.600 | 0.500 | undecided",
              b="-0.100 | -0.150 | 0.021 | 0.100 | undecided"):
        # other column widths, as a table printed from other numbers has
        return ("| group   | estimate | lower  | upper | prob_gt_0 | decision |\n"
                "|:------|-------:|---:|--:|--:|:--|\n"
                f"| a | {a} |\n| b | {b} |")

    def check(**rows):
        return sampled_differences(before, after(**rows), spec)

    sd = 0.2 / (2 * 1.598)
    mean_tol = 4.5 * math.sqrt(2) * sd / math.sqrt(1000) + 0.001  # 0.0136
    bound_tol = 4.5 * math.sqrt(2) * 3.8 * sd / math.sqrt(1000) + 0.001  # 0.0489
    assert mean_tol == pytest.approx(0.01359, abs=1e-5)
    assert bound_tol == pytest.approx(0.04886, abs=1e-5)
    assert check() == []
    assert check(a="0.513 | 0.448 | 0.648 | 0.590 | undecided") == []
    (problem,) = check(a="0.515 | 0.400 | 0.600 | 0.500 | undecided")
    assert "column 'estimate' (mean): 0.500 → 0.515" in problem
    (problem,) = check(a="0.500 | 0.450 | 0.600 | 0.500 | undecided")
    assert "column 'lower' (bound)" in problem
    # a probability: se √(p(1 − p)/ESS) at the mean of the two values
    assert check(a="0.500 | 0.400 | 0.600 | 0.590 | undecided") == []
    (problem,) = check(a="0.500 | 0.400 | 0.600 | 0.620 | undecided")
    assert "column 'prob_gt_0' (probability)" in problem
    # a decision may flip where an interval end is within its tolerance of a ROPE edge
    # (row b: upper 0.021, edge 0.02) and nowhere else (row a: ends 0.1 from any edge)
    assert check(b="-0.100 | -0.150 | 0.019 | 0.100 | credible difference") == []
    (problem,) = check(a="0.500 | 0.400 | 0.600 | 0.500 | credible difference")
    assert "text differs" in problem
    # text around the numbers is compared exactly; so is a number with no rule
    (problem,) = check(a="0.500 | 0.400 | 0.600 | 0.500 | undecided (!)")
    assert "text differs" in problem
    assert sampled_differences("rows: 4815", "rows: 4816", spec) == [
        "line 0, after 'rows: ' (exact): 4815 → 4816, |Δ| = 1 > tolerance 0"]
    # rows sorted by a sampled estimate may come in another order
    swapped = before.splitlines()
    swapped[2], swapped[3] = swapped[3], swapped[2]
    assert sampled_differences(before, "\n".join(swapped), spec) != []
    assert sampled_differences(before, "\n".join(swapped), {**spec, "row_order": "any"}) == []


def test_sampled_rules_follow_their_theory():
    # ESS: relative sd √(8/ESS) → 1000 ± 4.5 √2 √0.008 × 1000 = ± 569 (+ rounding 1)
    spec = {"why": "test", "ess": 1000, "columns": {"ess": "ess", "r": "rhat", "div": "count",
                                                    "inside": "share"},
            "parameters": 100, "rows_per_cell": 10}
    text = "| ess | r | div | inside | rows |\n|--|--|--|--|--|\n| {} | {} | {} | {} | 100 |"
    base = ["1000", "1.002", "0", "0.500"]

    def problems(i, value):
        row = list(base)
        row[i] = value
        return sampled_differences(text.format(*base), text.format(*row), spec)

    assert problems(0, "1569") == [] and problems(0, "432") == []
    assert problems(0, "1571") and problems(0, "429")
    # the ESS of a short fit: the side of the 400 bar; across it only within
    # 4.5 √(8/400) 400 = 254.6 of the bar (+ rounding 1) for both values
    short = {**spec, "columns": {**spec["columns"], "ess": "short_ess"}}

    def short_problems(old, new):
        row = list(base)
        row[0] = new
        return sampled_differences(text.format(old, *base[1:]), text.format(*row), short)

    assert short_problems("52", "199") == [] and short_problems("52", "399") == []
    assert short_problems("52", "401")  # a fit short of the bar now past it
    assert short_problems("300", "450") == [] and short_problems("146", "655") == []
    assert short_problems("144", "500") and short_problems("300", "656")
    # r̂ − 1 ≈ (2/3) χ²₃/ESS; the 1 − 10⁻⁵ quantile of χ²₃ is 25.90 → 0.01727 (+ 0.001)
    assert problems(1, "1.020") == [] and problems(1, "1.021")
    # divergences, Poisson with λ = committed + 1: ⌊4.5 √(2 × (0 + 1))⌋ = 6
    assert problems(2, "6") == [] and problems(2, "7")
    # share of 100 rows, ≤ 10 per cell: var = 4 × 0.1875 × 10/(1000 × 100)
    #   + 3.19 √(0.1875/1000)/100 = 5.12e-4 → 4.5 √(2 var) + 0.001 = 0.1450
    assert problems(3, "0.644") == [] and problems(3, "0.646")


def test_sampled_cells_state_a_rule_for_every_number():
    # every tagged cell says why, and each of its committed numbers has a rule that
    # applies (an unknown rule or a missing setting such as rows_per_cell fails here,
    # without executing anything)
    import nbformat

    tagged = 0
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if SAMPLED not in cell.get("metadata", {}).get("tags", []):
                continue
            tagged += 1
            spec = cell.metadata.get(SAMPLED, {})
            assert spec.get("why") and spec.get("ess"), (path.name, i)
            text = comparable_text(cell)
            assert sampled_differences(text, text, spec) == [], (path.name, i)
            lines = text.splitlines()
            for number in parse_numbers(text)[1]:
                assert tolerance(number, number, lines[number.line], spec) >= 0
    assert tagged >= 20


def write_executed(paths: list[str]) -> None:
    """Re-execute notebooks and write them back with their fresh outputs."""
    import nbformat

    for name in paths:
        path = Path(name).resolve()
        with tempfile.TemporaryDirectory() as workdir:
            _, nb, error = execute(path, Path(workdir))
        if error is not None:
            sys.exit(f"{path.name} failed, not written:\n{error}")
        nbformat.write(nb, path)
        print(f"wrote {path}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--write":
        sys.exit("usage: python tests/test_notebooks.py --write notebooks/NAME.ipynb …")
    write_executed(sys.argv[2:])


def test_notebooks_import_only_the_public_api():
    # notebooks are what users copy: every embias import must be a public name
    # (embias.__all__, or the public subpackages embias.classifier / embias.studies)
    import ast
    import json

    import embias

    public_modules = {"embias", "embias.classifier", "embias.studies"}
    found = 0
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            tree = ast.parse("".join(cell["source"]))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                        "embias"):
                    found += 1
                    assert node.module in public_modules, (path.name, node.module)
                    if node.module == "embias":
                        names = {a.name for a in node.names}
                        assert names <= set(embias.__all__), (path.name,
                                                              names - set(embias.__all__))
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.startswith("embias"):
                            found += 1
                            assert alias.name in public_modules, (path.name, alias.name)
    assert found >= 4  # every notebook imports embias
