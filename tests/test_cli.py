"""The `embias` command line: table, weat, mac, summary, debias; the shared options; the
one error policy; lazy imports; the entry points."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import embias.cli
from embias.cli import build_parser, main
from embias.cli._options import fit_settings
from embias.settings import FitSettings

ROOT = Path(__file__).resolve().parent.parent
EMBIAS = Path(sys.executable).with_name("embias")
HEAVY = ("numpy", "pandas", "pymc", "gensim", "matplotlib")


def run(*argv: str, entry: str = "script") -> subprocess.CompletedProcess[str]:
    """Run the command line in a fresh process: the console script or ``python -m``."""
    command = ([str(EMBIAS)] if entry == "script" else [sys.executable, "-m", entry])
    return subprocess.run([*command, *argv], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"},
                          timeout=600)


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
             ) -> list[tuple[str, ...]]:
    """Every command path of the parser (``()``, ``("fit",)``, ``("bbu", "n")`` …)."""
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += commands(sub, (*prefix, name))
    return found


# --------------------------------------------------------------------------- commands
def test_weat_single_test(capsys):
    assert main(["weat", "weat6"]) == 0
    out = capsys.readouterr().out
    assert "| weat_effect_size | weat6 |    1.708 |" in out
    assert "John" in out  # per-word s values


def test_weat_all_prints_the_readme_table(capsys):
    assert main(["weat", "all", "--permutations", "2000"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("| weat")]
    assert len(lines) == 10
    assert lines[0].split("|")[2].strip() == "1.080"
    assert "flowers:1" in lines[0]  # gladiola is missing from GloVe 6B


def test_table_to_csv(tmp_path, capsys):
    out = tmp_path / "religion.csv"
    assert main(["table", "religion", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert len(table) == 4815
    printed = capsys.readouterr()
    assert "neutral: 1 of 226 missing: literaly" in printed.out
    assert "embias: warning: 1 words missing" in printed.err
    warning_lines = [line for line in printed.err.splitlines() if "warning" in line]
    assert all(line.startswith("embias: warning: ") for line in warning_lines)


def test_mac_on_published_table(capsys):
    assert main(["mac", "religion", "--embedding", "published:reddit"]) == 0
    assert "MAC (mean cosine distance, Manzini et al. 2019): 0.8614" in capsys.readouterr().out


def test_summary(capsys):
    assert main(["summary", "religion"]) == 0
    out = capsys.readouterr().out
    assert "== MAC (mean cosine distance): 0.8229" in out
    assert "jewish vs muslim" in out


def test_debias_command_writes_kv_that_loads_back(tmp_path, capsys):
    import numpy as np

    import embias

    out = tmp_path / "religion_hard.kv"
    assert main(["debias", "religion", "--method", "hard", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "15 equalized" in printed and "MAC (mean cosine distance): 0.8229 → 0.8183" in printed
    kv = embias.load_embeddings(out)
    assert isinstance(kv.vectors, np.memmap) and kv.vectors.shape == (400_000, 50)
    assert main(["debias", "religion", "--out", str(tmp_path / "x.bin")]) == 1
    assert "use a .kv file name" in capsys.readouterr().err


# --------------------------------------------------------------------------- one error policy
@pytest.mark.parametrize(
    ("argv", "message"),
    [(["table", "religon"], "embias: error: unknown study 'religon' (did you mean 'religion'?)"),
     (["mac", "religion", "--embedding", "/no/such.bin"],
      "embias: error: embedding file not found: '/no/such.bin'"),
     (["table", "religion", "--out", "x.xlsx"],
      "embias: error: --out 'x.xlsx': use a .csv or .parquet file name"),
     (["weat", "weat11"], "embias: error: unknown WEAT test 'weat11' (did you mean 'weat1'?)"),
     (["weat", "weat1", "--embedding", "published:reddit"],
      "embias: error: --embedding 'published:reddit': embias weat needs word vectors"),
     (["debias", "religion", "--embedding", "published:reddit"],
      "embias: error: --embedding 'published:reddit': embias debias needs word vectors"),
     (["fit", "religion", "--draws", "0"], "embias: error: draws must be an integer ≥ 1, got 0"),
     (["parity", "20/100", "30/100", "--prior", "1,b"],
      "embias: error: --prior '1,b': expected 'alpha,beta'")],
)
def test_bad_values_are_one_line_and_exit_1(argv, message, capsys):
    assert main(argv) == 1
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("argv", "entry", "message"),
    [(["table", "religon"], "script",
      "embias: error: unknown study 'religon' (did you mean 'religion'?); known: "),
     (["weat", "weat11"], "embias", "embias: error: unknown WEAT test 'weat11' (did you mean "
                                    "'weat1'?); known: weat1, weat2"),
     (["mac", "religion", "--embedding", "glove-6b-5d"], "script",
      "embias: error: unknown embedding 'glove-6b-5d'"),
     (["mac", "religion", "--embedding", "/no/such.bin"], "embias",
      "embias: error: embedding file not found: '/no/such.bin'")],
)
def test_entry_points_report_bad_values_in_one_line(argv, entry, message):
    done = run(*argv, entry=entry)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(message)
    if "glove-6b-5d" in argv:
        assert "'glove-6b-50d'" in line  # the close match


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["table", "religion", "--bogus"], "embias: error: unrecognized arguments: --bogus"),
     (["weat"], "embias weat: error: the following arguments are required: test"),
     (["parity", "20-100", "30/100"], "invalid group count '20-100': expected "
                                      "SUCCESSES/TRIALS"),
     (["parity", "150/100", "20/100"], "invalid group count '150/100': expected "
                                       "SUCCESSES/TRIALS with whole numbers 0 ≤ SUCCESSES ≤ "
                                       "TRIALS"),
     (["fit", "religion", "--level", "county"], "argument --level: invalid choice: 'county'"),
     (["parity", "1/2", "1/2", "--ci-prob", "95"],
      "argument --ci-prob: ci_prob must be in (0, 1), got 95.0")],
)
def test_malformed_command_lines_exit_2(argv, message):
    done = run(*argv)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: embias")
    assert message in done.stderr.strip().splitlines()[-1]


def test_a_bug_shows_its_traceback(monkeypatch):
    def broken(args):
        return {}["no such key"]

    monkeypatch.setattr(embias.cli.tables, "cmd_mac", broken)
    with pytest.raises(KeyError, match="no such key"):
        main(["mac", "religion"])
    code = ("import embias.cli.classifier as c\n"
            "def broken(args):\n"
            "    raise AttributeError('a bug')\n"
            "c.cmd_parity = broken\n"
            "from embias.cli import main\n"
            "main(['parity', '1/2', '1/2'])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.strip().endswith("AttributeError: a bug")


def test_missing_words_error_is_one_line(monkeypatch, capsys):
    from embias.embeddings import MissingWords, MissingWordsError

    report = MissingWords(missing={"X": ("aa", "bb")}, kept={"X": 0}, total={"X": 2})

    def missing(args):
        raise MissingWordsError(report, "for test weat1")

    monkeypatch.setattr(embias.cli.tables, "cmd_mac", missing)
    assert main(["mac", "religion"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("embias: error: 2 words missing from the embeddings for test weat1")
    assert "aa" in line


# --------------------------------------------------------------------------- shared options
def test_ci_prob_is_validated_by_every_command_that_has_it(capsys):
    with_ci_prob = 0
    for path in commands(build_parser()):
        help_text = _help(path)
        if "--ci-prob" not in help_text:
            continue
        with_ci_prob += 1
        argv = [*path, *_required(path), "--ci-prob", "1.5"]
        with pytest.raises(SystemExit) as info:
            build_parser().parse_args(argv)
        assert info.value.code == 2
        assert "argument --ci-prob: ci_prob must be in (0, 1), got 1.5" in capsys.readouterr().err
    # fit, show, compare, simulate weat, bbu n/delta/interval, parity, report (at least)
    assert with_ci_prob >= 9


def _required(path: tuple[str, ...]) -> list[str]:
    """Placeholder arguments so that a command parses (values are not used)."""
    return {("fit",): ["religion"], ("show",): ["dir"],
            ("compare",): ["religion", "--embedding", "a=x"], ("bbu", "n"): ["--delta", "1"],
            ("bbu", "delta"): ["--n", "1"],
            ("bbu", "interval"): ["f.csv", "--cost", "c", "--group", "g"],
            ("parity",): ["1/2", "1/2"]}.get(path, [])


def _help(path: tuple[str, ...]) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), pytest.raises(SystemExit):
        build_parser().parse_args([*path, "--help"])
    return buffer.getvalue()


def test_embedding_help_offers_what_the_command_accepts():
    for command in ("table", "mac", "summary", "fit", "compare"):
        assert "published:reddit" in _help((command,)), command
    for command in ("weat", "debias"):
        text = _help((command,))
        assert "--embedding" in text and "glove-6b-50d" in text
        assert "published" not in text, command


def test_seed_maps_to_random_seed_and_options_to_one_fit_settings():
    args = build_parser().parse_args([
        "fit", "religion", "--level", "word", "--data", "raw", "--draws", "10", "--tune",
        "5", "--chains", "3", "--cores", "1", "--seed", "4", "--sampler", "nutpie",
        "--target-accept", "0.95"])
    assert args.random_seed == 4 and not hasattr(args, "seed")
    assert fit_settings(args) == FitSettings(level="word", data="raw", draws=10, tune=5,
                                             chains=3, cores=1, random_seed=4,
                                             sampler="nutpie", target_accept=0.95)
    assert fit_settings(build_parser().parse_args(["fit", "religion"])) == FitSettings()
    compare = build_parser().parse_args(["compare", "religion", "--embedding", "a=x",
                                         "--embedding", "b=y", "--draws", "100"])
    # one seed policy: no --seed draws a fresh one (shown and recorded by the command)
    assert fit_settings(compare) == FitSettings(draws=100, random_seed=None)
    for argv in (["weat", "weat1"], ["summary", "religion"], ["simulate", "weat"]):
        assert build_parser().parse_args(argv).random_seed is None


def test_literal_constants_agree_with_the_library():
    """Constants kept as literals so that --help imports no numpy/gensim."""
    import inspect

    import embias
    import embias.simulate
    from embias.cli import _options, compare, fit, simulate
    from embias.embeddings import BUILTIN_EMBEDDINGS
    from embias.tables import PUBLISHED_EMBEDDINGS

    assert _options.DEFAULT_EMBEDDING in BUILTIN_EMBEDDINGS
    assert _options.PUBLISHED_EMBEDDINGS == tuple(PUBLISHED_EMBEDDINGS)
    assert simulate.NUMERATORS == tuple(embias.simulate.NUMERATORS)
    assert simulate.CALISKAN_LARGEST_EFFECT == embias.simulate.CALISKAN_LARGEST_EFFECT
    parameters = inspect.signature(embias.compare_embeddings).parameters
    assert compare.DEFAULT_MIN_SHARED == parameters["min_shared"].default
    parameters = inspect.signature(embias.fit_study_model).parameters
    assert fit.DEFAULT_MODELS_DIR == parameters["models_dir"].default


# --------------------------------------------------------------------------- entry points, lazy
def test_entry_points_help_and_version():
    for entry in ("script", "embias", "embias.cli"):
        done = run("--help", entry=entry)
        assert done.returncode == 0, done.stderr
        for command in ("table", "weat", "mac", "summary", "debias", "fit", "show", "compare",
                        "simulate", "bbu", "parity"):
            assert f"    {command} " in done.stdout
    done = run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"embias {embias.__version__}"


def test_every_help_works_without_the_heavy_libraries():
    """Parsing and every command's ``--help`` need none of the libraries the commands use
    when they run: with numpy, pandas, PyMC, gensim and matplotlib made unimportable, every
    help page prints (and so starts as fast as the standard library allows)."""
    code = textwrap.dedent(f"""
        import argparse, contextlib, io, sys

        for heavy in {HEAVY!r}:
            sys.modules[heavy] = None  # import now raises ImportError

        from embias.cli import build_parser


        def commands(parser, prefix=()):
            found = [prefix]
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    for name, sub in action.choices.items():
                        found += commands(sub, (*prefix, name))
            return found


        paths = commands(build_parser())
        for path in paths:
            with contextlib.redirect_stdout(io.StringIO()) as out:
                try:
                    build_parser().parse_args([*path, "--help"])
                except SystemExit as exit:
                    assert exit.code == 0, path
            assert "usage: embias" in out.getvalue(), path
        print(len(paths))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # every command path the parser has (embias, its commands, simulate weat, bbu …), and
    # at least the 18 of embias 0.3's first commands
    assert int(done.stdout) == len(commands(build_parser())) >= 18
