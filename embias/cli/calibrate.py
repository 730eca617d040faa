r"""``embias calibrate``: would other words from the same categories land in the intervals.

Studies drawn from real word populations, fitted, and the coverage of the populations'
answers (:func:`embias.calibrate_on_populations`)::

    embias calibrate sentiment --studies 200 --level crossed hierarchical --seed 1 \
        --out calibration.csv --png calibration.png
    embias calibrate path/to/my-populations --design protected=8,attributes=6,neutral=50
"""

from __future__ import annotations

import argparse

from ..populations import BUILTIN_POPULATIONS, DEFAULT_DESIGN, PopulationDesign
from ..settings import (
    DEFAULT_LEVEL,
    LEVELS,
    FitSettings,
)
from ._options import (
    add_ci_prob,
    add_draw_options,
    add_embedding,
    check_sampler,
    count_type,
    output_path,
    refuse_published,
    write_simulation_outputs,
)

__all__ = ["DEFAULT_STUDIES", "cmd_calibrate", "register"]

#: Studies drawn by default (Monte Carlo se of a coverage near 0.89: about 0.022).
DEFAULT_STUDIES = 200
#: Columns of the printed summary.
SHOWN_COLUMNS = ("level", "quantity", "truth", "bias", "coverage", "mc_se", "mean_width",
                 "n_studies", "failed_fits")


def _design(text: str) -> PopulationDesign:
    """Return the design of ``--design ROLE=N,…`` (argparse's usage error if bad)."""
    try:
        return PopulationDesign.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_design.__name__ = "design"


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Draw, fit, print the coverage table; write the per-study rows and the plot."""
    out = output_path("--out", args.out)
    png = output_path("--png", args.png)
    settings = check_sampler(FitSettings(draws=args.draws, tune=args.tune, chains=args.chains,
                                         cores=args.cores, sampler=args.sampler,
                                         target_accept=args.target_accept))
    embedding = refuse_published("calibrate", args.embedding)
    import embias
    from embias._validation import check_seed

    populations = embias.load_populations(args.populations)
    seed = check_seed(args.random_seed)
    print(f"drawing {args.studies} studies from {populations.name!r}, seed {seed}", flush=True)
    result = embias.calibrate_on_populations(
        populations, embedding, design=args.design, n_studies=args.studies,
        levels=args.level, settings=settings, ci_prob=args.ci_prob, random_seed=seed,
        progress=True)
    summary = result.summary()
    print(f"Coverage of the population answers by the {args.ci_prob:.0%} HDIs: "
          f"{populations.name}, {args.studies} studies of {result.design.as_text()} on "
          f"{embedding}, seed {seed}, {result.seconds:.0f} s; mc_se = binomial Monte Carlo "
          "se of the coverage")
    print(embias.to_markdown(summary, columns=SHOWN_COLUMNS))
    write_simulation_outputs(result, out=out, plot=png, draw=embias.plot_calibration)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``calibrate`` to the main parser."""
    p = sub.add_parser(
        "calibrate", help="coverage of the intervals on studies drawn from real word "
                          "populations",
        description="Draw studies from populations of real words (hundreds of words per "
                    "role), fit each, and report how often every connection mean's and "
                    "contrast's interval covers the answer of the whole populations (the "
                    "mean cosine distance over all their pairs), with its Monte Carlo se "
                    "and the mean interval width.")
    p.add_argument("populations", metavar="POPULATIONS",
                   help=f"a shipped population set ({', '.join(BUILTIN_POPULATIONS)}) or a "
                        "folder of population files (protected.<class>.txt, "
                        "attributes.<class>.txt, associations.txt, neutral.txt, human.txt)")
    p.add_argument("--design", type=_design, default=DEFAULT_DESIGN, metavar="ROLE=N,…",
                   help="words per study: protected (per class), attributes (per class), "
                        f"neutral, human (default {DEFAULT_DESIGN.as_text()})")
    p.add_argument("--studies", type=count_type("--studies", 1), default=DEFAULT_STUDIES,
                   metavar="N", help="studies drawn (default %(default)s)")
    p.add_argument("--level", nargs="+", choices=LEVELS, default=[DEFAULT_LEVEL],
                   help="model level(s) every study is fitted at (default %(default)s)")
    add_embedding(p, published=False)
    add_ci_prob(p)
    add_draw_options(p.add_argument_group("sampler"), seed=None,
                     seed_what="seed of the draws and the fits")
    p.add_argument("--out", metavar="CSV", default=None,
                   help="write the per-study rows (interval, truth, covered, diagnostics) "
                        "to this CSV")
    p.add_argument("--png", metavar="PNG", default=None,
                   help="draw the coverage per quantity to this image")
    p.set_defaults(func=cmd_calibrate)
