"""``embias fit`` and ``embias show``: the Bayesian models on the command line.

:func:`add_commands` registers both subcommands on the main parser's subparsers (see
``embias/cli.py``); each handler prints the interval table (markdown) and the
diagnostics on stdout, convergence warnings on stderr, and writes the forest plot PNG
next to the saved fit.

Examples
--------
::

    embias fit religion                                  # GloVe 6B 50d, hierarchical
    embias fit religion --embedding published:reddit --ci-kind eti
    embias show models/religion_published-reddit_hierarchical_summary_<key>
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from .bayes import (
    DATA_MODES,
    DEFAULT_CHAINS,
    DEFAULT_CI_PROB,
    DEFAULT_DRAWS,
    DEFAULT_ROPE,
    DEFAULT_TARGET_ACCEPT,
    DEFAULT_TUNE,
    LEVELS,
    SAMPLERS,
    BiasFit,
    ConvergenceWarning,
)
from .fits import DEFAULT_MODELS_DIR, fit_study_model, load_fit
from .report import to_markdown
from .wordlists import BUILTIN_STUDIES

__all__ = ["add_commands", "fit_command", "show_command"]

#: File name of the forest plot written next to a saved fit.
FOREST_PNG = "forest.png"
_SHORT_COLUMNS = ["estimand", "group", "estimate", "lower", "upper", "ci_prob", "ci_kind",
                  "prob_gt_0", "prob_in_rope", "rope_decision"]
_WORD_COLUMNS = ["estimand", "protected_class", "group", "connection", "contrast", "estimate",
                 "lower", "upper", "prob_gt_0", "rope_decision"]


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text}")
    return value


def _add_interval_arguments(group: argparse._ActionsContainer) -> None:
    """--ci-prob, --ci-kind and --rope: shared by `embias fit/show` and `embias compare`."""
    group.add_argument("--ci-prob", type=_probability, default=DEFAULT_CI_PROB,
                       help="interval probability (default %(default)s)")
    group.add_argument("--ci-kind", choices=("hdi", "eti"), default="hdi",
                       help="highest-density or equal-tailed intervals (default %(default)s)")
    group.add_argument("--rope", type=float, default=DEFAULT_ROPE,
                       help="ROPE half-width for contrasts, in cosine distance "
                            "(default %(default)s)")


def _add_report_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("report")
    _add_interval_arguments(group)
    group.add_argument("--words", action="store_true",
                       help="also print the word-level coefficients and contrasts")
    group.add_argument("--png", metavar="PATH", default=None,
                       help=f"where to write the forest plot (default: {FOREST_PNG} in the "
                            "fit's folder)")


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``fit`` and ``show`` subcommands.

    Parameters
    ----------
    subparsers
        The object returned by ``parser.add_subparsers()`` of the main ``embias``
        parser. Each subcommand sets ``func`` to its handler, ``handler(args) -> int``.
    """
    fit = subparsers.add_parser(
        "fit",
        help="fit a Bayesian model to a study's cosine table and report HPDIs",
        description="Build the study's long-form cosine table, fit a Bayesian model in PyMC "
                    "(or reuse an identical saved fit), print the interval table and "
                    "diagnostics, and write the forest plot PNG next to the saved fit.",
    )
    fit.add_argument("study", metavar="STUDY",
                     help=f"study name, one of {list(BUILTIN_STUDIES)}")
    fit.add_argument("--embedding", metavar="SRC", default="glove-6b-50d",
                     help="embedding source: glove-6b-50d (default), a file path, "
                          "gensim:NAME, or published:reddit|google|glove|reddit-debiased "
                          "for the authors' tables")
    fit.add_argument("--level", choices=LEVELS, default="hierarchical",
                     help="model level (default %(default)s)")
    fit.add_argument("--data", choices=DATA_MODES, default="summary",
                     help="fit on cell sufficient statistics (fast, default) or raw rows")
    fit.add_argument("--draws", type=int, default=DEFAULT_DRAWS,
                     help="posterior draws per chain (default %(default)s)")
    fit.add_argument("--tune", type=int, default=DEFAULT_TUNE,
                     help="tuning steps per chain (default %(default)s)")
    fit.add_argument("--chains", type=int, default=DEFAULT_CHAINS,
                     help="number of chains (default %(default)s)")
    fit.add_argument("--cores", type=int, default=None,
                     help="chains run in parallel (default: min(chains, CPUs))")
    fit.add_argument("--seed", type=int, default=None, help="random seed of the sampler")
    fit.add_argument("--sampler", choices=SAMPLERS, default="pymc",
                     help="NUTS implementation (default %(default)s)")
    fit.add_argument("--target-accept", type=_probability, default=DEFAULT_TARGET_ACCEPT,
                     help="NUTS target acceptance rate (default %(default)s)")
    fit.add_argument("--out", metavar="DIR", default=DEFAULT_MODELS_DIR,
                     help="folder of saved fits (default %(default)s/)")
    fit.add_argument("--refit", action="store_true",
                     help="fit again even if an identical saved fit exists")
    fit.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    _add_report_arguments(fit)
    fit.set_defaults(func=fit_command)

    show = subparsers.add_parser(
        "show",
        help="re-render a saved fit: interval table, diagnostics, forest plot",
        description="Load a saved fit (a folder written by `embias fit`), print its "
                    "interval table and diagnostics and write the forest plot PNG.",
    )
    show.add_argument("fit", metavar="FIT", help="folder of a saved fit")
    _add_report_arguments(show)
    show.set_defaults(func=show_command)


def _report(fit: BiasFit, args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = fit.summary(ci_prob=args.ci_prob, ci_kind=args.ci_kind, rope=args.rope)
    s = fit.settings
    print(f"# {s.get('study') or 'table'} / {s.get('embedding') or 'custom'}: {s['level']} "
          f"model, data={s['data']}, {s['chains']} chains × {s['draws']} draws, "
          f"seed {s['random_seed']}")
    print(f"saved fit: {fit.path}")
    print()
    top = summary[summary["estimand"].isin(["connection_mean", "contrast"])]
    print(to_markdown(top, columns=_SHORT_COLUMNS))
    if args.words:
        words = summary[summary["estimand"].isin(["word_coefficient", "word_contrast"])]
        if not words.empty:
            print()
            print(to_markdown(words, columns=_WORD_COLUMNS))
    print()
    print("## diagnostics")
    print(to_markdown(fit.diagnostics_overview()))
    check = fit.predictive_check()
    print()
    print("## posterior predictive check: share of observed distances inside the "
          "predictive interval of their cell")
    print(to_markdown(check.coverage))
    for problem in fit.problems():
        print(f"warning: {problem}", file=sys.stderr)
    png = Path(args.png) if args.png else Path(fit.path or ".") / FOREST_PNG
    figure = fit.plot(ci_prob=args.ci_prob, ci_kind=args.ci_kind, rope=args.rope)
    png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png, dpi=120)
    plt.close(figure)
    print()
    print(f"forest plot: {png}")
    return 0


def _fail(command: str, error: Exception) -> int:
    print(f"embias {command}: error: {error}", file=sys.stderr)
    return 2


def fit_command(args: argparse.Namespace) -> int:
    """Handler of ``embias fit``: fit (or reuse), print, plot; returns the exit code."""
    options: dict[str, Any] = {
        "models_dir": args.out, "refit": args.refit, "level": args.level, "data": args.data,
        "draws": args.draws, "tune": args.tune, "chains": args.chains, "cores": args.cores,
        "random_seed": args.seed, "sampler": args.sampler,
        "target_accept": args.target_accept, "progressbar": not args.no_progress,
    }
    try:
        with warnings.catch_warnings():
            # reported on stderr by _report, once
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = fit_study_model(args.study, args.embedding, **options)
    except (ValueError, FileNotFoundError, KeyError) as error:
        return _fail("fit", error)
    return _report(fit, args)


def show_command(args: argparse.Namespace) -> int:
    """Handler of ``embias show``: reload a saved fit, print, plot."""
    try:
        fit = load_fit(args.fit)
    except (ValueError, FileNotFoundError) as error:
        return _fail("show", error)
    return _report(fit, args)
