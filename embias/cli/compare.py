r"""``embias compare``: one study on several embeddings, and the paired change model.

Usage::

    embias compare religion --embedding biased=published:reddit \
        --embedding hard=published:reddit-debiased
    embias compare religion --embedding biased=glove-6b-50d \
        --embedding hard=models/religion_hard.kv --draws 1000 --seed 1
    embias compare religion --embedding biased=published:reddit \
        --embedding hard=published:reddit-debiased --scheduler tcp://host:8786

Prints the change table (change HPDIs per connection and contrast next to the classic
MAC/WEAT changes), every embedding's connection means and contrasts, the convergence
overview; writes the forest plot (PNG) and the whole interval table (CSV) to ``--out``.
"""

from __future__ import annotations

import argparse
import re

from ..settings import DEFAULT_MODELS_DIR
from ._options import (
    PUBLISHED_SOURCES,
    STUDIES,
    VECTOR_SOURCES,
    add_interval_options,
    add_sampler_options,
    check_sampler,
    draw_to_files,
    fit_settings,
    output_path,
    share_type,
    writable,
)
from .fit import describe

__all__ = ["cmd_compare", "register"]

#: Default folder of the forest plot and the interval table: the folder of saved fits.
DEFAULT_OUT = DEFAULT_MODELS_DIR
#: ``embias.bayes`` compare's default smallest shared share of word pairs.
DEFAULT_MIN_SHARED = 0.8


def _labelled_source(text: str) -> tuple[str, str]:
    label, sep, source = text.partition("=")
    if not sep or not label or not source:
        raise argparse.ArgumentTypeError(f"expected LABEL=SOURCE (e.g. "
                                         f"hard=published:reddit-debiased), got {text!r}")
    return label, source


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()


def cmd_compare(args: argparse.Namespace) -> int:
    """``embias compare``: fit, print the change and level tables, write PNG and CSV."""
    # every option is checked here, before anything is loaded or sampled
    settings = check_sampler(fit_settings(args))
    out = output_path("--out", args.out, folder=True)
    assert out is not None  # --out has a default
    labels = [label for label, _ in args.embeddings]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"--embedding labels must be distinct; repeated: {repeated}")
    draw_to_files()
    import matplotlib.pyplot as plt

    import embias
    from embias.report import CLI_CHANGE_COLUMNS, CLI_CHANGE_WORD_COLUMNS, CLI_LEVEL_COLUMNS

    embias.load_study(args.study)
    client = executor = None
    if args.scheduler:
        from dask.distributed import Client

        client = Client(args.scheduler)
        executor = client.get_executor()
    try:
        # convergence problems are warned about (stderr) once per fit
        result = embias.compare_embeddings(
            dict(args.embeddings), args.study, reference=args.reference, settings=settings,
            executor=executor, max_workers=args.workers, min_shared=args.min_shared,
            require_same_dimension=not args.different_dimensions,
            progress=not args.no_progress)
    finally:
        if client is not None:
            client.close()
    opts = {"ci_prob": args.ci_prob, "ci_kind": args.ci_kind, "rope": args.rope}
    table = result.to_interval_table(**opts)
    study = describe(result, "study") or args.study
    rows = describe(result, "rows")
    print(f"# {study}: {' vs '.join(result.labels)} — {describe(result, 'level')} model, "
          f"{describe(result, 'chains')} chains × {describe(result, 'draws')} draws per fit, "
          f"seed {describe(result, 'random_seed')}"
          + (f"; {rows} shared word pairs" if rows is not None else ""))
    if len(result.unmatched):
        print(f"left out: {len(result.unmatched)} word pairs not in every embedding")
    print()
    print(f"## change against {result.reference!r} (paired model) and the classic changes")
    changes = result.change_summary(**opts, words=args.words)
    main = changes[~changes["estimand"].str.startswith("change_word")]
    print(embias.to_markdown(main, columns=[c for c in CLI_CHANGE_COLUMNS
                                            if c in main.columns]))
    if args.words:
        words = changes[changes["estimand"].str.startswith("change_word")]
        print()
        print(embias.to_markdown(words, columns=[c for c in CLI_CHANGE_WORD_COLUMNS
                                                 if c in words.columns]))
    print()
    print("## every embedding")
    levels = table[table["estimand"].isin(["connection_mean", "contrast", "mac"])]
    print(embias.to_markdown(levels, columns=CLI_LEVEL_COLUMNS))
    print()
    print("## diagnostics")
    print(embias.to_markdown(result.diagnostics_overview()))
    writable(out, folder=True)
    stem = f"compare_{_slug(str(study))}_{'_'.join(_slug(label) for label in result.labels)}"
    png, csv = out / f"{stem}.png", out / f"{stem}.csv"
    figure = result.plot(**opts)
    figure.savefig(png, dpi=110)
    plt.close(figure)
    table.to_csv(csv, index=False)
    print()
    print(f"forest plot: {png}")
    print(f"interval table: {csv}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``compare`` to the main parser."""
    p = sub.add_parser(
        "compare",
        help="one study on several embeddings: side-by-side HPDIs and the change model",
        description="Fit the same Bayesian model to a study's table on every embedding and "
                    "a paired model of the change against the reference embedding; print "
                    "the change HPDIs next to the classic MAC/WEAT changes and write the "
                    "forest plot.")
    p.add_argument("study", metavar="STUDY", help=f"study: {STUDIES}")
    p.add_argument("--embedding", metavar="LABEL=SRC", action="append", required=True,
                   type=_labelled_source, dest="embeddings",
                   help=f"an embedding to compare (at least two): LABEL=SRC with SRC "
                        f"{VECTOR_SOURCES}, or {PUBLISHED_SOURCES}")
    p.add_argument("--reference", metavar="LABEL", default=None,
                   help="label changes are measured against (default: the first)")
    add_sampler_options(p, what="per fit")
    p.add_argument("--min-shared", type=share_type, default=DEFAULT_MIN_SHARED, metavar="S",
                   help="smallest share of every table's rows the embeddings must share "
                        "(default %(default)s)")
    p.add_argument("--different-dimensions", action="store_true",
                   help="compare embeddings of different dimensions on their shared word "
                        "pairs (default: refused; a comparison is meant for versions of one "
                        "embedding space, e.g. biased vs debiased)")
    p.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: one per CPU)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the fits on a Dask cluster, e.g. tcp://host:8786")
    add_interval_options(p)
    p.add_argument("--words", action="store_true", help="also print the word-level changes")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help="folder for the forest plot PNG and the table CSV "
                        "(default %(default)s/)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=cmd_compare,
                   python_options={"require_same_dimension=False": "--different-dimensions"})
