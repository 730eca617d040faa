"""``embias table``, ``weat``, ``mac`` and ``summary``: cosine tables and the classic scores."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Any

from .._validation import UnknownNameError, check_int, check_seed, close_match_hint
from ..settings import DEFAULT_CI_PROB
from ..wordlists import BUILTIN_STUDIES
from ._options import (
    STUDIES,
    add_embedding,
    add_seed,
    checked,
    output_path,
    refuse_published,
    writable,
)

#: What ``embias weat TEST`` accepts by name.
WEAT_TESTS: tuple[str, ...] = tuple(s for s in BUILTIN_STUDIES if s.startswith("weat"))
#: ``embias weat --n-boot`` default: :data:`embias.classic.DEFAULT_N_BOOT` (a literal here
#: so that parsing imports no numpy; a test checks that the two agree).
DEFAULT_N_BOOT = 10_000
#: Interval probability of ``embias weat``: :data:`embias.settings.DEFAULT_CI_PROB`.
WEAT_CI_PROB = DEFAULT_CI_PROB

__all__ = [
    "cmd_mac",
    "cmd_summary",
    "cmd_table",
    "cmd_weat",
    "permutations_argument",
    "register",
]


def _embedding_source(value: str) -> Any:
    """Load embeddings once (published tables pass through as the string)."""
    if value.startswith("published:"):
        return value
    import embias

    return embias.load_embeddings(value)


def _study_table(study: str, embedding: str) -> Any:
    """Return the study's cosine table, its ``embedding`` column the name the user gave."""
    import embias

    return embias.study_table(study, _embedding_source(embedding), embedding_name=embedding)


def _print_missing(table: Any) -> None:
    report = table.attrs.get("missing", {})
    lines = []
    for name, info in report.items():
        if info.get("missing"):
            lines.append(f"  {name}: {len(info['missing'])} of {info['total']} missing: "
                         + ", ".join(info["missing"]))
        elif info.get("coded_missing"):
            lines.append(f"  {name}: {info['coded_missing']} of {info['total']} rows coded "
                         "missing (-100) by the authors")
    print("missing words: none" if not lines else "missing words (dropped):\n" + "\n".join(lines))


def cmd_table(args: argparse.Namespace) -> int:
    """Run ``embias table``: build a study's cosine table and write or print it."""
    import embias

    if args.out and Path(args.out).suffix not in (".csv", ".parquet"):
        raise ValueError(f"--out {args.out!r}: use a .csv or .parquet file name")
    out = output_path("--out", args.out)
    embias.load_study(args.study)  # an unknown study fails before the embeddings load
    table = _study_table(args.study, args.embedding)
    if out is not None:
        if out.suffix == ".parquet":
            table.to_parquet(writable(out), index=False)
        else:
            table.to_csv(writable(out), index=False)
        print(f"wrote {len(table)} rows to {out}")
    print(f"cosine table: study {args.study}, embedding {args.embedding}, {len(table)} rows")
    print(embias.to_markdown(embias.summarize_table(table)))
    _print_missing(table)
    return 0


def permutations_argument(text: str) -> str | int:
    """Return ``--permutations`` as ``"auto"``, ``"exact"`` or a positive integer.

    Argparse's usage error naming the value otherwise.
    """
    if text in ("auto", "exact"):
        return text
    try:
        return check_int("--permutations", int(text), minimum=1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--permutations must be 'auto', 'exact' or a positive integer, got "
            f"{text!r}") from None


#: What the WEAT rows are (printed above them).
_WEAT_NOTE = ("effect size d: a point estimate (no interval for it yet); null_lower/"
              "null_upper: the central null_ci_prob range of d under the permutation null "
              "(where d falls by chance), not an interval for d")


#: What ``embias weat TEST`` prints above its row: the two questions and their columns.
_WEAT_TEST_NOTE = (
    "effect size d with lower/upper: its {ci:.0%} item-bootstrap interval ({n_boot:,} "
    "resamples of the X, Y, A and B words, each list with replacement): would other words "
    "from the same populations give a similar effect?  p_value (permutation test): could "
    "the X/Y labels be arbitrary?  null_lower/null_upper: the central null_ci_prob range of "
    "d under the permutation null (where d falls by chance), not an interval for d.  "
    "population_estimate with population_lower/population_upper: the effect size of the "
    "word populations (the limit as every list grows; short attribute lists attenuate d) "
    "and its noise-adjusted two-way bootstrap interval (embias.weat_population)")
#: Columns ``embias weat TEST`` prints.
_WEAT_TEST_COLUMNS: tuple[str, ...] = (
    "estimand", "group", "estimate", "lower", "upper", "ci_prob", "p_value", "alternative",
    "n_permutations", "exact", "null_lower", "null_upper", "null_ci_prob", "n_boot",
    "boot_redrawn", "population_estimate", "population_lower", "population_upper")


def _weat_markdown(table: Any) -> str:
    """WEAT rows without the (empty) interval columns."""
    import embias
    from embias.report import CLI_WEAT_COLUMNS

    return embias.to_markdown(table, columns=[c for c in CLI_WEAT_COLUMNS if c in table])


def _n_boot(name: str, value: int) -> int:
    return check_int(name, value, minimum=1)


def cmd_weat(args: argparse.Namespace) -> int:
    """Run ``embias weat``: WEAT of one of Caliskan's tests (or all, or a study), printed."""
    import embias

    refuse_published("weat", args.embedding)
    if args.test != "all" and args.test not in WEAT_TESTS and not Path(args.test).is_dir():
        raise UnknownNameError(
            f"unknown WEAT test {args.test!r}{close_match_hint(args.test, WEAT_TESTS)}; "
            f"known: {', '.join(WEAT_TESTS)}, 'all', or a folder of a two-class study")
    seed = check_seed(args.random_seed)  # the one seed policy: None draws one, shown
    embeddings = embias.load_embeddings(args.embedding)
    print(f"seed {seed}")
    if args.test == "all":
        table = embias.weat_overview(embeddings, permutations=args.permutations,
                                     alternative=args.alternative, n_boot=args.n_boot,
                                     ci_prob=WEAT_CI_PROB, random_seed=seed)
        print(f"WEAT ({args.alternative} permutation p-values, sd with ddof=1) on "
              f"{args.embedding}; lower/upper = {WEAT_CI_PROB:.0%} item-bootstrap interval of "
              f"the effect size ({args.n_boot:,} resamples of the X, Y, A and B words: other "
              "words from the same populations), p_value = permutation test (could the X/Y "
              "labels be arbitrary?); population_* = the effect size of the word "
              "populations (the noise of short attribute lists taken out) and its interval; "
              "missing = words not in the embeddings per list")
        print(embias.to_markdown(table))
        return 0
    result = embias.weat_test(args.test, embeddings, permutations=args.permutations,
                              alternative=args.alternative, n_boot=args.n_boot,
                              random_seed=seed)
    print(_WEAT_TEST_NOTE.format(ci=WEAT_CI_PROB, n_boot=args.n_boot))
    table = result.to_interval_table(ci_prob=WEAT_CI_PROB)
    print(embias.to_markdown(table, columns=[c for c in _WEAT_TEST_COLUMNS if c in table]))
    print(embias.to_markdown(result.s_values))
    return 0


def cmd_mac(args: argparse.Namespace) -> int:
    """Run ``embias mac``: MAC of a study with its Student-t intervals, printed."""
    import embias

    embias.load_study(args.study)
    result = embias.mac(_study_table(args.study, args.embedding))
    print(f"MAC (mean cosine distance, Manzini et al. 2019): {result.value:.4f}")
    print(embias.to_markdown(result.to_interval_table()))
    print(embias.to_markdown(result.by_class))
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    """Cosine-table summary, MAC and pairwise WEAT of a study."""
    import embias

    embias.load_study(args.study)
    source = _embedding_source(args.embedding)
    table = embias.study_table(args.study, source, embedding_name=args.embedding)
    print(f"== cosine table: study {args.study}, embedding {args.embedding}, {len(table)} rows")
    print(embias.to_markdown(embias.summarize_table(table)))
    _print_missing(table)
    result = embias.mac(table)
    print(f"\n== MAC (mean cosine distance): {result.value:.4f}")
    print(embias.to_markdown(result.to_interval_table()))
    if not args.embedding.startswith("published:"):
        seed = check_seed(args.random_seed)
        print(f"\n== WEAT for each pair of protected classes (exact permutation test; "
              f"seed {seed})")
        print(_WEAT_NOTE)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # missing words: listed above
            print(_weat_markdown(embias.weat_pairs(source, args.study, random_seed=seed)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``table``, ``weat``, ``mac`` and ``summary`` to the main parser."""
    p = sub.add_parser("table", help="build a study's long-form cosine table",
                       description="Build the long-form cosine table of a study.")
    p.add_argument("study", help=f"study: {STUDIES}, or a folder of word lists")
    add_embedding(p)
    p.add_argument("--out", help="write the table to FILE.csv or FILE.parquet")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("weat", help="WEAT effect size, bootstrap interval and permutation "
                                    "p-value",
                       description="Caliskan et al.'s WEAT with exact or seeded Monte Carlo "
                                   "permutation p-values and an 89% two-way item-bootstrap "
                                   "interval for the effect size (target and attribute "
                                   "words resampled).")
    p.add_argument("test", help="weat1 … weat10, 'all', or a two-class study folder")
    add_embedding(p, published=False)
    p.add_argument("--permutations", default="auto", type=permutations_argument,
                   help="'auto' (exact up to 1e6 partitions, else 100,000 Monte Carlo), "
                        "'exact', or a number of Monte Carlo permutations")
    p.add_argument("--alternative", default="two-sided",
                   choices=["two-sided", "greater", "less"])
    p.add_argument("--n-boot", type=checked(int, _n_boot, "n_boot"), default=DEFAULT_N_BOOT,
                   metavar="N", help="item-bootstrap replicates, an integer ≥ 1 (default "
                                     "%(default)s)")
    add_seed(p, default=None, what="seed of the Monte Carlo permutations and the bootstrap")
    p.set_defaults(func=cmd_weat)

    p = sub.add_parser("mac", help="Manzini et al.'s MAC of a study",
                       description="Mean average cosine distance (MAC) of a study.")
    p.add_argument("study", help=f"study: {STUDIES}")
    add_embedding(p)
    p.set_defaults(func=cmd_mac)

    p = sub.add_parser("summary", help="cosine-table summary, MAC and WEAT of a study",
                       description="The classic view of a study: table summary, MAC and "
                                   "pairwise WEAT.")
    p.add_argument("study", help=f"study: {STUDIES}")
    add_embedding(p)
    add_seed(p, default=None, what="Monte Carlo seed")
    p.set_defaults(func=cmd_summary)
