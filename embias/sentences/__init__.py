"""Words in sentences: the long-form table of a sentence encoder, and SEAT.

May et al. (2019) measure bias in sentence encoders by putting the words of a WEAT test
into *templates* — short frames such as ``"This is {term}."`` — and running WEAT on the
sentences' vectors (SEAT). This package does the same with embias's studies and tables.

The package, one module per idea (every name is also importable from ``embias.sentences``):

- :mod:`~embias.sentences.kinds` — which kind each word is, from the shipped word-kind
  table, May et al.'s rule and ``word_kinds=`` (:func:`load_word_kinds`,
  :func:`resolve_word_kinds`, ``WordKind``);
- :mod:`~embias.sentences.templates` — May et al.'s template sets and the user's, checked,
  and each word put in its templates (:func:`load_templates`, ``template_spec``,
  :func:`word_sentences`);
- :mod:`~embias.sentences.table` — the long-form table of a study on a sentence encoder,
  and how its rows pair sentences (:func:`sentence_table`);
- :mod:`~embias.sentences.seat` — SEAT, WEAT on the sentences (:func:`seat_test`,
  :func:`seat_overview`).
"""

# Names imported ``X as X`` are importable from here, as from the module embias.sentences
# was, but not in __all__.
from .kinds import KINDS, WordKind, load_word_kinds, resolve_word_kinds
from .seat import CALISKAN_TESTS as CALISKAN_TESTS
from .seat import seat_overview, seat_test
from .table import PAIRINGS, sentence_table
from .templates import (
    FALLBACK_TEMPLATES,
    TEMPLATE_PLACEHOLDERS,
    load_templates,
    template_spec,
    word_sentences,
)
from .templates import KIND_TEMPLATE_SETS as KIND_TEMPLATE_SETS

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
