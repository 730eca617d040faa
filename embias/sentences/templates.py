"""Templates: May et al.'s sets and the user's, checked, and each word put in its templates.

A template is a string with a ``{term}`` slot and optionally ``{article}`` (the word's
indefinite article, a/an); the first letter of every filled sentence is capitalised.
May et al. give each *kind* of word its own template set (names, adjectives, mass nouns,
verbs, singular and plural nouns, pronouns: ``embias/data/templates/may2019.tsv``, with
their provenance; the kinds: :mod:`embias.sentences.kinds`). A word of unknown kind takes
:data:`FALLBACK_TEMPLATES` — ``"This is {term}."`` and ``"That is {term}."``, the two
templates May et al. use for the most kinds — with a warning naming it. ``templates=``
takes the user's own templates (one list for every word, or one list per kind).
"""

from __future__ import annotations

import functools
import string
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._validation import check_choice, check_word_list
from ._common import SHIPPED, read_tsv
from .kinds import KINDS, WordKind, resolve_word_kinds

#: Templates of a word of unknown kind (and of kind ``other``): the two templates May et
#: al. use for the most kinds (names, adjectives, mass nouns, object and possessive
#: pronouns).
FALLBACK_TEMPLATES: tuple[str, ...] = ("This is {term}.", "That is {term}.")
#: The slots a template may have (``term`` is required).
TEMPLATE_PLACEHOLDERS: tuple[str, ...] = ("term", "article")
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
    table = read_tsv("may2019.tsv")
    return {name: tuple(group["template"]) for name, group in
            table.groupby("set", sort=False)}


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
        if templates == SHIPPED:
            return SHIPPED
        hint = (" (one template? wrap it in a list: [" + repr(templates) + "])"
                if "{" in templates else "")
        raise ValueError(f"templates={templates!r} is not {SHIPPED!r}, a list of templates "
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
    if spec == SHIPPED:
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
    templates: Any = SHIPPED,
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
    if unknown and spec == SHIPPED:
        warnings.warn(f"{len(unknown)} word(s) of unknown kind take the fallback templates "
                      f"{list(FALLBACK_TEMPLATES)}: {unknown}; set their kinds with "
                      f"word_kinds= (kinds: {list(KINDS)})", UserWarning, stacklevel=3)
    rows = [(w, info.kind, info.source, t, s)
            for w, info in kinds.items() for t, s in _word_templates(info, spec)]
    table = pd.DataFrame(rows, columns=["word", "kind", "kind_source", "template", "sentence"])
    table.attrs["unknown_kind"] = unknown
    return table
