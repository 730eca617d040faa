"""The cosine table of a study, computed or published: :func:`study_table`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import pandas as pd

from ..wordlists import Study
from .build import cosine_table
from .published import load_published_table, published_name

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors


def study_table(
    study: Study | str,
    embedding: KeyedVectors | str = "glove-6b-50d",
    *,
    duplicates: Literal["keep", "drop", "raise"] = "keep",
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
    embedding_name: str | None = None,
    unassociated: Literal["raise", "different"] = "raise",
) -> pd.DataFrame:
    """Return the cosine table of ``study`` on ``embedding``, computed or published.

    Parameters
    ----------
    study
        A study or shipped study name.
    embedding
        ``"published:<name>"`` (the authors' table, :func:`load_published_table`) or
        anything :func:`embias.load_embeddings` accepts (:func:`cosine_table`).
    duplicates
        Published tables only: exact duplicate rows (see :func:`load_published_table`).
    missing
        Missing words / rows coded missing: ``"warn"`` or ``"raise"``.
    lowercase
        Embeddings only, as in :func:`cosine_table`.
    embedding_name
        Value of the ``embedding`` column (default: the source string).
    unassociated
        Embeddings only, as in :func:`cosine_table`.

    Returns
    -------
    pandas.DataFrame
        The table (:func:`load_published_table` or :func:`cosine_table`).

    Raises
    ------
    ValueError, MissingWordsError
        As :func:`load_published_table` or :func:`cosine_table`.

    Examples
    --------
    The religion study on the shipped GloVe 6B 50d (one neutral word, a misspelling, is
    not in GloVe) and the authors' own GloVe table:

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     table = study_table("religion", "glove-6b-50d")
    >>> table.shape, table.attrs["missing"]["neutral"]["missing"]
    ((4815, 8), ['literaly'])
    >>> study_table("religion", "published:glove")["embedding"].iloc[0]
    'published:glove'
    """
    if isinstance(embedding, str) and embedding.startswith("published:"):
        name = study.name if isinstance(study, Study) else str(study)
        table = load_published_table(name, published_name(name, embedding),
                                     duplicates=duplicates, missing=missing)
        if embedding_name is not None:
            table["embedding"] = embedding_name
        return table
    return cosine_table(embedding, study, missing=missing, lowercase=lowercase,
                        embedding_name=embedding_name, unassociated=unassociated)
