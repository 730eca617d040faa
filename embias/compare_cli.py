"""``embias compare``: one study on several embeddings, and the paired change model.

Examples
--------
::

    embias compare religion --embedding biased=published:reddit \\
        --embedding hard=published:reddit-debiased
    embias compare religion --embedding biased=glove-6b-50d \\
        --embedding hard=models/religion_hard.kv --draws 1000 --seed 1
    embias compare religion --embedding biased=published:reddit \\
        --embedding hard=published:reddit-debiased --scheduler tcp://host:8786

Prints the change table (change HPDIs per connection and contrast next to the classic
MAC/WEAT changes), every embedding's connection means and contrasts, the convergence
overview; writes the forest plot (PNG) and the whole interval table (CSV) to ``--out``.
Errors are one line on stderr with exit code 1 (through :func:`embias.cli.main`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .bayes import (
    DEFAULT_CHAINS,
    DEFAULT_DRAWS,
    DEFAULT_TUNE,
    LEVELS,
)
from .bayes_cli import _add_interval_arguments, _probability
from .compare import DEFAULT_MIN_SHARED, compare_embeddings
from .report import to_markdown
from .wordlists import BUILTIN_STUDIES

__all__ = ["add_commands", "compare_command"]

#: Default folder of the forest plot and the interval table.
DEFAULT_OUT = "models"
_CHANGE_COLUMNS = ["estimand", "group", "embedding", "reference", "estimate", "lower",
                   "upper", "ci_prob", "ci_kind", "prob_gt_0", "rope_decision", "p_value"]
_LEVEL_COLUMNS = ["estimand", "group", "embedding", "estimate", "lower", "upper", "ci_prob",
                  "ci_kind", "prob_gt_0", "rope_decision"]
_WORD_COLUMNS = ["estimand", "protected_word", "group", "embedding", "estimate", "lower",
                 "upper", "prob_gt_0", "rope_decision"]


def _labelled_source(text: str) -> tuple[str, str]:
    label, sep, source = text.partition("=")
    if not sep or not label or not source:
        raise argparse.ArgumentTypeError(f"expected LABEL=SOURCE (e.g. "
                                         f"hard=published:reddit-debiased), got {text!r}")
    return label, source


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register ``embias compare`` on the main parser's subparsers."""
    p = subparsers.add_parser(
        "compare",
        help="one study on several embeddings: side-by-side HPDIs and the change model",
        description="Fit the same Bayesian model to a study's table on every embedding and "
                    "a paired model of the change against the reference embedding; print "
                    "the change HPDIs next to the classic MAC/WEAT changes and write the "
                    "forest plot.",
    )
    p.add_argument("study", metavar="STUDY", help=f"study name, one of {list(BUILTIN_STUDIES)}")
    p.add_argument("--embedding", metavar="LABEL=SRC", action="append", required=True,
                   type=_labelled_source, dest="embeddings",
                   help="an embedding to compare (at least two): LABEL=SOURCE with SOURCE "
                        "glove-6b-50d, a file path (.kv/.bin/.txt), gensim:NAME or "
                        "published:reddit|google|glove|reddit-debiased")
    p.add_argument("--reference", metavar="LABEL", default=None,
                   help="label changes are measured against (default: the first)")
    p.add_argument("--level", choices=LEVELS, default="hierarchical",
                   help="model level (default %(default)s)")
    p.add_argument("--draws", type=int, default=DEFAULT_DRAWS,
                   help="posterior draws per chain (default %(default)s)")
    p.add_argument("--tune", type=int, default=DEFAULT_TUNE,
                   help="tuning steps per chain (default %(default)s)")
    p.add_argument("--chains", type=int, default=DEFAULT_CHAINS,
                   help="chains per fit (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the comparison (default 0)")
    p.add_argument("--min-shared", type=_probability, default=DEFAULT_MIN_SHARED,
                   help="smallest share of every table's rows the embeddings must share "
                        "(default %(default)s)")
    p.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: one per CPU)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the fits on a Dask cluster, e.g. tcp://host:8786")
    _add_interval_arguments(p)
    p.add_argument("--words", action="store_true",
                   help="also print the word-level changes")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help="folder for the forest plot PNG and the table CSV "
                        "(default %(default)s/)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=compare_command)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()


def compare_command(args: argparse.Namespace) -> int:
    """Handler of ``embias compare``; returns the exit code (bad input raises ValueError,
    reported by :func:`embias.cli.main` as one line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [label for label, _ in args.embeddings]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"--embedding labels must be distinct; repeated: {repeated}")
    client = None
    executor = None
    if args.scheduler:
        from dask.distributed import Client

        client = Client(args.scheduler)
        executor = client.get_executor()
    try:
        # convergence problems are warned about (stderr) once per fit
        result = compare_embeddings(
            dict(args.embeddings), args.study, reference=args.reference, level=args.level,
            draws=args.draws, tune=args.tune, chains=args.chains, random_seed=args.seed,
            executor=executor, max_workers=args.workers, min_shared=args.min_shared,
            progress=not args.no_progress)
    finally:
        if client is not None:
            client.close()
    opts = {"ci_prob": args.ci_prob, "ci_kind": args.ci_kind, "rope": args.rope}
    table = result.summary(**opts)
    s = result.settings
    print(f"# {s['study']}: {' vs '.join(result.labels)} — {s['level']} model, "
          f"{s['chains']} chains × {s['draws']} draws per fit, seed {s['random_seed']}; "
          f"{s['rows']} shared word pairs")
    if len(result.unmatched):
        print(f"left out: {len(result.unmatched)} word pairs not in every embedding")
    print()
    print(f"## change against {result.reference!r} (paired model) and the classic changes")
    changes = result.change_summary(**opts, words=args.words)
    main = changes[~changes["estimand"].str.startswith("change_word")]
    print(to_markdown(main, columns=[c for c in _CHANGE_COLUMNS if c in main.columns]))
    if args.words:
        words = changes[changes["estimand"].str.startswith("change_word")]
        print()
        print(to_markdown(words, columns=[c for c in _WORD_COLUMNS if c in words.columns]))
    print()
    print("## every embedding")
    levels = table[table["estimand"].isin(["connection_mean", "contrast", "mac"])]
    print(to_markdown(levels, columns=_LEVEL_COLUMNS))
    print()
    print("## diagnostics")
    print(to_markdown(result.diagnostics_overview()))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"compare_{_slug(s['study'])}_{'_'.join(_slug(label) for label in result.labels)}"
    png, csv = out / f"{stem}.png", out / f"{stem}.csv"
    figure = result.plot(**opts)
    figure.savefig(png, dpi=110)
    plt.close(figure)
    table.to_csv(csv, index=False)
    print()
    print(f"forest plot: {png}")
    print(f"interval table: {csv}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from .cli import main

    sys.exit(main(["compare", *sys.argv[1:]]))
