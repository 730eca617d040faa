"""Overviews of the classic scores, as interval-table rows reported next to the Bayesian ones.

Caliskan's ten tests on one embedding (:func:`weat_overview`), the classic scores of a
cosine table (:func:`classic_scores`) and their changes across embeddings
(:func:`classic_changes`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_int, check_probability, resolve_rng
from ..embeddings import load_embeddings
from ..report import interval_table, stack_interval_tables
from ..settings import DEFAULT_CI_PROB
from .item_bootstrap import DEFAULT_N_BOOT
from .mac_scores import MacResult, mac, mac_ttest
from .numerics import weat_effect_size
from .permutation_test import Alternative, weat_test

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

__all__ = [
    "CALISKAN_840B",
    "CLASSIC_CI_PROB",
    "classic_changes",
    "classic_scores",
    "weat_overview",
]


# --------------------------------------------------------------------------- overview
#: Effect sizes Caliskan et al. (2017) report for GloVe 840B, tests 1–10.
CALISKAN_840B: tuple[float, ...] = (1.50, 1.53, 1.41, 1.50, 1.28, 1.81, 1.06, 1.24, 1.38,
                                    1.21)


def weat_overview(
    embeddings: KeyedVectors | str = "glove-6b-50d",
    *,
    permutations: int | Literal["auto", "exact"] = "auto",
    alternative: Alternative = "two-sided",
    n_boot: int = DEFAULT_N_BOOT,
    ci_prob: float = DEFAULT_CI_PROB,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Tabulate WEAT and MAC for Caliskan et al.'s ten tests.

    Each test's WEAT effect size with its item-bootstrap interval, p-value, missing words
    and MAC, next to the effect sizes Caliskan et al. report for GloVe 840B
    (:data:`CALISKAN_840B`).

    Parameters
    ----------
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    permutations, alternative, n_boot
        Go to :func:`weat`.
    ci_prob
        Probability of the item-bootstrap intervals.
    random_seed
        Seed of every test's permutations and bootstrap (each test starts from the same
        seed), or a Generator the tests draw from in turn. ``None`` (the default) draws
        one seed from the OS entropy (the seed policy of :mod:`embias._validation`); the
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``,
        and passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per test: ``test``, ``effect_size``, ``lower``/``upper`` (the ``ci_prob``
        percentile interval of the two-way item bootstrap, :func:`weat_item_bootstrap`:
        other words from the same populations), ``ci_prob``, ``p_value`` (permutation
        test: could the X/Y labels be arbitrary?), ``p_method`` (``exact`` or
        ``MC <permutations>``), ``population_estimate`` and
        ``population_lower``/``population_upper`` (the effect size of the word populations,
        corrected for the noise of short attribute lists, and its ``ci_prob`` interval:
        :meth:`WeatResult.population_columns`; NaN where it cannot be computed),
        ``random_seed`` (the seed of the test's permutations and bootstrap; None when a
        Generator was given), ``mac``, ``caliskan_840B``,
        ``missing`` (missing words per list, or ``none``). ``attrs["random_seed"]`` holds
        the seed too.

    Raises
    ------
    ValueError
        A bad option (as for :func:`weat`), or fewer than two words of a test's X or Y
        in the embeddings.

    Examples
    --------
    Random vectors for every word of the ten tests but "aster", one of test 1's
    flowers. The p-values are Monte Carlo ones here (``permutations=200``):

    >>> import numpy as np
    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> words = sorted({w for i in range(1, 11)
    ...                 for ws in embias.load_study(f"weat{i}").weat_sets() for w in ws})
    >>> words.remove("aster")
    >>> kv = KeyedVectors(vector_size=10)
    >>> kv.add_vectors(words, np.random.default_rng(0).standard_normal((len(words), 10)))
    >>> table = embias.weat_overview(kv, permutations=200, n_boot=20, random_seed=0)
    >>> table[["test", "p_method", "caliskan_840B", "missing"]].head(3)
        test p_method  caliskan_840B    missing
    0  weat1   MC 200           1.50  flowers:1
    1  weat2   MC 200           1.53       none
    2  weat3   MC 200           1.41       none
    >>> len(table), table.attrs["random_seed"]
    (10, 0)
    """
    import warnings

    ci_prob = check_probability("ci_prob", ci_prob)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    # one seed for the whole table (drawn here when None), so passing it back repeats it
    _, seed = resolve_rng(random_seed)
    seeds = random_seed if seed is None else seed

    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    rows = []
    for i, published in enumerate(CALISKAN_840B, start=1):
        test = f"weat{i}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # missing words: the column below
            r = weat_test(test, kv, permutations=permutations, alternative=alternative,
                          n_boot=n_boot, random_seed=seeds)
            m = mac(kv, test)
        missing = {k: len(v["missing"]) for k, v in r.missing.items() if v["missing"]}
        lower, upper = r.interval(ci_prob)
        rows.append({
            "test": test,
            "effect_size": r.effect_size,
            "lower": lower,
            "upper": upper,
            "ci_prob": ci_prob,
            "p_value": r.p_value,
            "p_method": "exact" if r.exact else f"MC {r.n_permutations:,}",
            **r.population_columns(ci_prob),
            "random_seed": r.random_seed,
            "mac": m.value,
            "caliskan_840B": published,
            "missing": ", ".join(f"{k}:{v}" for k, v in missing.items()) or "none",
        })
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table


# =========================================================================== the same table
#: Confidence level of the classic (MAC t) intervals of :func:`classic_scores` and
#: :func:`classic_changes`: embias's one default interval probability
#: (:data:`embias.settings.DEFAULT_CI_PROB`, 0.89); pass ``ci_prob=0.95`` for a paper's.
CLASSIC_CI_PROB = DEFAULT_CI_PROB



def _table_weat(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Return the WEAT effect size of every pair of protected classes, as table rows.

    Computed from the table's attribute rows (``associated``/``different``).
    """
    if "protected_class" not in table.columns:
        return []
    assoc = table[table["connection"] == "associated"]
    attr_of = assoc.groupby("protected_class")["word_class"].first().to_dict()
    classes = [c for c in table["protected_class"].unique() if c in attr_of]
    if "cosine_similarity" in table.columns:
        sim = table["cosine_similarity"].astype(float)
    else:
        sim = 1.0 - table["cosine_distance"].astype(float)
    attrs = table[table["word_class"].isin(set(attr_of.values()))].assign(sim=sim)
    mean_sim = attrs.groupby(["protected_word", "word_class"])["sim"].mean()
    word_class = table.groupby("protected_word")["protected_class"].first()
    rows = []
    for i, cx in enumerate(classes):
        for cy in classes[i + 1:]:
            a, b = attr_of[cx], attr_of[cy]
            x = [w for w in word_class.index if word_class[w] == cx]
            y = [w for w in word_class.index if word_class[w] == cy]
            try:
                s_x = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in x])
                s_y = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in y])
                effect = weat_effect_size(s_x, s_y)
            except (KeyError, ValueError):
                continue
            rows.append({"estimand": "weat_effect_size", "group": f"{cx} vs {cy}",
                         "estimate": float(effect), "lower": np.nan, "upper": np.nan})
    return rows



def classic_scores(table: pd.DataFrame, *, ci_prob: float = CLASSIC_CI_PROB) -> pd.DataFrame:
    """Compute the classic pre-averaged scores of a cosine table, as interval-table rows.

    MAC overall and per connection (:func:`embias.mac`, Student-t intervals) and, when
    the table has ``protected_class``, the WEAT effect size of every pair of protected
    classes computed from the table's rows (X, Y = the two classes' protected words,
    A, B = their associated attribute classes; no interval: the permutation test needs
    the embeddings, see :func:`weat_pairs`).

    Parameters
    ----------
    table
        A long-form cosine table (:func:`embias.cosine_table`,
        :func:`embias.load_published_table`).
    ci_prob
        Probability of the MAC intervals (default 0.89, :data:`CLASSIC_CI_PROB`).

    Returns
    -------
    pandas.DataFrame
        Interval table: ``mac`` rows (``group`` ``all``, ``associated``, ``different``)
        and ``weat_effect_size`` rows (``group`` ``"<class> vs <class>"``). Empty when the
        table has no ``word_class`` column.

    Raises
    ------
    ValueError
        A bad ``ci_prob``, or a table that :func:`embias.mac` refuses.

    Examples
    --------
    :func:`embias.mac`'s and :func:`embias.weat`'s two-dimensional example: MAC 0.4
    (0.1 over the associated rows, 0.7 over the different ones) and d ≈ 1.441:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> def toy_vectors(tulip, wasp):
    ...     kv = KeyedVectors(vector_size=2)
    ...     kv.add_vectors(["rose", "tulip", "ant", "wasp", "love", "hate"],
    ...                    [[1, 0], tulip, [0, 1], wasp, [1, 0], [0, 1]])
    ...     return kv
    >>> toy = embias.Study(name="toy", protected={"flowers": ("rose", "tulip"),
    ...                                           "insects": ("ant", "wasp")},
    ...                    attributes={"flowers": ("love",), "insects": ("hate",)})
    >>> table = embias.cosine_table(toy_vectors([0.8, 0.6], [0.6, 0.8]), toy)
    >>> embias.classic_scores(table)[["estimand", "group", "estimate"]].round(3)
               estimand               group  estimate
    0               mac                 all     0.400
    1               mac          associated     0.100
    2               mac           different     0.700
    3  weat_effect_size  flowers vs insects     1.441
    """
    ci_prob = check_probability("ci_prob", ci_prob)
    parts = []
    if "word_class" not in table.columns:  # MAC and WEAT need the attribute classes
        return interval_table([], ci_prob=None, ci_kind="none")
    attr = table[table["connection"].isin(["associated", "different"])]
    if not attr.empty:  # MAC reads only the attribute rows
        parts.append(mac(attr).to_interval_table(ci_prob=ci_prob))
    weat_rows = _table_weat(attr)
    if weat_rows:
        parts.append(interval_table(weat_rows, ci_prob=None, ci_kind="none"))
    if not parts:
        return interval_table([], ci_prob=None, ci_kind="none")
    return pd.concat(parts, ignore_index=True)



def _sub_mac(result: MacResult, connection: str) -> MacResult:
    if connection == "all":
        return result
    s = result.s_values[result.s_values["connection"] == connection]
    return dataclasses.replace(result, value=float(s["S"].mean()), s_values=s)



def classic_changes(
    tables: Mapping[str, pd.DataFrame],
    *,
    reference: str,
    ci_prob: float = CLASSIC_CI_PROB,
) -> pd.DataFrame:
    """Compute the classic scores of every embedding and their changes against the reference.

    Per embedding: :func:`classic_scores` (MAC overall and per connection
    with Student-t intervals, WEAT effect size per pair of protected classes). Per
    non-reference embedding: ``mac_change`` (MAC(e) − MAC(reference), overall and per
    connection) with the Student-t interval and p-value of Manzini et al.'s paired
    t-test over the S values (:func:`mac_ttest`), and ``weat_change`` (difference
    of WEAT effect sizes; no interval).

    Parameters
    ----------
    tables
        Embedding label → its long-form cosine table (the same study).
    reference
        The label the changes are measured against.
    ci_prob
        Probability of the MAC intervals (default 0.89, :data:`CLASSIC_CI_PROB`).

    Returns
    -------
    pandas.DataFrame
        Interval table with ``embedding`` (and ``reference`` for change rows).

    Raises
    ------
    ValueError
        A bad ``ci_prob``, a table :func:`embias.mac` refuses, or fewer than two shared
        (protected word, attribute class) pairs for a paired t-test.

    Examples
    --------
    Moving tulip onto rose's direction and wasp onto ant's raises MAC from 0.4 to 0.5
    and d from 1.441 to its ceiling √3 ≈ 1.732 for two words per group:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> def toy_vectors(tulip, wasp):
    ...     kv = KeyedVectors(vector_size=2)
    ...     kv.add_vectors(["rose", "tulip", "ant", "wasp", "love", "hate"],
    ...                    [[1, 0], tulip, [0, 1], wasp, [1, 0], [0, 1]])
    ...     return kv
    >>> toy = embias.Study(name="toy", protected={"flowers": ("rose", "tulip"),
    ...                                           "insects": ("ant", "wasp")},
    ...                    attributes={"flowers": ("love",), "insects": ("hate",)})
    >>> tables = {"before": embias.cosine_table(toy_vectors([0.8, 0.6], [0.6, 0.8]), toy),
    ...           "after": embias.cosine_table(toy_vectors([1, 0], [0, 1]), toy)}
    >>> changes = embias.classic_changes(tables, reference="before")
    >>> changes.loc[changes["embedding"] == "after",
    ...             ["estimand", "group", "estimate"]].round(3)
                estimand               group  estimate
    4                mac                 all     0.500
    5                mac          associated     0.000
    6                mac           different     1.000
    7   weat_effect_size  flowers vs insects     1.732
    8         mac_change                 all     0.100
    9         mac_change          associated    -0.100
    10        mac_change           different     0.300
    11       weat_change  flowers vs insects     0.291
    """
    ci_prob = check_probability("ci_prob", ci_prob)
    per = stack_interval_tables({label: classic_scores(t, ci_prob=ci_prob)
                                 for label, t in tables.items()}, key="embedding")
    per["reference"] = ""
    macs = {label: mac(t) for label, t in tables.items()
            if t["connection"].isin(["associated", "different"]).any()}
    mac_rows, weat_rows = [], []
    for label in tables:
        if label == reference:
            continue
        if label in macs and reference in macs:
            groups = ["all", *[c for c in ("associated", "different")
                               if (macs[reference].s_values["connection"] == c).any()]]
            for group in groups:
                before, after = _sub_mac(macs[reference], group), _sub_mac(macs[label], group)
                test = mac_ttest(before, after)  # tests before − after
                ci = test.confidence_interval(ci_prob)
                mac_rows.append({
                    "estimand": "mac_change", "group": group, "embedding": label,
                    "reference": reference, "estimate": -(ci.low + ci.high) / 2,
                    "lower": -ci.high, "upper": -ci.low, "p_value": float(test.pvalue),
                    "n_S": int(test.df) + 1, "mac_reference": before.value,
                    "mac_embedding": after.value,
                })
        weat_ref = per[(per["embedding"] == reference) & (per["estimand"] == "weat_effect_size")]
        weat_e = per[(per["embedding"] == label) & (per["estimand"] == "weat_effect_size")]
        both = weat_ref.merge(weat_e, on="group", suffixes=("_ref", "_e"))
        for _, row in both.iterrows():
            weat_rows.append({"estimand": "weat_change", "group": row["group"],
                              "embedding": label, "reference": reference,
                              "estimate": row["estimate_e"] - row["estimate_ref"],
                              "lower": np.nan, "upper": np.nan})
    parts = [per]
    if mac_rows:
        parts.append(interval_table(mac_rows, ci_prob=ci_prob, ci_kind="t"))
    if weat_rows:
        parts.append(interval_table(weat_rows, ci_prob=None, ci_kind="none"))
    return stack_interval_tables(parts)
