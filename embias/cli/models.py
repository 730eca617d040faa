"""``embias compare-models`` and ``embias word-influence``: levels and influential words.

Which model level predicts best, and which words drive the result::

    embias compare-models religion --embedding published:reddit          # by row
    embias compare-models religion --levels hierarchical,crossed --by word --refit reloo
    embias word-influence religion --embedding published:reddit --png influence.png

``word-influence`` is named after :func:`embias.word_influence` (and ``embias report
--word-influence``); ``sensitivity`` is its deprecated spelling.

Both fit through :func:`embias.fit_study_model`, so saved fits in ``--out`` (those of
``embias fit`` with the same options too) are reused instead of sampled again.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from .._validation import check_int
from ..settings import DEFAULT_MODELS_DIR, LEVELS
from ._options import (
    STUDIES,
    add_embedding,
    add_rope,
    add_sampler_options,
    check_sampler,
    checked,
    deprecation_note,
    draw_to_files,
    fit_settings,
    output_path,
    writable,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..bayes.fit import BiasFit

__all__ = ["cmd_compare_models", "cmd_sensitivity", "cmd_word_influence", "register"]

#: The command's name, and its deprecated spelling (kept for one release).
WORD_INFLUENCE = "word-influence"
DEPRECATED_COMMANDS = {"sensitivity": WORD_INFLUENCE}

#: Unit choices of ``--by`` and the question each answers.
QUESTIONS = {"row": "how well are new rows of these same words predicted",
             "word": "how well are the rows of a new compared word predicted"}
ROLES = ("protected", "attribute", "neutral", "human")
COMPARE_COLUMNS = ["model", "rank", "elpd", "se", "elpd_diff", "dse", "p", "weight", "looic",
                   "pareto_k_max", "pareto_k_bad"]


def _levels(text: str) -> list[str]:
    levels = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown level(s) {unknown}; choose from "
                                         f"{', '.join(LEVELS)}")
    if len(set(levels)) != len(levels) or len(levels) < 2:
        raise argparse.ArgumentTypeError(f"--levels needs at least two distinct levels, got "
                                         f"{text!r}")
    return levels


def _roles(text: str) -> list[str]:
    roles = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [role for role in roles if role not in ROLES]
    if unknown or not roles:
        raise argparse.ArgumentTypeError(f"unknown role(s) {unknown or [text]}; choose from "
                                         f"{', '.join(ROLES)}")
    return roles


def _k_threshold(name: str, value: float) -> float:
    if not 0.0 < value < 2.0:
        raise ValueError(f"{name} must be in (0, 2), got {value!r}")
    return value


k_threshold_type = checked(float, _k_threshold, "k_threshold")
top_type = checked(int, lambda name, value: check_int(name, value, minimum=1), "top")
folds_type = checked(int, lambda name, value: check_int(name, value, minimum=2), "folds")


def _fit_levels(args: argparse.Namespace, levels: list[str]) -> dict[str, BiasFit]:
    """Return the fits of every level (saved fits reused), each convergence warning once."""
    import warnings

    import embias

    settings = check_sampler(fit_settings(args))
    embias.load_study(args.study)  # an unknown study fails here, before any fit
    fits = {}
    for level in levels:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", embias.ConvergenceWarning)
            fit = embias.fit_study_model(args.study, args.embedding,
                                         settings=dataclasses.replace(settings, level=level),
                                         models_dir=args.out, progress=not args.no_progress)
        for problem in fit.problems():
            warnings.warn(f"{level} model: {problem}", stacklevel=1)
        fits[level] = fit
    return fits


def cmd_compare_models(args: argparse.Namespace) -> int:
    """``embias compare-models``: fit (or reuse) every level, print the LOO comparison."""
    check_sampler(fit_settings(args))
    output_path("--out", args.out, folder=True)
    output_path("--csv", args.csv)
    import embias
    from embias.bayes.exact_loo import compare_models_refit

    fits = _fit_levels(args, args.levels)
    table = compare_models_refit(fits, by=args.by, refit=args.refit,
                                 k_threshold=args.k_threshold, folds=args.folds,
                                 progress=not args.no_progress)
    first = next(iter(fits.values()))
    print(f"# {args.study} / {args.embedding}: leave-one-{args.by}-out ({QUESTIONS[args.by]}); "
          f"{first.settings['chains']} chains × {first.settings['draws']} draws per fit, "
          f"seed {first.settings['random_seed']}")
    method = {"none": "PSIS (ArviZ loo)",
              "reloo": f"PSIS, exact refits where Pareto k > {args.k_threshold:g} (ArviZ reloo)",
              "kfold": f"exact {args.folds}-fold, whole compared words held out (ArviZ "
                       "loo_kfold)"}[args.refit]
    print(f"method: {method}")
    print()
    columns = COMPARE_COLUMNS + (["refits"] if args.refit != "none" else [])
    print(embias.to_markdown(table, columns=columns, digits=2))
    print()
    print("elpd: expected log predictive density (higher is better); looic = −2·elpd, the "
          "deviance scale of WAIC (lower is better); elpd_diff and dse: difference to the "
          "best model and its standard error; pareto_k_bad: units with k > 0.7 (PSIS "
          "unreliable there: --refit reloo refits them)")
    for level, fit in fits.items():
        print(f"{level}: {fit.path}")
    if args.csv:
        table.to_csv(writable(args.csv), index=False)
        print(f"comparison table: {args.csv}")
    return 0


def cmd_word_influence(args: argparse.Namespace) -> int:
    """``embias word-influence``: fit (or reuse) one level, rank the words by influence."""
    if args.command in DEPRECATED_COMMANDS:
        deprecation_note(f"embias {args.command}", f"embias {DEPRECATED_COMMANDS[args.command]}")
    check_sampler(fit_settings(args))
    output_path("--out", args.out, folder=True)
    output_path("--png", args.png)
    output_path("--csv", args.csv)
    import embias
    from embias.bayes.influence import word_influence
    from embias.influence_table import rank_words

    fit = _fit_levels(args, [args.level])[args.level]
    influence = word_influence(fit, roles=args.roles, refit=args.refit,
                               k_threshold=args.k_threshold, progress=not args.no_progress)
    ranking = rank_words(influence)
    attrs = influence.attrs
    print(f"# {args.study} / {args.embedding}: {args.level} model — change of the contrasts "
          f"when a word's rows are left out ({', '.join(args.roles)} words)")
    print(f"saved fit: {fit.path}")
    threshold = attrs["k_threshold"]
    shaky = ranking[(ranking["method"] == "psis") & (ranking["pareto_k"] > threshold)]
    if attrs["refits"]:
        print(f"{attrs['refits']} word(s) refitted without their rows in "
              f"{attrs['refit_seconds']:.0f} s; the others by PSIS (no refit)")
    else:
        print("every word by PSIS (no refit)")
    if len(shaky):
        print(f"PSIS unreliable for {len(shaky)} word(s) with Pareto k > {threshold:g}: "
              f"{', '.join(shaky['word'])} (--refit auto refits them)")
    print()
    shown = ranking if args.top is None else ranking.head(args.top)
    print(embias.to_markdown(shown, digits=3))
    print()
    print("influence: the largest |change| of a contrast (cosine distance) when the word is "
          "left out; change_sd: that change in posterior sds of the contrast")
    if args.csv:
        influence.to_csv(writable(args.csv), index=False)
        print(f"influence table: {args.csv}")
    if args.png:
        draw_to_files()
        import matplotlib.pyplot as plt

        from embias.plots.influence import plot_word_influence

        figure = plot_word_influence(influence, top=args.top, rope=args.rope)
        figure.savefig(writable(args.png), dpi=110)
        plt.close(figure)
        print(f"influence plot: {args.png}")
    return 0


#: The deprecated name of :func:`cmd_word_influence`.
cmd_sensitivity = cmd_word_influence


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("study", metavar="STUDY", help=f"study: {STUDIES}")
    add_embedding(p)
    p.add_argument("--out", metavar="DIR", default=DEFAULT_MODELS_DIR,
                   help="folder of saved fits, reused when identical (default %(default)s/)")
    p.add_argument("--k-threshold", type=k_threshold_type, default=0.7, metavar="K",
                   help="Pareto k above which PSIS is not trusted and the model is refitted "
                        "(default %(default)s)")
    p.add_argument("--csv", metavar="PATH", default=None, help="also write the table as CSV")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``compare-models`` and ``word-influence`` (alias ``sensitivity``) to the parser."""
    p = sub.add_parser(
        "compare-models",
        help="compare model levels by PSIS-LOO: leave one row or one compared word out",
        description="Fit a study at several model levels (or reuse saved fits) and print "
                    "ArviZ's PSIS-LOO comparison. --by row asks how well new rows of these "
                    "same words are predicted; --by word how well a new compared word is "
                    "(the question a bias claim about a word list raises).",
        conflict_handler="resolve")
    _common(p)
    add_sampler_options(p, what="per fit")
    # several levels here: --levels replaces the one --level of the sampler options
    p.add_argument("--levels", "--level", type=_levels, metavar="L1,L2,…",
                   default=list(LEVELS),
                   help=f"model levels to compare, two or more of {', '.join(LEVELS)} "
                        "(default: all four)")
    p.add_argument("--by", choices=("row", "word"), default="row",
                   help="leave one row out or one compared word out (default %(default)s)")
    p.add_argument("--refit", choices=("none", "reloo", "kfold"), default="none",
                   help="none: PSIS only; reloo: refit exactly where Pareto k > "
                        "--k-threshold; kfold: exact K-fold holding out whole compared words "
                        "(default %(default)s)")
    p.add_argument("--folds", type=folds_type, default=10, metavar="K",
                   help="folds of --refit kfold (default %(default)s)")
    p.set_defaults(func=cmd_compare_models)

    p = sub.add_parser(
        WORD_INFLUENCE, aliases=list(DEPRECATED_COMMANDS),
        help="how much each word moves the contrasts when left out (alias sensitivity: "
             "deprecated)",
        description="Fit a study (or reuse the saved fit) and rank its words by how much "
                    "each reported contrast changes when all the rows of the word are left "
                    "out: PSIS where its Pareto k is small, an exact refit elsewhere.")
    _common(p)
    add_sampler_options(p, what="per fit")
    p.add_argument("--roles", type=_roles, default=["protected", "attribute"],
                   metavar="R1,R2",
                   help=f"words to leave out: {', '.join(ROLES)} "
                        "(default protected,attribute)")
    p.add_argument("--refit", choices=("auto", "never", "always"), default="auto",
                   help="auto: refit where Pareto k > --k-threshold; never: PSIS only; "
                        "always: refit every word (default %(default)s)")
    p.add_argument("--top", type=top_type, default=25, metavar="N",
                   help="words shown and plotted (default %(default)s)")
    add_rope(p)
    p.add_argument("--png", metavar="PATH", default=None, help="write the ranked plot here")
    p.set_defaults(func=cmd_word_influence)
