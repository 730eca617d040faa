"""The long-form cosine table: one row per (protected word, compared word).

Columns (DESIGN §4): ``protected_word``, ``protected_class``, ``word_to_compare``,
``word_class``, ``connection`` ∈ {associated, different, human, none},
``cosine_similarity``, ``cosine_distance`` (= 1 − similarity), ``embedding``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from ._validation import (
    UnknownNameError,
    check_choice,
    check_columns,
    check_distinct_lists,
    check_share,
    close_match_hint,
)
from .embeddings import (
    MissingWords,
    MissingWordsError,
    is_uncased,
    load_named_embeddings,
    lookup_words,
)
from .wordlists import BUILTIN_STUDIES, Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

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

TABLE_COLUMNS: tuple[str, ...] = (
    "protected_word",
    "protected_class",
    "word_to_compare",
    "word_class",
    "connection",
    "cosine_similarity",
    "cosine_distance",
    "embedding",
)
CONNECTIONS: tuple[str, ...] = ("associated", "different", "human", "none")
PUBLISHED_STUDIES: tuple[str, ...] = ("religion", "race", "gender", "weat1", "weat7")
PUBLISHED_EMBEDDINGS: tuple[str, ...] = ("reddit", "google", "glove", "reddit-debiased")
#: the code the authors used for a comparison whose word was missing
PUBLISHED_MISSING_CODE = -100.0
#: how far outside [0, 2] a cosine distance may fall by float rounding (float32 vectors)
DISTANCE_TOLERANCE = 1e-6


def compared_word_lists(study: Study) -> dict[str, tuple[str, ...]]:
    """Return the lists a study's protected words are compared with, by label.

    Parameters
    ----------
    study
        The study.

    Returns
    -------
    dict of str to tuple of str
        ``attributes:<class>`` per attribute class, then ``neutral`` and ``human`` when
        the study has such words.

    Examples
    --------
    >>> from embias.wordlists import load_study
    >>> list(compared_word_lists(load_study("weat1")))
    ['attributes:pleasant', 'attributes:unpleasant', 'neutral', 'human']
    """
    lists = {f"attributes:{c}": w for c, w in study.attributes.items()}
    if study.neutral:
        lists["neutral"] = study.neutral
    if study.human:
        lists["human"] = study.human
    return lists


def cosine_table(
    embeddings: KeyedVectors | str,
    study: Study | str,
    *,
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
    embedding_name: str | None = None,
    unassociated: Literal["raise", "different"] = "raise",
) -> pd.DataFrame:
    """Build the long-form table of cosine similarities and distances of a study.

    Every protected word is paired with every attribute word, every neutral and every
    human word. ``connection`` is ``associated`` when the attribute class is the one
    associated with the protected word's class, ``different`` for another class's
    attributes, ``none`` for neutral and ``human`` for human control words. The whole
    table comes from one matrix product of unit vectors (float64).

    Parameters
    ----------
    embeddings
        ``KeyedVectors`` or any source accepted by :func:`embias.load_embeddings`.
    study
        A :class:`~embias.Study` or a shipped study name.
    missing
        Out-of-vocabulary words: ``"warn"`` drops them and warns with every missing word
        grouped by list with the counts kept; ``"raise"`` raises
        :class:`~embias.embeddings.MissingWordsError` (a ``KeyError``). The report is
        attached as ``table.attrs["missing"]`` either way.
    lowercase
        Look words up in lower case; ``None`` detects an uncased vocabulary (GloVe).
    embedding_name
        Value for the ``embedding`` column (default: the source string; for a
        ``KeyedVectors`` the name of the source :func:`embias.load_embeddings` read it
        from, e.g. ``"glove-6b-50d"``, else ``"custom"``).
    unassociated
        A protected class without an associated attribute class (no ``associations``
        given and no attribute class named ``<class>_stereotype`` or ``<class>``):
        ``"raise"`` (default) refuses the study, naming the classes and how to give the
        associations; ``"different"`` labels every attribute row of its words
        ``different``, on purpose (MAC, for one, averages every attribute class alike).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE_COLUMNS`; ``attrs`` holds ``study``, ``missing``
        (list → {missing, kept, total}), ``lowercase`` (the case handling used) and
        ``self_pairs_dropped``.

    Warns
    -----
    UserWarning
        Two entries of one list that are one word after the case handling (``"Muslim"``
        and ``"muslim"`` on GloVe): the first spelling is kept, so every score counts
        the word once. A protected word that is also a compared word: the row comparing
        it with itself (distance 0 by construction) is dropped, listed in
        ``attrs["self_pairs_dropped"]``.

    Raises
    ------
    ValueError
        A protected class without an associated attribute class (unless
        ``unassociated="different"``), a list ends up empty, a vector is zero or not
        finite (names the word), two protected classes hold one word, or one word is in
        two lists whose rows would contradict each other (an attribute word that is also
        a control word or another class's attribute, a neutral word that is also a human
        word, a protected word that is also an attribute word) — the study refuses equal
        strings, this the case variants of an uncased vocabulary.

    Examples
    --------
    Unit vectors in two dimensions: ``he`` is ``strong``, ``she`` is ``gentle``, and
    ``table`` is at cosine 0.6 from ``he`` and 0.8 from ``she``.

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "strong", "gentle", "table"], np.array(
    ...     [[1, 0], [0, 1], [1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32))
    >>> study = Study.from_dicts("toy", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["strong"], "f": ["gentle"]},
    ...                          neutral=["table"])
    >>> table = cosine_table(kv, study)
    >>> table[["protected_word", "word_to_compare", "connection", "cosine_distance"]]
      protected_word word_to_compare  connection  cosine_distance
    0             he          strong  associated              0.0
    1             he          gentle   different              1.0
    2             he           table        none              0.4
    3            she          strong   different              1.0
    4            she          gentle  associated              0.0
    5            she           table        none              0.2
    """
    study = _study_for_table(study, unassociated)
    kv, source_name = load_named_embeddings(embeddings)
    if embedding_name is None:
        embedding_name = source_name
    if lowercase is None:
        lowercase = is_uncased(kv)
    protected_lists = {f"protected:{c}": w for c, w in study.protected.items()}
    compared_lists = compared_word_lists(study)
    words, vectors, report = lookup_words(
        kv,
        {**protected_lists, **compared_lists},
        missing=missing,
        lowercase=lowercase,
        context=f"for study {study.name!r}",
    )
    p_names = list(protected_lists)
    c_names = list(compared_lists)
    # which vector each kept word resolved to, after the case handling: spellings that
    # differ only in case are one word on an uncased vocabulary (GloVe)
    row_of = kv.key_to_index

    def rows(name: str) -> list[int]:
        return [row_of[w.lower() if lowercase else w] for w in words[name]]

    _check_case_variants(study, words, {n: rows(n) for n in p_names}, lowercase=lowercase)
    # A protected word that is also a compared word gives a row comparing a vector with
    # itself: cosine distance 0 by construction, no information about bias, yet it pulls
    # its cell mean down. A warning (naming the words) and dropping those rows, not an
    # error: the overlap can be a legitimate design — the shipped WEAT 10 list has 'Billy',
    # which is the neutral list's 'billy' on uncased GloVe — and the words' other rows
    # are still wanted.
    self_mask = (np.concatenate([rows(n) for n in p_names])[:, None]
                 == np.concatenate([rows(n) for n in c_names])[None, :])
    self_pairs, described = _self_pairs(self_mask, words, p_names, c_names)
    if self_pairs:
        warnings.warn(
            f"study {study.name!r}: protected words that are also compared words: "
            f"{', '.join(described)}; their {len(self_pairs)} self-comparison row(s) (cosine "
            "distance 0 by construction) were dropped, the words' other rows kept",
            UserWarning,
            stacklevel=2,
        )
    p_vec = np.vstack([vectors[n] for n in p_names])
    c_vec = np.vstack([vectors[n] for n in c_names])
    p_vec = p_vec / np.linalg.norm(p_vec, axis=1, keepdims=True)
    c_vec = c_vec / np.linalg.norm(c_vec, axis=1, keepdims=True)
    sim = p_vec @ c_vec.T  # (n_protected, n_compared): the one matrix product
    table = _table_rows(sim, study, words, p_names, c_names, embedding_name=embedding_name)
    if self_pairs:
        table = table.loc[~self_mask.ravel()].reset_index(drop=True)
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding"):
        table[col] = table[col].astype(str)
    table.attrs = {
        "study": study.name,
        "missing": report.as_dict(),
        "lowercase": bool(lowercase),
        "self_pairs_dropped": self_pairs,
    }
    return table


def _study_for_table(study: Study | str, unassociated: str) -> Study:
    """Load the study; refuse a protected class without an associated one, unless asked."""
    study = load_study(study)
    check_choice("unassociated", unassociated, ("raise", "different"))
    if unassociated == "raise" and study.unassociated:
        try:
            study.require_associations()
        except ValueError as exc:
            raise ValueError(f"{exc}. To label their attribute rows 'different' on purpose "
                             "(e.g. for MAC, which averages every attribute class alike), "
                             "pass unassociated='different' to cosine_table()/study_table()"
                             ) from None
    return study


def _check_case_variants(study: Study, words: Mapping[str, list[str]],
                         protected_rows: Mapping[str, list[int]], *, lowercase: bool) -> None:
    """Refuse words the study keeps apart that are one word in these embeddings.

    The study refuses equal strings in two protected classes or two roles; here the same
    for spellings that differ only in case, looked up in lower case (one vector).
    """
    how = "looked up in lower case" if lowercase else "looked up as given"
    first_class: dict[int, tuple[str, str]] = {}
    for name, rows in protected_rows.items():
        cls = name.removeprefix("protected:")
        for w, r in zip(words[name], rows, strict=True):
            if r in first_class:
                other, other_cls = first_class[r]
                raise ValueError(
                    f"study {study.name!r}: the protected words {other!r} (class "
                    f"{other_cls!r}) and {w!r} (class {cls!r}) are one word in these "
                    f"embeddings ({how}); a word can belong to one protected class only")
            first_class[r] = (w, cls)
    lists, pairs = study.role_lists()
    lookup_name = {**{f"protected[{c!r}]": f"protected:{c}" for c in study.protected},
                   **{f"attributes[{c!r}]": f"attributes:{c}" for c in study.attributes},
                   "neutral": "neutral", "human": "human"}
    check_distinct_lists({label: words.get(lookup_name[label], []) for label in lists},
                         pairs=pairs, key=str.lower if lowercase else None,
                         context=f"study {study.name!r} ({how} in these embeddings): ")


def _self_pairs(self_mask: np.ndarray, words: Mapping[str, list[str]], p_names: list[str],
                c_names: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Return the (protected word, compared word) pairs of one vector, and their words.

    ``self_mask`` marks them (protected rows × compared columns); each is described by
    its words, the protected class and the compared list, for the warning.
    """
    pairs: list[tuple[str, str]] = []
    described: list[str] = []
    if not self_mask.any():
        return pairs, described
    p_words = [w for n in p_names for w in words[n]]
    p_cls = [n.removeprefix("protected:") for n in p_names for _ in words[n]]
    c_words = [w for n in c_names for w in words[n]]
    c_labels = [n if ":" not in n else f"attribute class {n.split(':', 1)[1]!r}"
                for n in c_names for _ in words[n]]
    for i, j in zip(*np.nonzero(self_mask), strict=True):
        pairs.append((p_words[i], c_words[j]))
        described.append(f"{p_words[i]!r} (class {p_cls[i]!r}) is {c_words[j]!r} "
                         f"({c_labels[j]})")
    return pairs, described


def _table_rows(sim: np.ndarray, study: Study, words: Mapping[str, list[str]],
                p_names: list[str], c_names: list[str], *, embedding_name: str
                ) -> pd.DataFrame:
    """Lay the similarities (protected × compared words) out as one row per pair."""
    p_word = np.concatenate([words[n] for n in p_names]).astype(object)
    p_class = np.concatenate([[n.removeprefix("protected:")] * len(words[n]) for n in p_names])
    c_word = np.concatenate([words[n] for n in c_names]).astype(object)
    c_class = np.concatenate(
        [[n.split(":", 1)[-1]] * len(words[n]) for n in c_names]
    ).astype(object)
    c_kind = np.concatenate([[n.split(":", 1)[0]] * len(words[n]) for n in c_names])

    n_p, n_c = sim.shape
    pw_class = np.repeat(p_class, n_c)
    cw_class = np.tile(c_class, n_p)
    cw_kind = np.tile(c_kind, n_p)
    assoc = np.array([study.associations.get(c, None) for c in pw_class], dtype=object)
    connection = np.where(
        cw_kind == "neutral",
        "none",
        np.where(cw_kind == "human", "human",
                 np.where(cw_class == assoc, "associated", "different")),
    )
    similarity = sim.ravel()
    return pd.DataFrame(
        {
            "protected_word": np.repeat(p_word, n_c),
            "protected_class": pw_class,
            "word_to_compare": np.tile(c_word, n_p),
            "word_class": np.where(cw_kind == "attributes", cw_class, cw_kind),
            "connection": connection,
            "cosine_similarity": similarity,
            "cosine_distance": 1.0 - similarity,
            "embedding": embedding_name,
        }
    )


#: Columns that, with ``protected_word`` and ``word_to_compare``, identify a row of a
#: cosine table when the table has them (sentence tables: the templates; several
#: embeddings in one table: the embedding).
ROW_KEY_EXTRA: tuple[str, ...] = ("template", "compared_template", "embedding")
#: Rows named in full in a message about bad rows.
_SHOWN_ROWS = 5


def _row_list(table: pd.DataFrame, positions: np.ndarray, describe: Callable[[int], str]
              ) -> str:
    """Name the rows at ``positions``: ``row 3 (…), row 7 (…) and 4 more``."""
    shown = ", ".join(f"row {table.index[i]!r} ({describe(int(i))})"
                      for i in positions[:_SHOWN_ROWS])
    more = f" and {positions.size - _SHOWN_ROWS} more" if positions.size > _SHOWN_ROWS else ""
    return shown + more


def _check_numbers(table: pd.DataFrame, columns: tuple[str, ...], *, what: str) -> None:
    """Refuse a column with an entry that is not a number (``'abc'`` read from a CSV).

    The message names the column, the rows (index labels) and the values.
    """
    for column in columns:
        if column not in table.columns or pd.api.types.is_numeric_dtype(table[column]):
            continue
        values = table[column]
        numbers = pd.to_numeric(values, errors="coerce")
        bad = np.flatnonzero(numbers.isna().to_numpy() & values.notna().to_numpy())
        if bad.size:
            def value_at(i: int, column_values: pd.Series = values) -> str:
                return repr(column_values.iat[i])

            shown = _row_list(table, bad, value_at)
            raise ValueError(f"{what}: column {column!r} has {bad.size} value(s) that are not "
                             f"numbers: {shown}; every {column} must be a number (fix the "
                             "file or drop those rows)")


def validate_table(table: pd.DataFrame, *, what: str = "table") -> pd.DataFrame:
    """Check that ``table`` is a usable long-form cosine table; return it.

    A row is identified by its protected word and compared word, plus each of
    :data:`ROW_KEY_EXTRA` (``template``, ``compared_template``, ``embedding``) the table
    has: a second row with the same key would be fitted and averaged as if it were more
    data, so it is refused — except the exact duplicates :func:`load_published_table`
    kept on request (``attrs["duplicates_kept"]``), which reproduce the authors' tables.

    Raises
    ------
    ValueError
        Missing columns, values that are not numbers (names the column and the rows),
        non-finite distances, distances outside [0, 2] (beyond float rounding,
        :data:`DISTANCE_TOLERANCE`), a ``cosine_similarity`` that is not 1 − the distance
        (beyond the same tolerance), rows repeating another row's key (names them with
        their index), or unknown connection labels.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"protected_word": ["he", "she"],
    ...                       "word_to_compare": ["table", "table"],
    ...                       "connection": ["none", "none"], "cosine_distance": [0.4, 2.5]})
    >>> validate_table(table)
    Traceback (most recent call last):
    ...
    ValueError: table has 1 cosine distances outside [0, 2] (a cosine distance is 1 − cosine
    similarity): row 1 ('she', 'table'): 2.5
    """
    need = ("protected_word", "word_to_compare", "connection", "cosine_distance")
    check_columns(table, need, name=what, hint=f"a cosine table needs {list(need)}")
    if table.empty:
        raise ValueError(f"{what} has no rows")
    _check_numbers(table, ("cosine_distance", "cosine_similarity"), what=what)
    dist = pd.to_numeric(table["cosine_distance"]).to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(dist))
    if bad.size:
        ex = table.iloc[bad[:3]][["protected_word", "word_to_compare"]].to_records(index=False)
        raise ValueError(f"{what} has {bad.size} NaN/infinite cosine distances (e.g. "
                         f"{[tuple(r) for r in ex]}); drop or fix those rows")
    # the paired differences of two tables (difference_table, attrs["differences"]) lie
    # in [−2, 2]; cosine distances in [0, 2]
    low = -2.0 if table.attrs.get("differences") else 0.0
    out = np.flatnonzero((dist < low - DISTANCE_TOLERANCE) | (dist > 2 + DISTANCE_TOLERANCE))
    if out.size and low < 0:
        raise ValueError(f"{what} has {out.size} paired differences of cosine distances "
                         f"outside [−2, 2], e.g. {float(dist[out[0]])!r}")

    def pair(i: int) -> str:
        return f"{table['protected_word'].iat[i]!r}, {table['word_to_compare'].iat[i]!r}"

    if out.size:
        shown = ", ".join(f"row {table.index[i]} ({pair(i)}): {float(dist[i])!r}"
                          for i in out[:5])
        more = f" and {out.size - 5} more" if out.size > 5 else ""
        raise ValueError(f"{what} has {out.size} cosine distances outside [0, 2] (a cosine "
                         f"distance is 1 − cosine similarity): {shown}{more}")
    if "cosine_similarity" in table.columns:
        sim = pd.to_numeric(table["cosine_similarity"]).to_numpy(dtype=float)
        gap = np.abs(dist - (1.0 - sim))
        off = np.flatnonzero(~(gap <= DISTANCE_TOLERANCE))  # NaN similarities too
        if off.size:
            shown = _row_list(table, off, lambda i: f"{pair(i)}: distance {float(dist[i])!r}, "
                                                    f"similarity {float(sim[i])!r}")
            raise ValueError(f"{what} has {off.size} row(s) whose cosine_distance is not 1 − "
                             f"cosine_similarity (beyond {DISTANCE_TOLERANCE:g}): {shown}; "
                             "the two columns must describe the same cosine — fix or drop "
                             "one of them")
    unknown = sorted(set(table["connection"].unique()) - set(CONNECTIONS))
    if unknown:
        raise ValueError(f"{what} has unknown connection labels {unknown}; allowed: "
                         f"{list(CONNECTIONS)}")
    _check_repeated_rows(table, what=what)
    return table


def _check_repeated_rows(table: pd.DataFrame, *, what: str) -> None:
    """Refuse rows that repeat another row's key (see :func:`validate_table`)."""
    key = ["protected_word", "word_to_compare",
           *(c for c in ROW_KEY_EXTRA if c in table.columns)]
    repeated = table.duplicated(key, keep="first").to_numpy()
    if not repeated.any():
        return
    kept = int(table.attrs.get("duplicates_kept", 0) or 0)
    if repeated.sum() <= kept and (repeated == table.duplicated(keep="first").to_numpy()).all():
        return  # the published table's exact duplicates, kept on request
    first = (pd.Series(np.arange(len(table)))
             .groupby([table[c].to_numpy() for c in key], sort=False, dropna=False)
             .transform("first").to_numpy())
    rows = np.flatnonzero(repeated)
    shown = _row_list(table, rows, lambda i: "repeats row "
                      f"{table.index[first[i]]!r}: "
                      + ", ".join(repr(table[c].iat[i]) for c in key))
    raise ValueError(f"{what} has {rows.size} row(s) repeating the {key} of another row: "
                     f"{shown}. Each pair must be one row — a repeated row would be fitted "
                     "and averaged as if it were more data; drop the repeats "
                     f"(table.drop_duplicates(subset={key})) or fix the table")


def _published_file(study: str, embedding: str) -> str:
    if embedding == "reddit-debiased":
        if study not in ("religion", "race", "gender"):
            raise ValueError(f"no hard-debiased published table for study {study!r}; "
                             "'reddit-debiased' exists for religion, race and gender")
        return f"debiased_{study}_reddit.csv.gz"
    if study.startswith("weat"):
        return f"weat_{study.removeprefix('weat')}_{embedding}.csv.gz"
    return f"{study}_group_{embedding}_dataset.csv.gz"


def _published_key(study: str, embedding: str) -> tuple[str, str]:
    """Normalise and check a published table's names as :func:`embias.load_study` does.

    Any case, ``-``/``_`` ignored in the study: ``'Religion'``, ``'WEAT-7'``.
    """
    key = str(study).lower().replace("-", "").replace("_", "")
    if key not in PUBLISHED_STUDIES:
        # no "did you mean" for a shipped study the authors published no table for
        hint = "" if key in BUILTIN_STUDIES else close_match_hint(key, PUBLISHED_STUDIES)
        raise UnknownNameError(f"no published table for study {study!r}; available: "
                               f"{list(PUBLISHED_STUDIES)}{hint}")
    name = str(embedding).lower()
    if name not in PUBLISHED_EMBEDDINGS:
        raise UnknownNameError(f"unknown published embedding {embedding!r}; available: "
                               f"{list(PUBLISHED_EMBEDDINGS)}"
                               f"{close_match_hint(name, PUBLISHED_EMBEDDINGS)}")
    return key, name


def _published_dir() -> Path:
    return Path(str(resources.files("embias") / "data" / "published"))


def load_published_table(
    study: str,
    embedding: str,
    *,
    duplicates: Literal["keep", "drop", "raise"] = "keep",
    missing: Literal["warn", "raise"] = "warn",
) -> pd.DataFrame:
    """Load the authors' released cosine table (Dobrzeniecka & Urbaniak; MIT licence).

    Parameters
    ----------
    study
        One of :data:`PUBLISHED_STUDIES`: religion, race, gender, weat1, weat7.
    embedding
        One of :data:`PUBLISHED_EMBEDDINGS`: ``reddit`` (Manzini's L2-Reddit word2vec),
        ``google`` (GoogleNews word2vec), ``glove`` (their GloVe), ``reddit-debiased``
        (Manzini's hard-debiased Reddit; religion/race/gender only).
    duplicates
        Exact duplicate rows (the race tables repeat 2,608 rows): ``"keep"`` keeps them
        and warns — the authors fitted them, so their figures are reproduced with them;
        ``table.attrs["duplicates_kept"]`` records the count, which lets
        :func:`validate_table` (and the fits) accept these repeats, and no others —
        ``"drop"`` drops them (still reported), ``"raise"`` raises.
        ``table.attrs["duplicates"]`` always holds the count.
    missing
        Rows the authors coded as −100 (a word missing from their embedding) are
        dropped: ``"warn"`` warns with the count per list; ``"raise"`` raises. The
        counts per list are in ``table.attrs["missing"]``.

    Returns
    -------
    pandas.DataFrame
        Same columns as :func:`cosine_table` (``protected_class`` from the shipped
        study's lists, ``embedding`` = ``"published:<embedding>"``).

    Raises
    ------
    ValueError
        An unknown study or embedding (``UnknownNameError``, a ValueError),
        duplicates with ``duplicates="raise"``, or a value that is not a number.
    MissingWordsError
        Rows coded missing, with ``missing="raise"``.

    Examples
    --------
    >>> table = load_published_table("religion", "glove")
    >>> table.shape, table["embedding"].iloc[0], table.attrs["duplicates"]
    ((4815, 8), 'published:glove', 0)
    """
    study, embedding = _published_key(study, embedding)
    check_choice("duplicates", duplicates, ("keep", "drop", "raise"))
    check_choice("missing", missing, ("warn", "raise"))
    path = _published_dir() / _published_file(study, embedding)
    raw = pd.read_csv(path, index_col=0)
    what = f"published table {study}/{embedding}"
    _check_numbers(raw, ("cosine_distance", "cosine_similarity"), what=f"{what} ({path.name})")

    n_dup = int(raw.duplicated().sum())
    if n_dup:
        msg = (f"{what}: {n_dup} of {len(raw)} rows are exact duplicates of other rows "
               f"(words that sit in several lists)")
        if duplicates == "raise":
            raise ValueError(msg)
        if duplicates == "drop":
            raw = raw.drop_duplicates()
            warnings.warn(f"{msg}; dropped as asked (duplicates='drop')", UserWarning,
                          stacklevel=2)
        else:
            warnings.warn(f"{msg}; kept — pass duplicates='drop' to drop them", UserWarning,
                          stacklevel=2)

    coded = np.isclose(raw["cosine_distance"].to_numpy(dtype=float), PUBLISHED_MISSING_CODE)
    counts = raw.loc[coded].groupby("word_class").size()
    totals = raw.groupby("word_class").size()
    report = MissingWords(
        missing={},
        kept={c: int(totals[c] - counts.get(c, 0)) for c in totals.index},
        total={c: int(totals[c]) for c in totals.index},
    )
    if coded.any():
        all_coded = raw.assign(coded=coded).groupby("word_to_compare")["coded"].all()
        words = all_coded.index[all_coded.to_numpy()]
        per_list = ", ".join(f"{c}: {int(n)} of {int(totals[c])}" for c, n in counts.items())
        msg = (f"{what}: {int(coded.sum())} of {len(raw)} rows are coded "
               f"{PUBLISHED_MISSING_CODE:g} (word missing from the authors' embedding) — rows "
               f"per word_class: {per_list}; compared words missing in every row "
               f"({len(words)}): {list(words)}")
        if missing == "raise":
            raise MissingWordsError(report, msg)
        warnings.warn(msg + "; these rows are dropped", UserWarning, stacklevel=2)
        raw = raw.loc[~coded]

    class_of = load_study(study).protected_class_of()
    unknown = sorted(set(raw["protected_word"]) - set(class_of))
    if unknown:
        raise ValueError(f"{what}: protected words {unknown} are not in the shipped "
                         f"study {study!r}")
    table = pd.DataFrame(
        {
            "protected_word": raw["protected_word"].astype(str),
            "protected_class": raw["protected_word"].map(class_of).astype(str),
            "word_to_compare": raw["word_to_compare"].astype(str),
            "word_class": raw["word_class"].astype(str),
            "connection": raw["connection"].astype(str),
            "cosine_similarity": raw["cosine_similarity"].astype(float),
            "cosine_distance": raw["cosine_distance"].astype(float),
            "embedding": f"published:{embedding}",
        }
    ).reset_index(drop=True)
    table.attrs = {
        "study": study,
        "source": f"Dobrzeniecka & Urbaniak (MIT licence), {path.name}",
        "duplicates": n_dup,
        "duplicates_dropped": duplicates == "drop",
        "duplicates_kept": n_dup if duplicates == "keep" else 0,
        "missing": {c: {"coded_missing": int(counts.get(c, 0)), "total": int(totals[c])}
                    for c in totals.index},
    }
    validate_table(table, what=what)
    return table


def summarize_table(table: pd.DataFrame) -> pd.DataFrame:
    """Summarize a cosine table per connection: rows, words and distance statistics.

    Parameters
    ----------
    table
        A cosine table.

    Returns
    -------
    pandas.DataFrame
        One row per connection (in the order of ``embias.tables.CONNECTIONS``):
        ``connection``, ``rows``,
        ``protected_words``, ``compared_words`` and the ``mean``, ``std``, ``min`` and
        ``max`` of the cosine distance.

    Raises
    ------
    ValueError
        ``table`` is not a valid cosine table (:func:`validate_table`).

    Examples
    --------
    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.wordlists import Study
    >>> kv = keyed_vectors(["he", "she", "strong", "gentle", "table"], np.array(
    ...     [[1, 0], [0, 1], [1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32))
    >>> study = Study.from_dicts("toy", protected={"m": ["he"], "f": ["she"]},
    ...                          attributes={"m": ["strong"], "f": ["gentle"]},
    ...                          neutral=["table"])
    >>> summarize_table(cosine_table(kv, study))
       connection  rows  protected_words  compared_words  mean       std  min  max
    0  associated     2                2               2   0.0  0.000000  0.0  0.0
    1   different     2                2               2   1.0  0.000000  1.0  1.0
    2        none     2                2               1   0.3  0.141421  0.2  0.4
    """
    validate_table(table)
    grouped = table.groupby("connection", sort=False)
    out = grouped["cosine_distance"].agg(["count", "mean", "std", "min", "max"])
    out.insert(1, "protected_words", grouped["protected_word"].nunique())
    out.insert(2, "compared_words", grouped["word_to_compare"].nunique())
    order = [c for c in CONNECTIONS if c in out.index]
    return out.loc[order].rename(columns={"count": "rows"}).reset_index()



def published_name(study: str, source: str) -> str:
    """Check a ``"published:NAME"`` source for ``study``; return ``NAME``.

    Parameters
    ----------
    study
        The study's name.
    source
        ``"published:NAME"``, NAME one of :data:`PUBLISHED_EMBEDDINGS`.

    Returns
    -------
    str
        NAME, in lower case.

    Raises
    ------
    ValueError
        Unknown published table, or a study the authors published no table for.

    Examples
    --------
    >>> published_name("religion", "published:GloVe")
    'glove'
    >>> published_name("weat3", "published:glove")
    Traceback (most recent call last):
    ...
    ValueError: the authors published no table for study 'weat3'; published studies: [...]
    """
    name = source.removeprefix("published:").lower()
    if name not in PUBLISHED_EMBEDDINGS:
        raise ValueError(f"unknown published table {source!r}; available: "
                         f"{['published:' + e for e in PUBLISHED_EMBEDDINGS]}")
    if str(study).lower().replace("-", "").replace("_", "") not in PUBLISHED_STUDIES:
        raise ValueError(f"the authors published no table for study {study!r}; "
                         f"published studies: {list(PUBLISHED_STUDIES)}")
    return name


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


# =========================================================================== alignment
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

