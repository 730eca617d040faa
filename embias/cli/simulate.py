"""``embias simulate weat``: how much WEAT pure noise gives (the pre-averaging simulations)."""

from __future__ import annotations

import argparse
from typing import Any, Literal

from .._validation import check_seed
from ..settings import DEFAULT_CI_PROB
from ._options import add_ci_prob, add_seed

__all__ = ["cmd_simulate_weat", "register", "weat_simulation_report"]

#: ``embias.simulate.NUMERATORS`` and ``CALISKAN_LARGEST_EFFECT`` (literals here so that
#: ``--help`` need not import numpy; a test checks they agree).
NUMERATORS: tuple[Literal["mean", "first-word"], ...] = ("mean", "first-word")
CALISKAN_LARGEST_EFFECT = 1.81
#: The raw sd of the slides' scenarios (``--published``).
PUBLISHED_SD = 0.08
#: ``--published`` reproduces the README's table of the slides' figures: their 95% ranges,
#: at seed 0, unless ``--ci-prob``/``--seed`` say otherwise.
PUBLISHED_CI_PROB = 0.95
PUBLISHED_SEED = 0


def _resolve(args: argparse.Namespace) -> None:
    """Fill ``ci_prob`` and ``random_seed`` left unset.

    With ``--published`` the published preset's values, else embias's default level and a
    fresh seed (shown).
    """
    if args.ci_prob is None:
        args.ci_prob = PUBLISHED_CI_PROB if args.published else DEFAULT_CI_PROB
    if args.random_seed is None and args.published:
        args.random_seed = PUBLISHED_SEED
    args.random_seed = check_seed(args.random_seed)


def weat_simulation_report(args: argparse.Namespace) -> tuple[Any, Any]:
    """Run the simulations the options ask for.

    Returns
    -------
    (summary, display)
        The full interval table of :func:`embias.summarize_simulations`, and the compact
        table that is printed (columns :data:`embias.report.CLI_SIMULATION_COLUMNS`, with
        the published figures next to the first-word rows when ``--published``).
    """
    import embias
    from embias.report import CLI_SIMULATION_COLUMNS

    _resolve(args)
    if args.published:
        n, m, sd = [8], [8], PUBLISHED_SD
        assoc, numerators = sorted(embias.PUBLISHED_FIGURES), NUMERATORS
    else:
        n, m, sd, assoc = args.n_protected, args.n_attributes, args.sd, args.association
        numerators = NUMERATORS if args.numerator == "both" else (args.numerator,)
    sims = embias.simulate_weat_grid(
        n_protected_per_group=n, n_attributes=m, sd=sd, association=assoc,
        numerator=numerators, n_sims=args.n_sims, threshold=args.threshold,
        ci_prob=args.ci_prob, random_seed=args.random_seed,
    )
    summary = embias.summarize_simulations(sims, exact=not args.no_exact)
    columns = {k: v for k, v in CLI_SIMULATION_COLUMNS.items() if k in summary.columns}
    display = summary[list(columns)].rename(columns=columns)
    if args.published:
        published = [embias.PUBLISHED_FIGURES.get(a) if num == "first-word" else None
                     for a, num in zip(summary["association"], summary["numerator"],
                                       strict=True)]
        for i, name in enumerate(("published lower", "published upper", "published share")):
            display[name] = [float("nan") if p is None else p[i] for p in published]
    return summary, display


def cmd_simulate_weat(args: argparse.Namespace) -> int:
    """``embias simulate weat``: print the summaries."""
    import embias

    _, display = weat_simulation_report(args)
    print(f"WEAT effect sizes of simulated raw cosine similarities: {args.n_sims:,} data sets "
          f"per row, raw sd {PUBLISHED_SD if args.published else args.sd:g}, seed "
          f"{args.random_seed}; {args.ci_prob:.0%} range of the simulated values, share of "
          f"|WEAT| ≥ {args.threshold:g}; raw sd / sd of means = medians over data sets")
    print(embias.to_markdown(display))
    print("numerator 'mean' is Caliskan et al.'s WEAT; 'first-word' is s(x1) − s(y1), what "
          "the authors' R code computed (R's mean(s1, …, s8) averages only s1) and what the "
          "published figures show.")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``simulate`` (sub-command ``weat``) to the main parser."""
    p = sub.add_parser(
        "simulate", help="pre-averaging simulations (how much WEAT pure noise gives)",
        description="Simulations of raw cosine similarities that show what pre-averaged "
                    "scores do with noise.")
    simulations = p.add_subparsers(dest="simulation", metavar="SIMULATION", required=True)
    w = simulations.add_parser(
        "weat", help="WEAT effect sizes of simulated raw similarities",
        description="Draw every (protected word, attribute) cosine similarity from "
                    "Normal(mu, sd), mu = --association for a group's own attribute set and "
                    "0 otherwise, and summarise the WEAT effect sizes. Several values of "
                    "--n-protected, --n-attributes or --association give one row each.")
    w.add_argument("--n-protected", type=int, nargs="+", default=[8], metavar="N",
                   help="protected words per group (default 8)")
    w.add_argument("--n-attributes", type=int, nargs="+", default=[8], metavar="M",
                   help="words per attribute set (default 8)")
    w.add_argument("--sd", type=float, default=PUBLISHED_SD,
                   help=f"sd of the raw similarities (default {PUBLISHED_SD})")
    w.add_argument("--association", type=float, nargs="+", default=[0.0], metavar="A",
                   help="mean similarity of a group's words with its own attribute set "
                        "(default 0: pure noise)")
    w.add_argument("--numerator", choices=[*NUMERATORS, "both"], default="mean",
                   help="'mean' (WEAT, default), 'first-word' (the published figures' "
                        "numerator) or both")
    w.add_argument("--n-sims", type=int, default=10_000,
                   help="data sets per row (default 10000)")
    w.add_argument("--threshold", type=float, default=CALISKAN_LARGEST_EFFECT,
                   help=f"|WEAT| threshold (default {CALISKAN_LARGEST_EFFECT}, Caliskan et "
                        "al.'s largest effect)")
    add_ci_prob(w, default=None, what="range probability",
                shown=f"{DEFAULT_CI_PROB}; {PUBLISHED_CI_PROB} with --published")
    add_seed(w, default=None)
    w.add_argument("--no-exact", action="store_true",
                   help="skip the exact (analytic) columns")
    w.add_argument("--published", action="store_true",
                   help="the slides' three scenarios (association 0, .1, .4; 8 words, 8 "
                        "attributes, sd .08) with both numerators, next to the published "
                        f"figures; --ci-prob defaults to their {PUBLISHED_CI_PROB} and --seed "
                        f"to {PUBLISHED_SEED} (the README's table)")
    w.set_defaults(func=cmd_simulate_weat)
