"""Which kind each word is (name, adjective, verb, noun …): the word kinds of the templates.

May et al. give each *kind* of word its own template set. Which kind a word is, is data
too: ``word_kinds.tsv`` lists every word of the shipped studies (:func:`load_word_kinds`).
A word is looked up there as written, then in lower case; a capitalised word found in
neither is a name (May et al.'s rule); any other word is of unknown kind and takes
:data:`~embias.sentences.templates.FALLBACK_TEMPLATES` with a warning naming it.
``word_kinds=`` adds or overrides kinds (:func:`resolve_word_kinds`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._validation import check_choice
from ._common import read_tsv

#: The kinds of words, each with its template sets (``other``: the fallback templates).
KINDS: tuple[str, ...] = (
    "name", "adjective", "mass_noun", "verb", "person_noun", "thing_noun",
    "subject_pronoun", "object_pronoun", "possessive_pronoun", "other",
)
_NOUNS = ("person_noun", "thing_noun")


@functools.cache
def _word_kind_table() -> pd.DataFrame:
    table = read_tsv("word_kinds.tsv")
    unknown = sorted(set(table["kind"]) - set(KINDS))
    if unknown:  # pragma: no cover - a broken installation
        raise ValueError(f"word_kinds.tsv names unknown kinds {unknown}")
    return table


@functools.cache
def _word_kind_lookup() -> tuple[dict[str, tuple[str, str, str, str]], dict[str, str]]:
    """Return word → (kind, singular, plural, article), and lower-cased word → word."""
    table = _word_kind_table()
    rows = {w: (k, s, p, a) for w, k, s, p, a in table[
        ["word", "kind", "singular", "plural", "article"]].itertuples(index=False)}
    lower: dict[str, str] = {}
    for w in table["word"]:
        lower.setdefault(w.lower(), w)  # the first spelling wins
    return rows, lower


def load_word_kinds() -> pd.DataFrame:
    """Return the shipped word-kind table: one row per word of the shipped studies.

    Returns
    -------
    pandas.DataFrame
        Columns ``word``, ``kind`` (one of :data:`KINDS`), ``singular``, ``plural`` and
        ``article`` (nouns), ``may2019_kind`` (the kind May et al.'s script gives the
        word); the file's header explains how the kinds were assigned.

    Examples
    --------
    >>> kinds = load_word_kinds().set_index("word")
    >>> kinds.loc["rose", ["kind", "plural", "article"]].tolist()
    ['thing_noun', 'roses', 'a']
    """
    return _word_kind_table().copy()


@dataclass(frozen=True)
class WordKind:
    """How a word goes into templates.

    Attributes
    ----------
    word
        The word as listed.
    kind
        One of :data:`KINDS`.
    singular, plural
        The forms the singular and plural noun templates take (nouns only, else ``""``).
    article
        ``"a"`` or ``"an"`` before the singular (or the word).
    source
        Where the kind came from: ``"given"`` (``word_kinds=``), ``"table"`` (the shipped
        table), ``"table (lower case)"``, ``"capitalised"`` (May et al.'s name rule) or
        ``"unknown"`` (:data:`FALLBACK_TEMPLATES`).
    """

    word: str
    kind: str
    singular: str = ""
    plural: str = ""
    article: str = ""
    source: str = "given"


def _article(word: str) -> str:
    """May et al.'s rule: 'an' before a vowel letter, else 'a'."""
    return "an" if word[:1].lower() in "aeiou" and word[:1] else "a"


def _given_kind(word: str, value: Any) -> WordKind:
    where = f"word_kinds[{word!r}]"
    if isinstance(value, str):
        spec: dict[str, Any] = {"kind": value}
    elif isinstance(value, Mapping):
        spec = dict(value)
        extra = sorted(set(spec) - {"kind", "singular", "plural", "article"})
        if extra or "kind" not in spec:
            raise ValueError(f"{where} must be a kind or a mapping with 'kind' and optionally "
                             f"'singular', 'plural', 'article'; got {value!r}")
    else:
        raise ValueError(f"{where} must be a kind (one of {list(KINDS)}) or a mapping with "
                         f"'kind', 'singular', 'plural', 'article'; got {value!r}")
    kind = check_choice(where, spec["kind"], KINDS)
    singular = plural = ""
    if kind in _NOUNS:
        singular = str(spec.get("singular") or word)
        given_plural = spec.get("plural")
        if not isinstance(given_plural, str) or not given_plural:
            raise ValueError(f"{where}: a {kind} needs its plural (the plural templates take "
                             f"it), e.g. {{'kind': {kind!r}, 'plural': ...}}; got {value!r}")
        plural = given_plural
    article = spec.get("article") or _article(singular or word)
    if article not in ("a", "an"):
        raise ValueError(f"{where}: article must be 'a' or 'an', got {article!r}")
    return WordKind(word, kind, singular, plural, article, "given")


def resolve_word_kinds(
    words: Sequence[str],
    word_kinds: Mapping[str, Any] | None = None,
) -> dict[str, WordKind]:
    """Resolve the kind of each word.

    ``word_kinds`` first, then the shipped table (as written, then in lower case), then
    May et al.'s rule (capitalised → name), else unknown.

    Parameters
    ----------
    words
        The words.
    word_kinds
        Word → kind (one of :data:`KINDS`), or word → mapping with ``kind`` and, for
        nouns, ``plural`` (required) and optionally ``singular`` and ``article``.

    Returns
    -------
    dict of str to WordKind
        Words of unknown kind have kind ``"other"`` and source ``"unknown"``.

    Raises
    ------
    ValueError
        ``word_kinds`` that is not a mapping, an unknown kind, a noun without its plural,
        or an article other than ``"a"`` or ``"an"``.

    Examples
    --------
    >>> kinds = resolve_word_kinds(["rose", "Amy", "qwzx"], {"qwzx": "adjective"})
    >>> {word: (info.kind, info.source) for word, info in kinds.items()}
    {'rose': ('thing_noun', 'table'), 'Amy': ('name', 'table'), 'qwzx': ('adjective', 'given')}
    """
    if word_kinds is not None and not isinstance(word_kinds, Mapping):
        raise ValueError(f"word_kinds must be a mapping word → kind, got {word_kinds!r}")
    given = {w: _given_kind(w, v) for w, v in (word_kinds or {}).items()}
    table, lower = _word_kind_lookup()
    out: dict[str, WordKind] = {}
    for word in words:
        if word in given:
            out[word] = given[word]
            continue
        key, source = word, "table"
        if key not in table and word.lower() in lower:
            key, source = lower[word.lower()], "table (lower case)"
        if key in table:
            kind, singular, plural, article = table[key]
            if source != "table" and kind in _NOUNS:
                # keep the user's spelling where it is the listed form
                singular = word if singular.lower() == word.lower() else singular
                plural = word if plural.lower() == word.lower() else plural
            out[word] = WordKind(word, kind, singular, plural, article or _article(word),
                                 source)
        elif word[:1].isupper() and word != word.upper() and not word.endswith("American"):
            out[word] = WordKind(word, "name", article=_article(word), source="capitalised")
        else:
            out[word] = WordKind(word, "other", article=_article(word), source="unknown")
    return out
