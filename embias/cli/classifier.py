"""``embias bbu …`` and ``embias parity …``: classifier fairness with honest uncertainty.

Usage::

    embias bbu n --delta 0.05 [--ci-prob 0.95 --max-cost 1 --gamma 0.5 --variance max]
    embias bbu delta --n 3160 [...]
    embias bbu interval FILE.csv --cost COL --group COL [--protected LABEL --bound hoeffding]
    embias parity 20/100 30/100 --rope 0.1 [--ci-prob 0.95 --labels a,b]

``--ci-prob`` defaults to :data:`embias.settings.DEFAULT_CI_PROB` (0.89) here as everywhere;
Ethayarajh's figures are at ρ = 0.95 (``--ci-prob 0.95``).
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from .._validation import check_int, check_number
from ._options import add_ci_prob, checked

__all__ = ["cmd_bbu_delta", "cmd_bbu_interval", "cmd_bbu_n", "cmd_parity", "register"]


def _variance(text: str) -> Any:
    """'max', 'sample' or a number (argparse reports anything else)."""
    return text if text in ("max", "sample") else float(text)


#: What ``embias parity`` accepts for each group (named in its errors).
_COUNT_RULE = ("SUCCESSES/TRIALS with whole numbers 0 ≤ SUCCESSES ≤ TRIALS and TRIALS ≥ 1, "
               "such as 20/100")
#: Counts that start with a minus sign (``-1/10``) are values, not options: argparse's own
#: rule (``-1``, ``-.5``) extended to ``-X/N`` so that a negative count is named and
#: refused by :func:`_parse_count` instead of being "unrecognized arguments".
_NEGATIVE_VALUE = re.compile(r"^-(\d+|\d*\.\d+)(/.*)?$")


def _parse_count(text: str) -> tuple[int, int]:
    """Return ``X/N`` as two integers with 0 ≤ X ≤ N and N ≥ 1.

    Argparse's usage error naming the value otherwise.
    """
    parts = text.split("/")
    try:
        if len(parts) != 2:
            raise ValueError
        x, n = int(parts[0]), int(parts[1])
        if not 0 <= x <= n or n < 1:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid group count {text!r}: expected {_COUNT_RULE}") from None
    return x, n


def _number(name: str, value: float) -> float:
    return check_number(name, value)


def _sample_size(name: str, value: int) -> int:
    return check_int(name, value, minimum=1)


def _cell_number(text: str, *, file: str, column: str, row: int) -> float:
    """One cell of a CSV as a number, or a ValueError naming the file, column and row."""
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{file}: column {column!r}, row {row} (line {row + 1}): "
                         f"{text!r} is not a number") from None


def _bound_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"ci_prob": args.ci_prob, "max_cost": args.max_cost, "gamma": args.gamma,
            "variance": args.variance}


def cmd_bbu_n(args: argparse.Namespace) -> int:
    """Print the required sample size for each ``--delta``."""
    import pandas as pd

    from embias.classifier import bbu_required_n
    from embias.report import to_markdown

    rows = []
    for d in args.delta:
        n = bbu_required_n(d, **_bound_options(args))
        rows.append({"delta": d, "ci_prob": args.ci_prob, "max_cost": args.max_cost,
                     "gamma": args.gamma, "variance": str(args.variance), "required_n": n})
    print(to_markdown(pd.DataFrame(rows), digits=4))
    return 0


def cmd_bbu_delta(args: argparse.Namespace) -> int:
    """Smallest disparity detectable with each --n."""
    import pandas as pd

    from embias.classifier import bbu_detectable_delta
    from embias.report import to_markdown

    rows = []
    for n in args.n:
        d = bbu_detectable_delta(n, **_bound_options(args))
        rows.append({"n": n, "ci_prob": args.ci_prob, "max_cost": args.max_cost,
                     "gamma": args.gamma, "variance": str(args.variance),
                     "detectable_delta": float(d)})
    print(to_markdown(pd.DataFrame(rows), digits=4))
    return 0


def cmd_bbu_interval(args: argparse.Namespace) -> int:
    """BBU interval of the groupwise disparity from a CSV file."""
    import pandas as pd

    from embias.classifier import bbu_interval
    from embias.report import to_markdown

    frame = pd.read_csv(args.file)
    for col in (args.cost, args.group):
        if col not in frame.columns:
            raise ValueError(f"column {col!r} is not in {args.file} (columns: "
                             f"{list(frame.columns)})")
    if not pd.api.types.is_numeric_dtype(frame[args.cost]) or frame[args.cost].isna().any():
        # the cells as written (an empty cell is ''), data rows numbered from 1
        text = pd.read_csv(args.file, dtype=str, keep_default_na=False)[args.cost]
        frame[args.cost] = [_cell_number(v, file=args.file, column=args.cost, row=i)
                            for i, v in enumerate(text, start=1)]
    protected: Any = args.protected
    if protected is not None and pd.api.types.is_numeric_dtype(frame[args.group]):
        protected = pd.to_numeric(pd.Series([protected])).iloc[0]
    table = bbu_interval(frame[args.cost].to_numpy(), frame[args.group].to_numpy(),
                         protected=protected, bound=args.bound, **_bound_options(args))
    print(to_markdown(table, digits=4))
    return 0


def cmd_parity(args: argparse.Namespace) -> int:
    """Bayesian parity test of two or more groups' selection rates."""
    from embias.classifier import parity_comparisons, parity_posterior
    from embias.report import to_markdown

    counts = args.counts
    if len(counts) < 2:
        raise ValueError(f"give at least two groups as SUCCESSES/TOTAL, got {len(counts)}")
    labels = None if args.labels is None else [s.strip() for s in args.labels.split(",")]
    try:
        prior = tuple(float(v) for v in args.prior.split(","))
    except ValueError:
        raise ValueError(f"--prior {args.prior!r}: expected 'alpha,beta' such as 1,1") from None
    if len(counts) == 2:
        (x1, n1), (x2, n2) = counts
        post = parity_posterior(x1, n1, x2, n2, prior=prior,  # type: ignore[arg-type]
                                labels=None if labels is None else tuple(labels))
        table = post.hdi(args.ci_prob)
        if args.rope is not None:
            dec = post.decide(args.rope, args.ci_prob)
            table["rope"] = dec.rope
            table["prob_outside"] = dec.prob_outside
            table["hdi_rope"] = dec.hdi_rope
            table["simple"] = dec.simple
        print(to_markdown(table, digits=4))
        return 0
    table = parity_comparisons([x for x, _ in counts], [n for _, n in counts], labels=labels,
                               ci_prob=args.ci_prob, rope=args.rope,
                               prior=prior)  # type: ignore[arg-type]
    print(to_markdown(table, digits=4))
    return 0


def _add_bound_options(p: argparse.ArgumentParser, *, gamma_default: float | None,
                       variance_default: str) -> None:
    add_ci_prob(p, what="confidence level ρ")
    p.add_argument("--max-cost", type=float, default=1.0, help="largest cost C (default 1)")
    if gamma_default is None:
        p.add_argument("--gamma", type=float, default=None,
                       help="lower bound on the smaller group's share (default: observed)")
    else:
        p.add_argument("--gamma", type=float, default=gamma_default,
                       help=f"lower bound on the smaller group's share (default {gamma_default})")
    if variance_default == "max":
        what = "σ² of the amortized disparities, or 'max' = (C/γ)² (default)"
    else:
        what = "'sample' (default), 'max' or a number"
    p.add_argument("--variance", type=_variance, default=variance_default, help=what)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``bbu`` (``n``, ``delta``, ``interval``) and ``parity`` to the main parser."""
    bbu = sub.add_parser(
        "bbu", help="Bernstein-bounded unfairness (Ethayarajh 2020)",
        description="Bernstein-bounded unfairness: sample sizes, detectable disparities and "
                    "confidence intervals for groupwise disparities.")
    bbu_sub = bbu.add_subparsers(dest="bbu_command", metavar="{n,delta,interval}",
                                 required=True)

    p = bbu_sub.add_parser("n", help="sample size needed to call a disparity biased")
    p.add_argument("--delta", type=checked(float, _number, "--delta"), nargs="+", required=True,
                   help="disparity magnitude(s) δ in (0, C]")
    _add_bound_options(p, gamma_default=0.5, variance_default="max")
    p.set_defaults(func=cmd_bbu_n)

    p = bbu_sub.add_parser("delta", help="smallest disparity detectable with n examples")
    p.add_argument("--n", type=checked(int, _sample_size, "--n"), nargs="+", required=True,
                   help="sample size(s), integers ≥ 1")
    _add_bound_options(p, gamma_default=0.5, variance_default="max")
    p.set_defaults(func=cmd_bbu_delta)

    p = bbu_sub.add_parser("interval", help="BBU interval from a CSV of costs and groups")
    p.add_argument("file", help="CSV file with one row per annotated example")
    p.add_argument("--cost", required=True, help="column with the cost in [0, C]")
    p.add_argument("--group", required=True,
                   help="column with +1/-1/0 (protected/unprotected/neither) or two labels")
    p.add_argument("--protected", default=None,
                   help="label of the protected group (with two labels; default: first "
                        "in sorted order)")
    _add_bound_options(p, gamma_default=None, variance_default="sample")
    p.add_argument("--bound", choices=("bernstein", "hoeffding"), default="bernstein")
    p.set_defaults(func=cmd_bbu_interval)

    p = sub.add_parser(
        "parity", help="Bayesian parity test of selection rates",
        description="Posterior of selection-rate differences (Beta posteriors): mean, HDI, "
                    "P(|d| > T) and decisions. Two groups give one contrast; more give all "
                    "pairwise and each-vs-rest contrasts.")
    p._negative_number_matcher = _NEGATIVE_VALUE  # a negative count is a value to refuse
    p.add_argument("counts", nargs="+", type=_parse_count, metavar="X/N",
                   help="successes/trials for each group, e.g. 20/100 30/100")
    p.add_argument("--rope", type=float, default=None,
                   help="fairness threshold T: the ROPE is [-T, T]")
    add_ci_prob(p, what="HDI probability")
    p.add_argument("--labels", default=None, help="comma-separated group names")
    p.add_argument("--prior", default="1,1", help="Beta prior 'alpha,beta' (default 1,1)")
    p.set_defaults(func=cmd_parity)
