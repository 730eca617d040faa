"""Building a cosine table from embeddings and a study's word lists: :func:`cosine_table`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from .._validation import check_choice, check_distinct_lists
from ..embeddings import is_uncased, load_named_embeddings, lookup_words
from ..wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors


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
