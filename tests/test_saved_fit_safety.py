"""Saved fits that stay what was saved: edits and deletions named, two processes saving
one key, Ctrl-C and impossible draws on the command line, warnings at the caller's line.

Known answers: the edits are made by hand, so which file changed is known exactly; the
manifest's digests are recomputed here with :mod:`hashlib`; the values a fit keeps per draw
are counted in its own ``DataTree``; the memory floor is draws × chains × 10 × 8 bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

import embias
from embias.pipeline.store import MANIFEST_FILE, SavedFitReplacedWarning, UnreadableFitError
from embias.pipeline.study_fits import saved_fit_target
from embias.settings import FitSettings

#: One small fit (the dataset level samples fastest); the tests edit copies of it.
OPTIONS = {"level": "dataset", "draws": 100, "tune": 100, "random_seed": 1}
EMBIAS = [sys.executable, "-m", "embias"]


def _fit(models_dir: Path, **more) -> embias.BiasFit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", embias.ConvergenceWarning)  # 100 draws
        return embias.fit_religion_model("published:reddit", models_dir=models_dir,
                                         progress=False, **{**OPTIONS, **more})


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    return Path(_fit(tmp_path_factory.mktemp("models")).path)


@pytest.fixture
def copy(saved: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(saved, tmp_path / saved.name))


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


# ------------------------------------------------------------------ item 9: manifest
def test_the_manifest_holds_the_sha256_of_every_other_file(saved: Path) -> None:
    manifest = json.loads((saved / MANIFEST_FILE).read_text(encoding="utf-8"))
    others = {k: v for k, v in _digests(saved).items() if k != MANIFEST_FILE}
    assert manifest["files"] == others
    assert isinstance(manifest["pid"], int) and manifest["host"] == socket.gethostname()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", manifest["saved_at"])
    embias.load_fit(saved)  # unedited: loads


@pytest.mark.parametrize("field", ["level", "draws"])
def test_an_edited_setting_is_named(copy: Path, field: str) -> None:
    file = copy / "settings.json"
    record = json.loads(file.read_text(encoding="utf-8"))
    record["settings"][field] = {"level": "hierarchical", "draws": 5000}[field]
    file.write_text(json.dumps(record, indent=2), encoding="utf-8")
    with pytest.raises(UnreadableFitError, match=(
            rf"saved fit '{re.escape(str(copy))}': settings\.json changed since the fit was "
            r"saved at .* \(its SHA-256 is not the one in manifest\.json\) — fit it again "
            r"\(refit=True, embias fit --refit\) or delete the folder")):
        embias.load_fit(copy)


def test_an_edited_estimate_is_named(copy: Path) -> None:
    file = copy / "intervals.parquet"
    intervals = pd.read_parquet(file)
    row = intervals.index[0]
    intervals.loc[row, "estimate"] = intervals.loc[row, "upper"] + 1.0  # outside its interval
    intervals.to_parquet(file, index=False)
    with pytest.raises(UnreadableFitError, match=r"intervals\.parquet changed since the fit "
                                                 r"was saved"):
        embias.load_fit(copy)


@pytest.mark.parametrize("name", ["diagnostics.parquet", "check_cells.parquet"])
def test_a_deleted_file_is_named(copy: Path, name: str) -> None:
    (copy / name).unlink()
    with pytest.raises(UnreadableFitError, match=(
            rf"saved fit '{re.escape(str(copy))}': {re.escape(name)} is missing \(deleted "
            r"since the fit was saved at .*; manifest\.json lists it\) — fit it again")):
        embias.load_fit(copy)


def test_embias_show_of_an_edited_fit_is_one_line(copy: Path) -> None:
    file = copy / "settings.json"
    record = json.loads(file.read_text(encoding="utf-8"))
    record["settings"]["level"] = "hierarchical"
    file.write_text(json.dumps(record), encoding="utf-8")
    run = subprocess.run([*EMBIAS, "show", str(copy)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.startswith(f"embias: error: saved fit {str(copy)!r}: settings.json "
                                 "changed since the fit was saved")
    assert run.stderr.count("\n") == 1


def test_a_fit_without_manifest_is_refused_then_refitted_with_the_warning_at_the_caller(
        copy: Path) -> None:
    """Fits saved before manifests existed cannot be checked: refused by load_fit (fit
    format 2 in their settings.json, no manifest.json), fitted again by fit_*_model with a
    warning that points at this file, not at embias's own lines."""
    (copy / MANIFEST_FILE).unlink()
    with pytest.raises(UnreadableFitError, match=r"manifest\.json is missing, so the files "
                                                 r"cannot be checked"):
        embias.load_fit(copy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = embias.fit_religion_model("published:reddit", models_dir=copy.parent,
                                        progress=False, **OPTIONS)
    refit = [w for w in caught if "fitting again over it" in str(w.message)]
    assert len(refit) == 1 and "manifest.json is missing" in str(refit[0].message)
    # embias's warnings point at the line above, in this file, not at store.py
    ours = [w for w in caught if "fitting again over it" in str(w.message)
            or issubclass(w.category, embias.ConvergenceWarning)]
    assert {w.filename for w in ours} == {__file__}
    assert fit.path == str(copy) and (copy / MANIFEST_FILE).is_file()
    embias.load_fit(copy)


# ------------------------------------------------------------------ item 8: two processes
_SAVER = textwrap.dedent("""
    import json, os, sys, time, warnings
    from pathlib import Path
    import embias

    me, other, models = sys.argv[1], sys.argv[2], Path(sys.argv[3])

    def barrier(fit):  # both fits are sampled before either is saved
        (models.parent / f"ready-{me}").touch()
        deadline = time.time() + 600
        while not (models.parent / f"ready-{other}").exists():
            if time.time() > deadline:
                raise SystemExit("the other process never sampled")
            time.sleep(0.05)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = embias.fit_religion_model(
            "published:reddit", models_dir=models, refit=True, progress=False,
            level="dataset", draws=100, tune=100, on_sampled=barrier)
    print(json.dumps({"pid": os.getpid(), "seed": fit.settings["random_seed"],
                      "path": fit.path,
                      "warnings": [[w.category.__name__, str(w.message), w.filename]
                                   for w in caught]}))
""")


@pytest.mark.slow
def test_two_processes_saving_one_key_keep_one_complete_fit_and_say_so(
        tmp_path: Path) -> None:
    script = tmp_path / "saver.py"
    script.write_text(_SAVER, encoding="utf-8")
    models = tmp_path / "models"
    runs = [subprocess.Popen([sys.executable, str(script), me, other, str(models)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for me, other in (("a", "b"), ("b", "a"))]
    outs = [run.communicate(timeout=900) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in outs]
    said = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    assert said[0]["path"] == said[1]["path"]
    replaced = [[w for w in s["warnings"] if w[0] == SavedFitReplacedWarning.__name__]
                for s in said]
    # exactly one save found the other's fit in place: it says so, naming the other process
    assert sorted(len(r) for r in replaced) == [0, 1]
    last, first = (said[0], said[1]) if replaced[0] else (said[1], said[0])
    (message,) = [w[1] for r in replaced for w in r]
    assert f"by process {first['pid']} on " in message
    assert message.startswith(f"saved fit {last['path']!r} replaced the one saved there at ")
    assert [w[2] for r in replaced for w in r] == [str(script)]  # at the caller's line
    # the folder holds the later fit, complete and checked against its manifest
    folder = Path(last["path"])
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["pid"] == last["pid"]
    assert {k: v for k, v in _digests(folder).items() if k != MANIFEST_FILE} == \
        manifest["files"]
    fit = embias.load_fit(folder)
    assert fit.settings["random_seed"] == last["seed"]
    assert fit.posterior["posterior"].sizes["draw"] == 100
    assert [p.name for p in models.iterdir()] == [folder.name]  # no temporary folders


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    import embias
    from embias.pipeline.store import save_fit

    path, rounds = Path(sys.argv[1]), int(sys.argv[2])
    fit = embias.load_fit(path)
    fit.posterior  # the draws, read before the saves begin
    print("ready", flush=True)
    for _ in range(rounds):
        save_fit(fit, path)
""")


@pytest.mark.slow
def test_a_reader_always_finds_a_complete_fit_while_another_process_saves(
        copy: Path, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(_WRITER, encoding="utf-8")
    writer = subprocess.Popen([sys.executable, str(script), str(copy), "15"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "ready"
    loads, failures = 0, []
    while writer.poll() is None:
        try:
            embias.load_fit(copy)
        except (OSError, ValueError) as exc:  # FileNotFoundError, UnreadableFitError
            failures.append(f"{type(exc).__name__}: {exc}")
        loads += 1
    assert writer.returncode == 0, writer.stderr.read()[-2000:]
    assert loads >= 5 and failures == []
    assert [p.name for p in copy.parent.iterdir() if p.name.startswith(".")] == []


# ------------------------------------------------------------------ item 10: memory
def _machine_memory() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def test_fit_settings_refuse_draws_whose_values_alone_exceed_memory() -> None:
    draws = _machine_memory() // (2 * 10 * 8) + 1  # 2 chains × 10 values × 8 bytes
    floor = draws * 2 * 10 * 8
    with pytest.raises(ValueError, match=(
            rf"draws={draws} × chains=2 \(at least 10 stored values per draw\) needs about "
            rf"{floor / 1e9:.1f} GB of memory; this machine has "
            rf"{_machine_memory() / 1e9:.1f} GB — use fewer draws or chains")):
        FitSettings(draws=draws)
    FitSettings(draws=draws - 2)  # just below: accepted here
    with pytest.raises(ValueError, match=r"chains must be an integer ≥ 1, got 0"):
        FitSettings(chains=0)


def test_fit_memory_counts_the_values_the_fit_keeps(saved: Path) -> None:
    from embias.bayes.data import cell_statistics
    from embias.bayes.model import build_model
    from embias.bayes.sampling import BASE_MEMORY, PEAK_PER_STORED_BYTE_OTHER, fit_memory

    fit = embias.load_fit(saved)
    tree = fit.posterior
    kept = sum(v.size for group in ("posterior", "sample_stats", "log_likelihood")
               for v in tree[group].to_dataset().data_vars.values())
    per_draw = kept / (2 * 100)
    model = build_model(cell_statistics(fit.table), level="dataset", data="summary",
                        table=fit.table, centred=(), prior_location=1.0)
    needed, values = fit_memory(model, FitSettings(**OPTIONS), fit.table)
    assert values == per_draw
    assert needed == BASE_MEMORY + PEAK_PER_STORED_BYTE_OTHER * 2 * 100 * values * 8


def test_embias_fit_with_more_draws_than_memory_is_one_line(saved: Path,
                                                           tmp_path: Path) -> None:
    out = tmp_path / "models"
    run = subprocess.run([*EMBIAS, "fit", "religion", "--embedding", "published:reddit",
                          "--draws", "50000000", "--out", str(out), "--no-progress"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stderr[-2000:]
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    found = re.fullmatch(r"embias: error: a crossed fit of 50,000,000 draws × 2 chains "
                         r"\((\d+) values kept per draw\) needs about ([\d.]+) TB of memory; "
                         r"this machine has ([\d.]+) GB — at most about ([\d,]+) draws with "
                         r"2 chains fit here\n", run.stderr)
    assert found, run.stderr
    values = int(found[1])
    words = embias.load_fit(saved).table["word_to_compare"].nunique()
    assert values > 2 * words  # each compared word's effect and log-likelihood, and more
    stored = 50_000_000 * 2 * values * 8 / 1e12
    assert stored < float(found[2]) < 20 * stored
    assert found[3] == f"{_machine_memory() / 1e9:.1f}"
    assert not any(out.glob("*/posterior.nc"))  # nothing sampled, nothing saved


# ------------------------------------------------------------------ item 11: Ctrl-C
@pytest.mark.slow
def test_ctrl_c_during_embias_fit_is_one_line_and_keeps_the_saved_fit(
        saved: Path, tmp_path: Path) -> None:
    draws = 30000  # long enough to be interrupted while sampling
    out = tmp_path / "models"
    out.mkdir()
    # a saved fit where this command saves (its content: the small fit)
    from embias.pipeline.study_tables import embedding_identity, study_identity

    st = embias.load_study("religion")
    identity = {"study": st.name, "study_lists": study_identity(st),
                "embedding": embedding_identity("published:reddit")}
    run_settings = FitSettings(**{**OPTIONS, "draws": draws})
    target, _ = saved_fit_target(out, st.name, "published:reddit", run_settings,
                                 identity)
    shutil.copytree(saved, target)
    before = _digests(target)
    proc = subprocess.Popen(
        [*EMBIAS, "fit", "religion", "--embedding", "published:reddit", "--level", "dataset",
         "--draws", str(draws), "--tune", "100", "--seed", "1", "--refit", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True)
    lines = []
    deadline = time.time() + 300
    while time.time() < deadline:  # PyMC names the sampler as sampling starts
        line = proc.stderr.readline()
        lines.append(line)
        if not line or line.startswith("NUTS["):
            break
    assert lines[-1].startswith("NUTS["), "".join(lines)
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground process group
    stdout, rest = proc.communicate(timeout=600)
    err = "".join(lines) + rest
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    said = [line for line in err.splitlines() if line.startswith("embias:")]
    pid = json.loads((target / MANIFEST_FILE).read_text(encoding="utf-8"))["pid"]
    assert len(said) == 1
    assert re.fullmatch(rf"embias: interrupted: nothing saved; the fit saved at \S+ \S+ by "
                        rf"process {pid} on \S+ in {re.escape(str(target))} is unchanged",
                        said[0]), said
    assert stdout == ""
    assert _digests(target) == before  # the saved fit is as it was
    assert [p.name for p in out.iterdir()] == [target.name]


def test_embias_fit_says_it_reused_a_saved_fit_and_when_it_was_saved(
        saved: Path, tmp_path: Path) -> None:
    out = tmp_path / "models"
    out.mkdir()
    shutil.copytree(saved, out / saved.name)  # the fit these options make, saved earlier
    when = json.loads((saved / MANIFEST_FILE).read_text(encoding="utf-8"))["saved_at"]
    run = subprocess.run([*EMBIAS, "fit", "religion", "--embedding", "published:reddit",
                          "--level", "dataset", "--draws", "100", "--tune", "100", "--seed",
                          "1", "--out", str(out), "--no-progress"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (f"reused saved fit: {out / saved.name} (saved {when.replace('T', ' ')})\n"
            in run.stdout)
