"""WEAT on embeddings (Caliskan et al. 2017).

The effect size, its permutation test and its item-bootstrap interval (:func:`weat`,
:class:`WeatResult`), one of Caliskan's tests or a two-class study (:func:`weat_test`),
every pair of classes of a study (:func:`weat_pairs`).

The permutation test answers "could the X/Y labels be arbitrary?": it re-partitions the
same target words (exact enumeration when feasible, else seeded Monte Carlo without
replacement within a partition). It conditions on the words used: it says nothing about
other words, which is the item bootstrap's question (:mod:`embias.classic.item_bootstrap`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import (
    check_distinct_lists,
    check_int,
    check_probability,
    check_word_list,
    resolve_rng,
)
from ..embeddings import is_uncased, load_embeddings, lookup_words
from ..report import interval_table
from ..settings import DEFAULT_CI_PROB
from ..wordlists import Study, load_study
from .item_bootstrap import (
    DEFAULT_N_BOOT,
    ITEM_BOOTSTRAP_CI_KIND,
    WeatBootstrap,
    weat_item_bootstrap,
)
from .numerics import (
    ATTRIBUTE_WHY,
    ONE_WORD_WHY,
    association_scores,
    weat_effect_size,
    weat_permutation_test,
)

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

    from ..weat_population import WeatPopulationBootstrap

__all__ = [
    "Alternative",
    "WeatResult",
    "check_weat_roles",
    "weat",
    "weat_pairs",
    "weat_test",
]

Alternative = Literal["two-sided", "greater", "less"]


@dataclass(frozen=True)
class WeatResult:
    """Result of :func:`weat`.

    Attributes
    ----------
    name
        Label of the test in reports.
    effect_size
        (mean_X s − mean_Y s) / sd_{X∪Y}(s) with ``ddof``.
    statistic
        Caliskan's test statistic Σ_X s − Σ_Y s.
    p_value
        Permutation p-value for ``alternative``.
    p_value_se
        Monte Carlo standard error of the p-value (0 when exact).
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    exact
        Whether all equal-size partitions were enumerated.
    n_permutations
        Partitions used (all of them when exact).
    ddof
        Delta degrees of freedom of the effect size's sd.
    s_values
        One row per target word: ``word``, ``target`` (``X``/``Y``), ``s``.
    null_effect_sizes
        Effect size of every partition used (the permutation null distribution).
    missing
        The missing-word report: per list, the words ``missing`` from the embeddings and
        the counts ``kept`` and ``total``.
    bootstrap
        The two-way item bootstrap of the effect size (:func:`weat_item_bootstrap`):
        its replicates give the interval for the effect size.
    random_seed
        The seed of the Monte Carlo permutations and of the bootstrap (None when a
        Generator was given).
    population
        The disattenuated effect size and its noise-adjusted two-way bootstrap
        (:func:`embias.weat_population.weat_population_bootstrap`): an estimate of, and
        an interval for, the effect size of the *populations* of words (the limit of d as
        all four lists grow), which d of short attribute lists underestimates. None when
        it could not be computed; :attr:`population_note` says why.
    population_note
        Why :attr:`population` is None (empty otherwise).
    """

    name: str
    effect_size: float
    statistic: float
    p_value: float
    p_value_se: float
    alternative: str
    exact: bool
    n_permutations: int
    ddof: int
    s_values: pd.DataFrame = field(repr=False)
    null_effect_sizes: np.ndarray = field(repr=False)
    missing: dict = field(default_factory=dict, repr=False)
    random_seed: int | None = None
    bootstrap: WeatBootstrap | None = field(default=None, repr=False)
    population: WeatPopulationBootstrap | None = field(default=None, repr=False)
    population_note: str = field(default="", repr=False)

    def interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Return the item-bootstrap percentile interval for the effect size.

        See :meth:`WeatBootstrap.interval`; ValueError when the result has no bootstrap.
        """
        if self.bootstrap is None:
            raise ValueError(f"WEAT {self.name!r} was computed without an item bootstrap")
        return self.bootstrap.interval(ci_prob)

    def population_interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Return the interval for the population effect size.

        It is the central ``ci_prob`` range of the noise-adjusted bootstrap of the
        disattenuated effect size
        (:meth:`embias.weat_population.WeatPopulationBootstrap.interval`); ValueError,
        saying why, when the result has none.
        """
        if self.population is None:
            raise ValueError(f"WEAT {self.name!r} has no population interval: "
                             f"{self.population_note or 'it was computed without one'}")
        return self.population.interval(ci_prob)

    def population_columns(self, ci_prob: float = DEFAULT_CI_PROB) -> dict[str, float]:
        """Return the population columns of the interval table.

        ``population_estimate`` (the disattenuated effect size) and
        ``population_lower``/``population_upper`` (its ``ci_prob`` interval for the effect
        size of the word populations); NaN when there is no population interval
        (:attr:`population_note` says why).
        """
        if self.population is None:
            return dict.fromkeys(POPULATION_COLUMNS, np.nan)
        lower, upper = self.population.interval(ci_prob)
        return {"population_estimate": self.population.estimate,
                "population_lower": lower, "population_upper": upper}

    def to_interval_table(self, *, ci_prob: float = DEFAULT_CI_PROB,
                          null_ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """Return the result as one interval-table row.

        The row holds the effect size with its item-bootstrap interval, its permutation
        p-value, and the permutation null's critical values in their own columns.

        The two answer different questions. ``lower``/``upper`` (with ``ci_prob``, default
        0.89, and ``ci_kind`` :data:`ITEM_BOOTSTRAP_CI_KIND`) are the percentile interval
        of the two-way item bootstrap (:func:`weat_item_bootstrap`): where the effect size
        of *other words from the same populations* would fall — an interval for the
        effect size that treats target and attribute words as samples. The p-value asks
        whether the X/Y labels could be arbitrary: the central ``null_ci_prob`` range of
        the permutation null — where the effect size falls by chance when the targets are
        exchangeable; |d| beyond it is what a two-sided p < 1 − ``null_ci_prob`` means —
        goes in ``null_lower``/``null_upper`` (not an interval for the estimate). A
        result without a bootstrap has ``ci_kind="none"`` and NaN ``lower``/``upper``.

        Extra columns: ``p_value``, ``alternative``, ``n_permutations``, ``exact``,
        ``null_lower``, ``null_upper``, ``null_ci_prob`` (default 0.89 too), ``random_seed``
        (the seed of the permutations and the bootstrap: passing it back repeats them),
        and with a bootstrap ``resampled`` (which word lists), ``n_boot``,
        ``boot_redrawn`` (replicates with zero spread of s, redrawn). With a population
        interval (:attr:`population`): ``population_estimate`` (the disattenuated
        effect size) and ``population_lower``/``population_upper`` (its ``ci_prob``
        interval for the effect size of the word populations, which d of short attribute
        lists underestimates).
        """
        null_ci_prob = check_probability("null_ci_prob", null_ci_prob)
        ci_prob = check_probability("ci_prob", ci_prob)
        lo, hi = np.quantile(self.null_effect_sizes,
                             [(1 - null_ci_prob) / 2, (1 + null_ci_prob) / 2])
        row: dict[str, Any] = {
            "estimand": "weat_effect_size",
            "group": self.name,
            "estimate": self.effect_size,
            "lower": np.nan,
            "upper": np.nan,
            "p_value": self.p_value,
            "alternative": self.alternative,
            "n_permutations": self.n_permutations,
            "exact": self.exact,
            "null_lower": float(lo),
            "null_upper": float(hi),
            "null_ci_prob": null_ci_prob,
            "random_seed": self.random_seed,
        }
        if self.bootstrap is None:
            return interval_table([row], ci_prob=None, ci_kind="none")
        row["lower"], row["upper"] = self.bootstrap.interval(ci_prob)
        row.update(resampled=self.bootstrap.resample, n_boot=self.bootstrap.n_boot,
                   boot_redrawn=self.bootstrap.n_redrawn)
        if self.population is not None:
            row.update(self.population_columns(ci_prob))
        return interval_table([row], ci_prob=ci_prob, ci_kind=ITEM_BOOTSTRAP_CI_KIND)


#: Columns of :meth:`WeatResult.population_columns` (and of the WEAT and SEAT overviews).
POPULATION_COLUMNS = ("population_estimate", "population_lower", "population_upper")


def weat(
    embeddings: KeyedVectors | str,
    X: Sequence[str],
    Y: Sequence[str],
    A: Sequence[str],
    B: Sequence[str],
    *,
    permutations: int | Literal["auto", "exact"] = "auto",
    alternative: Alternative = "two-sided",
    ddof: int = 1,
    n_boot: int = DEFAULT_N_BOOT,
    random_seed: int | np.random.Generator | None = None,
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
    name: str = "weat",
    set_names: tuple[str, str, str, str] = ("X", "Y", "A", "B"),
) -> WeatResult:
    """Run the Word Embedding Association Test (Caliskan et al. 2017).

    WEAT with an honest p-value and an interval for the effect size.

    Parameters
    ----------
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    X, Y
        Target word lists (e.g. flowers, insects).
    A, B
        Attribute word lists (e.g. pleasant, unpleasant).
    permutations
        ``"auto"``: exact enumeration of all C(|X|+|Y|, |X|) re-partitions of X ∪ Y when
        there are at most 1,000,000 (C(16, 8) = 12,870 is exact), otherwise 100,000
        seeded Monte Carlo partitions, each drawn without replacement; ``"exact"``
        forces enumeration; an integer forces that many Monte Carlo partitions.
    alternative
        ``"two-sided"`` (distance of the statistic from its null mean), ``"greater"``
        (Caliskan's one-sided test: X closer to A than Y is) or ``"less"``.
    ddof
        1 (default, Caliskan's sample sd) or 0.
    n_boot
        Replicates of the two-way item bootstrap (:func:`weat_item_bootstrap`; X, Y, A
        and B each resampled with replacement) behind the interval for the effect size
        (:meth:`WeatResult.interval`, :meth:`WeatResult.to_interval_table`); ≥ 1.
    random_seed
        Seed or Generator for the Monte Carlo permutations and the bootstrap (the seed
        policy of :mod:`embias._validation`); ``None`` draws a seed and records it in the
        result (``random_seed``) so the run can be repeated. The bootstrap draws from its
        own stream spawned from the seed, so the permutation draws — and the p-value —
        are the same as without it, and the bootstrap does not depend on
        ``permutations``.
    missing, lowercase
        Out-of-vocabulary handling, as in :func:`embias.cosine_table`.
    name
        Label of the test in reports.
    set_names
        Names of X, Y, A, B in the missing-word report (e.g. the class names).

    Returns
    -------
    WeatResult

    Raises
    ------
    ValueError
        A bad option; a word list that is a bare string, holds something other than
        non-empty strings, or is empty (:func:`embias._validation.check_word_list`); a
        word in two of the lists, after the case handling (:func:`check_weat_roles`);
        fewer than two words of X or of Y given or found in the embeddings (with one word
        per set the effect size is always ±√2, whatever the embeddings); or zero spread of
        s. Entries of one list that are one word after the case handling count once (a
        ``UserWarning`` names them).

    Notes
    -----
    The exact p-value counts the observed partition itself (p = #{T_i ≥ T}/N); the Monte
    Carlo p-value is (#{T_i ≥ T} + 1)/(m + 1), with standard error √(p(1−p)/m).

    The permutation test answers "could the X/Y labels be arbitrary?" for *these* words;
    the item-bootstrap interval answers "would other words from the same populations give
    a similar effect?". With few words per list the percentile interval of this
    standardised, bounded effect size undercovers (coverage measured by
    :func:`embias.simulate.simulate_weat_bootstrap_coverage`).

    With short attribute lists d itself is attenuated: each target's s carries the noise
    of the attribute words drawn, which inflates the sd. The result's
    :attr:`WeatResult.population` holds the disattenuated effect size and, from the same
    ``n_boot`` and its own spawned stream, its interval for the effect size of the word
    populations (:func:`embias.weat_population.weat_population_bootstrap`;
    :meth:`WeatResult.population_interval`; ``population_*`` columns of
    :meth:`WeatResult.to_interval_table`); it needs ≥ 2 words in A and in B.

    Examples
    --------
    In two dimensions, with "love" = (1, 0) and "hate" = (0, 1), a unit vector (c, d) has
    s = c − d: 1 and 0.2 for the flowers, −1 and −0.2 for the insects. The means differ by
    1.2 and the sample sd of the four s values is √(2.08/3), so d = 1.2/√(2.08/3) ≈ 1.441.
    Two of the C(4, 2) = 6 re-partitions of the targets (the observed one and its mirror)
    are as extreme, so the exact two-sided p-value is 2/6:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors(["rose", "tulip", "ant", "wasp", "love", "hate"],
    ...                [[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8], [1, 0], [0, 1]])
    >>> result = embias.weat(kv, ["rose", "tulip"], ["ant", "wasp"], ["love"], ["hate"],
    ...                      n_boot=200, random_seed=0)
    >>> round(result.effect_size, 3), result.p_value, result.exact, result.n_permutations
    (1.441, 0.3333333333333333, True, 6)

    The one-sided test counts only the observed partition (1/6). The bootstrap replicates
    take four values, from √2 to √3 (which one depends on whether X or Y is drawn as one
    word twice), and the 89% interval spans them:

    >>> embias.weat(kv, ["rose", "tulip"], ["ant", "wasp"], ["love"], ["hate"],
    ...             alternative="greater", n_boot=200, random_seed=0).p_value
    0.16666666666666666
    >>> result.interval()
    (1.414, 1.732)

    A word in two lists is refused:

    >>> embias.weat(kv, ["rose", "tulip"], ["ant", "rose"], ["love"], ["hate"])
    Traceback (most recent call last):
    ...
    ValueError: WEAT 'weat': the word 'rose' is in both X and Y: a word can play one role ...
    """
    _check_test_options(permutations, alternative)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    lists = _weat_lists(X, Y, A, B, set_names=set_names)
    words, sim_a, sim_b, report = _target_similarities(
        embeddings, lists, set_names=set_names, missing=missing, lowercase=lowercase,
        name=name)
    s = association_scores(sim_a, sim_b)
    n_x = len(words["X"])
    effect = weat_effect_size(s[:n_x], s[n_x:], ddof=ddof)
    rng, seed = resolve_rng(random_seed)
    test = weat_permutation_test(s, n_x, permutations=permutations, alternative=alternative,
                            ddof=ddof, rng=rng)
    bootstrap = weat_item_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot, ddof=ddof,
                                    random_seed=_bootstrap_stream(rng))
    bootstrap = dataclasses.replace(bootstrap, random_seed=seed)
    population, population_note = _population_bootstrap(sim_a, sim_b, n_x, n_boot, rng, seed)
    s_table = pd.DataFrame({
        "word": [*words["X"], *words["Y"]],
        "target": ["X"] * n_x + ["Y"] * (s.size - n_x),
        "s": s,
    })
    return WeatResult(
        name=name, effect_size=float(effect), statistic=test.statistic, p_value=test.p_value,
        p_value_se=test.p_value_se, alternative=alternative, exact=test.exact,
        n_permutations=test.n_permutations, ddof=ddof,
        null_effect_sizes=test.null_effect_sizes,
        s_values=s_table, missing=report.as_dict(), random_seed=seed, bootstrap=bootstrap,
        population=population, population_note=population_note,
    )


def _check_test_options(permutations: Any, alternative: Any) -> None:
    """Refuse an unknown ``alternative`` or a bad ``permutations``.

    ``permutations`` must be ``"auto"``, ``"exact"`` or a positive integer.
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative={alternative!r} is not one of "
                         "['two-sided', 'greater', 'less']")
    if not (permutations in ("auto", "exact") or (
            isinstance(permutations, int | np.integer) and not isinstance(permutations, bool)
            and permutations >= 1)):
        raise ValueError(f"permutations must be 'auto', 'exact' or a positive integer, got "
                         f"{permutations!r}")


def _target_similarities(embeddings: KeyedVectors | str, lists: Sequence[Sequence[str]], *,
                         set_names: Sequence[str], missing: Literal["warn", "raise"],
                         lowercase: bool | None,
                         name: str) -> tuple[dict[str, list[str]], np.ndarray, np.ndarray, Any]:
    """Return the words found, the targets' cosine similarities and the missing-word report.

    The words are those of X, Y, A, B found in the embeddings; the similarities are those
    of the target words (X, then Y) with A and with B. X and Y need two words each in the
    embeddings.
    """
    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    if lowercase is None:
        lowercase = is_uncased(kv)
    check_weat_roles(lists, set_names=set_names, lowercase=lowercase, name=name)
    found, vectors, report = lookup_words(
        kv, dict(zip(set_names, lists, strict=True)), missing=missing,
        lowercase=lowercase, context=f"for WEAT {name!r}",
    )
    words = dict(zip("XYAB", found.values(), strict=True))
    for k, set_name in zip("XY", set_names[:2], strict=True):
        named = f" ({set_name!r})" if set_name != k else ""
        check_int(f"the number of {k} words{named} found in the embeddings", len(words[k]),
                  minimum=2, why=ONE_WORD_WHY)
    unit = {k: v / np.linalg.norm(v, axis=1, keepdims=True)
            for k, v in zip("XYAB", vectors.values(), strict=True)}
    targets = np.vstack([unit["X"], unit["Y"]])
    return words, targets @ unit["A"].T, targets @ unit["B"].T, report


def _population_bootstrap(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, n_boot: int,
                          rng: np.random.Generator, seed: int | None
                          ) -> tuple[WeatPopulationBootstrap | None, str]:
    """Return the population interval of :func:`weat`, or None and why not.

    It draws from its own spawned stream, so the bootstrap and the permutations do not
    depend on it.
    """
    from ..weat_population import weat_population_bootstrap

    if min(sim_a.shape[1], sim_b.shape[1]) < 2:
        return None, ("the disattenuation needs at least 2 words in A and in B (the noise "
                      "of s from the attribute list is estimated from the (target, "
                      "attribute) interaction)")
    try:
        population = weat_population_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot,
                                               random_seed=_bootstrap_stream(rng))
    except ValueError as exc:  # tied s values: no disattenuated effect size (0/0)
        return None, str(exc)
    return dataclasses.replace(population, random_seed=seed), ""


def _list_labels(set_names: Sequence[str]) -> list[str]:
    """``X``, ``Y``, ``A``, ``B``, each with its set name when it has another one."""
    if isinstance(set_names, str) or len(set_names) != 4 or len(set(set_names)) != 4:
        raise ValueError(f"set_names must be 4 distinct names, got {set_names!r}")
    return [k if n == k else f"{k} ({n!r})" for k, n in zip("XYAB", set_names, strict=True)]


def _weat_lists(X: Any, Y: Any, A: Any, B: Any, *,
                set_names: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Return WEAT's four word lists, checked (:func:`embias._validation.check_word_list`).

    X and Y need two words each, A and B one.
    """
    return tuple(
        check_word_list(label, words, minimum=minimum, why=why)
        for label, words, minimum, why in zip(
            _list_labels(set_names), (X, Y, A, B), (2, 2, 1, 1),
            (ONE_WORD_WHY, ONE_WORD_WHY, ATTRIBUTE_WHY, ATTRIBUTE_WHY), strict=True))


def check_weat_roles(lists: Sequence[Sequence[str]], *,
                     set_names: Sequence[str] = ("X", "Y", "A", "B"),
                     lowercase: bool = False, name: str = "weat") -> None:
    """Refuse a word in two of WEAT's lists X, Y, A, B.

    X = Y, X and Y sharing a word, a target word in A or B, a word in both A and B: each
    is refused after the case handling of the lookup
    (:func:`embias._validation.check_distinct_lists`).

    Parameters
    ----------
    lists
        The word lists X, Y, A and B.
    set_names
        Their names in the message.
    lowercase
        Compare the words in lower case (as the lookup in an uncased vocabulary does).
    name
        Name of the test in the message.

    Raises
    ------
    ValueError
        A word in two of the lists; the message names the word and both lists.

    Examples
    --------
    >>> from embias.classic import check_weat_roles
    >>> check_weat_roles([["rose", "tulip"], ["ant", "wasp"], ["love"], ["Rose"]])
    >>> check_weat_roles([["rose", "tulip"], ["ant", "wasp"], ["love"], ["Rose"]],
    ...                  lowercase=True)
    Traceback (most recent call last):
    ...
    ValueError: WEAT 'weat': the word 'rose' (as 'Rose' in B) is in both X and B: ...
    """
    check_distinct_lists(dict(zip(_list_labels(set_names), lists, strict=True)),
                         key=str.lower if lowercase else None, context=f"WEAT {name!r}: ")


def _bootstrap_stream(rng: np.random.Generator) -> np.random.Generator:
    """Return a generator independent of ``rng``'s own draws.

    It is spawned from ``rng``'s seed sequence (``rng`` itself when it has none), so the
    bootstrap does not shift the permutations.
    """
    try:
        return rng.spawn(1)[0]
    except TypeError:  # pragma: no cover - a Generator built without a SeedSequence
        return rng


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
