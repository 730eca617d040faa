"""``embias simulate …``: the pre-averaging simulations on the command line.

Registered on the main parser by :func:`add_commands` (see ``embias.cli``).
"""

from __future__ import annotations

import argparse

import pandas as pd

from .report import to_markdown
from .simulate import (
    CALISKAN_LARGEST_EFFECT,
    NUMERATORS,
    PUBLISHED_FIGURES,
    simulate_weat_grid,
    summarize_simulations,
)

__all__ = ["add_commands", "cmd_simulate_weat", "weat_simulation_report"]

#: Printed columns of the summary table → their short headers.
_COLUMNS = {
    "n_protected_per_group": "n/group",
    "n_attributes": "attrs/set",
    "association": "association",
    "numerator": "numerator",
    "estimate": "median",
    "lower": "lower",
    "upper": "upper",
    "share_above": "share |W|≥t",
    "share_above_se": "share se",
    "max_abs_weat": "max |W|",
    "raw_sd": "raw sd",
    "means_sd": "sd of means",
    "exact_lower": "exact lower",
    "exact_upper": "exact upper",
    "exact_share_above": "exact share",
}


def weat_simulation_report(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the simulations the options ask for.

    Returns
    -------
    (summary, display)
        The full interval table of :func:`embias.simulate.summarize_simulations`, and
        the compact table that is printed (with the published figures next to the
        first-word rows when ``--published``).
    """
    if args.published:
        n, m, sd, assoc, numerators = [8], [8], 0.08, sorted(PUBLISHED_FIGURES), NUMERATORS
    else:
        n, m, sd, assoc = args.n_protected, args.n_attributes, args.sd, args.association
        numerators = NUMERATORS if args.numerator == "both" else (args.numerator,)
    sims = simulate_weat_grid(
        n_protected_per_group=n, n_attributes=m, sd=sd, association=assoc,
        numerator=numerators, n_sims=args.n_sims, threshold=args.threshold,
        ci_prob=args.ci_prob, random_state=args.seed,
    )
    summary = summarize_simulations(sims, exact=not args.no_exact)
    columns = {k: v for k, v in _COLUMNS.items() if k in summary.columns}
    display = summary[list(columns)].rename(columns=columns)
    if args.published:
        published = [PUBLISHED_FIGURES.get(a) if num == "first-word" else None
                     for a, num in zip(summary["association"], summary["numerator"],
                                       strict=True)]
        for i, name in enumerate(("published lower", "published upper", "published share")):
            display[name] = [float("nan") if p is None else p[i] for p in published]
    return summary, display


def cmd_simulate_weat(args: argparse.Namespace) -> int:
    """Print the summaries of ``embias simulate weat``."""
    _, display = weat_simulation_report(args)
    print(f"WEAT effect sizes of simulated raw cosine similarities: {args.n_sims:,} data sets "
          f"per row, raw sd {0.08 if args.published else args.sd:g}, seed {args.seed}; "
          f"{args.ci_prob:.0%} range of the simulated values, share of |WEAT| ≥ "
          f"{args.threshold:g}; raw sd / sd of means = medians over data sets")
    print(to_markdown(display))
    print("numerator 'mean' is Caliskan et al.'s WEAT; 'first-word' is s(x1) − s(y1), what "
          "the authors' R code computed (R's mean(s1, …, s8) averages only s1) and what the "
          "published figures show.")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register ``simulate`` (sub-command ``weat``) on the main parser's sub-parsers."""
    p = subparsers.add_parser(
        "simulate", help="pre-averaging simulations (how much WEAT pure noise gives)",
        description="Simulations of raw cosine similarities that show what pre-averaged "
                    "scores do with noise.")
    sub = p.add_subparsers(dest="simulation", metavar="SIMULATION", required=True)
    w = sub.add_parser(
        "weat", help="WEAT effect sizes of simulated raw similarities",
        description="Draw every (protected word, attribute) cosine similarity from "
                    "Normal(mu, sd), mu = --association for a group's own attribute set and "
                    "0 otherwise, and summarise the WEAT effect sizes. Several values of "
                    "--n-protected, --n-attributes or --association give one row each.")
    w.add_argument("--n-protected", type=int, nargs="+", default=[8], metavar="N",
                   help="protected words per group (default 8)")
    w.add_argument("--n-attributes", type=int, nargs="+", default=[8], metavar="M",
                   help="words per attribute set (default 8)")
    w.add_argument("--sd", type=float, default=0.08, help="sd of the raw similarities "
                                                          "(default 0.08)")
    w.add_argument("--association", type=float, nargs="+", default=[0.0], metavar="A",
                   help="mean similarity of a group's words with its own attribute set "
                        "(default 0: pure noise)")
    w.add_argument("--numerator", choices=[*NUMERATORS, "both"], default="mean",
                   help="'mean' (WEAT, default), 'first-word' (the published figures' "
                        "numerator) or both")
    w.add_argument("--n-sims", type=int, default=10_000, help="data sets per row "
                                                              "(default 10000)")
    w.add_argument("--threshold", type=float, default=CALISKAN_LARGEST_EFFECT,
                   help="|WEAT| threshold (default 1.81, Caliskan et al.'s largest effect)")
    w.add_argument("--ci-prob", type=float, default=0.95, help="range probability "
                                                               "(default 0.95)")
    w.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    w.add_argument("--no-exact", action="store_true",
                   help="skip the exact (analytic) columns")
    w.add_argument("--published", action="store_true",
                   help="the slides' three scenarios (association 0, .1, .4; 8 words, 8 "
                        "attributes, sd .08) with both numerators, next to the published "
                        "figures")
    w.set_defaults(func=cmd_simulate_weat)
