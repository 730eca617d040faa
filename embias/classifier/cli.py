"""``embias bbu …`` and ``embias parity …`` sub-commands.

Registered on the main parser by :func:`add_commands`::

    embias bbu n --delta 0.05 [--confidence 0.95 --max-cost 1 --gamma 0.5 --variance max]
    embias bbu delta --n 3160 [...]
    embias bbu interval FILE.csv --cost COL --group COL [--protected LABEL --bound hoeffding]
    embias parity 20/100 30/100 --threshold 0.1 [--ci-prob 0.95 --labels a,b]

Each handler prints markdown tables (:func:`embias.report.to_markdown`) and returns an exit
code: 0 on success, 1 on bad input or data (one ``embias: error: …`` line on stderr, as in
the main CLI); argparse itself exits with 2 on malformed command lines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import pandas as pd

from embias.classifier.bbu import bbu_detectable_delta, bbu_interval, bbu_required_n
from embias.classifier.parity import parity_comparisons, parity_posterior
from embias.report import to_markdown

__all__ = ["add_commands"]


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn bad input into one ``embias: error: …`` line on stderr and exit code 1."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (ValueError, FileNotFoundError, KeyError) as err:
            msg = err.args[0] if isinstance(err, KeyError) and err.args else err
            print(f"embias: error: {str(msg).strip()}".replace("\n", " "), file=sys.stderr)
            return 1

    run.__name__ = handler.__name__
    run.__doc__ = handler.__doc__
    return run


def _variance(text: str) -> Any:
    """'max', 'sample' or a number (argparse reports anything else)."""
    return text if text in ("max", "sample") else float(text)


def _add_bound_options(p: argparse.ArgumentParser, *, gamma_default: float | None) -> None:
    p.add_argument("--confidence", type=float, default=0.95, help="confidence ρ (default 0.95)")
    p.add_argument("--max-cost", type=float, default=1.0, help="largest cost C (default 1)")
    if gamma_default is None:
        p.add_argument("--gamma", type=float, default=None,
                       help="lower bound on the smaller group's share (default: observed)")
    else:
        p.add_argument("--gamma", type=float, default=gamma_default,
                       help=f"lower bound on the smaller group's share (default {gamma_default})")


@_guarded
def _bbu_n(args: argparse.Namespace) -> int:
    """Required sample size for each --delta."""
    rows = []
    for d in args.delta:
        n = bbu_required_n(d, confidence=args.confidence, max_cost=args.max_cost,
                           gamma=args.gamma, variance=args.variance)
        rows.append({"delta": d, "confidence": args.confidence, "max_cost": args.max_cost,
                     "gamma": args.gamma, "variance": str(args.variance), "required_n": n})
    print(to_markdown(pd.DataFrame(rows), digits=4))
    return 0


@_guarded
def _bbu_delta(args: argparse.Namespace) -> int:
    """Smallest disparity detectable with each --n."""
    rows = []
    for n in args.n:
        d = bbu_detectable_delta(n, confidence=args.confidence, max_cost=args.max_cost,
                                 gamma=args.gamma, variance=args.variance)
        rows.append({"n": n, "confidence": args.confidence, "max_cost": args.max_cost,
                     "gamma": args.gamma, "variance": str(args.variance),
                     "detectable_delta": float(d)})
    print(to_markdown(pd.DataFrame(rows), digits=4))
    return 0


@_guarded
def _bbu_interval(args: argparse.Namespace) -> int:
    """BBU interval of the groupwise disparity from a CSV file."""
    frame = pd.read_csv(args.file)
    for col in (args.cost, args.group):
        if col not in frame.columns:
            raise ValueError(f"column {col!r} is not in {args.file} (columns: "
                             f"{list(frame.columns)})")
    protected: Any = args.protected
    if protected is not None and pd.api.types.is_numeric_dtype(frame[args.group]):
        protected = pd.to_numeric(pd.Series([protected])).iloc[0]
    table = bbu_interval(frame[args.cost].to_numpy(), frame[args.group].to_numpy(),
                         confidence=args.confidence, max_cost=args.max_cost, gamma=args.gamma,
                         protected=protected, variance=args.variance,
                         bound=args.bound)
    print(to_markdown(table, digits=4))
    return 0


def _parse_count(text: str) -> tuple[int, int]:
    parts = text.split("/")
    try:
        if len(parts) != 2:
            raise ValueError
        x, n = int(parts[0]), int(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected SUCCESSES/TOTAL such as 20/100, got {text!r}") from None
    return x, n


@_guarded
def _parity(args: argparse.Namespace) -> int:
    """Bayesian parity test of two or more groups' selection rates."""
    counts = args.counts
    if len(counts) < 2:
        raise ValueError(f"give at least two groups as SUCCESSES/TOTAL, got {len(counts)}")
    labels = None if args.labels is None else [s.strip() for s in args.labels.split(",")]
    prior = tuple(float(v) for v in args.prior.split(","))
    if len(counts) == 2:
        (x1, n1), (x2, n2) = counts
        post = parity_posterior(x1, n1, x2, n2, prior=prior,  # type: ignore[arg-type]
                                labels=None if labels is None else tuple(labels))  # type: ignore[arg-type]
        table = post.hdi(args.ci_prob)
        if args.threshold is not None:
            dec = post.decide(args.threshold, args.ci_prob)
            table["threshold"] = dec.threshold
            table["prob_outside"] = dec.prob_outside
            table["hdi_rope"] = dec.hdi_rope
            table["simple"] = dec.simple
        print(to_markdown(table, digits=4))
        return 0
    table = parity_comparisons([x for x, _ in counts], [n for _, n in counts], labels=labels,
                               ci_prob=args.ci_prob, threshold=args.threshold,
                               prior=prior)  # type: ignore[arg-type]
    print(to_markdown(table, digits=4))
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register the ``bbu`` and ``parity`` sub-commands on the main CLI's sub-parsers.

    Every leaf parser sets ``func``: call ``args.func(args)`` and exit with its return
    value.
    """
    bbu = subparsers.add_parser(
        "bbu", help="Bernstein-bounded unfairness (Ethayarajh 2020)",
        description="Bernstein-bounded unfairness: sample sizes, detectable disparities and "
                    "confidence intervals for groupwise disparities.")
    bbu_sub = bbu.add_subparsers(dest="bbu_command", metavar="{n,delta,interval}")
    bbu_sub.required = True

    p_n = bbu_sub.add_parser("n", help="sample size needed to call a disparity biased")
    p_n.add_argument("--delta", type=float, nargs="+", required=True,
                     help="disparity magnitude(s) δ in (0, C]")
    _add_bound_options(p_n, gamma_default=0.5)
    p_n.add_argument("--variance", type=_variance, default="max",
                     help="σ² of the amortized disparities, or 'max' = (C/γ)² (default)")
    p_n.set_defaults(func=_bbu_n)

    p_d = bbu_sub.add_parser("delta", help="smallest disparity detectable with n examples")
    p_d.add_argument("--n", type=int, nargs="+", required=True, help="sample size(s)")
    _add_bound_options(p_d, gamma_default=0.5)
    p_d.add_argument("--variance", type=_variance, default="max",
                     help="σ² of the amortized disparities, or 'max' = (C/γ)² (default)")
    p_d.set_defaults(func=_bbu_delta)

    p_i = bbu_sub.add_parser("interval", help="BBU interval from a CSV of costs and groups")
    p_i.add_argument("file", help="CSV file with one row per annotated example")
    p_i.add_argument("--cost", required=True, help="column with the cost in [0, C]")
    p_i.add_argument("--group", required=True,
                     help="column with +1/-1/0 (protected/unprotected/neither) or two labels")
    p_i.add_argument("--protected", default=None,
                     help="label of the protected group (with two labels; default: first "
                          "in sorted order)")
    _add_bound_options(p_i, gamma_default=None)
    p_i.add_argument("--variance", type=_variance, default="sample",
                     help="'sample' (default), 'max' or a number")
    p_i.add_argument("--bound", choices=("bernstein", "hoeffding"), default="bernstein")
    p_i.set_defaults(func=_bbu_interval)

    par = subparsers.add_parser(
        "parity", help="Bayesian parity test of selection rates",
        description="Posterior of selection-rate differences (Beta posteriors): mean, HDI, "
                    "P(|d| > T) and decisions. Two groups give one contrast; more give all "
                    "pairwise and each-vs-rest contrasts.")
    par.add_argument("counts", nargs="+", type=_parse_count, metavar="X/N",
                     help="successes/total for each group, e.g. 20/100 30/100")
    par.add_argument("--threshold", type=float, default=None,
                     help="fairness threshold T (ROPE = [-T, T])")
    par.add_argument("--ci-prob", type=float, default=0.95, help="HDI probability (0.95)")
    par.add_argument("--labels", default=None, help="comma-separated group names")
    par.add_argument("--prior", default="1,1", help="Beta prior 'alpha,beta' (default 1,1)")
    par.set_defaults(func=_parity)
