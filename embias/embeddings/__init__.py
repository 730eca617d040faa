"""Load word embeddings as gensim ``KeyedVectors`` from any source, and look words up in them.

The package, one module per idea (every name is also importable from ``embias.embeddings``):

- :mod:`~embias.embeddings.sources` — the sources :func:`load_embeddings` understands (the
  shipped GloVe 6B 50d, a file path, ``"gensim:NAME"``, a ``KeyedVectors``) and the name a
  table takes from them (:func:`load_named_embeddings`);
- :mod:`~embias.embeddings.files` — embedding files: their formats (:data:`FORMATS`,
  :func:`detect_format`) and their readers, which name the line that does not fit;
- :mod:`~embias.embeddings.keyed` — ``KeyedVectors`` built without copying
  (:func:`keyed_vectors`) and labelled with their source's name (:func:`embedding_name_of`);
- :mod:`~embias.embeddings.lookup` — the words of named lists looked up in embeddings, and
  the missing ones reported (:func:`lookup_words`, :class:`MissingWords`,
  :class:`MissingWordsError`, :func:`is_uncased`).
"""

# Names imported ``X as X`` are importable from here, as from the module embias.embeddings
# was, but not in __all__.
from .files import FORMATS, detect_format
from .files import EmbeddingFormat as EmbeddingFormat
from .keyed import NAME_ATTRIBUTE as NAME_ATTRIBUTE
from .keyed import embedding_name_of, keyed_vectors
from .keyed import is_keyed_vectors as is_keyed_vectors
from .lookup import MissingWords, MissingWordsError, is_uncased, lookup_words
from .sources import BUILTIN_EMBEDDINGS, load_embeddings, load_named_embeddings

__all__ = [
    "BUILTIN_EMBEDDINGS",
    "FORMATS",
    "MissingWords",
    "MissingWordsError",
    "detect_format",
    "embedding_name_of",
    "is_uncased",
    "keyed_vectors",
    "load_embeddings",
    "load_named_embeddings",
    "lookup_words",
]
