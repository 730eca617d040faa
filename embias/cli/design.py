r"""``embias design``: how many words does a claim need.

The probability that a study of each size finds a credible difference per contrast, and
its expected interval width, by simulation::

    embias design religion --attribute-words 4 8 16 32 --studies 100 --seed 1 \
        --plot design.png --out design.csv
    embias design religion --attribute-words pilot 16 --protected-words pilot 10 20
    embias design --populations names --attribute-words 4 8 16 --protected-words 5

With a study, the study is fitted on ``--embedding`` at the crossed level (the pilot) and
new studies are drawn from that fit's posterior predictive; with ``--populations``, new
studies are drawn from the populations' real words (:func:`embias.design.design_analysis`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._validation import check_number
from ..populations import BUILTIN_POPULATIONS
from ..settings import BATCH_DRAWS, BATCH_TUNE, DEFAULT_LEVEL, DEFAULT_ROPE, LEVELS
from ._options import (
    STUDIES,
    add_ci_prob,
    add_embedding,
    add_seed,
    checked,
    count_type,
    output_path,
    write_simulation_outputs,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..bayes.fit import BiasFit
    from ..populations import WordPopulations

__all__ = ["DEFAULT_STUDIES", "cmd_design", "register"]

#: Studies per design by default (Monte Carlo se of a probability: at most 0.05).
DEFAULT_STUDIES = 100
#: Columns of the printed summary.
SHOWN_COLUMNS = ("protected_words", "attribute_words", "neutral_words", "human_words",
                 "contrast", "truth", "p_credible", "p_se", "width_mean", "width_se",
                 "n_studies", "n_failed_fits")


def _size_type(option: str) -> Callable[[str], int | str]:
    """Return an argparse ``type`` for a list size: an integer ≥ 1 or ``pilot``."""
    def parse(text: str) -> int | str:
        if text == "pilot":
            return text
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} takes integers ≥ 1 or 'pilot', got "
                                             f"{text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{option} takes integers ≥ 1 (a design needs "
                                             f"at least one word per class), got {value}")
        return value

    parse.__name__ = option
    return parse


def _shown(summary: pd.DataFrame) -> pd.DataFrame:
    """Return the summary with whole word counts as integers (a pilot's mean stays)."""
    frame = summary.copy()
    for column in ("protected_words", "attribute_words"):
        frame[column] = [f"{v:g}" for v in frame[column]]
    return frame


def cmd_design(args: argparse.Namespace) -> int:
    """Run ``embias design``.

    Fit the pilot (or load the populations), simulate, print the table, write the per-study
    rows and the plot.
    """
    out = output_path("--out", args.out)
    plot = output_path("--plot", args.plot)
    if (args.study is None) == (args.populations is None):
        raise ValueError("give a STUDY (its fit's posterior predictive draws the new studies) "
                         "or --populations NAME (new studies of real words), not "
                         f"{'both' if args.study else 'neither'}")
    import embias
    from embias._validation import check_seed
    from embias.bayes import derived_seed
    from embias.design import design_analysis
    from embias.settings import FitSettings

    settings = FitSettings.for_batch(draws=args.draws, tune=args.tune)
    seed = check_seed(args.random_seed)
    if args.study is not None:
        table = embias.study_table(args.study, args.embedding)
        print(f"fitting the pilot study {table.attrs.get('study', args.study)!r} on "
              f"{args.embedding} (crossed level), seed {seed}", flush=True)
        source: BiasFit | WordPopulations = embias.fit_bias_model(table, level="crossed",
                                       random_seed=derived_seed(seed, "pilot"))
        embeddings = None
        what = (f"posterior predictive of {table.attrs.get('study', args.study)} on "
                f"{args.embedding}")
    else:
        if args.embedding.startswith("published:"):
            raise ValueError(f"--embedding {args.embedding!r}: --populations needs word "
                             "vectors, not a published cosine table")
        populations = embias.load_populations(args.populations)
        source = populations
        embeddings = args.embedding
        what = f"real words of {populations.name!r} on {args.embedding}"
    result = design_analysis(
        source, embeddings, attribute_words=args.attribute_words,
        protected_words=args.protected_words, neutral_words=args.neutral_words,
        human_words=args.human_words, n_studies=args.studies, level=args.level,
        ci_prob=args.ci_prob, rope=args.rope, settings=settings, random_seed=seed,
        progress=True)
    print(f"P(credible difference: the {args.ci_prob:.0%} HDI outside ±{args.rope:g}) and "
          f"expected HDI width per design, {args.studies} studies each from the {what}, "
          f"fitted at the {args.level} level; seed {seed}, {result.seconds:.0f} s; p_se, "
          "width_se = Monte Carlo se")
    print(embias.to_markdown(_shown(result.summary()), columns=SHOWN_COLUMNS))
    write_simulation_outputs(result, out=out, plot=plot, draw=lambda r: r.plot())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``design`` to the main parser."""
    p = sub.add_parser(
        "design", help="how many words a claim needs: P(credible difference) and interval "
                       "width per list size, by simulation",
        description="For each design size, draw new studies — from the posterior predictive "
                    "of a fitted pilot STUDY, or from --populations of real words — fit "
                    "each, and report per contrast the probability that its HDI lies "
                    "outside the ROPE (a credible difference) and the expected HDI width, "
                    "each with its Monte Carlo se.")
    p.add_argument("study", metavar="STUDY", nargs="?", default=None,
                   help=f"the pilot study: {STUDIES} or a folder of word lists (fitted at "
                        "the crossed level on --embedding)")
    p.add_argument("--populations", metavar="NAME", default=None,
                   help=f"draw studies of real words instead: {', '.join(BUILTIN_POPULATIONS)}"
                        " or a folder of population files")
    p.add_argument("--attribute-words", nargs="+", type=_size_type("--attribute-words"),
                   default=[4, 8, 16, 32], metavar="N",
                   help="attribute words per class, one design per value; 'pilot' = the "
                        "pilot study's own (default 4 8 16 32)")
    p.add_argument("--protected-words", nargs="+", type=_size_type("--protected-words"),
                   default=None, metavar="N",
                   help="protected words per class (default: the pilot's; 5 with "
                        "--populations); with several values every pair is a design")
    p.add_argument("--neutral-words", type=count_type("--neutral-words", 0), default=None,
                   metavar="N", help="neutral words per study (default: the pilot's; 100 "
                                     "with --populations)")
    p.add_argument("--human-words", type=count_type("--human-words", 0), default=None,
                   metavar="N", help="human words per study (default: the pilot's; 0 with "
                                     "--populations)")
    p.add_argument("--studies", type=count_type("--studies", 2), default=DEFAULT_STUDIES,
                   metavar="N", help="studies per design (default %(default)s)")
    p.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL,
                   help="level the simulated studies are fitted at (default %(default)s)")
    add_embedding(p)
    add_ci_prob(p)
    p.add_argument("--rope", type=checked(float, lambda name, value: check_number(
                       name, value, low=0.0, low_open=True), "rope"),
                   default=DEFAULT_ROPE, metavar="WIDTH",
                   help="half-width of the region of practical equivalence, > 0: a "
                        "'credible difference' is an HDI outside [-WIDTH, WIDTH] (default "
                        "%(default)s)")
    group = p.add_argument_group("sampler of the simulated studies' fits")
    group.add_argument("--draws", type=count_type("--draws", 1), default=BATCH_DRAWS,
                       metavar="N", help="posterior draws per chain (default %(default)s)")
    group.add_argument("--tune", type=count_type("--tune", 0), default=BATCH_TUNE,
                       metavar="N", help="tuning steps per chain (default %(default)s)")
    add_seed(group, default=None, what="seed of the pilot fit, the draws and the fits")
    p.add_argument("--out", metavar="CSV", default=None,
                   help="write the per-study rows (interval, decision, diagnostics) to this "
                        "CSV")
    p.add_argument("--plot", metavar="PNG", default=None,
                   help="draw P(credible difference) and the expected width against list "
                        "size to this image")
    p.set_defaults(func=cmd_design, python_options={
        "random_seed=": "--seed", "n_studies=": "--studies",
        "attribute_words=": "--attribute-words", "protected_words=": "--protected-words",
        "neutral_words=": "--neutral-words", "human_words=": "--human-words",
        "rope=": "--rope"})
