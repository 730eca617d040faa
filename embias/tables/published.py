"""The authors' released cosine tables: :func:`load_published_table`, :func:`published_name`."""

from __future__ import annotations

import warnings
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .._validation import UnknownNameError, check_choice, close_match_hint
from ..embeddings import MissingWords, MissingWordsError
from ..wordlists import BUILTIN_STUDIES, load_study
from .schema import check_numbers, validate_table

PUBLISHED_STUDIES: tuple[str, ...] = ("religion", "race", "gender", "weat1", "weat7")
PUBLISHED_EMBEDDINGS: tuple[str, ...] = ("reddit", "google", "glove", "reddit-debiased")
#: the code the authors used for a comparison whose word was missing
PUBLISHED_MISSING_CODE = -100.0


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
    check_numbers(raw, ("cosine_distance", "cosine_similarity"), what=f"{what} ({path.name})")

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
