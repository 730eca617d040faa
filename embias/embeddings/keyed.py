"""KeyedVectors built without copying, told apart, and labelled with their source's name.

The vectors :func:`~embias.embeddings.load_embeddings` returns carry the name of their
source (:data:`NAME_ATTRIBUTE`, read by :func:`embedding_name_of`); the tables built from
them are labelled with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

#: Attribute of a ``KeyedVectors`` built by :func:`load_embeddings` that holds the name of
#: its source (``"glove-6b-50d"``, the file path as given, ``"gensim:NAME"``).
NAME_ATTRIBUTE = "embias_name"


def is_keyed_vectors(obj: object) -> bool:
    """Tell whether ``obj`` is a gensim ``KeyedVectors``, without importing gensim.

    An object cannot be a KeyedVectors before gensim is imported, so gensim (slow to
    import) is not imported here when nothing has imported it yet.
    """
    import sys

    if "gensim.models.keyedvectors" not in sys.modules:
        return False
    from gensim.models import KeyedVectors

    return isinstance(obj, KeyedVectors)


def embedding_name_of(embeddings: KeyedVectors) -> str | None:
    """Return the name of the source :func:`load_embeddings` loaded ``embeddings`` from.

    Parameters
    ----------
    embeddings
        Word vectors.

    Returns
    -------
    str or None
        ``"glove-6b-50d"``, the file path as given or ``"gensim:NAME"``; ``None`` for
        vectors built otherwise (e.g. by hand, or debiased).

    Examples
    --------
    >>> from embias.embeddings import load_embeddings
    >>> embedding_name_of(load_embeddings("glove-6b-50d", limit=10))
    'glove-6b-50d'
    >>> import numpy as np
    >>> print(embedding_name_of(keyed_vectors(["a", "b"], np.eye(2, dtype=np.float32))))
    None
    """
    name = getattr(embeddings, NAME_ATTRIBUTE, None)
    return name if isinstance(name, str) else None



def named(kv: KeyedVectors, name: str | None) -> KeyedVectors:
    """Label ``kv`` (built here, not the caller's) with the name of its source.

    Parameters
    ----------
    kv
        Word vectors built by embias (never the caller's own: the label is set on them).
    name
        The name of their source (:data:`NAME_ATTRIBUTE`); ``None`` leaves them unlabelled.

    Returns
    -------
    gensim.models.KeyedVectors
        ``kv`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> kv = named(keyed_vectors(["a"], np.ones((1, 2), dtype=np.float32)), "mine")
    >>> embedding_name_of(kv)
    'mine'
    """
    if name is not None:
        setattr(kv, NAME_ATTRIBUTE, name)
    return kv



def keyed_vectors(keys: list[str], vectors: np.ndarray) -> KeyedVectors:
    """Wrap ``vectors`` (row i ↔ ``keys[i]``) in KeyedVectors without copying them.

    Parameters
    ----------
    keys
        The words, one per row of ``vectors``.
    vectors
        The vectors, shape (words, dimensions).

    Returns
    -------
    gensim.models.KeyedVectors
        Vectors whose ``vectors`` is the array given.

    Examples
    --------
    >>> import numpy as np
    >>> vectors = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    >>> kv = keyed_vectors(["cat", "dog"], vectors)
    >>> round(float(kv.similarity("cat", "dog")), 2), kv.vectors is vectors
    (0.6, True)
    """
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=vectors.dtype)
    kv.vectors = vectors
    kv.index_to_key = keys
    kv.key_to_index = {k: i for i, k in enumerate(keys)}
    kv.norms = None
    return kv



def first_words(kv: KeyedVectors, limit: int | None) -> KeyedVectors:
    """Keep the first ``limit`` words of ``kv``, with the name of its source.

    Parameters
    ----------
    kv
        Word vectors.
    limit
        How many of the first words to keep; ``None`` keeps all.

    Returns
    -------
    gensim.models.KeyedVectors
        ``kv`` itself when it has no more than ``limit`` words (or ``limit`` is ``None``),
        else new vectors over the first ``limit`` rows (a view, not a copy) that carry
        ``kv``'s source name (:func:`embedding_name_of`).

    Examples
    --------
    >>> import numpy as np
    >>> kv = keyed_vectors(["a", "b", "c"], np.eye(3, dtype=np.float32))
    >>> first_words(kv, 2).index_to_key, first_words(kv, None) is kv
    (['a', 'b'], True)
    """
    if limit is None or limit >= len(kv.index_to_key):
        return kv
    return named(keyed_vectors(list(kv.index_to_key[:limit]), kv.vectors[:limit]),
                  embedding_name_of(kv))
