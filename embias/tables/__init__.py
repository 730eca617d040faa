"""The long-form cosine table: one row per (protected word, compared word).

Columns (DESIGN §4): ``protected_word``, ``protected_class``, ``word_to_compare``,
``word_class``, ``connection`` ∈ {associated, different, human, none},
``cosine_similarity``, ``cosine_distance`` (= 1 − similarity), ``embedding``.

The package, one module per idea (every name is also importable from ``embias.tables``):

- :mod:`~embias.tables.schema` — the columns, the connections and the checks
  (:func:`validate_table`); it imports neither word lists nor embeddings;
- :mod:`~embias.tables.build` — a table computed from embeddings and a study's word lists
  (:func:`cosine_table`);
- :mod:`~embias.tables.published` — the authors' released tables
  (:func:`load_published_table`, :func:`published_name`);
- :mod:`~embias.tables.study` — a study's table, computed or published (:func:`study_table`);
- :mod:`~embias.tables.summary` — a table summarised per connection (:func:`summarize_table`);
- :mod:`~embias.tables.align` — tables of several embeddings aligned on their shared word
  pairs, and their paired differences (:func:`align_tables`, :func:`difference_table`).
"""

# Names imported ``X as X`` are importable from here, as from the module embias.tables was,
# but not in __all__.
from .align import DEFAULT_MIN_SHARED, align_tables, difference_table
from .align import PAIR_KEY as PAIR_KEY
from .build import compared_word_lists, cosine_table
from .published import (
    PUBLISHED_EMBEDDINGS,
    PUBLISHED_STUDIES,
    load_published_table,
    published_name,
)
from .published import PUBLISHED_MISSING_CODE as PUBLISHED_MISSING_CODE
from .schema import CONNECTIONS, TABLE_COLUMNS, validate_table
from .schema import DISTANCE_TOLERANCE as DISTANCE_TOLERANCE
from .schema import ROW_KEY_EXTRA as ROW_KEY_EXTRA
from .study import study_table
from .summary import summarize_table

__all__ = [
    "CONNECTIONS",
    "DEFAULT_MIN_SHARED",
    "PUBLISHED_EMBEDDINGS",
    "PUBLISHED_STUDIES",
    "TABLE_COLUMNS",
    "align_tables",
    "compared_word_lists",
    "cosine_table",
    "difference_table",
    "load_published_table",
    "published_name",
    "study_table",
    "summarize_table",
    "validate_table",
]
