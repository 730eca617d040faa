"""``embias debias``: hard or soft debiasing, saved in gensim native format."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._options import add_embedding, output_path, refuse_published, writable

__all__ = ["cmd_debias", "register"]


def cmd_debias(args: argparse.Namespace) -> int:
    """Run ``embias debias``: debias the embeddings and save them."""
    import embias

    refuse_published("debias", args.embedding)
    out = Path(args.out or f"models/{args.study}_{args.method}.kv")
    if out.suffix != ".kv":
        raise ValueError(f"--out {str(out)!r}: debiased embeddings are saved in gensim native "
                         "format; use a .kv file name")
    output_path("--out", out)
    embias.load_study(args.study)  # an unknown study fails before the embeddings load
    source = embias.load_embeddings(args.embedding)
    if args.method == "hard":
        result = embias.hard_debias(source, args.study, k=args.k)
    else:
        result = embias.soft_debias(source, args.study, k=args.k, lam=args.lam)
    result.embeddings.save(str(writable(out)))
    print(f"{args.method} debiasing of {args.embedding} for study {args.study}: k={result.k} "
          f"(explained variance {', '.join(f'{v:.3f}' for v in result.explained_variance_ratio)}"
          f"), {len(result.definitional_sets)} definitional sets, "
          f"{result.n_neutralized:,} words neutralized, {len(result.equalized)} equalized")
    if result.missing_definitional:
        print(f"definitional words missing from the vocabulary: "
              f"{list(result.missing_definitional)}")
    if result.optimizer:
        print("optimizer: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in result.optimizer.items()))
    before = embias.mac(source, args.study).value
    after = embias.mac(result.embeddings, args.study).value
    print(f"MAC (mean cosine distance): {before:.4f} → {after:.4f}")
    print(f"saved to {out} (load with embias.load_embeddings({str(out)!r}))")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``debias`` to the main parser."""
    p = sub.add_parser("debias", help="hard or soft debiasing of embeddings",
                       description="Debias embeddings with a study's definitional sets and "
                                   "save them in gensim native format (.kv).")
    p.add_argument("study", help="religion, race or gender (a study with definitional sets)")
    p.add_argument("--method", choices=["hard", "soft"], default="hard")
    add_embedding(p, published=False)
    p.add_argument("--out", help="output .kv file (default models/STUDY_METHOD.kv)")
    p.add_argument("--k", type=int, default=1, help="bias subspace dimension (default 1)")
    p.add_argument("--lam", type=float, default=0.2, help="soft debiasing weight λ (0.2)")
    p.set_defaults(func=cmd_debias)
