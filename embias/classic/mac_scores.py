"""MAC, the Mean Average Cosine distance of Manzini et al. (2019).

MAC with Student-t intervals (:func:`mac`, :class:`MacResult`) and Manzini's paired t-test
of two embeddings (:func:`mac_ttest`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_distinct_lists, check_probability
from ..report import interval_table
from ..settings import DEFAULT_CI_PROB
from ..tables import cosine_table, validate_table
from ..wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

__all__ = ["MacResult", "check_mac_roles", "mac", "mac_ttest"]


@dataclass(frozen=True)
class MacResult:
    """Result of :func:`mac`.

    Attributes
    ----------
    value
        MAC: mean over protected words t and attribute classes j of S(t, A_j), the mean
        cosine *distance* of t to the words of A_j (Manzini's convention).
    s_values
        One row per (protected word, attribute class): ``protected_word``,
        ``protected_class``, ``word_class``, ``connection``, ``S``, ``n``.
    by_class
        Mean S per (protected class, attribute class, connection).
    study
        Name of the study (empty when unknown).
    embedding
        Name of the embedding (empty when the table has no ``embedding`` column).
    """

    value: float
    s_values: pd.DataFrame = field(repr=False)
    by_class: pd.DataFrame = field(repr=False)
    study: str = ""
    embedding: str = ""

    def to_interval_table(self, *, ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """Return MAC overall and per connection with Student-t intervals, as an interval table.

        The connections are ``associated`` and ``different``; the intervals are over the S
        values (``ci_kind="t"``; the S values share words, so these intervals are the
        classic, optimistic ones). ``ci_prob`` defaults to embias's one interval
        probability, 0.89 (:data:`embias.settings.DEFAULT_CI_PROB`); pass a paper's level
        (e.g. 0.95) to reproduce its figures.
        """
        ci_prob = check_probability("ci_prob", ci_prob)
        rows = []
        groups = [("all", self.s_values["S"].to_numpy())]
        groups += [(c, g["S"].to_numpy()) for c, g in self.s_values.groupby("connection")]
        for label, values in groups:
            n = values.size
            mean = float(values.mean())
            if n > 1:
                # Student t quantile (scipy.stats.t.ppf is this function; scipy.stats itself
                # takes ≈ 1 s to import)
                from scipy.special import stdtrit

                half = stdtrit(n - 1, (1 + ci_prob) / 2) * values.std(ddof=1) / math.sqrt(n)
            else:
                half = np.nan
            rows.append({"estimand": "mac", "group": label, "estimate": mean,
                         "lower": mean - half, "upper": mean + half, "n_S": n})
        return interval_table(rows, ci_prob=ci_prob, ci_kind="t")


def mac(
    embeddings_or_table: KeyedVectors | str | pd.DataFrame,
    study: Study | str | None = None,
    *,
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
) -> MacResult:
    """Compute the Mean Average Cosine distance (Manzini et al. 2019).

    S(t, A_j) = mean_{a ∈ A_j} (1 − cos(t, a)); MAC = mean over protected words t and
    attribute classes j of S(t, A_j). Computed from the ``associated`` and ``different``
    rows of a cosine table (controls are ignored).

    Parameters
    ----------
    embeddings_or_table
        A long-form cosine table (e.g. from :func:`embias.load_published_table`), or
        embeddings from which the study's table is built.
    study
        Needed with embeddings; optional with a table.
    missing, lowercase
        As for :func:`embias.cosine_table` (embeddings only).

    Returns
    -------
    MacResult

    Raises
    ------
    ValueError
        A protected word that is also an attribute word — in the study (refused by the
        study and, for case variants that are one word in the embeddings, by
        :func:`embias.cosine_table`) or among a given table's attribute rows
        (:func:`check_mac_roles`): S(t, A_j) would compare t with itself or hold t's rows
        under two roles.

    Notes
    -----
    MAC draws nothing at random, so its result has no seed.

    Examples
    --------
    Two flowers and two insects against one pleasant and one unpleasant word, in two
    dimensions. The cosine distances of (rose, tulip, ant, wasp) to "love" are (0, 0.2, 1,
    0.4) and to "hate" (1, 0.4, 0, 0.2); MAC is their mean, 3.2/8 = 0.4:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors(["rose", "tulip", "ant", "wasp", "love", "hate"],
    ...                [[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8], [1, 0], [0, 1]])
    >>> toy = embias.Study(name="toy", protected={"flowers": ("rose", "tulip"),
    ...                                           "insects": ("ant", "wasp")},
    ...                    attributes={"flowers": ("love",), "insects": ("hate",)})
    >>> result = embias.mac(kv, toy)
    >>> round(result.value, 3)
    0.4
    >>> result.by_class.round(3)
      protected_class word_class  connection    S
    0         flowers    flowers  associated  0.1
    1         flowers    insects   different  0.7
    2         insects    flowers   different  0.7
    3         insects    insects  associated  0.1
    """
    if isinstance(embeddings_or_table, pd.DataFrame):
        table = embeddings_or_table
    else:
        if study is None:
            raise ValueError("mac() on embeddings needs a study (e.g. 'religion')")
        st = load_study(study)
        # MAC averages every attribute class alike: associations are not needed
        table = cosine_table(embeddings_or_table, st.replace(neutral=(), human=()),
                             missing=missing, lowercase=lowercase, unassociated="different")
    validate_table(table, what="table given to mac()")
    attr = table[table["connection"].isin(["associated", "different"])]
    if attr.empty:
        raise ValueError("mac() needs 'associated'/'different' rows (attribute comparisons); "
                         "the table has none")
    if "protected_class" not in attr.columns:
        attr = attr.assign(protected_class="")
    check_mac_roles(
        {str(c): g.unique() for c, g in attr.groupby("protected_class", sort=False)[
            "protected_word"]},
        {str(c): g.unique() for c, g in attr.groupby("word_class", sort=False)[
            "word_to_compare"]},
        context="MAC of the table's attribute rows: ")
    s_values = (
        attr.groupby(["protected_word", "protected_class", "word_class", "connection"],
                     sort=False)["cosine_distance"]
        .agg(S="mean", n="size")
        .reset_index()
    )
    by_class = (
        s_values.groupby(["protected_class", "word_class", "connection"], sort=False)["S"]
        .mean()
        .reset_index()
    )
    study_name = study.name if isinstance(study, Study) else (study or table.attrs.get("study", ""))
    embedding = str(table["embedding"].iloc[0]) if "embedding" in table.columns else ""
    return MacResult(value=float(s_values["S"].mean()), s_values=s_values, by_class=by_class,
                     study=str(study_name), embedding=embedding)


def check_mac_roles(protected: Mapping[str, Sequence[str]],
                    attributes: Mapping[str, Sequence[str]], *, lowercase: bool = False,
                    context: str = "") -> None:
    """Refuse a protected word that is also an attribute word (after the case handling).

    MAC's S(t, A_j) compares protected words with attribute words, each in one role
    (:func:`embias._validation.check_distinct_lists`).

    Parameters
    ----------
    protected
        Protected class → its protected words.
    attributes
        Attribute class → its attribute words.
    lowercase
        Compare the words in lower case (as the lookup in an uncased vocabulary does).
    context
        Text put before the message.

    Raises
    ------
    ValueError
        A word in a protected list and an attribute list; the message names the word and
        both lists.

    Examples
    --------
    >>> from embias.classic import check_mac_roles
    >>> check_mac_roles({"x": ["rose", "tulip"]}, {"pleasant": ["Rose", "love"]})
    >>> check_mac_roles({"x": ["rose", "tulip"]}, {"pleasant": ["Rose", "love"]},
    ...                 lowercase=True)
    Traceback (most recent call last):
    ...
    ValueError: the word 'rose' (as 'Rose' in attributes['pleasant']) is in both ...
    """
    lists = {f"protected[{c!r}]": tuple(w) for c, w in protected.items()}
    lists |= {f"attributes[{c!r}]": tuple(w) for c, w in attributes.items()}
    pairs = [(f"protected[{p!r}]", f"attributes[{a!r}]") for p in protected for a in attributes]
    check_distinct_lists(lists, pairs=pairs, key=str.lower if lowercase else None,
                         context=context)


def mac_ttest(before: MacResult, after: MacResult) -> Any:
    """Run Manzini et al.'s paired t-test of the S values of two embeddings.

    The S values (e.g. of biased and debiased embeddings) are matched on (protected word,
    attribute class); the test is of ``before`` − ``after``.

    Parameters
    ----------
    before, after
        :func:`mac` results of the two embeddings.

    Returns
    -------
    scipy.stats._result_classes.TtestResult
        scipy's result (``statistic``, ``pvalue``, ``df``, ``confidence_interval()``).

    Raises
    ------
    ValueError
        When the two results share fewer than two (word, class) pairs.

    Examples
    --------
    Moving tulip onto rose's direction and wasp onto ant's changes four of the eight S
    values, by −0.2, +0.6, +0.6 and −0.2 (after − before): mean 0.1, sd √(0.72/7), so
    t = −0.1/(sd/√8) ≈ −0.882 with 7 degrees of freedom.

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors(["rose", "tulip", "ant", "wasp", "love", "hate"],
    ...                [[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8], [1, 0], [0, 1]])
    >>> toy = embias.Study(name="toy", protected={"flowers": ("rose", "tulip"),
    ...                                           "insects": ("ant", "wasp")},
    ...                    attributes={"flowers": ("love",), "insects": ("hate",)})
    >>> after = KeyedVectors(vector_size=2)
    >>> after.add_vectors(["rose", "tulip", "ant", "wasp", "love", "hate"],
    ...                   [[1, 0], [1, 0], [0, 1], [0, 1], [1, 0], [0, 1]])
    >>> test = embias.mac_ttest(embias.mac(kv, toy), embias.mac(after, toy))
    >>> round(float(test.statistic), 3), int(test.df)
    (-0.882, 7)
    """
    key = ["protected_word", "word_class"]
    merged = before.s_values.merge(after.s_values, on=key, suffixes=("_before", "_after"))
    if len(merged) < 2:
        raise ValueError(f"the two MAC results share {len(merged)} (protected word, attribute "
                         "class) pairs; the paired t-test needs at least 2")
    from scipy import stats

    return stats.ttest_rel(merged["S_before"], merged["S_after"])
