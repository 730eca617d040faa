"""WEAT on embeddings: :func:`weat`, from word lists and vectors to a :class:`WeatResult`.

It looks the words up, computes each target's association score, the effect size, the
permutation test (``embias.classic.weat_permutation_test``), the two-way item
bootstrap and the population interval, each from its own stream of one seed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from ..._validation import check_int, resolve_rng
from ...embeddings import is_uncased, load_embeddings, lookup_words
from ..item_bootstrap import DEFAULT_N_BOOT, weat_item_bootstrap
from ..numerics import (
    ONE_WORD_WHY,
    association_scores,
    weat_effect_size,
    weat_permutation_test,
)
from .inputs import check_test_options, check_weat_roles, weat_lists
from .result import WeatResult

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

    from ...weat_population import WeatPopulationBootstrap

Alternative = Literal["two-sided", "greater", "less"]


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
    item_words: Mapping[str, str] | None = None,
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
    item_words
        When the items are sentences of words (SEAT): the word of every item. The
        population interval then samples words, not items (a word's attribute sentences
        averaged, a word's target sentences drawn together:
        :func:`embias.weat_population.weat_population_bootstrap`); the effect size, the
        p-value and the item bootstrap still treat every item as one, as in May et al.

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
    a similar effect?". Where a short attribute list attenuates d, the percentile interval
    of this standardised, bounded effect size misses the population effect on the low side
    (coverage by design measured by
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
    check_test_options(permutations, alternative)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    lists = weat_lists(X, Y, A, B, set_names=set_names)
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
    groups: tuple[list[str], list[str], list[str]] | None = None
    if item_words is not None:
        unnamed = [i for k in "XYAB" for i in words[k] if i not in item_words]
        if unnamed:
            raise ValueError(f"item_words does not name the word of the item {unnamed[0]!r}")
        groups = ([item_words[i] for i in words["X"] + words["Y"]],
                  [item_words[i] for i in words["A"]], [item_words[i] for i in words["B"]])
    population, population_note = _population_bootstrap(sim_a, sim_b, n_x, n_boot, rng, seed,
                                                        groups)
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
                          rng: np.random.Generator, seed: int | None,
                          groups: tuple[list[str], list[str], list[str]] | None = None
                          ) -> tuple[WeatPopulationBootstrap | None, str]:
    """Return the population interval of :func:`weat`, or None and why not.

    It draws from its own spawned stream, so the bootstrap and the permutations do not
    depend on it. ``groups``: the word of every target row and of every column of A and
    of B (items that are sentences of words).
    """
    from ...weat_population import weat_population_bootstrap

    n_words = ((len(set(groups[1])), len(set(groups[2]))) if groups is not None
               else (sim_a.shape[1], sim_b.shape[1]))
    if min(n_words) < 2:
        return None, ("the disattenuation needs at least 2 words in A and in B (the noise "
                      "of s from the attribute list is estimated from the (target, "
                      "attribute) interaction)")
    target_words, a_words, b_words = groups if groups is not None else (None, None, None)
    try:
        population = weat_population_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot,
                                               random_seed=_bootstrap_stream(rng),
                                               target_words=target_words, a_words=a_words,
                                               b_words=b_words)
    except ValueError as exc:  # tied s values: no disattenuated effect size (0/0)
        return None, str(exc)
    return dataclasses.replace(population, random_seed=seed), ""


def _bootstrap_stream(rng: np.random.Generator) -> np.random.Generator:
    """Return a generator independent of ``rng``'s own draws.

    It is spawned from ``rng``'s seed sequence (``rng`` itself when it has none), so the
    bootstrap does not shift the permutations.
    """
    try:
        return rng.spawn(1)[0]
    except TypeError:  # pragma: no cover - a Generator built without a SeedSequence
        return rng
