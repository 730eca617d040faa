"""Every notebook in notebooks/ runs top to bottom (in a scratch working directory), and its
committed outputs are the outputs the code gives today (issue 11, item 16).

Each notebook is executed once per test session (a session fixture shared by both tests,
which run on one xdist worker per notebook). The comparison covers what a reader takes as a
result — the text of ``stdout`` and of ``text/plain`` results — of every code cell except
those tagged ``nondeterministic`` (a tag for cells whose numbers legitimately vary across
machines; the notebook says why next to the tag). Ignored: images, ``stderr`` (warnings
that name temporary paths, PyMC's sampling messages, progress bars), temporary paths,
timings and memory addresses in the text. Sampling is deterministic for a seed on one
machine, so a difference means the committed output is stale: re-execute the notebook
(``make notebooks``, or ``python tests/test_notebooks.py --write notebooks/NAME.ipynb``)
and commit it.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

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


def output_differences(committed: Any, executed: Any, name: str) -> list[str]:
    """One unified diff per code cell whose comparable text changed."""
    diffs = []
    cells = zip(committed.cells, executed.cells, strict=True)
    for i, (old, new) in enumerate(cells):
        if old.cell_type != "code" or NONDETERMINISTIC in old.get("metadata", {}).get(
                "tags", []):
            continue
        before, after = comparable_text(old), comparable_text(new)
        if before != after:
            head = old.source.strip().splitlines()[0] if old.source.strip() else ""
            diff = "\n".join(difflib.unified_diff(
                before.splitlines(), after.splitlines(), f"{name} cell {i} (committed)",
                f"{name} cell {i} (executed now)", lineterm="", n=1))
            diffs.append(f"cell {i} ({head[:60]!r}):\n{diff}")
    return diffs


# --------------------------------------------------------------------------- tests
def test_notebook_runs(execution):
    assert execution.error is None, f"{execution.path.name} failed:\n{execution.error}"
    errors = [o for c in execution.executed.cells if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    written = [p.name for p in execution.workdir.iterdir() if not p.name.startswith(".")]
    assert not written, f"the notebook wrote files: {sorted(written)}"


def test_item16_committed_notebook_outputs_are_todays_outputs(execution):
    if execution.error is not None:
        pytest.skip("the notebook did not run (see test_notebook_runs)")
    changed = [v for v in SPEED_SETTINGS if os.environ.get(v)]
    if changed:
        pytest.skip(f"{', '.join(changed)} set: the committed outputs are for the defaults")
    diffs = output_differences(execution.committed, execution.executed,
                               execution.path.name)
    assert not diffs, (
        f"{execution.path.name}: {len(diffs)} cell(s) print other numbers than the "
        "committed outputs (re-execute and commit: python tests/test_notebooks.py --write "
        f"notebooks/{execution.path.name}):\n\n" + "\n\n".join(diffs))


def test_item16_output_comparison_sees_numbers_not_noise():
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


def test_item17_notebooks_import_only_the_public_api():
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
