"""``embias fit`` and ``embias show``: the Bayesian models on the command line.

Each prints the interval table (markdown) and the diagnostics on stdout, convergence
problems as ``embias: warning: …`` lines on stderr, and writes the forest plot PNG next to
the saved fit::

    embias fit religion                                  # GloVe 6B 50d, hierarchical
    embias fit religion --embedding published:reddit --ci-kind eti
    embias fit religion --encoder minilm                 # sentence table, crossed model
    embias show models/religion_published-reddit_hierarchical_summary_<key>

With ``--encoder`` the study's words are put in templates and encoded
(:func:`embias.sentence_table`), and the model is the crossed level by default: the report
adds how much of the variation is the compared words and how much the wording
(``compared_word_sd`` next to ``template_sd``) and each template's effect.

``embias fit`` says what became of the saved fit: ``saved fit: PATH`` when it sampled and
saved one, ``reused saved fit: PATH (saved at …)`` when an identical one was reused, and
a warning when its save replaced a fit another process saved under the same key while
it was sampling. Ctrl-C prints one line — interrupted, nothing saved, and what the fit
folder holds (the fit saved before is unchanged) — and exits with status 130.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import DEFAULT_MODELS_DIR
from ._options import (
    DEFAULT_EMBEDDING,
    STUDIES,
    add_embedding,
    add_encoder_options,
    add_interval_options,
    add_sampler_options,
    check_sampler,
    draw_to_files,
    fit_settings,
    output_path,
    writable,
)

__all__ = ["FOREST_PNG", "cmd_fit", "cmd_show", "describe", "register"]

#: File name of the forest plot written next to a saved fit, and its resolution.
FOREST_PNG = "forest.png"
FOREST_DPI = 120
#: Exit status after Ctrl-C (128 + SIGINT, as a shell reports a process it interrupted).
EXIT_INTERRUPTED = 130


def describe(result: Any, key: str) -> Any:
    """Return ``key`` of a result's settings, else of the result itself, else ``None``.

    The settings may be a mapping or a :class:`FitSettings`.
    """
    settings = getattr(result, "settings", None)
    if isinstance(settings, Mapping) and key in settings:
        return settings[key]
    if settings is not None and hasattr(settings, key):
        return getattr(settings, key)
    return getattr(result, key, None)


def _rendered(png: Path, opts: dict[str, Any]) -> bool:
    """Return whether ``png`` is a forest plot of this saved fit already drawn with ``opts``.

    A fit's post-processing is done once: ``embias show`` redraws only on new options.
    """
    record = png.with_suffix(".json")
    try:
        return (png.is_file() and json.loads(record.read_text(encoding="utf-8")) == opts
                and record.stat().st_mtime >= (png.parent / "posterior.nc").stat().st_mtime)
    except (OSError, ValueError):
        return False


def _saved_line(fit: Any, *, how: str) -> str:
    """Return what became of the saved fit, in one line.

    ``how`` is ``"saved"`` (sampled and saved by this command), ``"reused"`` (an identical
    saved fit) or ``"shown"`` (``embias show``); the last two say when it was saved.
    """
    from embias.pipeline.store import read_manifest

    if how == "saved" or fit.path is None:
        return f"saved fit: {fit.path}"
    record = read_manifest(fit.path) or {}
    when = str(record.get("saved_at", "")).replace("T", " ")
    return (f"{'reused saved' if how == 'reused' else 'saved'} fit: {fit.path}"
            + (f" (saved {when})" if when else ""))


def _report(fit: Any, args: argparse.Namespace, *, how: str = "shown") -> int:
    import embias
    from embias.report import CLI_SHORT_COLUMNS, CLI_WORD_COLUMNS

    opts = {"ci_prob": args.ci_prob, "ci_kind": args.ci_kind, "rope": args.rope}
    table = fit.to_interval_table(**opts)
    print(f"# {describe(fit, 'study') or 'table'} / {describe(fit, 'embedding') or 'custom'}: "
          f"{describe(fit, 'level')} model, data={describe(fit, 'data')}, "
          f"{describe(fit, 'chains')} chains × {describe(fit, 'draws')} draws, "
          f"seed {describe(fit, 'random_seed')}")
    print(_saved_line(fit, how=how))
    print()
    top = table[table["estimand"].isin(["connection_mean", "contrast"])]
    print(embias.to_markdown(top, columns=CLI_SHORT_COLUMNS))
    spread = table[table["estimand"].isin(["compared_word_sd", "template_sd"])]
    if not spread.empty:  # crossed level: how much is the words, how much the wording
        print()
        what = ("the compared words' and the templates' effects"
                if (spread["estimand"] == "template_sd").any() else "the compared words' effects")
        print(f"## spread of {what} (sd)")
        print(embias.to_markdown(spread, columns=("estimand", "group", "estimate", "lower",
                                                  "upper")))
    templates = table[table["estimand"] == "template_effect"]
    if not templates.empty:
        print()
        print("## template effects (shift of all of a template's rows)")
        print(embias.to_markdown(templates, columns=("estimand", "group", "estimate",
                                                     "lower", "upper")))
    if args.words:
        words = table[table["estimand"].isin(["word_coefficient", "word_contrast"])]
        if not words.empty:
            print()
            print(embias.to_markdown(words, columns=CLI_WORD_COLUMNS))
    print()
    print("## diagnostics")
    print(embias.to_markdown(fit.diagnostics_overview()))
    check = fit.predictive_check()
    print()
    print("## posterior predictive check: share of observed distances inside the "
          "predictive interval of their cell, each judged by the fit without its "
          "compared word")
    print(embias.to_markdown(check.coverage))
    for problem in fit.problems():
        print(f"embias: warning: {problem}".replace("\n", " "), file=sys.stderr)
    png = Path(args.png) if args.png else Path(fit.path or ".") / FOREST_PNG
    in_fit_folder = not args.png and fit.path is not None
    if in_fit_folder and not _rendered(png, opts):
        # the forest plot and the audit page's figures, which `embias report --fits` this
        # fit then only reads
        from embias.audit import keep_figures

        draw_to_files()
        drawn = keep_figures(fit, **opts, png_dpi=FOREST_DPI)
        assert drawn is not None  # a saved fit, with png_dpi: the forest plot's PNG
        writable(png).write_bytes(drawn)
        png.with_suffix(".json").write_text(json.dumps(opts), encoding="utf-8")
    elif not in_fit_folder:
        draw_to_files()
        import matplotlib.pyplot as plt

        figure = fit.plot(**opts)
        figure.savefig(writable(png), dpi=FOREST_DPI)
        plt.close(figure)
    print()
    print(f"forest plot: {png}")
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    """Run ``embias fit``: fit (or reuse a saved fit), print, plot.

    Ctrl-C prints one line saying what was kept and returns :data:`EXIT_INTERRUPTED`.
    """
    done: dict[str, Any] = {}
    try:
        return _fit(args, done)
    except KeyboardInterrupt as exc:  # embias.pipeline.study_fits.FitInterrupted says what was kept
        from ._interrupt import stop_redelivery

        stop_redelivery()
        if "fit" in done:
            said = f"interrupted after the fit was saved to {done['fit']}; nothing else written"
        else:
            said = str(exc) or "interrupted before anything was fitted: nothing saved"
        # on a line of its own: a progress bar may have left the cursor mid-line
        start = "" if getattr(args, "no_progress", True) else "\n"
        print(f"{start}embias: {said}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _fit(args: argparse.Namespace, done: dict[str, Any]) -> int:
    # every option is checked here, before anything is loaded or sampled (the settings'
    # draws and chains against this machine's memory too)
    if args.encoder is None and args.templates is not None:
        raise ValueError("--templates needs --encoder (the templates words are put in for a "
                         "sentence encoder)")
    if args.encoder is not None and args.embedding != DEFAULT_EMBEDDING:
        raise ValueError(f"give either --embedding (word vectors) or --encoder (a sentence "
                         f"encoder), not both; got --embedding {args.embedding!r} and "
                         f"--encoder {args.encoder!r}")
    settings = check_sampler(fit_settings(args))
    output_path("--out", args.out, folder=True)
    output_path("--png", args.png)
    import embias

    embias.load_study(args.study)
    sampled: list[Any] = []  # what this command sampled (nothing: it reused a saved fit)
    with warnings.catch_warnings():
        # convergence problems are printed once, by _report
        warnings.simplefilter("ignore", embias.ConvergenceWarning)
        if args.encoder is not None:
            from embias.pipeline.sentence_fits import fit_sentence_model

            fit = fit_sentence_model(args.study, args.encoder,
                                     templates=args.templates or "may2019",
                                     settings=settings, models_dir=args.out,
                                     refit=args.refit, progress=not args.no_progress,
                                     on_sampled=sampled.append)
        else:
            fit = embias.fit_study_model(args.study, args.embedding, settings=settings,
                                         models_dir=args.out, refit=args.refit,
                                         progress=not args.no_progress,
                                         on_sampled=sampled.append)
    done["fit"] = fit.path
    return _report(fit, args, how="saved" if sampled else "reused")


def cmd_show(args: argparse.Namespace) -> int:
    """``embias show``: reload a saved fit, print, plot."""
    output_path("--png", args.png)  # before the fit is loaded
    import embias

    return _report(embias.load_fit(args.fit), args)


def _add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("report")
    add_interval_options(group)
    group.add_argument("--words", action="store_true",
                       help="also print the word-level coefficients and contrasts")
    group.add_argument("--png", metavar="PATH", default=None,
                       help=f"where to write the forest plot (default: {FOREST_PNG} in the "
                            "fit's folder)")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``fit`` and ``show`` to the main parser."""
    p = sub.add_parser(
        "fit", help="fit a Bayesian model to a study's cosine table and report HPDIs",
        description="Build the study's long-form cosine table (word vectors, or with "
                    "--encoder the words put in sentence templates), fit a Bayesian model "
                    "in PyMC (or reuse an identical saved fit), print the interval table "
                    "and diagnostics, and write the forest plot PNG next to the saved fit.")
    p.add_argument("study", metavar="STUDY", help=f"study: {STUDIES}")
    add_embedding(p)
    add_encoder_options(p)
    add_sampler_options(p, seed=None)
    p.add_argument("--out", metavar="DIR", default=DEFAULT_MODELS_DIR,
                   help="folder of saved fits (default %(default)s/)")
    p.add_argument("--refit", action="store_true",
                   help="fit again even if an identical saved fit exists")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    _add_report_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser(
        "show", help="re-render a saved fit: interval table, diagnostics, forest plot",
        description="Load a saved fit (a folder written by `embias fit`), print its "
                    "interval table and diagnostics and write the forest plot PNG.")
    p.add_argument("fit", metavar="FIT", help="folder of a saved fit")
    _add_report_options(p)
    p.set_defaults(func=cmd_show)
