"""WEAT of a study: one of Caliskan's tests or a two-class study, and every pair of classes."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pandas as pd

from ..._validation import check_probability
from ...embeddings import load_embeddings
from ...settings import DEFAULT_CI_PROB
from ...wordlists import Study, load_study
from .on_embeddings import weat
from .result import WeatResult

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors


def weat_test(
    test: str | Study,
    embeddings: KeyedVectors | str = "glove-6b-50d",
    **options: object,
) -> WeatResult:
    """Run one of Caliskan et al.'s ten tests, or any two-class study, with :func:`weat`.

    Parameters
    ----------
    test
        ``"weat1"`` … ``"weat10"``, or a two-class :class:`~embias.Study` (X, Y = its
        protected words, A, B = their associated attribute words).
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    **options
        As for :func:`weat` (``permutations``, ``n_boot``, ``random_seed`` …);
        ``name`` defaults to the study's name and ``set_names`` to its class names.

    Returns
    -------
    WeatResult

    Raises
    ------
    ValueError
        An unknown test name, or what :func:`weat` refuses.

    Examples
    --------
    Test 6 (male vs female names, career vs family) on vectors that put every male name
    and career word on one axis and every female name and family word on the other: all
    s values are ±1, and d reaches its ceiling √(2·15/8) ≈ 1.936 for 8 + 8 words. The
    observed partition and its mirror are the two most extreme of the C(16, 8) = 12,870:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> X, Y, A, B = embias.load_study("weat6").weat_sets()
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors([*X, *A], [[1, 0]] * (len(X) + len(A)))
    >>> kv.add_vectors([*Y, *B], [[0, 1]] * (len(Y) + len(B)))
    >>> result = embias.weat_test("weat6", kv, n_boot=100, random_seed=0)
    >>> round(result.effect_size, 3), result.n_permutations, result.p_value == 2 / 12870
    (1.936, 12870, True)
    """
    study = load_study(test)
    X, Y, A, B = study.weat_sets()
    options.setdefault("name", study.name)
    (cx, cy), (ca, cb) = study.protected, (study.associations[c] for c in study.protected)
    options.setdefault("set_names", (cx, cy, ca, cb) if len({cx, cy, ca, cb}) == 4
                       else ("X", "Y", "A", "B"))
    return weat(embeddings, X, Y, A, B, **options)  # type: ignore[arg-type]


def weat_pairs(
    embeddings: KeyedVectors | str,
    study: Study | str,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    null_ci_prob: float = DEFAULT_CI_PROB,
    **options: object,
) -> pd.DataFrame:
    """Run WEAT for every pair of protected classes of a multi-class study (e.g. religion).

    For each pair, X, Y = the two classes' protected words and A, B = their associated
    attribute lists.

    Parameters
    ----------
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    study
        A :class:`~embias.Study` or the name of a shipped one.
    ci_prob
        Probability of the item-bootstrap intervals.
    null_ci_prob
        Probability of the permutation null's central range.
    **options
        Go to :func:`weat` (``permutations``, ``alternative``, ``n_boot``,
        ``random_seed`` …).

    Returns
    -------
    pandas.DataFrame
        Interval table, one row per pair (``group`` = ``"jewish vs muslim"``): the effect
        size with its ``ci_prob`` item-bootstrap interval, its permutation ``p_value`` and
        the null's central ``null_ci_prob`` range in ``null_lower``/``null_upper`` (see
        :meth:`WeatResult.to_interval_table`).

    Raises
    ------
    ValueError
        A bad ``ci_prob`` or ``null_ci_prob``, an unknown study, or what :func:`weat`
        refuses.

    Examples
    --------
    Three classes of two words each, one attribute word per class on its own axis. Each
    pair has an exact p-value of 2/6 (the observed partition and its mirror); flowers vs
    insects is :func:`weat`'s two-dimensional example, d ≈ 1.441:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> kv = KeyedVectors(vector_size=3)
    >>> kv.add_vectors(
    ...     ["rose", "tulip", "ant", "wasp", "granite", "basalt", "love", "hate", "cold"],
    ...     [[1, 0, 0], [0.8, 0.6, 0], [0, 1, 0], [0.6, 0.8, 0], [0, 0, 1], [0, 0.6, 0.8],
    ...      [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    >>> study = embias.Study(
    ...     name="toy", protected={"flowers": ("rose", "tulip"), "insects": ("ant", "wasp"),
    ...                            "stones": ("granite", "basalt")},
    ...     attributes={"flowers": ("love",), "insects": ("hate",), "stones": ("cold",)})
    >>> table = embias.weat_pairs(kv, study, n_boot=100, random_seed=0)
    >>> table[["group", "estimate", "p_value", "n_permutations"]].round(3)
                    group  estimate  p_value  n_permutations
    0  flowers vs insects     1.441    0.333               6
    1   flowers vs stones     1.721    0.333               6
    2   insects vs stones     1.614    0.333               6
    """
    check_probability("ci_prob", ci_prob)
    check_probability("null_ci_prob", null_ci_prob)
    study = load_study(study)
    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    parts = []
    for cx, cy in itertools.combinations(study.protected, 2):
        pair = study.replace(
            name=f"{cx} vs {cy}",
            protected={cx: study.protected[cx], cy: study.protected[cy]},
            associations={cx: study.associations[cx], cy: study.associations[cy]},
        )
        result = weat_test(pair, kv, **options)
        parts.append(result.to_interval_table(ci_prob=ci_prob, null_ci_prob=null_ci_prob))
    return pd.concat(parts, ignore_index=True)
