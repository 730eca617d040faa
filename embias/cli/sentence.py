"""``embias seat``: SEAT (May et al. 2019) on the offline sentence encoder."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._validation import UnknownNameError, check_seed, close_match_hint
from ._options import add_seed
from .tables import WEAT_TESTS, permutations_argument

__all__ = ["cmd_seat", "register"]

#: What the SEAT table's columns are (printed above it).
_SEAT_NOTE = (
    "SEAT (May et al. 2019): each word of Caliskan et al.'s test put in May et al.'s "
    "templates for its kind; WEAT on the sentence vectors ({encoder}): effect size with "
    "the sample sd (ddof = 1); {alternative} permutation p-value over the sentences "
    "({seed}); sentences = X/Y/A/B counts; population_* = the effect size of the word "
    "populations (the noise of short attribute lists taken out) and its interval. "
    "Sentences of one word are not independent, so the p-values are optimistic.")


def cmd_seat(args: argparse.Namespace) -> int:
    """Run ``embias seat``: SEAT of Caliskan's tests (or a study) on the sentence encoder."""
    tests = WEAT_TESTS if args.test == "all" else (args.test,)
    if args.test != "all" and args.test not in WEAT_TESTS and not Path(args.test).is_dir():
        raise UnknownNameError(
            f"unknown WEAT test {args.test!r}{close_match_hint(args.test, WEAT_TESTS)}; "
            f"known: {', '.join(WEAT_TESTS)}, 'all', or a folder of a two-class study")
    import embias
    from embias.encoders import MODEL_NAME, default_encoder
    from embias.sentences import seat_overview

    try:
        encoder = default_encoder()
    except (ImportError, FileNotFoundError) as exc:
        raise ValueError(str(exc)) from None
    seed = check_seed(args.random_seed)  # the one seed policy: None draws one, shown
    table = seat_overview(encoder, tests=tests, permutations=args.permutations,
                          alternative=args.alternative, random_seed=seed)
    print(_SEAT_NOTE.format(encoder=MODEL_NAME, alternative=args.alternative,
                            seed=f"Monte Carlo seed {seed}"))
    print(embias.to_markdown(table.drop(columns="encoder")))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``seat`` to the main parser."""
    p = sub.add_parser("seat", help="SEAT effect sizes and p-values on the sentence encoder",
                       description="May et al.'s Sentence Encoder Association Test: "
                                   "Caliskan et al.'s WEAT tests with every word put in "
                                   "sentence templates, on the offline all-MiniLM-L6-v2 "
                                   "(needs the 'sentence' extra).")
    p.add_argument("test", nargs="?", default="all",
                   help="weat1 … weat10, 'all' (default), or a two-class study folder")
    p.add_argument("--permutations", default="auto", type=permutations_argument,
                   help="'auto' (exact up to 1e6 partitions, else 100,000 Monte Carlo), "
                        "'exact', or a number of Monte Carlo permutations")
    p.add_argument("--alternative", default="two-sided",
                   choices=["two-sided", "greater", "less"])
    add_seed(p, default=None, what="Monte Carlo seed")
    p.set_defaults(func=cmd_seat)
