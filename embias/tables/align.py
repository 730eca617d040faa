"""Cosine tables of several embeddings: aligned on their shared word pairs, and differenced.

:func:`align_tables` restricts the tables to the word pairs common to all (in one row
order); :func:`difference_table` turns two aligned tables into their paired differences.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_share

#: Default smallest share of every embedding's rows that all embeddings must share.
DEFAULT_MIN_SHARED = 0.8

#: What identifies a word pair across embeddings' tables. ``word_class`` is not part of it:
#: tables name one class differently (the authors' ``jew_stereotype`` is the shipped
#: study's ``jewish_stereotype``), and the class of a pair follows from its words.
PAIR_KEY: tuple[str, ...] = ("protected_word", "word_to_compare", "connection")


def _key_columns(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """Return the columns that identify a word pair across the tables.

    :data:`PAIR_KEY`, plus ``word_class`` when a table holds a pair twice under two word
    classes (a compared word in two attribute lists) and every table has the column.
    """
    key = list(PAIR_KEY)
    repeated = any(t[key].astype(str).duplicated().any() for t in tables.values())
    if repeated and all("word_class" in t.columns for t in tables.values()):
        key.insert(2, "word_class")
    return key


def _map_word_classes(aligned: dict[str, pd.DataFrame], reference: str) -> dict[str, dict]:
    """Name every aligned table's word classes as the reference does (in place).

    A class whose rows are the reference's rows of one class under another name is renamed
    (recorded in ``attrs["word_class_mapped"]``, old → new); a class whose rows fall in
    several of the reference's classes is a ValueError.
    """
    ref = aligned[reference]
    if "word_class" not in ref.columns:
        return {}
    ref_class = ref["word_class"].astype(str).to_numpy()
    mapped: dict[str, dict[str, str]] = {}
    for label, part in aligned.items():
        if label == reference or "word_class" not in part.columns:
            continue
        own = part["word_class"].astype(str).to_numpy()
        if (own == ref_class).all():
            continue
        pairs = pd.DataFrame({"own": own, "reference": ref_class})
        targets = pairs.groupby("own")["reference"].unique()
        for name, names in targets.items():
            if len(names) > 1:
                raise ValueError(
                    f"embedding {label!r}: word class {name!r} holds word pairs of "
                    f"{len(names)} word classes of {reference!r} ({sorted(names)}): the "
                    "tables do not classify the compared words alike (are they the same "
                    "study?)")
        merged = pairs.groupby("reference")["own"].unique()
        for name, names in merged.items():
            if len(names) > 1:
                raise ValueError(
                    f"embedding {label!r}: word classes {sorted(names)} hold the word pairs "
                    f"of one word class {name!r} of {reference!r}: the tables do not classify "
                    "the compared words alike (are they the same study?)")
        mapping = {str(name): str(names[0]) for name, names in targets.items()
                   if name != names[0]}
        part["word_class"] = pd.Series(ref_class, index=part.index,
                                       dtype=part["word_class"].dtype)
        part.attrs["word_class_mapped"] = mapping
        mapped[label] = mapping
    return mapped


def align_tables(
    tables: Mapping[str, pd.DataFrame],
    *,
    reference: str | None = None,
    min_shared: float = DEFAULT_MIN_SHARED,
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Restrict cosine tables of several embeddings to the word pairs common to all.

    Word pairs are matched on ``(protected_word, word_to_compare, connection)``
    (:data:`PAIR_KEY`; with ``word_class`` too only when a table holds one pair under two
    word classes). Word classes named differently — the authors' tables call the religion
    study's ``jewish_stereotype`` ``jew_stereotype`` — are named as in the reference table,
    with a ``UserWarning`` and ``attrs["word_class_mapped"]`` (old → new name) on each
    renamed table.

    Parameters
    ----------
    tables
        Label → long-form cosine table.
    reference
        Label whose row order the aligned tables follow (default: the first).
    min_shared
        Smallest share of every table's rows that must be common to all.

    Returns
    -------
    aligned : dict of str to DataFrame
        The tables restricted to the shared pairs, all in the same row order.
    unmatched : DataFrame
        One row per word pair absent from at least one table (the key columns and
        ``missing_from``, the labels that lack it). A ``UserWarning`` names them too.

    Raises
    ------
    ValueError
        A table with repeated word pairs, tables sharing fewer than ``min_shared`` of
        any table's rows (different vocabularies or studies), or word classes that do not
        map one-to-one onto the reference's.

    Examples
    --------
    The vocabulary of ``b`` lacks the neutral word ``chair``: its rows are left out of
    both tables (with a warning), and listed.

    >>> import warnings
    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.tables import cosine_table
    >>> from embias.wordlists import Study
    >>> words = ["he", "she", "strong", "gentle", "table", "chair"]
    >>> vectors = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [0.6, 0.8], [0.8, 0.6]],
    ...                    dtype=np.float32)
    >>> study = Study.from_dicts("toy", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["strong"], "f": ["gentle"]},
    ...                          neutral=["table", "chair"])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tables = {"a": cosine_table(keyed_vectors(words, vectors), study),
    ...               "b": cosine_table(keyed_vectors(words[:5], vectors[:5]), study)}
    ...     aligned, unmatched = align_tables(tables, min_shared=0.5)
    >>> len(tables["a"]), len(aligned["a"]), len(aligned["b"])
    (8, 6, 6)
    >>> unmatched
      protected_word word_to_compare connection missing_from
    0             he           chair       none            b
    1            she           chair       none            b
    """
    if not tables:
        raise ValueError("align_tables() needs at least one table, got none")
    reference = next(iter(tables)) if reference is None else reference
    if reference not in tables:
        raise ValueError(f"reference={reference!r} is not one of the tables {list(tables)}")
    min_shared = check_share("min_shared", min_shared)
    key = _key_columns(tables)
    keyed: dict[str, pd.DataFrame] = {}
    for label, table in tables.items():
        k = table[key].astype(str)
        dup = k.duplicated(keep=False)
        if dup.any():
            ex = [tuple(r) for r in k[dup].drop_duplicates().head(3).itertuples(index=False)]
            raise ValueError(f"embedding {label!r}: {int(dup.sum())} rows share their word "
                             f"pair {key} with another row, e.g. {ex}; drop duplicate rows "
                             "before comparing (a pair must be one row)")
        keyed[label] = k
    index = {label: pd.MultiIndex.from_frame(k) for label, k in keyed.items()}
    union = pd.MultiIndex.from_frame(
        pd.concat(list(keyed.values()), ignore_index=True).drop_duplicates())
    present = pd.DataFrame({label: union.isin(ix) for label, ix in index.items()})
    shared = present.all(axis=1).to_numpy()
    n_shared = int(shared.sum())
    too_few = {label: (n_shared, len(tables[label])) for label in tables
               if n_shared < min_shared * len(tables[label])}
    if too_few:
        detail = ", ".join(f"{label}: {s} of {n} rows" for label, (s, n) in too_few.items())
        raise ValueError(f"the embeddings' tables share too few rows ({detail}; at least "
                         f"min_shared={min_shared:g} of every table must be common): they "
                         "do not have the same vocabularies (or are not the same study); "
                         "compare embeddings over the same words, or lower min_shared")
    unmatched = union[~shared].to_frame(index=False)
    absent = present[~shared]
    unmatched["missing_from"] = [", ".join(c for c in absent.columns if not row[c])
                                 for _, row in absent.iterrows()]
    if not unmatched.empty:
        parts = []
        for label in tables:
            lost = unmatched[~present.loc[~shared, label].to_numpy()]
            if len(lost):
                words = sorted(set(lost["word_to_compare"]) | set(lost["protected_word"]))
                parts.append(f"{label} lacks {len(lost)} (words involved: {words[:15]}"
                             f"{' …' if len(words) > 15 else ''})")
        warnings.warn(f"{len(unmatched)} word pairs are not in every embedding's table and are "
                      f"left out of the comparison: {'; '.join(parts)} (listed in "
                      "EmbeddingComparison.unmatched)", UserWarning, stacklevel=2)
    order = index[reference][index[reference].isin(union[shared])]
    aligned = {}
    for label, table in tables.items():
        pos = index[label].get_indexer(order)
        part = table.iloc[pos].reset_index(drop=True)
        part.attrs = dict(table.attrs)
        aligned[label] = part
    mapped = _map_word_classes(aligned, reference)
    if mapped:
        detail = "; ".join(f"{label}: " + ", ".join(f"{old!r} → {new!r}"
                                                     for old, new in mapping.items())
                           for label, mapping in mapped.items())
        warnings.warn(f"word classes named differently but holding the same word pairs are "
                      f"named as in {reference!r}: {detail}", UserWarning, stacklevel=2)
    return aligned, unmatched


def difference_table(
    table: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    label: str = "embedding",
    reference_label: str = "reference",
) -> pd.DataFrame:
    """Paired differences d = y(table) − y(reference) of two aligned cosine tables.

    Parameters
    ----------
    table, reference
        Cosine tables with the same word pairs in the same order (as in
        :attr:`EmbeddingComparison.tables`).
    label, reference_label
        Names of the two embeddings (for the ``embedding`` column and messages).

    Returns
    -------
    pandas.DataFrame
        The reference's rows with ``cosine_distance`` = d, ``distance`` = y(table) and
        ``reference_distance`` = y(reference); ``embedding`` = ``"LABEL − REFERENCE"``.

    Raises
    ------
    ValueError
        The tables are not aligned (different rows or order), or every difference is
        exactly 0 (identical tables: the change is exactly 0, there is nothing to fit).

    Examples
    --------
    ``b`` moves ``table`` from cosine 0.6 to 0.8 with ``he`` (and 0.8 to 0.6 with
    ``she``): distance differences −0.2 and +0.2, the other pairs 0.

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.tables import cosine_table
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "strong", "gentle", "table"], np.array(
    ...     [[1, 0], [0, 1], [1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32))
    >>> study = Study.from_dicts("toy", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["strong"], "f": ["gentle"]},
    ...                          neutral=["table"])
    >>> kv_b = keyed_vectors(["he", "she", "strong", "gentle", "table"], np.array(
    ...     [[1, 0], [0, 1], [1, 0], [0, 1], [0.8, 0.6]], dtype=np.float32))
    >>> changes = difference_table(cosine_table(kv_b, study), cosine_table(kv, study),
    ...                            label="b", reference_label="a")
    >>> changes[["protected_word", "word_to_compare", "cosine_distance"]]
      protected_word word_to_compare  cosine_distance
    0             he          strong              0.0
    1             he          gentle              0.0
    2             he           table             -0.2
    3            she          strong              0.0
    4            she          gentle              0.0
    5            she           table              0.2
    """
    key = _key_columns({"a": table, "b": reference})
    if len(table) != len(reference) or not (
            table[key].astype(str).to_numpy() == reference[key].astype(str).to_numpy()).all():
        raise ValueError(f"tables of {label!r} and {reference_label!r} are not aligned (same "
                         f"word pairs {key} in the same order); use compare_embeddings(), "
                         "which aligns them")
    y = table["cosine_distance"].to_numpy(dtype=float)
    y_ref = reference["cosine_distance"].to_numpy(dtype=float)
    d = y - y_ref
    if not np.any(d != 0):
        raise ValueError(f"embedding {label!r} gives exactly the same cosine distances as "
                         f"the reference {reference_label!r} in all {len(d)} rows: the change "
                         "is exactly 0 and there is nothing to estimate (is it the same "
                         "embedding twice?)")
    cols = [c for c in ("protected_word", "protected_class", "word_to_compare", "word_class",
                        "connection") if c in reference.columns]
    out = reference[cols].copy().reset_index(drop=True)
    out["cosine_distance"] = d
    out["distance"] = y
    out["reference_distance"] = y_ref
    out["embedding"] = f"{label} − {reference_label}"
    out.attrs = {"study": str(reference.attrs.get("study", "")), "embedding": label,
                 "reference": reference_label, "differences": True}
    return out

