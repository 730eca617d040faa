"""The long-form table of a study on a sentence encoder, its words put in templates.

How a row of the table is formed
--------------------------------
The table has the columns of the cosine tables (:data:`embias.tables.TABLE_COLUMNS`), so
:func:`embias.tables.validate_table`, the classic scores and the Bayesian fits read it as
they read a cosine table, plus ``template`` and ``sentence``. With ``pairing="mean"`` (the
default) there is **one row per (protected word, template, compared word)**: the protected
word is put in the template (``sentence``), the compared word in each of *its* templates,
and the row's cosine similarity is the mean of the cosines between the protected sentence
and the compared word's sentences (``n_compared_sentences`` of them). So every row
belongs to one protected-side template and one compared word — the crossing a model with
a random effect per compared word and one per template needs — and the mean over a
compared word's templates is the quantity SEAT averages (SEAT's s(x, A, B) weights the
words of A by their number of templates; the table weights them equally). The two sides
cannot share one template in general: May et al.'s sets differ by kind ("This will
{term}." takes verbs only), so a flower and the verb *kill* have no template in common.
With ``pairing="all"`` there is one row per *pair of sentences* (``compared_template`` and
``compared_sentence`` added): the full cross SEAT compares, a table as long as the number
of protected sentences times the number of compared sentences. Each distinct sentence is
encoded once (:class:`embias.encoders.SentenceEncoder` remembers them across calls).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_choice
from ..tables import compared_word_lists, validate_table
from ..wordlists import Study, load_study
from ._common import SHIPPED
from .templates import template_spec, word_sentences

#: How rows pair sentences (see the module docstring).
PAIRINGS: tuple[str, ...] = ("mean", "all")


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def sentence_table(
    encoder: Any,
    study: Study | str,
    *,
    templates: Any = SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
    pairing: Literal["mean", "all"] = "mean",
    embedding_name: str | None = None,
) -> pd.DataFrame:
    """Build the long-form table of a study on a sentence encoder, words put in templates.

    Parameters
    ----------
    encoder
        Anything :func:`embias.encoders.as_encoder` accepts; ``None`` for the offline
        default all-MiniLM-L6-v2.
    study
        A :class:`~embias.Study` or a shipped study name.
    templates, word_kinds
        Which sentences each word is put in (see :func:`word_sentences`).
    pairing
        ``"mean"`` (default): one row per (protected word, template, compared word), the
        cosine the mean over the compared word's sentences; ``"all"``: one row per pair
        of sentences. See the module docstring.
    embedding_name
        Value of the ``embedding`` column (default: the encoder's name).

    Returns
    -------
    pandas.DataFrame
        The columns of a cosine table (:data:`embias.tables.TABLE_COLUMNS`) then
        ``template`` and ``sentence`` (the protected word's), and ``n_compared_sentences``
        (``"mean"``) or ``compared_template`` and ``compared_sentence`` (``"all"``).
        ``attrs``: ``study``, ``encoder``, ``templates``, ``pairing``, ``word_kinds``
        (word → kind), ``unknown_kind`` (words that took the fallback templates),
        ``sentences`` (distinct sentences encoded), ``missing`` (empty: an encoder has no
        vocabulary) and ``self_pairs_dropped``.

    Warns
    -----
    UserWarning
        Words of unknown kind; a protected word that is also a compared word (its rows
        with itself are dropped, as in :func:`embias.cosine_table`).

    Raises
    ------
    ValueError
        Bad templates or kinds (see :func:`word_sentences`), an unknown pairing, or an
        encoder answer of the wrong shape, with NaN or with zero vectors.

    Examples
    --------
    A toy encoder whose sentence vector is its word's: with two templates the table has
    4 protected words × 2 templates × 4 compared words = 32 rows, and cos(he, strong) =
    1/√1.04, a distance of 0.0194.

    >>> import numpy as np
    >>> from embias.wordlists import Study
    >>> VECTORS = {"he": [1, 0], "him": [0.9, 0.1], "she": [0, 1], "her": [0.1, 0.9],
    ...            "strong": [1, 0.2], "tough": [0.8, 0.1], "gentle": [0.1, 1],
    ...            "kind": [0.2, 0.8]}
    >>> def encode(sentences):  # a sentence's vector is its last word's
    ...     return np.array([VECTORS[s.split()[-1].rstrip(".").lower()] for s in sentences])
    >>> study = Study.from_dicts("toy", protected={"m": ["he", "him"], "f": ["she", "her"]},
    ...                          attributes={"m": ["strong", "tough"],
    ...                                      "f": ["gentle", "kind"]})
    >>> table = sentence_table(encode, study, templates=["This is {term}.", "Here is {term}."])
    >>> table.shape
    (32, 11)
    >>> table[["protected_word", "template", "word_to_compare", "cosine_distance"]].head(2)
      protected_word         template word_to_compare  cosine_distance
    0             he  This is {term}.          strong           0.0194
    1             he  This is {term}.           tough           0.0077
    """
    from ..encoders import as_encoder

    pairing = check_choice("pairing", pairing, PAIRINGS)
    spec = template_spec(templates)
    study = load_study(study)
    study.require_associations()
    enc = as_encoder(encoder)
    name = enc.name if embedding_name is None else embedding_name
    protected_lists = {c: w for c, w in study.protected.items()}
    compared_lists = compared_word_lists(study)
    all_words = [w for ws in (*protected_lists.values(), *compared_lists.values()) for w in ws]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sentences = word_sentences(all_words, templates=spec, word_kinds=word_kinds)
    for w in caught:
        warnings.warn(str(w.message), w.category, stacklevel=2)
    by_word = {w: g for w, g in sentences.groupby("word", sort=False)}
    distinct = list(dict.fromkeys(sentences["sentence"]))
    vectors = _unit(enc(distinct))
    index = {s: i for i, s in enumerate(distinct)}
    p = _sentence_side(protected_lists, by_word)
    c = _sentence_side(compared_lists, by_word)
    sim = vectors[[index[s] for s in p["sentence"]]] @ vectors[[index[s] for s in c["sentence"]]].T
    if pairing == "mean":
        sim, c_cols = _mean_over_compared_sentences(sim, c)
    else:
        c_cols = dict(c)
    table = _sentence_rows(sim, p, c_cols, study, embedding_name=name)
    self_rows = (table["protected_word"] == table["word_to_compare"]).to_numpy()
    self_pairs: list[tuple[str, str]] = []
    if self_rows.any():
        pairs = table.loc[self_rows, ["protected_word", "word_class"]].drop_duplicates()
        self_pairs = [(w, w) for w in pairs["protected_word"]]
        described = ", ".join(f"{w!r} ({cls})" for w, cls in pairs.itertuples(index=False))
        warnings.warn(f"study {study.name!r}: protected words that are also compared words: "
                      f"{described}; their {int(self_rows.sum())} row(s) comparing the word "
                      "with itself were dropped, the words' other rows kept", UserWarning,
                      stacklevel=2)
        table = table.loc[~self_rows].reset_index(drop=True)
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding", "template", "sentence",
                *(("compared_template", "compared_sentence") if pairing == "all" else ())):
        table[col] = table[col].astype(str)
    kinds = sentences.drop_duplicates("word").set_index("word")["kind"].to_dict()
    table.attrs = {
        "study": study.name,
        "encoder": enc.name,
        "templates": spec if isinstance(spec, str) else "custom",
        "pairing": pairing,
        "word_kinds": kinds,
        "unknown_kind": list(sentences.attrs.get("unknown_kind", [])),
        "sentences": len(distinct),
        "missing": {},
        "self_pairs_dropped": self_pairs,
    }
    return validate_table(table, what=f"sentence table of {study.name!r}")


def _sentence_side(lists: Mapping[str, Sequence[str]], by_word: Mapping[str, pd.DataFrame]
                   ) -> dict[str, np.ndarray]:
    """Lay out one side's sentences: ``list``, ``word``, ``template``, ``sentence``."""
    parts: dict[str, list[Any]] = {k: [] for k in ("list", "word", "template", "sentence")}
    for label, words in lists.items():
        for w in words:
            g = by_word[w]
            parts["list"] += [label] * len(g)
            parts["word"] += [w] * len(g)
            parts["template"] += list(g["template"])
            parts["sentence"] += list(g["sentence"])
    return {k: np.array(v, dtype=object) for k, v in parts.items()}


def _mean_over_compared_sentences(sim: np.ndarray, compared: Mapping[str, np.ndarray]
                                  ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Average the similarities over each compared word's sentences (``pairing="mean"``).

    One column per compared word of each list; its columns ``list``, ``word`` and
    ``n_compared_sentences``.
    """
    entry = np.array([f"{a}\x00{b}" for a, b in zip(compared["list"], compared["word"],
                                                     strict=True)])
    starts = np.flatnonzero(np.r_[True, entry[1:] != entry[:-1]])
    counts = np.diff(np.r_[starts, entry.size])
    columns = {k: v[starts] for k, v in compared.items() if k in ("list", "word")}
    columns["n_compared_sentences"] = counts
    return np.add.reduceat(sim, starts, axis=1) / counts, columns


def _sentence_rows(sim: np.ndarray, p: Mapping[str, np.ndarray],
                   c_cols: Mapping[str, np.ndarray], study: Study, *, embedding_name: str
                   ) -> pd.DataFrame:
    """Lay the similarities (protected sentences × compared columns) out as rows."""
    n_p, n_c = sim.shape
    c_list = np.tile(c_cols["list"], n_p)
    c_kind = np.array([lab.split(":", 1)[0] for lab in c_list])
    c_class = np.array([lab.split(":", 1)[-1] for lab in c_list], dtype=object)
    pw_class = np.repeat(p["list"], n_c)
    assoc = np.array([study.associations.get(cl) for cl in pw_class], dtype=object)
    connection = np.where(c_kind == "neutral", "none",
                          np.where(c_kind == "human", "human",
                                   np.where(c_class == assoc, "associated", "different")))
    similarity = sim.ravel()
    table = pd.DataFrame({
        "protected_word": np.repeat(p["word"], n_c),
        "protected_class": pw_class,
        "word_to_compare": np.tile(c_cols["word"], n_p),
        "word_class": np.where(c_kind == "attributes", c_class, c_kind),
        "connection": connection,
        "cosine_similarity": similarity,
        "cosine_distance": 1.0 - similarity,
        "embedding": embedding_name,
        "template": np.repeat(p["template"], n_c),
        "sentence": np.repeat(p["sentence"], n_c),
    })
    if "n_compared_sentences" in c_cols:
        table["n_compared_sentences"] = np.tile(c_cols["n_compared_sentences"], n_p)
    else:
        table["compared_template"] = np.tile(c_cols["template"], n_p)
        table["compared_sentence"] = np.tile(c_cols["sentence"], n_p)
    return table
