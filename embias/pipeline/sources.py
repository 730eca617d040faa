"""Embedding sources → cosine tables, and the jobs of many studies × embeddings × seeds.

What :func:`embias.compare_embeddings` and :func:`embias.study_jobs` are given
(KeyedVectors, a source string, ``"published:NAME"``, a ready table) turned into one
study's long-form tables, and the jobs of many studies × embeddings × seeds for
:func:`embias.fit_many`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._validation import check_seed
from ..bayes.batch import FitJob
from ..embeddings import is_keyed_vectors, load_embeddings
from ..settings import FitSettings
from ..tables import cosine_table, published_name, study_table, validate_table
from ..wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

__all__ = ["EmbeddingSource", "resolve_tables", "source_table", "study_jobs"]

#: What an embedding source may be (for the type hints of the functions that take one).
type EmbeddingSource = KeyedVectors | str | pd.DataFrame


def source_table(
    label: str,
    source: Any,
    study: Study | None,
) -> tuple[pd.DataFrame, int | None]:
    """Return the cosine table of one embedding source and its vector size.

    Parameters
    ----------
    label
        The embedding's name (the table's ``embedding`` column).
    source
        KeyedVectors, an embedding source string (a file path, ``"glove-6b-50d"``,
        ``"gensim:NAME"``), ``"published:NAME"`` or a cosine table (DataFrame).
    study
        The study whose table is built (not needed for a ready table).

    Returns
    -------
    (table, vector_size)
        The long-form cosine table and the vectors' size (``None`` when not known: a
        published or ready table).

    Raises
    ------
    ValueError
        An unsupported or unreadable source, a published table the study does not have,
        no study for a source that needs one, or a ready table
        :func:`embias.tables.validate_table` refuses; the message names the embedding.

    Examples
    --------
    >>> from embias.pipeline.sources import source_table
    >>> from embias.wordlists import load_study
    >>> table, size = source_table("reddit", "published:reddit", load_study("religion"))
    >>> len(table), size, table["embedding"].iloc[0]
    (4830, None, 'reddit')
    """
    what = f"embedding {label!r}"
    if isinstance(source, pd.DataFrame):
        table = validate_table(source.copy(), what=f"table of {what}")
        table["embedding"] = label
        table.attrs = dict(source.attrs)
        return table, None
    if study is None:
        raise ValueError(f"{what}: a study is needed to build its cosine table (e.g. "
                         "study='religion'); only ready-made tables (DataFrames) need none")
    if isinstance(source, str) and source.startswith("published:"):
        try:
            published_name(study.name, source)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        # exact duplicate rows (race tables) would be double-counted; dropped with a warning
        return study_table(study, source, duplicates="drop", embedding_name=label), None
    if isinstance(source, str | os.PathLike):
        try:
            kv = load_embeddings(source)
        except (ValueError, FileNotFoundError, ConnectionError) as exc:
            raise ValueError(f"{what}: {exc}") from None
    elif is_keyed_vectors(source):
        kv = source
    else:
        raise ValueError(f"{what}: unsupported source of type {type(source).__name__}; use "
                         "KeyedVectors, an embedding source string (file path, "
                         "'glove-6b-50d', 'gensim:NAME'), 'published:NAME' or a cosine "
                         "table (DataFrame)")
    return cosine_table(kv, study, embedding_name=label), int(kv.vector_size)



def resolve_tables(
    embeddings: Mapping[str, EmbeddingSource],
    study: Study | str | None,
    *,
    require_same_dimension: bool,
) -> tuple[dict[str, pd.DataFrame], Study | None]:
    """Return label → cosine table of every embedding source, and the study.

    Parameters
    ----------
    embeddings
        Label → source (see :func:`source_table`).
    study
        A study name or :class:`~embias.Study` (``None`` when every source is a table).
    require_same_dimension
        Refuse embeddings of different vector sizes.

    Returns
    -------
    (tables, study)
        ``{label: table}`` in the order given, and the loaded study (or ``None``).

    Raises
    ------
    ValueError
        ``embeddings`` is not a mapping, a label is not a non-empty string, what
        :func:`source_table` refuses, or vector sizes that differ when
        ``require_same_dimension``.

    Examples
    --------
    >>> from embias.pipeline.sources import resolve_tables
    >>> tables, study = resolve_tables(
    ...     {"biased": "published:reddit", "hard": "published:reddit-debiased"}, "religion",
    ...     require_same_dimension=True)
    >>> {label: len(table) for label, table in tables.items()}, study.name
    ({'biased': 4830, 'hard': 4830}, 'religion')
    """
    if not isinstance(embeddings, Mapping):
        raise ValueError("embeddings must be a mapping label → source, e.g. {'biased': "
                         "'published:reddit', 'hard': 'published:reddit-debiased'}, got "
                         f"{type(embeddings).__name__}")
    bad = [k for k in embeddings if not isinstance(k, str) or not k]
    if bad:
        raise ValueError(f"embedding labels must be non-empty strings, got {bad}")
    st = load_study(study) if study is not None else None
    tables: dict[str, pd.DataFrame] = {}
    sizes: dict[str, int] = {}
    for label, source in embeddings.items():
        table, size = source_table(label, source, st)
        tables[label] = table
        if size is not None:
            sizes[label] = size
        if require_same_dimension and len(set(sizes.values())) > 1:
            detail = ", ".join(f"{k}={v}" for k, v in sizes.items())
            raise ValueError(f"embeddings have different dimensions ({detail}): a comparison "
                             "is meant for versions of one embedding space (e.g. biased vs "
                             "debiased); pass require_same_dimension=False to compare "
                             "different embeddings on their shared word pairs")
    return tables, st




# =========================================================================== batches
def study_jobs(
    studies: Sequence[str | Study],
    embeddings: Mapping[str, EmbeddingSource],
    *,
    seeds: Sequence[int],
    settings: FitSettings | None = None,
    **options: Any,
) -> list[FitJob]:
    """Return the fit jobs of every study × embedding × seed (tables built once per pair).

    Parameters
    ----------
    studies
        Study names or :class:`~embias.Study` objects.
    embeddings
        Label → source, as for :func:`compare_embeddings`.
    seeds
        Sampler seeds; one fit per seed.
    settings, **options
        The fits' :class:`~embias.FitSettings` (any field as a keyword replaces the one in
        ``settings``; unknown names are an error); the seeds come from ``seeds``.

    Returns
    -------
    list of FitJob
        Labelled ``"STUDY/EMBEDDING/seed=N"``, ready for :func:`fit_many`.

    Raises
    ------
    ValueError
        No study, embedding or seed, a bad seed or option, or what ``resolve_tables``
        refuses.

    Examples
    --------
    >>> import embias
    >>> jobs = embias.study_jobs(["religion"], {"reddit": "published:reddit"}, seeds=[1, 2],
    ...                          draws=500)
    >>> [job.label for job in jobs], jobs[1].settings.random_seed, jobs[1].settings.draws
    (['religion/reddit/seed=1', 'religion/reddit/seed=2'], 2, 500)
    """
    base = FitSettings.build(settings, **options)
    seeds = [check_seed(s, name="seeds") for s in seeds]
    if not seeds or not studies or not embeddings:
        raise ValueError("study_jobs() needs at least one study, embedding and seed")
    jobs = []
    for study in studies:
        tables, st = resolve_tables(embeddings, study, require_same_dimension=False)
        for label, table in tables.items():
            for s in seeds:
                jobs.append(FitJob(table, dataclasses.replace(base, random_seed=s),
                                   label=f"{st.name if st else study}/{label}/seed={s}"))
    return jobs

