"""The population answer of every connection mean and contrast of a design.

A connection's population answer is the mean cosine distance over *all* population pairs
of that connection, the protected classes weighted as in the design; a contrast's is the
difference of two connection answers (:func:`population_answers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_distinct_lists
from ..embeddings import load_named_embeddings
from ..populations import PopulationDesign, WordPopulations, as_design, load_populations
from ..tables import CONNECTIONS

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

__all__ = ["population_answers"]


def population_answers(
    populations: WordPopulations | str,
    embeddings: KeyedVectors | str = "glove-6b-50d",
    *,
    design: PopulationDesign | Mapping[str, Any] | str | None = None,
    lowercase: bool | None = None,
) -> pd.DataFrame:
    """Compute the population answer of every connection mean and contrast of a design.

    The quantities a design's studies report.
    Connection ``associated``: Σ_c w_c · D(P_c, A_assoc(c)), where D(X, Y) is the mean
    cosine distance over all pairs of X × Y, P_c the protected population of class c,
    A_k the attribute population of class k, and w_c the design's share of protected
    words in class c. ``different``: Σ_c w_c Σ_{k ≠ assoc(c)} v_ck D(P_c, A_k), v_ck the
    design's share of attribute words of class k among the classes other than c's own
    (classes without such rows left out, the weights renormalised). ``none`` and
    ``human``: Σ_c w_c D(P_c, neutral or human population), when the design draws such
    words. Contrasts (``"associated - none"``, …, those of
    :data:`embias.bayes.summary.CONTRASTS` whose connections are present): differences of
    the connection answers.

    Parameters
    ----------
    populations
        :class:`~embias.populations.WordPopulations` or a name/folder for
        :func:`~embias.populations.load_populations`.
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    design
        The design whose weights apply (default
        :data:`~embias.populations.DEFAULT_DESIGN`).
    lowercase
        Look words up in lower case; ``None`` detects an uncased vocabulary (GloVe).

    Returns
    -------
    pandas.DataFrame
        Columns ``estimand`` (``connection_mean`` or ``contrast``), ``group`` and
        ``truth``.

    Raises
    ------
    MissingWordsError
        A population word is not in the embeddings (every word is needed for the
        answer; the report names them all).
    ValueError
        A design the populations cannot supply, or two lists that share a word after the
        case handling.

    Examples
    --------
    Two classes of two protected words and one attribute word each, in two dimensions.
    The mean unit vectors of the protected classes are (0.8, 0.4) and (0.4, 0.8), so a
    class is at distance 1 − 0.8 = 0.2 from its own attribute word, 1 − 0.4 = 0.6 from the
    other's, and 1.4 and 1.8 from the neutral word (0, −1):

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.populations import WordPopulations
    >>> kv = keyed_vectors(["p1", "p2", "q1", "q2", "a", "b", "n"], np.array(
    ...     [[1, 0], [0.6, 0.8], [0, 1], [0.8, 0.6], [1, 0], [0, 1], [0, -1]], np.float32))
    >>> populations = WordPopulations.from_dicts(
    ...     "toy", protected={"p": ["p1", "p2"], "q": ["q1", "q2"]},
    ...     attributes={"p": ["a"], "q": ["b"]}, neutral=["n"])
    >>> population_answers(populations, kv, design="protected=1,attributes=1,neutral=1")
              estimand                   group  truth
    0  connection_mean              associated    0.2
    1  connection_mean               different    0.6
    2  connection_mean                    none    1.6
    3         contrast       associated - none   -1.4
    4         contrast  associated - different   -0.4
    5         contrast        different - none   -1.0
    """
    from ..bayes.summary import CONTRASTS
    from ..embeddings import is_uncased, lookup_words

    populations = load_populations(populations)
    design = as_design(design)
    n_protected, n_attributes = design.counts(populations)
    kv, _ = load_named_embeddings(embeddings)
    if lowercase is None:
        lowercase = is_uncased(kv)
    lists = {**{f"protected[{c!r}]": w for c, w in populations.protected.items()},
             **{f"attributes[{c!r}]": w for c, w in populations.attributes.items()}}
    if design.neutral:
        lists["neutral"] = populations.neutral
    if design.human:
        lists["human"] = populations.human
    if lowercase:  # one word in two lists after the case handling
        check_distinct_lists(lists, key=str.lower,
                             context=f"populations {populations.name!r} (looked up in lower "
                                     "case): ")
    _, vectors, _ = lookup_words(kv, lists, missing="raise", lowercase=lowercase,
                                 context=f"for populations {populations.name!r}")
    # mean over all pairs of 1 − cos = 1 − (mean unit vector of X)·(mean unit vector of Y)
    centre = {name: (v / np.linalg.norm(v, axis=1, keepdims=True)).mean(axis=0)
              for name, v in vectors.items()}

    def distance(protected_class: str, compared: str) -> float:
        return float(1.0 - centre[f"protected[{protected_class!r}]"] @ centre[compared])

    weight = {c: n / sum(n_protected.values()) for c, n in n_protected.items()}
    answers: dict[str, float] = {}
    answers["associated"] = sum(
        w * distance(c, f"attributes[{populations.associations[c]!r}]")
        for c, w in weight.items())
    different: dict[str, float] = {}
    for c in weight:
        others = {k: n for k, n in n_attributes.items() if k != populations.associations[c]}
        if others:
            total = sum(others.values())
            different[c] = sum(n / total * distance(c, f"attributes[{k!r}]")
                               for k, n in others.items())
    if different:
        total_weight = sum(weight[c] for c in different)
        answers["different"] = sum(weight[c] / total_weight * d for c, d in different.items())
    for connection, name in (("human", "human"), ("none", "neutral")):
        if name in lists:
            answers[connection] = sum(w * distance(c, name) for c, w in weight.items())
    rows = [{"estimand": "connection_mean", "group": con, "truth": answers[con]}
            for con in CONNECTIONS if con in answers]
    rows += [{"estimand": "contrast", "group": f"{a} - {b}", "truth": answers[a] - answers[b]}
             for a, b in CONTRASTS if a in answers and b in answers]
    return pd.DataFrame(rows)
