"""``embias fit`` and ``embias show`` (moved from test_bayes_fits.py with the CLI).

Real sampling with short chains: these tests check the options, the printed report and the
errors, not the posterior (see test_bayes.py for that).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
import pytest

import embias
from embias.cli import main
from embias.settings import FitSettings

matplotlib.use("Agg")


def test_cli_fit_prints_table_and_diagnostics_and_writes_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["fit", "religion", "--embedding", "published:reddit", "--draws", "150",
            "--tune", "200", "--seed", "5", "--out", str(tmp_path), "--no-progress",
            "--ci-kind", "eti"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", embias.ConvergenceWarning)  # reported on stderr instead
        assert main(argv) == 0
    out, err = capsys.readouterr()
    # the default level is the crossed model
    assert "# religion / published:reddit: crossed model, data=summary, 2 chains × 150 " \
           "draws, seed 5" in out
    assert "| connection_mean | associated " in out
    assert "| contrast        | associated - none " in out
    # a word-embedding table has no templates: the spread is the compared words' alone
    assert "## spread of the compared words' effects (sd)" in out and "template" not in out
    assert "## diagnostics" in out and "max_r_hat" in out
    assert "## posterior predictive check" in out
    assert " eti " in out and "word_coefficient" not in out
    # 2 × 150 draws cannot give ESS ≥ 400: the warning reaches stderr, one line each
    assert "embias: warning: ess_bulk < 400" in err
    (fit_dir,) = list(tmp_path.iterdir())
    png = fit_dir / "forest.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"forest plot: {png}" in out
    _check_page_figures_kept(fit_dir, tmp_path)

    assert main(["show", str(fit_dir), "--words", "--png", str(tmp_path / "again.png"),
                 "--ci-prob", "0.5"]) == 0
    out, err = capsys.readouterr()
    assert "| word_coefficient | jewish          | jew " in out
    assert "word_contrast" in out and " 0.500 " in out
    assert "warning: ess_bulk < 400" in err
    assert (tmp_path / "again.png").read_bytes()[:4] == b"\x89PNG"

    # the fit's own forest plot is drawn once per set of options: `show` with the options
    # it was drawn with reuses it, other options redraw it
    stamp = png.stat().st_mtime_ns
    assert main(["show", str(fit_dir), "--ci-kind", "eti"]) == 0
    assert png.stat().st_mtime_ns == stamp
    assert main(["show", str(fit_dir), "--ci-kind", "hdi"]) == 0
    assert png.stat().st_mtime_ns > stamp
    capsys.readouterr()


def _check_page_figures_kept(fit_dir: Path, tmp_path: Path, *, ci_kind: str = "eti") -> None:
    """`embias fit` draws the audit page's figures with the fit: a page built
    from the fit draws nothing and equals, byte for byte but for the time it was made and
    the fit's folder, the page built from a copy of the fit without them."""
    import re
    import shutil

    import embias.plots
    from embias.audit import AuditOptions, audit_html

    kept = sorted(p.name.split("-")[0] for p in (fit_dir / "report-cache").iterdir())
    assert kept == ["forest", "ppc"]
    copy = Path(shutil.copytree(fit_dir, tmp_path / "copy"))
    shutil.rmtree(copy / "report-cache")
    pages = []
    for folder, may_draw in ((fit_dir, False), (copy, True)):
        with pytest.MonkeyPatch.context() as patch:
            if not may_draw:
                for name in ("plot_bias_fit", "plot_predictive_check"):
                    patch.setattr(embias.plots, name, _no_drawing)
            html = audit_html("religion", fits=str(folder),
                              options=AuditOptions(ci_kind=ci_kind))
        html = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "TIME", html)
        pages.append(html.replace(str(folder), "FIT"))
    assert pages[0].count("data:image/svg+xml;base64,") == 2
    assert pages[0] == pages[1]


def _no_drawing(*args, **kwargs):
    raise AssertionError("the figure was drawn again")


def test_cli_errors_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fit", "astrology", "--out", str(tmp_path / "m")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("embias: error: unknown study 'astrology'")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m").exists()
    assert main(["show", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("embias: error: ") and "is not a saved embias fit" in err
    with pytest.raises(SystemExit) as info:
        main(["fit", "religion", "--level", "county"])
    assert info.value.code == 2
    capsys.readouterr()


def test_cli_fit_passes_one_fit_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The options reach the library as one FitSettings (no sampling here)."""
    calls = []

    class Stop(Exception):
        pass

    def fake(study, embedding, **options):
        calls.append((study, embedding, options))
        raise Stop

    import importlib.util

    real = importlib.util.find_spec
    # nutpie counts as installed (the CLI checks the sampler's package before any work)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "nutpie" else real(name, *a))
    monkeypatch.setattr(embias, "fit_study_model", fake, raising=False)
    with pytest.raises(Stop):
        main(["fit", "race", "--embedding", "published:google", "--draws", "50", "--seed",
              "9", "--sampler", "nutpie", "--out", "somewhere", "--refit", "--no-progress"])
    ((study, embedding, options),) = calls
    assert (study, embedding) == ("race", "published:google")
    # how the command learns that it sampled (it then prints "saved fit", else "reused
    # saved fit": tests/test_saved_fit_safety.py)
    options.pop("on_sampled")
    assert options == {"settings": FitSettings(draws=50, random_seed=9, sampler="nutpie"),
                       "models_dir": "somewhere", "refit": True, "progress": False}


@pytest.mark.slow
def test_embias_fit_as_a_console_script_keeps_the_page_figures_with_the_fit(
        tmp_path: Path) -> None:
    """`embias fit` run as users run it (a fresh process) writes forest.png and keeps the
    audit page's figures in the saved fit, so that a page built from the fit draws nothing;
    it forks no process (Python warns about forking a process that runs JAX's threads)."""
    import os
    import subprocess
    import sys

    out = tmp_path / "models"
    done = subprocess.run(
        [sys.executable, "-m", "embias", "fit", "religion", "--embedding",
         "published:reddit", "--level", "hierarchical", "--draws", "150", "--tune", "200",
         "--seed", "5", "--out", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "fork" not in done.stderr.lower(), done.stderr[-3000:]
    (fit,) = list(out.iterdir())
    assert (fit / "forest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _check_page_figures_kept(fit, tmp_path, ci_kind="hdi")
