"""Words in sentences: the long-form table of a sentence encoder, and SEAT.

May et al. (2019) measure bias in sentence encoders by putting the words of a WEAT test
into *templates* — short frames such as ``"This is {term}."`` — and running WEAT on the
sentences' vectors (SEAT). This module does the same with embias's studies and tables.

Templates and word kinds (data)
-------------------------------
A template is a string with a ``{term}`` slot and optionally ``{article}`` (the word's
indefinite article, a/an); the first letter of every filled sentence is capitalised.
May et al. give each *kind* of word its own template set (names, adjectives, mass nouns,
verbs, singular and plural nouns, pronouns: ``embias/data/templates/may2019.tsv``, with
their provenance). Which kind a word is, is data too: ``word_kinds.tsv`` lists every word
of the shipped studies (:func:`load_word_kinds`). A word is looked up there as written,
then in lower case; a capitalised word found in neither is a name (May et al.'s rule); any
other word is of unknown kind and takes :data:`FALLBACK_TEMPLATES` — ``"This is {term}."``
and ``"That is {term}."``, the two templates May et al. use for the most kinds — with a
warning naming it. ``word_kinds=`` adds or overrides kinds; ``templates=`` takes the
user's own templates (one list for every word, or one list per kind).

How a row of the table is formed
--------------------------------
The table has the columns of the cosine tables (:data:`embias.tables.TABLE_COLUMNS`), so
:func:`embias.tables.validate_table`, the classic scores and the Bayesian fits read it as
they read a cosine table, plus ``template`` and ``sentence``. With ``pairing="mean"`` (the
default) there is **one row per (protected word, template, compared word)**: the protected
word is put in the template (``sentence``), the compared word in each of *its* templates,
and the row's cosine similarity is the mean of the cosines between the protected sentence
and the compared word's sentences (``n_compared_sentences`` of them). So every row
belongs to one protected-side template and one compared word — the crossing a model with
a random effect per compared word and one per template needs — and the mean over a
compared word's templates is the quantity SEAT averages (SEAT's s(x, A, B) weights the
words of A by their number of templates; the table weights them equally). The two sides
cannot share one template in general: May et al.'s sets differ by kind ("This will
{term}." takes verbs only), so a flower and the verb *kill* have no template in common.
With ``pairing="all"`` there is one row per *pair of sentences* (``compared_template`` and
``compared_sentence`` added): the full cross SEAT compares, a table as long as the number
of protected sentences times the number of compared sentences. Each distinct sentence is
encoded once (:class:`embias.encoders.SentenceEncoder` remembers them across calls).

SEAT
----
:func:`seat_test` runs embias's WEAT (:func:`embias.classic.weat`: effect size with the
sample sd, exact or seeded Monte Carlo permutation p-value, item bootstrap) on the
sentences of a two-class study — every sentence is one item, as in May et al. Sentences
of one word share the word, so they are not independent: the permutation p-value and
the bootstrap interval treat them as if they were and are optimistic; the crossed model
on :func:`sentence_table` is the honest way to let words and templates vary.
"""

from __future__ import annotations

import functools
import string
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from ._validation import check_choice, check_word_list
from .settings import DEFAULT_CI_PROB
from .tables import compared_word_lists, validate_table
from .wordlists import BUILTIN_STUDIES, Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from .classic import WeatResult

__all__ = [
    "FALLBACK_TEMPLATES",
    "KINDS",
    "PAIRINGS",
    "TEMPLATE_PLACEHOLDERS",
    "WordKind",
    "load_templates",
    "load_word_kinds",
    "resolve_word_kinds",
    "seat_overview",
    "seat_test",
    "sentence_table",
    "template_spec",
    "word_sentences",
]

#: The kinds of words, each with its template sets (``other``: the fallback templates).
KINDS: tuple[str, ...] = (
    "name", "adjective", "mass_noun", "verb", "person_noun", "thing_noun",
    "subject_pronoun", "object_pronoun", "possessive_pronoun", "other",
)
#: Templates of a word of unknown kind (and of kind ``other``): the two templates May et
#: al. use for the most kinds (names, adjectives, mass nouns, object and possessive
#: pronouns).
FALLBACK_TEMPLATES: tuple[str, ...] = ("This is {term}.", "That is {term}.")
#: The slots a template may have (``term`` is required).
TEMPLATE_PLACEHOLDERS: tuple[str, ...] = ("term", "article")
#: How rows pair sentences (see the module docstring).
PAIRINGS: tuple[str, ...] = ("mean", "all")
#: Which of May et al.'s template sets each kind takes, and which form of the word fills
#: them (``word``: as listed; nouns: their singular or plural form).
KIND_TEMPLATE_SETS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "name": (("name", "word"),),
    "adjective": (("adjective", "word"),),
    "mass_noun": (("mass_noun", "word"),),
    "verb": (("verb", "word"),),
    "subject_pronoun": (("subject_pronoun", "word"),),
    "object_pronoun": (("object_pronoun", "word"),),
    "possessive_pronoun": (("possessive_pronoun", "word"),),
    "person_noun": (("singular_noun", "singular"), ("singular_person", "singular"),
                    ("plural_noun", "plural"), ("plural_person", "plural")),
    "thing_noun": (("singular_noun", "singular"), ("singular_thing", "singular"),
                   ("plural_noun", "plural"), ("plural_thing", "plural")),
}
_NOUNS = ("person_noun", "thing_noun")
_SHIPPED = "may2019"


# =========================================================================== data
def _data_file(name: str) -> Path:
    return Path(str(resources.files("embias") / "data" / "templates" / name))


def _read_tsv(name: str) -> pd.DataFrame:
    return pd.read_csv(_data_file(name), sep="\t", comment="#", dtype=str,
                       keep_default_na=False)


@functools.cache
def load_templates() -> Mapping[str, tuple[str, ...]]:
    """Return May et al.'s template sets, as shipped in ``embias/data/templates/may2019.tsv``.

    Returns
    -------
    Mapping of str to tuple of str
        Set name (``name``, ``verb``, ``plural_noun`` …) → its templates.

    Examples
    --------
    >>> load_templates()["name"][:2]
    ('This is {term}.', 'That is {term}.')
    """
    table = _read_tsv("may2019.tsv")
    return {name: tuple(group["template"]) for name, group in
            table.groupby("set", sort=False)}


@functools.cache
def _word_kind_table() -> pd.DataFrame:
    table = _read_tsv("word_kinds.tsv")
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


# =========================================================================== templates
def _check_template(template: Any, where: str) -> str:
    if not isinstance(template, str):
        raise ValueError(f"{where} must be a string with a {{term}} slot, got {template!r}")
    try:
        slots = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template)
                 if f is not None]
    except ValueError as exc:
        raise ValueError(f"{where} {template!r} is not a valid template ({exc}); write "
                         "literal braces as {{ and }}") from None
    fields = [f for f, _, _ in slots]
    specs = [(spec, conv) for _, spec, conv in slots if spec or conv]
    unknown = sorted({f for f in fields if f not in TEMPLATE_PLACEHOLDERS})
    if unknown:
        shown = ", ".join("{" + f + "}" for f in unknown)
        raise ValueError(f"{where} {template!r} has the slot(s) {shown}; a template may have "
                         "only {term} (required) and {article}")
    if specs:
        raise ValueError(f"{where} {template!r}: slots take no format spec or conversion")
    if "term" not in fields:
        raise ValueError(f"{where} {template!r} has no {{term}} slot: the word would not be "
                         "in the sentence; write e.g. 'This is {term}.'")
    return template


def _check_template_list(templates: Any, where: str) -> tuple[str, ...]:
    if isinstance(templates, str) or not isinstance(templates, Sequence):
        raise ValueError(f"{where} must be a list of templates, got {templates!r}")
    if len(templates) == 0:
        raise ValueError(f"{where} is an empty list of templates; give at least one, e.g. "
                         "['This is {term}.']")
    checked = tuple(_check_template(t, f"{where}[{i}]") for i, t in enumerate(templates))
    dups = sorted({t for t in checked if checked.count(t) > 1})
    if dups:
        raise ValueError(f"{where} repeats the template(s) {dups}; each template once")
    return checked


def template_spec(templates: Any) -> str | tuple[str, ...] | dict[str, tuple[str, ...]]:
    """Check the ``templates`` argument: ``"may2019"``, a list, or kind → list.

    Parameters
    ----------
    templates
        ``"may2019"`` (May et al.'s sets), a list of templates for every word, or a
        mapping kind → list of templates.

    Returns
    -------
    str or tuple of str or dict of str to tuple of str
        ``"may2019"``, the checked list, or kind → checked list.

    Raises
    ------
    ValueError
        Another string (a lone template is named, with how to wrap it in a list), an
        empty list or mapping, an unknown kind, a template repeated, without ``{term}``
        or with another slot.

    Examples
    --------
    >>> template_spec(["This is {term}.", "Here is {article} {term}."])
    ('This is {term}.', 'Here is {article} {term}.')
    >>> template_spec("This is {term}.")
    Traceback (most recent call last):
    ...
    ValueError: templates='This is {term}.' is not 'may2019', a list of templates or a mapping
    kind → templates (one template? wrap it in a list: ['This is {term}.'])
    """
    if isinstance(templates, str):
        if templates == _SHIPPED:
            return _SHIPPED
        hint = (" (one template? wrap it in a list: [" + repr(templates) + "])"
                if "{" in templates else "")
        raise ValueError(f"templates={templates!r} is not {_SHIPPED!r}, a list of templates "
                         f"or a mapping kind → templates{hint}")
    if isinstance(templates, Mapping):
        if not templates:
            raise ValueError("templates is an empty mapping; give kind → list of templates")
        for kind in templates:
            check_choice("a key of templates", kind, KINDS)
        return {kind: _check_template_list(ts, f"templates[{kind!r}]")
                for kind, ts in templates.items()}
    return _check_template_list(templates, "templates")


def _fill(template: str, term: str, article: str) -> str:
    sentence = template.format(term=term, article=article)
    return sentence[:1].upper() + sentence[1:]


def _word_templates(info: WordKind, spec: Any) -> list[tuple[str, str]]:
    """Return the (template, sentence) pairs of one word."""
    if spec == _SHIPPED:
        if info.kind == "other":
            return [(t, _fill(t, info.word, info.article)) for t in FALLBACK_TEMPLATES]
        sets = load_templates()
        pairs = []
        for set_name, form in KIND_TEMPLATE_SETS[info.kind]:
            term = {"word": info.word, "singular": info.singular, "plural": info.plural}[form]
            pairs += [(t, _fill(t, term, info.article)) for t in sets[set_name]]
        return pairs
    chosen = spec if isinstance(spec, tuple) else spec[info.kind]
    return [(t, _fill(t, info.word, info.article)) for t in chosen]


def word_sentences(
    words: Sequence[str],
    *,
    templates: Any = _SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Put each word in its templates.

    Parameters
    ----------
    words
        Words (duplicates are listed once).
    templates
        ``"may2019"`` (May et al.'s set for each word's kind), a list of templates (every
        word in every template), or a mapping kind → list of templates (every kind of the
        words must be a key). A template is a string with a ``{term}`` slot and optionally
        ``{article}``.
    word_kinds
        Word → kind overrides (see :func:`resolve_word_kinds`).

    Returns
    -------
    pandas.DataFrame
        One row per (word, template): ``word``, ``kind``, ``kind_source``, ``template``,
        ``sentence``.

    Warns
    -----
    UserWarning
        Words of unknown kind (named), which take :data:`FALLBACK_TEMPLATES` under
        ``"may2019"``.

    Raises
    ------
    ValueError
        An empty template list, a template without ``{term}`` or with another slot, an
        unknown kind, a noun given without its plural, a kind missing from a mapping of
        templates, or no words.

    Examples
    --------
    >>> sentences = word_sentences(["aster", "kill"])
    >>> sentences.groupby("word", sort=False)["kind"].agg(["first", "size"])
                first  size
    word
    aster  thing_noun    14
    kill         verb     8
    >>> list(sentences["sentence"].iloc[[0, 8, 14]])
    ['This is an aster.', 'These are asters.', 'This will kill.']
    """
    spec = template_spec(templates)
    words = list(dict.fromkeys(check_word_list("words", words)))
    kinds = resolve_word_kinds(words, word_kinds)
    if isinstance(spec, dict):
        absent: dict[str, list[str]] = {}
        for info in kinds.values():
            if info.kind not in spec:
                absent.setdefault(info.kind, []).append(info.word)
        if absent:
            detail = "; ".join(f"{k}: {ws[:5]}" for k, ws in absent.items())
            raise ValueError(f"templates has no list for the kind(s) {sorted(absent)} of some "
                             f"words ({detail}); add those kinds or set the words' kinds "
                             "with word_kinds=")
    unknown = [w for w, info in kinds.items() if info.source == "unknown"]
    if unknown and spec == _SHIPPED:
        warnings.warn(f"{len(unknown)} word(s) of unknown kind take the fallback templates "
                      f"{list(FALLBACK_TEMPLATES)}: {unknown}; set their kinds with "
                      f"word_kinds= (kinds: {list(KINDS)})", UserWarning, stacklevel=3)
    rows = [(w, info.kind, info.source, t, s)
            for w, info in kinds.items() for t, s in _word_templates(info, spec)]
    table = pd.DataFrame(rows, columns=["word", "kind", "kind_source", "template", "sentence"])
    table.attrs["unknown_kind"] = unknown
    return table


# =========================================================================== the table
def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def sentence_table(
    encoder: Any,
    study: Study | str,
    *,
    templates: Any = _SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
    pairing: Literal["mean", "all"] = "mean",
    embedding_name: str | None = None,
) -> pd.DataFrame:
    """Build the long-form table of a study on a sentence encoder, words put in templates.

    Parameters
    ----------
    encoder
        Anything :func:`embias.encoders.as_encoder` accepts; ``None`` for the offline
        default all-MiniLM-L6-v2.
    study
        A :class:`~embias.Study` or a shipped study name.
    templates, word_kinds
        Which sentences each word is put in (see :func:`word_sentences`).
    pairing
        ``"mean"`` (default): one row per (protected word, template, compared word), the
        cosine the mean over the compared word's sentences; ``"all"``: one row per pair
        of sentences. See the module docstring.
    embedding_name
        Value of the ``embedding`` column (default: the encoder's name).

    Returns
    -------
    pandas.DataFrame
        The columns of a cosine table (:data:`embias.tables.TABLE_COLUMNS`) then
        ``template`` and ``sentence`` (the protected word's), and ``n_compared_sentences``
        (``"mean"``) or ``compared_template`` and ``compared_sentence`` (``"all"``).
        ``attrs``: ``study``, ``encoder``, ``templates``, ``pairing``, ``word_kinds``
        (word → kind), ``unknown_kind`` (words that took the fallback templates),
        ``sentences`` (distinct sentences encoded), ``missing`` (empty: an encoder has no
        vocabulary) and ``self_pairs_dropped``.

    Warns
    -----
    UserWarning
        Words of unknown kind; a protected word that is also a compared word (its rows
        with itself are dropped, as in :func:`embias.cosine_table`).

    Raises
    ------
    ValueError
        Bad templates or kinds (see :func:`word_sentences`), an unknown pairing, or an
        encoder answer of the wrong shape, with NaN or with zero vectors.

    Examples
    --------
    A toy encoder whose sentence vector is its word's: with two templates the table has
    4 protected words × 2 templates × 4 compared words = 32 rows, and cos(he, strong) =
    1/√1.04, a distance of 0.0194.

    >>> import numpy as np
    >>> from embias.wordlists import Study
    >>> VECTORS = {"he": [1, 0], "him": [0.9, 0.1], "she": [0, 1], "her": [0.1, 0.9],
    ...            "strong": [1, 0.2], "tough": [0.8, 0.1], "gentle": [0.1, 1],
    ...            "kind": [0.2, 0.8]}
    >>> def encode(sentences):  # a sentence's vector is its last word's
    ...     return np.array([VECTORS[s.split()[-1].rstrip(".").lower()] for s in sentences])
    >>> study = Study.from_dicts("toy", protected={"m": ["he", "him"], "f": ["she", "her"]},
    ...                          attributes={"m": ["strong", "tough"],
    ...                                      "f": ["gentle", "kind"]})
    >>> table = sentence_table(encode, study, templates=["This is {term}.", "Here is {term}."])
    >>> table.shape
    (32, 11)
    >>> table[["protected_word", "template", "word_to_compare", "cosine_distance"]].head(2)
      protected_word         template word_to_compare  cosine_distance
    0             he  This is {term}.          strong           0.0194
    1             he  This is {term}.           tough           0.0077
    """
    from .encoders import as_encoder

    pairing = check_choice("pairing", pairing, PAIRINGS)
    spec = template_spec(templates)
    study = load_study(study)
    study.require_associations()
    enc = as_encoder(encoder)
    name = enc.name if embedding_name is None else embedding_name
    protected_lists = {c: w for c, w in study.protected.items()}
    compared_lists = compared_word_lists(study)
    all_words = [w for ws in (*protected_lists.values(), *compared_lists.values()) for w in ws]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sentences = word_sentences(all_words, templates=spec, word_kinds=word_kinds)
    for w in caught:
        warnings.warn(str(w.message), w.category, stacklevel=2)
    by_word = {w: g for w, g in sentences.groupby("word", sort=False)}
    distinct = list(dict.fromkeys(sentences["sentence"]))
    vectors = _unit(enc(distinct))
    index = {s: i for i, s in enumerate(distinct)}
    p = _sentence_side(protected_lists, by_word)
    c = _sentence_side(compared_lists, by_word)
    sim = vectors[[index[s] for s in p["sentence"]]] @ vectors[[index[s] for s in c["sentence"]]].T
    if pairing == "mean":
        sim, c_cols = _mean_over_compared_sentences(sim, c)
    else:
        c_cols = dict(c)
    table = _sentence_rows(sim, p, c_cols, study, embedding_name=name)
    self_rows = (table["protected_word"] == table["word_to_compare"]).to_numpy()
    self_pairs: list[tuple[str, str]] = []
    if self_rows.any():
        pairs = table.loc[self_rows, ["protected_word", "word_class"]].drop_duplicates()
        self_pairs = [(w, w) for w in pairs["protected_word"]]
        described = ", ".join(f"{w!r} ({cls})" for w, cls in pairs.itertuples(index=False))
        warnings.warn(f"study {study.name!r}: protected words that are also compared words: "
                      f"{described}; their {int(self_rows.sum())} row(s) comparing the word "
                      "with itself were dropped, the words' other rows kept", UserWarning,
                      stacklevel=2)
        table = table.loc[~self_rows].reset_index(drop=True)
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding", "template", "sentence",
                *(("compared_template", "compared_sentence") if pairing == "all" else ())):
        table[col] = table[col].astype(str)
    kinds = sentences.drop_duplicates("word").set_index("word")["kind"].to_dict()
    table.attrs = {
        "study": study.name,
        "encoder": enc.name,
        "templates": spec if isinstance(spec, str) else "custom",
        "pairing": pairing,
        "word_kinds": kinds,
        "unknown_kind": list(sentences.attrs.get("unknown_kind", [])),
        "sentences": len(distinct),
        "missing": {},
        "self_pairs_dropped": self_pairs,
    }
    return validate_table(table, what=f"sentence table of {study.name!r}")


def _sentence_side(lists: Mapping[str, Sequence[str]], by_word: Mapping[str, pd.DataFrame]
                   ) -> dict[str, np.ndarray]:
    """Lay out one side's sentences: ``list``, ``word``, ``template``, ``sentence``."""
    parts: dict[str, list[Any]] = {k: [] for k in ("list", "word", "template", "sentence")}
    for label, words in lists.items():
        for w in words:
            g = by_word[w]
            parts["list"] += [label] * len(g)
            parts["word"] += [w] * len(g)
            parts["template"] += list(g["template"])
            parts["sentence"] += list(g["sentence"])
    return {k: np.array(v, dtype=object) for k, v in parts.items()}


def _mean_over_compared_sentences(sim: np.ndarray, compared: Mapping[str, np.ndarray]
                                  ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Average the similarities over each compared word's sentences (``pairing="mean"``).

    One column per compared word of each list; its columns ``list``, ``word`` and
    ``n_compared_sentences``.
    """
    entry = np.array([f"{a}\x00{b}" for a, b in zip(compared["list"], compared["word"],
                                                     strict=True)])
    starts = np.flatnonzero(np.r_[True, entry[1:] != entry[:-1]])
    counts = np.diff(np.r_[starts, entry.size])
    columns = {k: v[starts] for k, v in compared.items() if k in ("list", "word")}
    columns["n_compared_sentences"] = counts
    return np.add.reduceat(sim, starts, axis=1) / counts, columns


def _sentence_rows(sim: np.ndarray, p: Mapping[str, np.ndarray],
                   c_cols: Mapping[str, np.ndarray], study: Study, *, embedding_name: str
                   ) -> pd.DataFrame:
    """Lay the similarities (protected sentences × compared columns) out as rows."""
    n_p, n_c = sim.shape
    c_list = np.tile(c_cols["list"], n_p)
    c_kind = np.array([lab.split(":", 1)[0] for lab in c_list])
    c_class = np.array([lab.split(":", 1)[-1] for lab in c_list], dtype=object)
    pw_class = np.repeat(p["list"], n_c)
    assoc = np.array([study.associations.get(cl) for cl in pw_class], dtype=object)
    connection = np.where(c_kind == "neutral", "none",
                          np.where(c_kind == "human", "human",
                                   np.where(c_class == assoc, "associated", "different")))
    similarity = sim.ravel()
    table = pd.DataFrame({
        "protected_word": np.repeat(p["word"], n_c),
        "protected_class": pw_class,
        "word_to_compare": np.tile(c_cols["word"], n_p),
        "word_class": np.where(c_kind == "attributes", c_class, c_kind),
        "connection": connection,
        "cosine_similarity": similarity,
        "cosine_distance": 1.0 - similarity,
        "embedding": embedding_name,
        "template": np.repeat(p["template"], n_c),
        "sentence": np.repeat(p["sentence"], n_c),
    })
    if "n_compared_sentences" in c_cols:
        table["n_compared_sentences"] = np.tile(c_cols["n_compared_sentences"], n_p)
    else:
        table["compared_template"] = np.tile(c_cols["template"], n_p)
        table["compared_sentence"] = np.tile(c_cols["sentence"], n_p)
    return table


# =========================================================================== SEAT
def seat_test(
    test: str | Study,
    encoder: Any = None,
    *,
    templates: Any = _SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
    **options: Any,
) -> WeatResult:
    """Run SEAT (May et al. 2019): WEAT on the sentences of a two-class study.

    X, Y, A and B are the sentences of the study's target and attribute words (each word
    in each of its templates, :func:`word_sentences`); the effect size, the permutation
    p-value and the bootstrap come from :func:`embias.classic.weat`, run on the sentence
    vectors. Every sentence is one item, as in May et al. (see the module docstring for
    why that makes the p-value optimistic).

    Parameters
    ----------
    test
        ``"weat1"`` … ``"weat10"`` or any two-class :class:`~embias.Study`.
    encoder
        Anything :func:`embias.encoders.as_encoder` accepts (default all-MiniLM-L6-v2).
    templates, word_kinds
        As for :func:`word_sentences`.
    options
        Passed to :func:`embias.classic.weat`: ``permutations``, ``alternative``,
        ``random_seed``, ``ddof`` … (May et al. report the one-sided
        ``alternative="greater"``; embias's default is two-sided).

    Returns
    -------
    WeatResult
        Named ``"<test> (SEAT)"``; its ``s_values`` have one row per sentence: ``word``,
        ``template``, ``sentence``, ``target`` (X/Y), ``s``; ``random_seed`` is the seed
        used (drawn when ``random_seed=None``; passing it back repeats the test).

    Raises
    ------
    ValueError
        A word in two of the lists X, Y, A, B (case folded: a template capitalises the
        sentence's first letter), naming the word and both lists
        (:func:`embias.classic.check_weat_roles`); the errors of :func:`word_sentences`
        and :func:`embias.classic.weat`.

    Examples
    --------
    Two words per list, one template: the 6 ways to split the four target sentences in
    two give the exact two-sided p-value 2/6.

    >>> import numpy as np
    >>> from embias.wordlists import Study
    >>> VECTORS = {"he": [1, 0], "him": [0.9, 0.1], "she": [0, 1], "her": [0.1, 0.9],
    ...            "strong": [1, 0.2], "tough": [0.8, 0.1], "gentle": [0.1, 1],
    ...            "kind": [0.2, 0.8]}
    >>> def encode(sentences):  # a sentence's vector is its last word's
    ...     return np.array([VECTORS[s.split()[-1].rstrip(".").lower()] for s in sentences])
    >>> study = Study.from_dicts("toy", protected={"m": ["he", "him"], "f": ["she", "her"]},
    ...                          attributes={"m": ["strong", "tough"],
    ...                                      "f": ["gentle", "kind"]})
    >>> result = seat_test(study, encode, templates=["This is {term}."], random_seed=0)
    >>> result.name, round(result.effect_size, 3), result.p_value, result.exact
    ('toy (SEAT)', 1.729, 0.333, True)
    """
    from .encoders import as_encoder

    result, _ = _seat(load_study(test), as_encoder(encoder), template_spec(templates),
                      word_kinds, options)
    return result


def _seat(study: Study, enc: Any, spec: Any, word_kinds: Mapping[str, Any] | None,
          options: dict[str, Any]) -> tuple[WeatResult, list[list[str]]]:
    """Run SEAT on one study; return the WEAT result and the sentences of X, Y, A, B."""
    import dataclasses

    from .classic import check_weat_roles, weat
    from .embeddings import keyed_vectors

    sets = study.weat_sets()
    cx, cy = study.protected
    ca, cb = (study.associations[cl] for cl in study.protected)
    set_names = (cx, cy, ca, cb) if len({cx, cy, ca, cb}) == 4 else ("X", "Y", "A", "B")
    options = dict(options)
    options.setdefault("name", f"{study.name} (SEAT)")
    options.setdefault("set_names", set_names)
    # a word in two roles would put the same sentences in two lists: named here, by word;
    # case is folded, since templates capitalise a sentence's first letter ('alpha' and
    # 'Alpha' give 'Alpha is here.' both)
    check_weat_roles(sets, set_names=options["set_names"], lowercase=True,
                     name=str(options["name"]))
    words = [w for s in sets for w in s]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sentences = word_sentences(words, templates=spec, word_kinds=word_kinds)
    for w in caught:
        warnings.warn(str(w.message), w.category, stacklevel=3)
    by_word = {w: list(g["sentence"]) for w, g in sentences.groupby("word", sort=False)}
    sentence_sets = [[s for w in dict.fromkeys(words_) for s in by_word[w]] for words_ in sets]
    distinct = list(dict.fromkeys(sentences["sentence"]))
    kv = keyed_vectors(distinct, np.ascontiguousarray(enc(distinct)))
    result = weat(kv, *sentence_sets, lowercase=False, **options)
    origin = sentences.drop_duplicates("sentence").set_index("sentence")
    s_values = result.s_values.rename(columns={"word": "sentence"})
    s_values.insert(0, "word", s_values["sentence"].map(origin["word"]))
    s_values.insert(1, "template", s_values["sentence"].map(origin["template"]))
    return dataclasses.replace(result, s_values=s_values), sentence_sets


#: Caliskan et al.'s tests, the default of :func:`seat_overview`.
CALISKAN_TESTS: tuple[str, ...] = tuple(s for s in BUILTIN_STUDIES if s.startswith("weat"))


def seat_overview(
    encoder: Any = None,
    *,
    tests: Sequence[str | Study] = CALISKAN_TESTS,
    templates: Any = _SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
    permutations: int | Literal["auto", "exact"] = "auto",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    ci_prob: float = DEFAULT_CI_PROB,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Run SEAT on several tests with one encoder: effect sizes and permutation p-values.

    Parameters
    ----------
    encoder
        Anything :func:`embias.encoders.as_encoder` accepts (default all-MiniLM-L6-v2).
    tests
        Shipped test names or two-class studies (default Caliskan et al.'s ten).
    templates, word_kinds
        As for :func:`word_sentences`.
    permutations, alternative
        As for :func:`embias.classic.weat`.
    ci_prob
        Probability of the interval for the population effect size (default 0.89).
    random_seed
        Seed of every test's permutations and bootstrap (each test starts from the same
        seed), or a Generator the tests draw from in turn. ``None`` (the default) draws
        one seed from the OS entropy (the seed policy of :mod:`embias._validation`); the
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``,
        and passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per test: ``test``, ``encoder``, ``sentences`` (X/Y/A/B counts),
        ``effect_size``, ``p_value``, ``p_method`` (``exact`` or ``MC <permutations>``),
        ``population_estimate`` and ``population_lower``/``population_upper`` (the effect
        size of the word and sentence populations, corrected for the noise of short
        attribute lists, and its ``ci_prob`` interval:
        :meth:`embias.classic.WeatResult.population_columns`; NaN where it cannot be
        computed), ``ci_prob``, ``random_seed`` (the seed of the test's permutations and
        bootstrap; None when a Generator was given). ``attrs["random_seed"]`` holds the
        seed too.

    Raises
    ------
    ValueError
        A bad ``ci_prob``, and the errors of :func:`seat_test`.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.wordlists import Study
    >>> VECTORS = {"he": [1, 0], "him": [0.9, 0.1], "she": [0, 1], "her": [0.1, 0.9],
    ...            "strong": [1, 0.2], "tough": [0.8, 0.1], "gentle": [0.1, 1],
    ...            "kind": [0.2, 0.8]}
    >>> def encode(sentences):  # a sentence's vector is its last word's
    ...     return np.array([VECTORS[s.split()[-1].rstrip(".").lower()] for s in sentences])
    >>> study = Study.from_dicts("toy", protected={"m": ["he", "him"], "f": ["she", "her"]},
    ...                          attributes={"m": ["strong", "tough"],
    ...                                      "f": ["gentle", "kind"]})
    >>> overview = seat_overview(encode, tests=[study], templates=["This is {term}."],
    ...                          random_seed=0)
    >>> overview[["test", "sentences", "effect_size", "p_value", "p_method"]]
      test sentences  effect_size   p_value p_method
    0  toy   2/2/2/2     1.728744  0.333333    exact
    """
    from ._validation import check_probability, resolve_rng
    from .encoders import as_encoder

    ci_prob = check_probability("ci_prob", ci_prob)
    # one seed for the whole table (drawn here when None), so passing it back repeats it
    _, seed = resolve_rng(random_seed)
    seeds = random_seed if seed is None else seed

    if isinstance(tests, str | Study):
        tests = [tests]
    enc = as_encoder(encoder)
    spec = template_spec(templates)
    rows = []
    for test in tests:
        study = load_study(test)
        r, sentence_sets = _seat(study, enc, spec, word_kinds, {
            "permutations": permutations, "alternative": alternative,
            "random_seed": seeds})
        rows.append({
            "test": study.name,
            "encoder": enc.name,
            "sentences": "/".join(str(len(s)) for s in sentence_sets),
            "effect_size": r.effect_size,
            "p_value": r.p_value,
            "p_method": "exact" if r.exact else f"MC {r.n_permutations:,}",
            **r.population_columns(ci_prob),
            "ci_prob": ci_prob,
            "random_seed": r.random_seed,
        })
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table
