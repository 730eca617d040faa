"""The ``embias`` command line.

Errors are one clear line on stderr and a non-zero exit code (1 for bad input or data,
2 for bad usage).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .classic import mac, weat_pairs, weat_test
from .embeddings import BUILTIN_EMBEDDINGS, MissingWordsError, load_embeddings
from .report import to_markdown
from .tables import study_table, summarize_table
from .wordlists import BUILTIN_STUDIES

#: Effect sizes Caliskan et al. (2017) report for GloVe 840B, tests 1–10.
CALISKAN_840B = (1.50, 1.53, 1.41, 1.50, 1.28, 1.81, 1.06, 1.24, 1.38, 1.21)

#: Modules that add their own sub-commands through ``add_commands(subparsers)``.
PLUGIN_MODULES = ("embias.bayes_cli", "embias.simulate_cli", "embias.compare_cli",
                  "embias.classifier.cli")

EMBEDDING_HELP = (f"embeddings: {', '.join(BUILTIN_EMBEDDINGS)} (default), a file path "
                  "(word2vec .bin/.txt, GloVe .txt, gensim .kv), gensim:NAME, or "
                  "published:reddit|google|glove|reddit-debiased for the authors' tables")


def _embedding_source(value: str):
    """Load embeddings once (published tables pass through as the string)."""
    if value.startswith("published:"):
        return value
    return load_embeddings(value)


def _print_missing(table: pd.DataFrame) -> None:
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
    table = study_table(args.study, _embedding_source(args.embedding))
    if args.out:
        out = Path(args.out)
        if out.suffix == ".parquet":
            table.to_parquet(out, index=False)
        elif out.suffix == ".csv":
            table.to_csv(out, index=False)
        else:
            raise ValueError(f"--out {str(out)!r}: use a .csv or .parquet file name")
        print(f"wrote {len(table)} rows to {out}")
    print(f"cosine table: study {args.study}, embedding {args.embedding}, {len(table)} rows")
    print(to_markdown(summarize_table(table)))
    _print_missing(table)
    return 0


def weat_overview(embeddings, *, permutations, alternative: str, seed: int) -> pd.DataFrame:
    """WEAT effect size, p-value, missing words and MAC for Caliskan's ten tests."""
    rows = []
    for i in range(1, 11):
        test = f"weat{i}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # missing words are reported below
            r = weat_test(test, embeddings, permutations=permutations,
                          alternative=alternative, random_state=seed)
            m = mac(embeddings, test)
        missing = {k: len(v["missing"]) for k, v in r.missing.items() if v["missing"]}
        rows.append({
            "test": test,
            "effect_size": r.effect_size,
            "p_value": r.p_value,
            "p_method": "exact" if r.exact else f"MC {r.n_permutations:,}",
            "mac": m.value,
            "caliskan_840B": CALISKAN_840B[i - 1],
            "missing": ", ".join(f"{k}:{v}" for k, v in missing.items()) or "none",
        })
    return pd.DataFrame(rows)


def cmd_weat(args: argparse.Namespace) -> int:
    embeddings = _embedding_source(args.embedding)
    permutations = args.permutations if args.permutations in ("auto", "exact") else int(
        args.permutations)
    if args.test == "all":
        table = weat_overview(embeddings, permutations=permutations,
                              alternative=args.alternative, seed=args.seed)
        print(f"WEAT ({args.alternative} permutation p-values, sd with ddof=1) on "
              f"{args.embedding}; missing = words not in the embeddings per list")
        print(to_markdown(table))
        return 0
    result = weat_test(args.test, embeddings, permutations=permutations,
                       alternative=args.alternative, random_state=args.seed)
    print(to_markdown(result.to_interval_table()))
    print(to_markdown(result.s_values))
    return 0


def cmd_mac(args: argparse.Namespace) -> int:
    result = mac(study_table(args.study, _embedding_source(args.embedding)))
    print(f"MAC (mean cosine distance, Manzini et al. 2019): {result.value:.4f}")
    print(to_markdown(result.to_interval_table()))
    print(to_markdown(result.by_class))
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    """Cosine-table summary, MAC and pairwise WEAT of a study."""
    source = _embedding_source(args.embedding)
    table = study_table(args.study, source)
    print(f"== cosine table: study {args.study}, embedding {args.embedding}, {len(table)} rows")
    print(to_markdown(summarize_table(table)))
    _print_missing(table)
    result = mac(table)
    print(f"\n== MAC (mean cosine distance): {result.value:.4f}")
    print(to_markdown(result.to_interval_table()))
    if not args.embedding.startswith("published:"):
        print("\n== WEAT for each pair of protected classes (exact permutation test)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            print(to_markdown(weat_pairs(source, args.study, random_state=args.seed)))
    return 0


def cmd_debias(args: argparse.Namespace) -> int:
    from .debias import hard_debias, soft_debias

    source = load_embeddings(args.embedding)
    if args.method == "hard":
        result = hard_debias(source, args.study, k=args.k)
    else:
        result = soft_debias(source, args.study, k=args.k, lam=args.lam)
    out = Path(args.out or f"models/{args.study}_{args.method}.kv")
    if out.suffix != ".kv":
        raise ValueError(f"--out {str(out)!r}: debiased embeddings are saved in gensim native "
                         "format; use a .kv file name")
    out.parent.mkdir(parents=True, exist_ok=True)
    result.embeddings.save(str(out))
    print(f"{args.method} debiasing of {args.embedding} for study {args.study}: k={result.k} "
          f"(explained variance {', '.join(f'{v:.3f}' for v in result.explained_variance_ratio)}"
          f"), {len(result.definitional_sets)} definitional sets, "
          f"{result.n_neutralized:,} words neutralized, {len(result.equalized)} equalized")
    if result.missing_definitional:
        missing = list(result.missing_definitional)
        print(f"definitional words missing from the vocabulary: {missing}")
    if result.optimizer:
        print("optimizer: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in result.optimizer.items()))
    before, after = mac(source, args.study).value, mac(result.embeddings, args.study).value
    print(f"MAC (mean cosine distance): {before:.4f} → {after:.4f}")
    print(f"saved to {out} (load with embias.load_embeddings({str(out)!r}))")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="embias",
        description="Bias in word embeddings and classifiers, with honest uncertainty.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    studies = ", ".join(BUILTIN_STUDIES)

    p = sub.add_parser("table", help="build a study's long-form cosine table",
                       description="Build the long-form cosine table of a study.")
    p.add_argument("study", help=f"study: {studies}, or a folder of word lists")
    p.add_argument("--embedding", default="glove-6b-50d", help=EMBEDDING_HELP)
    p.add_argument("--out", help="write the table to FILE.csv or FILE.parquet")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("weat", help="WEAT effect size and permutation p-value",
                       description="Caliskan et al.'s WEAT with exact or seeded Monte Carlo "
                                   "permutation p-values.")
    p.add_argument("test", help="weat1 … weat10, 'all', or a two-class study folder")
    p.add_argument("--embedding", default="glove-6b-50d", help=EMBEDDING_HELP)
    p.add_argument("--permutations", default="auto",
                   help="'auto' (exact up to 1e6 partitions, else 100,000 Monte Carlo), "
                        "'exact', or a number of Monte Carlo permutations")
    p.add_argument("--alternative", default="two-sided",
                   choices=["two-sided", "greater", "less"])
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed (default 0)")
    p.set_defaults(func=cmd_weat)

    p = sub.add_parser("mac", help="Manzini et al.'s MAC of a study",
                       description="Mean average cosine distance (MAC) of a study.")
    p.add_argument("study", help=f"study: {studies}")
    p.add_argument("--embedding", default="glove-6b-50d", help=EMBEDDING_HELP)
    p.set_defaults(func=cmd_mac)

    p = sub.add_parser("summary", help="cosine-table summary, MAC and WEAT of a study",
                       description="The classic view of a study: table summary, MAC and "
                                   "pairwise WEAT.")
    p.add_argument("study", help=f"study: {studies}")
    p.add_argument("--embedding", default="glove-6b-50d", help=EMBEDDING_HELP)
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed (default 0)")
    p.set_defaults(func=cmd_summary)

    p = sub.add_parser("debias", help="hard or soft debiasing of embeddings",
                       description="Debias embeddings with a study's definitional sets and "
                                   "save them in gensim native format (.kv).")
    p.add_argument("study", help="religion, race or gender (a study with definitional sets)")
    p.add_argument("--method", choices=["hard", "soft"], default="hard")
    p.add_argument("--embedding", default="glove-6b-50d", help=EMBEDDING_HELP)
    p.add_argument("--out", help="output .kv file (default models/STUDY_METHOD.kv)")
    p.add_argument("--k", type=int, default=1, help="bias subspace dimension (default 1)")
    p.add_argument("--lam", type=float, default=0.2, help="soft debiasing weight λ (0.2)")
    p.set_defaults(func=cmd_debias)

    for name in PLUGIN_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise
            continue
        module.add_commands(sub)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings on the command line: the message only, no source line."""
    print(f"embias: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        return int(args.func(args) or 0)
    except MissingWordsError as exc:
        print(f"embias: error: {exc}".replace("\n", "; "), file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError, ConnectionError) as exc:
        print(f"embias: error: {str(exc).strip()}".replace("\n", " "), file=sys.stderr)
        return 1
    finally:
        warnings.showwarning = previous


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
