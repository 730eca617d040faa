"""Section 2 of the audit page: the classic scores.

MAC per embedding with its Student-t intervals, WEAT of every pair of protected classes
computed from a fitted cosine table (permutation p-value and item-bootstrap interval,
``table_weat_tests``), SEAT of every pair with a sentence encoder (``seat_pairs``), and
the section that shows them (``classic_section``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_probability
from ..report import interval_table
from ..settings import DEFAULT_CI_PROB
from .optional import OptionalSection
from .render import Table, frame_table
from .sources import FitEntry
from .wording import interval_label, with_interval_label

if TYPE_CHECKING:  # pragma: no cover
    from ..wordlists import Study


def table_weat_tests(
    table: pd.DataFrame,
    *,
    random_seed: int = 0,
    ci_prob: float = DEFAULT_CI_PROB,
    null_ci_prob: float = DEFAULT_CI_PROB,
) -> pd.DataFrame:
    """Return WEAT of every pair of protected classes with its permutation p-value.

    Computed from a cosine table: no embeddings are needed, since the test uses only each
    protected word's association score s(w, A, B), which the table's similarities give.
    X, Y are the two classes' protected words, A, B their associated attribute classes;
    the test is :func:`embias.classic.weat_permutation_test`, as in
    :func:`embias.weat_pairs` (exact enumeration of the equal-size re-partitions of X ∪ Y
    when there are at most 1,000,000, else 100,000 seeded Monte Carlo partitions),
    two-sided. Each row also gets the ``ci_prob`` interval of the two-way item bootstrap
    (:func:`embias.weat_item_bootstrap`: target and attribute words resampled, seeded by
    ``random_seed``).

    Parameters
    ----------
    table
        A long-form cosine table with ``protected_class`` and ``word_class`` columns
        (:func:`embias.study_table`); without them the result has no rows.
    random_seed
        Seed of the Monte Carlo partitions (when exact enumeration is too large) and of
        the item bootstrap.
    ci_prob
        Probability of the item-bootstrap interval.
    null_ci_prob
        Probability of the central range of the permutation null (``null_lower``,
        ``null_upper``).

    Returns
    -------
    pandas.DataFrame
        Interval table (``ci_kind`` of the bootstrap) with ``p_value``, ``exact``,
        ``n_permutations``, ``null_lower``/``null_upper``/``null_ci_prob``, ``n_x``,
        ``n_y``, ``resampled``, ``n_boot`` and ``random_seed``.

    Raises
    ------
    ValueError
        A bad seed or probability.

    Examples
    --------
    >>> import embias
    >>> table = embias.load_published_table("religion", "reddit")
    >>> tests = table_weat_tests(table, random_seed=0)
    >>> tests[["group", "n_x", "n_y", "n_permutations", "exact"]]
                     group  n_x  n_y  n_permutations  exact
    0  jewish vs christian    5    5             252   True
    1     jewish vs muslim    5    5             252   True
    2  christian vs muslim    5    5             252   True

    Exact p-values count partitions: 150, 2 and 8 of the 252 are as extreme as observed.

    >>> (tests["p_value"] * 252).round(6).tolist()
    [150.0, 2.0, 8.0]
    """
    from ..classic import ITEM_BOOTSTRAP_CI_KIND

    check_probability("null_ci_prob", null_ci_prob)
    if not {"protected_class", "word_class"} <= set(table.columns):
        return interval_table([], ci_prob=None, ci_kind="none")
    assoc = table[table["connection"] == "associated"]
    attr_of = assoc.groupby("protected_class")["word_class"].first().to_dict()
    classes = [c for c in dict.fromkeys(table["protected_class"]) if c in attr_of]
    sim = (table["cosine_similarity"].astype(float) if "cosine_similarity" in table.columns
           else 1.0 - table["cosine_distance"].astype(float))
    attrs = table.assign(sim=sim)[table["word_class"].isin(set(attr_of.values()))]
    mean_sim = attrs.groupby(["protected_word", "word_class"])["sim"].mean()
    wide = attrs.pivot_table(index="protected_word", columns="word_to_compare", values="sim",
                             aggfunc="mean", sort=False)
    words_of = attrs.groupby("word_class")["word_to_compare"].unique()
    class_of = table.groupby("protected_word", sort=False)["protected_class"].first()
    rows = []
    for cx, cy in itertools.combinations(classes, 2):
        x = [w for w in class_of.index if class_of[w] == cx]
        y = [w for w in class_of.index if class_of[w] == cy]
        a, b = attr_of[cx], attr_of[cy]
        try:
            s = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in [*x, *y]])
        except KeyError:
            continue
        if len(x) < 2 or len(y) < 2:
            continue
        sim_a = wide.loc[[*x, *y], list(words_of[a])].to_numpy(dtype=float)
        sim_b = wide.loc[[*x, *y], list(words_of[b])].to_numpy(dtype=float)
        rows.append({"estimand": "weat_effect_size", "group": f"{cx} vs {cy}",
                     **_pair_weat(s, sim_a, sim_b, len(x), random_seed=random_seed,
                                  ci_prob=ci_prob, null_ci_prob=null_ci_prob)})
    if not rows:
        return interval_table([], ci_prob=None, ci_kind="none")
    return interval_table(rows, ci_prob=ci_prob, ci_kind=ITEM_BOOTSTRAP_CI_KIND)


def _pair_weat(s: np.ndarray, sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, *,
               random_seed: int, ci_prob: float, null_ci_prob: float) -> dict[str, Any]:
    """Return the WEAT row of one pair of classes, without its estimand and group.

    ``s`` are the association scores of the X words, then the Y words (the first
    ``n_x``); ``sim_a``, ``sim_b`` their similarities with the words of A and of B. The
    permutation test is :func:`embias.classic.weat_permutation_test` (two-sided), the
    interval that of :func:`embias.weat_item_bootstrap`.
    """
    from .._validation import resolve_rng
    from ..classic import weat_effect_size, weat_item_bootstrap, weat_permutation_test

    rng, _ = resolve_rng(random_seed)
    test = weat_permutation_test(s, n_x, permutations="auto", alternative="two-sided",
                                 rng=rng)
    lo, hi = np.quantile(test.null_effect_sizes, [(1 - null_ci_prob) / 2,
                                                  (1 + null_ci_prob) / 2])
    boot = weat_item_bootstrap(sim_a, sim_b, n_x, random_seed=random_seed)
    lo_b, hi_b = boot.interval(ci_prob)
    return {"estimate": float(weat_effect_size(s[:n_x], s[n_x:])), "lower": lo_b,
            "upper": hi_b, "p_value": test.p_value, "alternative": "two-sided",
            "exact": test.exact, "n_permutations": test.n_permutations,
            "null_lower": float(lo), "null_upper": float(hi), "null_ci_prob": null_ci_prob,
            "n_x": n_x, "n_y": s.size - n_x, "random_seed": random_seed,
            "resampled": boot.resample, "n_boot": boot.n_boot}


def _weat_table(frame: pd.DataFrame, *, several: bool, id: str, caption: str) -> Table:
    """Return WEAT-like rows (WEAT, SEAT) as a page table.

    Effect size, permutation p-value and how it was computed, the null's range, and the
    item-resampling interval (or "not computed").
    """
    frame = frame.copy()
    exact = frame["exact"] if "exact" in frame.columns else [True] * len(frame)
    counts = frame["n_permutations"] if "n_permutations" in frame.columns else [0] * len(frame)
    frame["p method"] = ["exact" if e else f"Monte Carlo, {int(n):,} partitions"
                         for e, n in zip(exact, counts, strict=True)]
    what = frame["resampled"] if "resampled" in frame.columns else [""] * len(frame)
    frame["interval"] = [
        "not computed" if lo != lo else f"{p:.0%} item bootstrap ({r})" if r
        else interval_label(p, k)
        for p, k, lo, r in zip(frame["ci_prob"], frame["ci_kind"], frame["lower"], what,
                               strict=True)]
    columns = {**({"embedding": "embedding"} if several else {}),
               "group": "X vs Y (classes)", "estimate": "effect size d",
               "p_value": "p-value (two-sided)", "p method": "p method",
               "null_lower": "null lower", "null_upper": "null upper",
               "lower": "lower", "upper": "upper", "interval": "item-resampling interval"}
    return frame_table(frame, columns=columns, caption=caption, id=id)


def seat_pairs(
    study: Study,
    encoder: Any,
    *,
    random_seed: int,
    ci_prob: float = DEFAULT_CI_PROB,
) -> pd.DataFrame:
    """Return SEAT of every pair of protected classes of a study, as WEAT rows.

    The test is :func:`embias.sentences.seat_test`, the pairs those of
    :func:`embias.weat_pairs`.
    """
    from ..sentences import seat_test

    parts = []
    for cx, cy in itertools.combinations(study.protected, 2):
        pair = study.replace(
            name=f"{cx} vs {cy}",
            protected={cx: study.protected[cx], cy: study.protected[cy]},
            associations={cx: study.associations[cx], cy: study.associations[cy]})
        result = seat_test(pair, encoder, random_seed=random_seed, name=pair.name)
        parts.append(result.to_interval_table(ci_prob=ci_prob))
    if not parts:
        raise ValueError(f"SEAT needs a study with two protected classes or more; "
                         f"{study.name!r} has {len(study.protected)}")
    table = pd.concat(parts, ignore_index=True)
    table.insert(2, "encoder", getattr(encoder, "name", str(encoder)))
    return table


def classic_section(
    entries: Sequence[FitEntry],
    *,
    weat: pd.DataFrame | None,
    seat: OptionalSection,
    random_seed: int,
    ci_prob: float = DEFAULT_CI_PROB,
    seat_rows: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """Return the classic scores of the page.

    MAC (per embedding, with Student-t intervals), WEAT (per pair of classes, with
    permutation p-values and item-bootstrap intervals) and SEAT (computed here from an
    encoder, given, or "not computed").
    """
    firsts = list({e.label: e for e in entries}.values())
    several = len(firsts) > 1
    macs, weats = [], []
    for entry in firsts:
        classic = entry.fit.classic
        mac = classic[classic["estimand"] == "mac"].copy()
        if not mac.empty:
            mac.insert(0, "embedding", entry.label)
            macs.append(with_interval_label(mac))
        if weat is None:
            tests = table_weat_tests(entry.fit.table, random_seed=random_seed, ci_prob=ci_prob)
        elif "embedding" in weat.columns:
            tests = weat[weat["embedding"] == entry.label]
        else:
            tests = weat if entry is firsts[0] else weat.iloc[:0]
        if not tests.empty:
            tests = tests.copy()
            if "embedding" not in tests.columns:
                tests.insert(0, "embedding", entry.label)
            weats.append(tests)
    mac_table = None
    if macs:
        frame = pd.concat(macs, ignore_index=True)
        mac_table = frame_table(
            frame, columns={**({"embedding": "embedding"} if several else {}),
                            "group": "attribute rows", "estimate": "MAC", "lower": "lower",
                            "upper": "upper", "interval": "interval", "n_S": "S values"},
            caption="MAC: mean cosine distance of protected words to attribute lists",
            id="mac", digits={"n_S": 0})
    weat_table, resampled, seeds = None, False, []
    if weats:
        frame = pd.concat(weats, ignore_index=True)
        resampled = bool(frame["lower"].notna().any())
        weat_table = _weat_table(frame, several=several, id="weat",
                                 caption="WEAT of every pair of protected classes")
        exact = frame["exact"].astype(bool).all() if "exact" in frame.columns else True
        seeds.append("WEAT permutation p-values: exact enumeration (no seed)" if exact else
                     f"WEAT permutation p-values: Monte Carlo, random_seed={random_seed}")
        if "n_boot" in frame.columns and weat is None:
            seeds.append(f"WEAT item bootstrap: {int(frame['n_boot'].max()):,} replicates, "
                         f"random_seed={random_seed}")
    seat_table = None
    if seat_rows is not None:
        encoder = str(seat_rows["encoder"].iloc[0])
        seat_table = _weat_table(seat_rows, several=False, id="seat",
                                 caption=f"SEAT of every pair of protected classes ({encoder})")
        seeds.append(f"SEAT permutations and item bootstrap: random_seed={random_seed}")
    return {"mac": mac_table, "weat": weat_table, "weat_resampled": resampled, "seat": seat,
            "seat_table": seat_table, "seeds": seeds}
