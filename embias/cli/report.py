r"""``embias report``: the audit report of a study, one self-contained HTML page.

The page of :func:`embias.audit_report`::

    embias report religion --fits models/ --out religion.html       # saved fits, no refit
    embias report religion --out religion.html                       # fit GloVe (or reuse)
    embias report religion --embedding biased=published:reddit \
        --embedding hard=published:reddit-debiased --out religion.html

With ``--fits`` (the name of :func:`embias.audit_report`'s ``fits=``; ``--from`` is its
deprecated spelling) nothing is fitted: the page is built from saved fits (a saved-fit
folder, or a folder of them such as ``models/``: those of the study). Without it the
study is fitted on every ``--embedding`` at every ``--level`` (identical saved fits are
reused), and several embeddings are compared (``embias compare``'s paired change model;
its table is saved next to the fits so that the page can be rebuilt from saved results).
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from ..settings import DEFAULT_LEVEL, DEFAULT_MODELS_DIR
from ._options import (
    PUBLISHED_SOURCES,
    STUDIES,
    VECTOR_SOURCES,
    DeprecatedAlias,
    add_interval_options,
    add_sampler_options,
    check_sampler,
    fit_settings,
    folders_for,
    output_path,
    seed_type,
)

__all__ = ["cmd_report", "register"]

#: Default page.
DEFAULT_OUT = "report.html"
#: Optional results computed elsewhere, read from CSV/parquet files (option → keyword).
OPTIONAL_FILES: dict[str, str] = {"--weat": "weat", "--seat": "seat",
                                  "--model-comparison": "model_comparison",
                                  "--word-influence": "word_influence"}


def _check_result_files(args: argparse.Namespace) -> None:
    """Read every result file given (``--comparison``, ``--weat`` …) before anything is fitted.

    A file that cannot be read or is not the table its option wants is a ValueError naming
    the option and the file.
    """
    given = {option: getattr(args, keyword) for option, keyword in
             {"--comparison": "comparison", **OPTIONAL_FILES}.items()}
    if not any(given.values()):
        return
    from embias.audit.sources import read_comparison, read_table
    from embias.report import validate_interval_table

    for option, path in given.items():
        if path is None:
            continue
        try:
            if option == "--comparison":
                read_comparison(path, ci_prob=args.ci_prob, ci_kind=args.ci_kind,
                                rope=args.rope)
                continue
            table = read_table(path, what=option[2:])
            if option == "--weat":
                validate_interval_table(table)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{option} {path!r}: {exc}") from None


def _source(text: str) -> tuple[str, str]:
    """Return ``(label, source)`` of ``LABEL=SRC`` or ``SRC`` (labelled by itself)."""
    label, sep, source = text.partition("=")
    if not sep:
        return text, text
    if not label or not source:
        raise argparse.ArgumentTypeError(f"expected LABEL=SOURCE or SOURCE (e.g. "
                                         f"hard=published:reddit-debiased), got {text!r}")
    return label, source


def _invocation(args: argparse.Namespace) -> str:
    """Return the command as given (every option that differs from its default)."""
    parts = ["embias", "report"]
    for dest, flag, default, nargs in args._options:
        value = getattr(args, dest, default)
        if value == default or value is None:
            continue
        if flag is None:
            parts.append(str(value))
        elif isinstance(value, bool):
            parts.append(flag)
        elif isinstance(value, list) and nargs == "+":
            parts += [flag, *map(str, value)]
        elif isinstance(value, list):
            for item in value:
                parts += [flag, "=".join(dict.fromkeys(item)) if isinstance(item, tuple)
                          else str(item)]
        else:
            parts += [flag, str(value)]
    return shlex.join(parts)


def cmd_report(args: argparse.Namespace) -> int:
    """``embias report``: build the page (fitting only without ``--fits``), print its path."""
    from ..settings import FitSettings

    levels = args.level
    first = argparse.Namespace(**{**vars(args), "level": (levels or [DEFAULT_LEVEL])[0]})
    settings = check_sampler(fit_settings(first))
    out = output_path("--out", args.out)
    _check_result_files(args)
    if args.fits:
        fitting = [f"--{name.replace('_', '-')}" for name in FitSettings.field_names()
                   if name != "level" and getattr(settings, name) != getattr(
                       FitSettings(), name)]
        if fitting or args.models != DEFAULT_MODELS_DIR:
            given = fitting + (["--models"] if args.models != DEFAULT_MODELS_DIR else [])
            raise ValueError(f"{', '.join(given)}: options for fitting, but --fits builds the "
                             "page from saved fits (nothing is fitted)")
    labels = [label for label, _ in args.embeddings or []]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"--embedding labels must be distinct; repeated: {repeated}")
    import warnings

    import embias.audit

    options = embias.audit.AuditOptions(
        ci_prob=args.ci_prob, ci_kind=args.ci_kind, rope=args.rope, encoder=args.encoder,
        figures=args.figures, random_seed=args.report_seed, title=args.title,
        command=_invocation(args),
        **{keyword: getattr(args, keyword) for keyword in OPTIONAL_FILES.values()})
    with warnings.catch_warnings(), folders_for(out):
        if not args.fits:  # convergence problems are on the page (and in its caveats)
            warnings.simplefilter("ignore", embias.ConvergenceWarning)
        path = embias.audit.audit_report(
            args.study, out=out, fits=args.fits or None,
            embeddings=dict(args.embeddings) if args.embeddings else None, levels=levels,
            settings=None if args.fits else settings, models_dir=args.models,
            comparison=args.comparison, compare=not args.no_compare, options=options,
            progress=not args.no_progress)
    print(f"audit report: {path} (report seed {args.report_seed})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``report`` to the main parser."""
    p = sub.add_parser(
        "report", help="the audit report of a study: one self-contained HTML page",
        description="Write one self-contained HTML page for a study: what was measured, the "
                    "classic scores, the Bayesian fit and its decisions, how far to trust it, "
                    "the comparison across embeddings and how to rebuild the page. With --fits "
                    "the page is built from saved fits without refitting.")
    p.add_argument("study", metavar="STUDY", nargs="?", default=None,
                   help=f"study: {STUDIES} or a folder of word lists (default with --fits: "
                        "the saved fits' study)")
    p.add_argument("--fits", "--from", dest="fits", metavar="PATH", action=DeprecatedAlias,
                   deprecated={"--from": "--fits"}, default=None,
                   help="a saved fit (folder written by embias fit) or a folder of saved fits "
                        "(e.g. models/: those of STUDY); repeatable. Nothing is fitted. "
                        "--from is its deprecated spelling")
    p.add_argument("--embedding", metavar="[LABEL=]SRC", action="append", type=_source,
                   dest="embeddings", default=None,
                   help=f"an embedding to report, repeatable: SRC {VECTOR_SOURCES}, or "
                        f"{PUBLISHED_SOURCES} (default glove-6b-50d); with --fits: keep the "
                        "fits of these sources, labelled LABEL")
    add_sampler_options(p, seed=None, what="per fit")
    for action in p._actions:  # --level takes several levels here
        if action.dest == "level":
            action.nargs = "+"
            action.default = None
            action.help = ("model level(s) to fit, e.g. --level hierarchical crossed "
                           f"(default {DEFAULT_LEVEL}); with --fits: keep the saved fits of "
                           "these levels (default all)")
    p.add_argument("--models", metavar="DIR", default=DEFAULT_MODELS_DIR,
                   help="folder where fits made here are saved (default %(default)s/)")
    p.add_argument("--no-compare", action="store_true",
                   help="do not fit the paired change model when several embeddings are "
                        "fitted here")
    results = p.add_argument_group(
        "results computed elsewhere (CSV or parquet files; absent: the page says 'not "
        "computed')")
    results.add_argument("--comparison", metavar="FILE", default=None,
                         help="the interval table of a comparison of embeddings (the CSV "
                              "written by embias compare)")
    results.add_argument("--weat", metavar="FILE", default=None,
                         help="WEAT rows (interval table, e.g. with item-resampling "
                              "intervals) replacing those computed from the fitted tables")
    results.add_argument("--seat", metavar="FILE", default=None, help="SEAT results")
    results.add_argument("--model-comparison", metavar="FILE", default=None,
                         help="a model comparison table (default: the levels of one "
                              "embedding reported here are compared by PSIS-LOO)")
    results.add_argument("--word-influence", metavar="FILE", default=None,
                         help="word-influence ranking (which words drive the result)")
    results.add_argument("--encoder", metavar="NAME", default=None,
                         help="compute SEAT of every pair of protected classes with this "
                              "sentence encoder: minilm (the offline all-MiniLM-L6-v2; needs "
                              "the 'sentence' extra)")
    page = p.add_argument_group("page")
    add_interval_options(page)
    page.add_argument("--figures", choices=("svg", "png"), default="svg",
                      help="how figures are inlined (default %(default)s)")
    page.add_argument("--report-seed", type=seed_type, default=0, metavar="N",
                      help="seed of the posterior predictive draws and Monte Carlo "
                           "permutations (default %(default)s)")
    page.add_argument("--title", metavar="TEXT", default=None, help="page title")
    page.add_argument("--out", metavar="FILE", default=DEFAULT_OUT,
                      help="the .html file to write; missing folders are created "
                           "(default %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    options: list[tuple[str, Any, Any, Any]] = [
        (a.dest, a.option_strings[0] if a.option_strings else None, a.default, a.nargs)
        for a in p._actions if a.dest != "help"]
    p.set_defaults(func=cmd_report, _options=options)
