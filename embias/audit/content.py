"""The sections of the audit page, computed from fits.

Every function here takes results and returns what the template shows (tables,
pictures, sentences). Nothing is refitted: the interval tables, diagnostics and classic
scores are those kept with the fits (:class:`embias.BiasFit`), the figures are drawn by
:mod:`embias.plots`.
"""

from __future__ import annotations

import importlib.metadata
import io
import itertools
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_probability
from ..report import (
    CREDIBLE_DIFFERENCE,
    PRACTICALLY_EQUIVALENT,
    interval_table,
)
from ..settings import DEFAULT_CI_PROB, FitSettings
from .options import CiKind
from .render import (
    Picture,
    Table,
    cache_file,
    frame_table,
    number,
    picture,
    read_cached,
    write_cached,
)
from .sources import FitEntry, saved_versions

if TYPE_CHECKING:  # pragma: no cover
    from ..wordlists import Study

__all__ = ["OptionalSection", "optional_section", "table_weat_tests"]

#: What each connection compares a protected word with (DESIGN §4).
CONNECTION_MEANING: Mapping[str, str] = {
    "associated": "the stereotype words of their own class",
    "different": "the stereotype words of the other classes",
    "none": "neutral words",
    "human": "human (person) words",
}

#: The order in which the page's "At a glance" lists the contrasts: the within-attribute
#: contrast (associated − different) first — both sides are attribute words, so what they
#: share as a topic cancels and what is left is the tie of each class to its own
#: attributes — then those against the neutral words, which also count topic relatedness.
GLANCE_ORDER: tuple[str, ...] = ("associated - different", "associated - none",
                                 "different - none", "human - none")

#: What each contrast asks, in a colleague's words (the "At a glance" lines).
CONTRAST_QUESTION: Mapping[str, str] = {
    "associated - different":
        "Own class's attributes against the other classes' (associated − different): does "
        "the embedding tie each protected class more closely to its own attribute words "
        "than to the other classes' attribute words? Both sides are attribute words, so "
        "what they share as a topic cancels: this is the contrast that measures the "
        "stereotype.",
    "associated - none":
        "Own class's attributes against neutral words (associated − none): are a class's "
        "attribute words closer to its protected words than random neutral words are? This "
        "also catches topic relatedness: attribute words about people (jobs, traits) are "
        "closer to any word for a person than random words are, whatever the class — read "
        "it together with associated − different.",
    "different - none":
        "Other classes' attributes against neutral words (different − none): are the other "
        "classes' attribute words closer than random neutral words are? There is no class "
        "tie here: this is topic relatedness alone (associated − none = associated − "
        "different + different − none).",
    "human - none":
        "Human words against neutral words (human − none): how much closer any word for a "
        "person is than a random word — the baseline of topic relatedness for words about "
        "people.",
}

#: What each model level is (DESIGN §5).
LEVEL_MEANING: Mapping[str, str] = {
    "dataset": "μ = m + co[connection]: one mean per connection for the whole table "
               "(ZeroSumNormal connection effects)",
    "word": "μ = m[protected word] + co[connection]: one offset per protected word",
    "hierarchical": "μ = coef[protected word, connection], coef ~ Normal(bar[connection], "
                    "tau[connection]): word-level coefficients partially pooled towards the "
                    "connection means (the published model of Dobrzeniecka & Urbaniak)",
    "crossed": "the hierarchical model plus one offset u[w] ~ Normal(0, τ_u[word kind]) per "
               "compared word: the compared words are a sample too, so the intervals "
               "generalise beyond the exact words used (Clark 1973)",
}

#: Packages whose versions the reproducibility block lists.
VERSIONED_PACKAGES: tuple[str, ...] = (
    "embias", "numpy", "scipy", "pandas", "xarray", "pymc", "pytensor", "arviz", "nutpie",
    "matplotlib", "jinja2", "gensim", "pyarrow", "h5netcdf", "h5py",
)

#: Interval-table columns of the Bayesian tables, with their headers.
BAYES_COLUMNS: Mapping[str, str] = {
    "estimand": "estimand", "group": "group", "estimate": "estimate", "lower": "lower",
    "upper": "upper", "interval": "interval", "prob_gt_0": "P(> 0)",
    "prob_in_rope": "P(in ROPE)", "rope_decision": "decision"}


def _decision_class(column: str, value: Any, _row: pd.Series) -> str:
    if column != "rope_decision" or not value:
        return ""
    return "decision " + str(value).replace(" ", "-")


def interval_label(ci_prob: float, ci_kind: str) -> str:
    """``89% HDI`` (how the page names an interval, from the table's own stamps)."""
    if ci_kind == "none" or ci_prob != ci_prob:  # NaN: no interval
        return "point estimate"
    return f"{ci_prob:.0%} {ci_kind.upper()}"


def _with_interval_label(table: pd.DataFrame) -> pd.DataFrame:
    out = table.copy()
    out["interval"] = [interval_label(p, k) for p, k in zip(out["ci_prob"], out["ci_kind"],
                                                            strict=True)]
    return out


# =========================================================================== optional parts
@dataclass(frozen=True)
class OptionalSection:
    """A part of the page that takes results computed elsewhere.

    It is shown when given, else "not computed" with what would compute it
    (:func:`optional_section`).

    Attributes
    ----------
    computed
        Whether the results were given.
    tables, pictures
        The results as HTML tables and figures.
    missing, command
        Why the part is absent and what would compute it (when not computed).
    """

    computed: bool
    tables: list[Table] = field(default_factory=list)
    pictures: list[Picture] = field(default_factory=list)
    missing: str = ""
    command: str = ""


def optional_section(
    value: Any,
    *,
    what: str,
    missing: str,
    command: str,
    fmt: str,
    id: str,
) -> OptionalSection:
    """Return the part of the page that shows ``value``, a result computed elsewhere.

    Parameters
    ----------
    value
        A DataFrame, a matplotlib figure, a list or tuple of those, or ``None`` (the "not
        computed" part).
    what
        What the result is (the caption of its tables and figures).
    missing, command
        Why the result may be absent and what computes it (shown when ``value`` is None).
    fmt
        ``"svg"`` or ``"png"``: how figures are inlined.
    id
        The id of the part on the page (tables get ``<id>-0``, ``<id>-1`` …).

    Returns
    -------
    OptionalSection
        The part: its tables and pictures, or why it is absent.

    Raises
    ------
    ValueError
        An item that is neither a DataFrame nor a figure (the message names its type).

    Examples
    --------
    >>> import pandas as pd
    >>> part = optional_section(pd.DataFrame({"word": ["greedy"], "influence": [0.031]}),
    ...                         what="word influence", missing="", command="", fmt="svg",
    ...                         id="word-influence")
    >>> part.computed, part.tables[0].headers, [c.text for c in part.tables[0].rows[0]]
    (True, ['word', 'influence'], ['greedy', '0.031'])
    >>> optional_section(None, what="SEAT", missing="no encoder was given",
    ...                  command="embias report … --encoder minilm", fmt="svg",
    ...                  id="seat").missing
    'no encoder was given'
    >>> optional_section("seat.csv", what="SEAT", missing="", command="", fmt="svg", id="seat")
    Traceback (most recent call last):
    ...
    ValueError: seat: expected a DataFrame, a matplotlib figure or a list of them, got str
    """
    if value is None:
        return OptionalSection(computed=False, missing=missing, command=command)
    items = list(value) if isinstance(value, list | tuple) else [value]
    tables, pictures = [], []
    for i, item in enumerate(items):
        if isinstance(item, pd.DataFrame):
            tables.append(frame_table(item.reset_index(drop=True), caption=what,
                                      id=f"{id}-{i}", cell_class=_decision_class))
        elif hasattr(item, "savefig"):
            pictures.append(picture(item, alt=what, caption=what, fmt=fmt))
        else:
            raise ValueError(f"{id.replace('-', '_')}: expected a DataFrame, a matplotlib "
                             f"figure or a list of them, got {type(item).__name__}")
    return OptionalSection(computed=True, tables=tables, pictures=pictures)


# =========================================================================== what was measured
def _lists_of_table(table: pd.DataFrame) -> dict[str, tuple[str, str, list[str]]]:
    """List name → (role, associated-with, words measured), from the fitted table."""
    lists: dict[str, tuple[str, str, list[str]]] = {}
    if "protected_class" in table.columns:
        for cls, part in table.groupby("protected_class", sort=False):
            lists[f"protected: {cls}"] = ("protected words", "",
                                          list(dict.fromkeys(part["protected_word"])))
    else:
        lists["protected words"] = ("protected words", "",
                                    list(dict.fromkeys(table["protected_word"])))
    classes = table["word_class"] if "word_class" in table.columns else table["connection"]
    associated: dict[str, set[str]] = {}
    if "protected_class" in table.columns and "word_class" in table.columns:
        assoc = table[table["connection"] == "associated"]
        for wc, pcs in assoc.groupby("word_class")["protected_class"]:
            associated[str(wc)] = set(pcs)
    for wc, part in table.groupby(classes, sort=False):
        connection = str(part["connection"].iloc[0])
        role = {"none": "neutral control", "human": "human control"}.get(connection,
                                                                           "attribute words")
        name = {"none": "neutral", "human": "human"}.get(connection, f"attributes: {wc}")
        lists[name] = (role, ", ".join(sorted(associated.get(str(wc), set()))),
                       list(dict.fromkeys(part["word_to_compare"])))
    return lists


def _missing_of(attrs: Mapping[str, Any], name: str) -> tuple[int | None, str]:
    """(missing count, missing words / note) of a list, from the table's ``attrs``."""
    report = attrs.get("missing") or {}
    key = (name.replace("protected: ", "protected:").replace("attributes: ", "attributes:"))
    info = report.get(key) or report.get(name.split(": ")[-1])
    if not isinstance(info, Mapping):
        return None, ""
    if "missing" in info:
        words = list(info.get("missing") or [])
        return len(words), ", ".join(words)
    if "coded_missing" in info:
        coded = int(info.get("coded_missing", 0))
        return None, (f"{coded} of {info.get('total')} rows coded missing (-100) by the "
                      "authors, left out" if coded else "")
    return None, ""


def measured_section(entries: Sequence[FitEntry], study: Study | None) -> dict[str, Any]:
    """Return what was measured: the word lists and the embeddings.

    The lists with their counts and missing words (per embedding), the words themselves,
    and every embedding's provenance.
    """
    from ..embeddings import BUILTIN_EMBEDDINGS

    firsts = list({e.label: e for e in entries}.values())  # one entry per embedding
    rows = []
    for entry in firsts:
        lists = _lists_of_table(entry.fit.table)
        for name, (role, with_class, words) in lists.items():
            count, missing = _missing_of(entry.fit.table.attrs, name)
            rows.append({"embedding": entry.label, "list": name, "role": role,
                         "associated with": with_class, "words measured": len(words),
                         "missing": count, "missing words": missing})
    frame = pd.DataFrame(rows).astype({"missing": "Int64"})
    columns = ["list", "role", "associated with", "words measured", "missing", "missing words"]
    if len(firsts) > 1:
        columns.insert(0, "embedding")
    lists_table = frame_table(frame, columns=columns, caption="Word lists and missing words",
                              id="word-lists")
    word_lists = [(name, ", ".join(ws)) for name, (_, _, ws)
                  in _lists_of_table(firsts[0].fit.table).items()]
    provenance = []
    for entry in firsts:
        attrs = entry.fit.table.attrs
        source = entry.source
        if source in BUILTIN_EMBEDDINGS:
            what = BUILTIN_EMBEDDINGS[source]
        elif source.startswith("published:"):
            what = str(attrs.get("source") or "the authors' published cosine table")
            if attrs.get("duplicates"):
                what += f"; {attrs['duplicates']} exact duplicate rows dropped"
        else:
            what = "embeddings read from this source"
        lookup = ("lower case" if attrs.get("lowercase") else "as given"
                  if "lowercase" in attrs else "")
        provenance.append({"embedding": entry.label, "source": source, "description": what,
                           "words looked up": lookup,
                           "table rows": len(entry.fit.table),
                           "self-pairs dropped": len(attrs.get("self_pairs_dropped") or [])})
    provenance_table = frame_table(pd.DataFrame(provenance), caption="Embeddings",
                                   id="embeddings")
    classes = ({c: study.associations.get(c, "") for c in study.protected}
               if study is not None else {})
    return {"lists": lists_table, "words": word_lists, "provenance": provenance_table,
            "associations": classes, "connections": connections_present(entries)}


def connections_present(entries: Sequence[FitEntry]) -> dict[str, str]:
    """Return the page's glossary: connection → what it compares protected words with.

    Only the connections present in the fitted tables, in :data:`CONNECTION_MEANING` order.
    """
    present = list(dict.fromkeys(str(c) for e in entries
                                 for c in e.fit.table["connection"].unique()))
    ordered = [c for c in CONNECTION_MEANING if c in present]
    ordered += [c for c in present if c not in CONNECTION_MEANING]
    return {c: CONNECTION_MEANING.get(c, f"{c} words") for c in ordered}


# =========================================================================== classic
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
            macs.append(_with_interval_label(mac))
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


# =========================================================================== Bayesian fit
def contrast_sentence(row: pd.Series) -> str:
    """Return a contrast's ROPE decision in plain words."""
    a, _, b = _contrast_name(row).partition(" - ")
    est, lo, hi = float(row["estimate"]), float(row["lower"]), float(row["upper"])
    rope = float(row["rope"])
    label = interval_label(float(row["ci_prob"]), str(row["ci_kind"]))
    head = (f"{a} − {b} = {number(est)} [{number(lo)}, {number(hi)}] ({label}; ROPE ±{rope:g}, "
            f"P(> 0) = {number(float(row['prob_gt_0']))}): ")
    what_a, what_b = CONNECTION_MEANING.get(a, f"{a} words"), CONNECTION_MEANING.get(
        b, f"{b} words")
    decision = row["rope_decision"]
    if decision == CREDIBLE_DIFFERENCE:
        side = "below" if hi < -rope else "above"
        closer = "closer to" if est < 0 else "farther from"
        return (head + f"the whole interval lies {side} the ROPE — a credible difference: "
                f"protected words sit {closer} {what_a} than to {what_b}.")
    if decision == PRACTICALLY_EQUIVALENT:
        return (head + "the whole interval lies inside the ROPE — practically equivalent: "
                f"protected words are as close to {what_a} as to {what_b}, up to ±{rope:g}.")
    return (head + "the interval reaches both inside and outside the ROPE — undecided: these "
            "data cannot tell a difference of practical size from none.")


def change_sentence(row: pd.Series) -> str:
    """Return a change between embeddings (paired model) in plain words."""
    est, lo, hi = float(row["estimate"]), float(row["lower"]), float(row["upper"])
    rope = float(row["rope"]) if "rope" in row and row["rope"] == row["rope"] else 0.0
    label = interval_label(float(row["ci_prob"]), str(row["ci_kind"]))
    group = str(row["group"])
    what = (f"mean distance of the {group} rows (to {CONNECTION_MEANING.get(group, group)})"
            if row["estimand"] == "change_connection_mean"
            else f"contrast {group.replace(' - ', ' − ')}")
    head = (f"{row['embedding']} − {row['reference']}, {what}: {number(est)} "
            f"[{number(lo)}, {number(hi)}] ({label}; ROPE ±{rope:g}): ")
    decision = row["rope_decision"]
    if decision == CREDIBLE_DIFFERENCE:
        return head + f"a credible change ({'up' if est > 0 else 'down'})."
    if decision == PRACTICALLY_EQUIVALENT:
        return head + f"practically no change (within ±{rope:g})."
    return head + "undecided: a change of practical size can be neither shown nor excluded."


def _pivot_words(words: pd.DataFrame, column: str) -> pd.DataFrame:
    """Protected words × ``column`` values, cells ``estimate [lower, upper]``."""
    cells = words.assign(cell=[f"{number(e)} [{number(lo)}, {number(hi)}]" + (
        f" {d}" if isinstance(d, str) and d else "")
        for e, lo, hi, d in zip(words["estimate"], words["lower"], words["upper"],
                                words.get("rope_decision", pd.Series([""] * len(words))),
                                strict=True)])
    index = [c for c in ("protected_class", "protected_word") if c in cells.columns]
    wide = cells.pivot_table(index=index, columns=column, values="cell", aggfunc="first",
                             sort=False)
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index().rename(columns={"protected_class": "class",
                                              "protected_word": "protected word"}).fillna("")


@dataclass(frozen=True)
class FigureSpec:
    """What a page figure is: where a saved fit keeps it, its alt text and caption."""

    where: Any
    alt: str
    caption: str
    fmt: str
    title: str = ""


def forest_spec(entry: FitEntry, *, ci_prob: float, ci_kind: CiKind, rope: float,
                fmt: str) -> FigureSpec:
    """Return what the forest plot of one fit is (:func:`embias.plots.plot_bias_fit`)."""
    title = f"{entry.study} / {entry.label} / {entry.level}"
    alt = (f"Forest plot of the {entry.level} model of {entry.study} on {entry.label}: "
           "connection means with the classic MAC, contrasts with the ROPE, WEAT, and "
           "word-level coefficients")
    caption = (f"{title}: {interval_label(ci_prob, ci_kind)}s; shaded: ROPE ±{rope:g}; "
               "◇ classic MAC of the same table")
    where = cache_file(entry.fit.path, "forest", {"ci_prob": ci_prob, "ci_kind": ci_kind,
                                                  "rope": rope, "fmt": fmt, "title": title})
    return FigureSpec(where=where, alt=alt, caption=caption, fmt=fmt, title=title)


def check_spec(entry: FitEntry, *, fmt: str, random_seed: int) -> FigureSpec:
    """Return what the posterior predictive check of one fit is.

    The figure is :func:`embias.plots.plot_predictive_check`'s.
    """
    alt = (f"Posterior predictive check of {entry.label}, {entry.level} model: observed "
           "cosine distances against the model's predictions per connection")
    caption = ("Observed distances (bars) and posterior predictive distances (line), per "
               "connection; titles: share of observed rows inside their cell's predictive "
               "intervals")
    where = cache_file(entry.fit.path, "ppc", {"random_seed": random_seed, "fmt": fmt})
    return FigureSpec(where=where, alt=alt, caption=caption, fmt=fmt)


def kept_picture(spec: FigureSpec, kept: Mapping[str, Any] | None) -> Picture | None:
    """Return the figure as the saved fit keeps it, or None when it must be drawn.

    ``kept`` is :func:`read_cached` of ``spec.where``.
    """
    if kept is None:
        return None
    return Picture(uri=kept["uri"], alt=spec.alt, caption=spec.caption, width=kept["width"],
                   height=kept["height"])


def keep_picture(spec: FigureSpec, picture: Picture, **extra: Any) -> None:
    """Keep a drawn figure with its saved fit, for :func:`kept_picture` to read back.

    ``extra`` is what the page shows next to it, e.g. the predictive check's coverage table.
    """
    write_cached(spec.where, {"uri": picture.uri, "width": picture.width,
                              "height": picture.height, **extra})


def is_kept(spec: FigureSpec) -> bool:
    """Return whether the saved fit keeps this figure.

    A kept file that cannot be read is drawn when it is collected.
    """
    return spec.where is not None and spec.where.is_file()


def kept_or_drawn(spec: FigureSpec, draw: Callable[[], tuple[Picture, dict[str, Any]]]
                  ) -> tuple[Picture, Mapping[str, Any]]:
    """Return the figure its saved fit keeps, else draw it and keep it for the next page.

    ``draw()`` returns the picture and what the page shows next to it; the result is the
    picture and that record.
    """
    kept = read_cached(spec.where)
    picture = kept_picture(spec, kept)
    if kept is not None and picture is not None:
        return picture, kept
    picture, extra = draw()
    keep_picture(spec, picture, **extra)
    return picture, extra


def draw_forest(table: pd.DataFrame, classic: pd.DataFrame, spec: FigureSpec) -> Picture:
    """Draw a fit's forest plot for the page."""
    from ..plots import plot_bias_fit

    return picture(plot_bias_fit(table, classic=classic, title=spec.title), alt=spec.alt,
                   caption=spec.caption, fmt=spec.fmt)


def draw_forest_and_png(table: pd.DataFrame, classic: pd.DataFrame, spec: FigureSpec, *,
                        png_title: str, png_dpi: int) -> tuple[Picture, bytes]:
    """Draw a fit's forest plot for the page and as the PNG ``embias fit`` writes.

    The PNG is titled ``png_title`` and drawn at ``png_dpi``. When the titles agree it is
    one figure, whose PNG keeps the constrained layout solved for the page's picture
    (solving it again is the slow part of drawing).
    """
    import matplotlib.pyplot as plt

    from ..plots import plot_bias_fit

    figure = plot_bias_fit(table, classic=classic, title=spec.title)
    same = png_title == spec.title
    page = picture(figure, alt=spec.alt, caption=spec.caption, fmt=spec.fmt, close=not same)
    if same:
        figure.set_layout_engine("none")
    else:
        figure = plot_bias_fit(table, classic=classic, title=png_title)
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=png_dpi)
    finally:
        plt.close(figure)
    return page, buffer.getvalue()


def draw_check(check: Any, spec: FigureSpec) -> Picture:
    """Draw a fit's posterior predictive check for the page."""
    from ..plots import plot_predictive_check

    return picture(plot_predictive_check(check), alt=spec.alt, caption=spec.caption,
                   fmt=spec.fmt)


def bayes_block(
    entry: FitEntry,
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
    fmt: str,
) -> dict[str, Any]:
    """Return one fit's Bayesian block.

    Its interval table, decisions in words, forest plot (the one its saved fit keeps, else
    drawn and kept) and word-level tables.
    """
    fit = entry.fit
    table = fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
    top = _with_interval_label(table[table["estimand"].isin(["connection_mean", "contrast"])])
    main = frame_table(top, columns=BAYES_COLUMNS, id=f"intervals-{entry.anchor}",
                       caption=f"{entry.label}, {entry.level} model: connection means and "
                               "contrasts", cell_class=_decision_class)
    sentences = [contrast_sentence(r) for _, r in table[table["estimand"] == "contrast"].iterrows()]
    spec = forest_spec(entry, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope, fmt=fmt)

    def draw() -> tuple[Picture, dict[str, Any]]:
        return draw_forest(table, fit.classic, spec), {}

    forest, _ = kept_or_drawn(spec, draw)
    words = table[table["estimand"] == "word_coefficient"]
    word_table = word_contrasts = None
    if not words.empty:
        word_table = frame_table(_pivot_words(words, "connection"),
                                 id=f"words-{entry.anchor}",
                                 caption=f"Word-level coefficients (estimate [lower, upper], "
                                         f"{interval_label(ci_prob, ci_kind)})")
    wc = table[table["estimand"] == "word_contrast"]
    if not wc.empty:
        word_contrasts = frame_table(_pivot_words(wc, "contrast"),
                                     id=f"word-contrasts-{entry.anchor}",
                                     caption="Word-level contrasts (estimate [lower, upper] "
                                             "and the ROPE decision)")
    sds = table[table["estimand"] == "compared_word_sd"]
    word_sds = (frame_table(_with_interval_label(sds), id=f"word-sd-{entry.anchor}",
                            columns={"group": "word kind", "estimate": "τ_u", "lower": "lower",
                                     "upper": "upper", "interval": "interval"},
                            caption="Spread of the compared words' own offsets u[w] "
                                    "(cosine distance), per kind of word")
                if not sds.empty else None)
    return {"anchor": entry.anchor, "label": entry.label, "level": entry.level,
            "model": LEVEL_MEANING.get(entry.level, entry.level), "word_sds": word_sds,
            "data": str(fit.settings.get("data", "")), "table": main,
            "sentences": sentences, "forest": forest, "words": word_table,
            "word_contrasts": word_contrasts}


# =========================================================================== words
def word_effect_tables(
    entries: Sequence[FitEntry],
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
    top: int = 5,
) -> list[Table]:
    """Return, for every fit of the crossed level, the compared words that move their rows most.

    Every attribute word, and the ``top`` control words of each kind with the largest own
    offset |u[w]| (largest first within each kind).
    """
    tables = []
    for e in entries:
        table = e.fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        effects = table[table["estimand"] == "compared_word_effect"]
        if effects.empty:
            continue
        ranked = effects.assign(size=effects["estimate"].abs()).sort_values(
            "size", ascending=False, kind="stable")
        kinds = list(dict.fromkeys(["attribute", *ranked["word_kind"]]))
        ranked = pd.concat([part if kind == "attribute" else part.head(top)
                            for kind in kinds
                            for part in [ranked[ranked["word_kind"] == kind]]])
        tables.append(frame_table(
            _with_interval_label(ranked), id=f"word-effects-{e.anchor}",
            columns={"group": "compared word", "word_kind": "kind", "estimate": "u[w]",
                     "lower": "lower", "upper": "upper", "interval": "interval"},
            caption=f"{e.label}, {e.level} model: own offsets u[w] of every attribute word "
                    f"and of the {top} control words of each kind with the largest ones (of "
                    f"{len(effects)} compared words) — how far each word moves all of its "
                    "rows (positive: farther from every protected word)"))
    return tables


# =========================================================================== model comparison
def level_comparisons(entries: Sequence[FitEntry], *, progress: bool = False
                      ) -> list[pd.DataFrame] | None:
    """Return the PSIS-LOO comparison of the levels fitted to each embedding's table.

    :func:`embias.compare_models` (leave one row out) for every embedding with two levels or
    more; None when there is none. ``progress``: a bar per fit (only on a terminal or in a
    notebook).
    """
    from ..bayes.loo import compare_models

    tables = []
    for label in dict.fromkeys(e.label for e in entries):
        fits = {e.level: e.fit for e in entries if e.label == label}
        if len(fits) < 2:
            continue
        # PSIS-LOO needs every draw's log-likelihood of every row: costly, so the table is
        # kept with the first fit (keyed on every fit's draws) when all are saved
        where = None
        if all(f.path for f in fits.values()):
            draws = [[level, f.path, *_draws_stamp(str(f.path))] for level, f in fits.items()]
            where = cache_file(next(iter(fits.values())).path, "loo",
                               {"by": "row", "fits": draws})
        kept = read_cached(where)
        if kept is not None:
            table = pd.DataFrame(kept["table"])
        else:
            table = compare_models(fits, by="row", progress=progress)
            write_cached(where, {"table": table.to_dict(orient="list")})
        table.insert(0, "embedding", label)
        tables.append(table)
    return tables or None


def _draws_stamp(path: str) -> list[int]:
    """Size and modification time of a saved fit's draws (what a kept result depends on)."""
    from pathlib import Path

    try:
        stat = (Path(path) / "posterior.nc").stat()
    except OSError:
        return [0, 0]
    return [stat.st_size, stat.st_mtime_ns]


# =========================================================================== trust
def trust_block(entry: FitEntry, *, fmt: str, random_seed: int) -> dict[str, Any]:
    """Return how far to trust one fit.

    Its convergence overview, its problems, the worst parameters and the posterior
    predictive check (picture and coverage: those its saved fit keeps, else drawn and kept).
    """
    from ..bayes.diagnostics import ESS_MIN, RHAT_MAX

    fit = entry.fit
    overview = fit.diagnostics_overview()
    row = overview.iloc[0]
    checks = pd.DataFrame([
        {"check": "largest r̂", "value": number(float(row["max_r_hat"]), 3),
         "rule": f"≤ {RHAT_MAX}", "passes": "yes" if row["max_r_hat"] <= RHAT_MAX else "no"},
        {"check": "smallest bulk ESS", "value": number(float(row["min_ess_bulk"]), 0),
         "rule": f"≥ {ESS_MIN}", "passes": "yes" if row["min_ess_bulk"] >= ESS_MIN else "no"},
        {"check": "smallest tail ESS", "value": number(float(row["min_ess_tail"]), 0),
         "rule": f"≥ {ESS_MIN}", "passes": "yes" if row["min_ess_tail"] >= ESS_MIN else "no"},
        {"check": "divergent transitions", "value": str(int(row["divergences"])),
         "rule": "0", "passes": "yes" if int(row["divergences"]) == 0 else "no"},
    ])
    checks_table = frame_table(
        checks, id=f"diagnostics-{entry.anchor}",
        caption=f"Convergence of {entry.label}, {entry.level} model "
                f"({int(row['chains'])} chains × {int(row['draws'])} draws)",
        cell_class=lambda c, v, _r: ("fails" if c == "passes" and v == "no" else ""))
    diagnostics = fit.diagnostics()
    worst = diagnostics.assign(_order=-diagnostics["r_hat"]).sort_values(
        ["_order", "ess_bulk"]).head(5)
    worst_table = frame_table(worst, columns={"parameter": "parameter", "r_hat": "r̂",
                                              "ess_bulk": "bulk ESS", "ess_tail": "tail ESS"},
                              digits={"r_hat": 3, "ess_bulk": 0, "ess_tail": 0},
                              id=f"worst-{entry.anchor}",
                              caption="The five parameters with the largest r̂")
    spec = check_spec(entry, fmt=fmt, random_seed=random_seed)

    def draw() -> tuple[Picture, dict[str, Any]]:
        check = fit.predictive_check(random_seed=random_seed)
        return draw_check(check, spec), {"coverage": check.coverage.to_dict(orient="list")}

    ppc, record = kept_or_drawn(spec, draw)
    table = pd.DataFrame(record["coverage"])
    coverage = frame_table(table.rename(columns={"inside": "share inside"}),
                           id=f"coverage-{entry.anchor}",
                           caption="Share of observed distances inside their cell's "
                                   "equal-tailed posterior predictive interval")
    return {"anchor": entry.anchor, "label": entry.label, "level": entry.level,
            "checks": checks_table, "problems": fit.problems(), "worst": worst_table,
            "ppc": ppc, "coverage": coverage}


# =========================================================================== across
def across_section(comparison: Any, *, labels: Sequence[str], fmt: str) -> dict[str, Any]:
    """Return the comparison across embeddings.

    The paired change table, its decisions in words and the comparison figure (or why there
    is none).
    """
    if comparison is None:
        return {"computed": False, "several": len(labels) > 1}
    from ..plots import plot_comparison

    table = comparison.table
    keep = ["change_connection_mean", "change_contrast", "mac_change", "weat_change"]
    changes = _with_interval_label(table[table["estimand"].isin(keep)])
    columns = {"estimand": "estimand", "group": "group", "embedding": "embedding",
               "reference": "reference", "estimate": "estimate", "lower": "lower",
               "upper": "upper", "interval": "interval", "prob_gt_0": "P(> 0)",
               "rope_decision": "decision", "p_value": "p-value (classic)"}
    change_table = frame_table(changes, columns=columns, id="changes",
                               caption="Changes against the reference embedding: the paired "
                                       "model (change_*) and the classic scores",
                               cell_class=_decision_class)
    bayes = changes[changes["estimand"].isin(keep[:2])]
    sentences = [change_sentence(r) for _, r in bayes.iterrows()]
    embeddings = [e for e in dict.fromkeys(table["embedding"]) if e]
    figure = picture(plot_comparison(table, title=" vs ".join(embeddings)),
                     alt="Forest plot comparing the embeddings: connection means, contrasts "
                         "and the paired changes, and word coefficients side by side",
                     caption="Every embedding side by side, and the paired change model "
                             "against the reference (shaded: ROPE)", fmt=fmt)
    diagnostics = (frame_table(comparison.diagnostics, id="comparison-diagnostics",
                               digits={"max_r_hat": 3, "min_ess_bulk": 0, "min_ess_tail": 0},
                               caption="Convergence of the comparison's fits")
                   if comparison.diagnostics is not None else None)
    return {"computed": True, "table": change_table, "sentences": sentences,
            "figure": figure, "diagnostics": diagnostics, "where": comparison.where,
            "unmatched": comparison.unmatched}


# =========================================================================== reproduce
def package_versions() -> dict[str, str]:
    """Return the versions of Python, the platform and :data:`VERSIONED_PACKAGES` installed."""
    from .. import __version__

    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for name in VERSIONED_PACKAGES:
        module = sys.modules.get(name)
        version = __version__ if name == "embias" else getattr(module, "__version__", None)
        if not isinstance(version, str):  # not imported: ask the installed metadata
            try:
                version = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
        versions[name] = version
    return versions


def reproduce_section(
    entries: Sequence[FitEntry],
    *,
    comparison: Any,
    commands: Sequence[tuple[str, str]],
    python: str,
    random_seed: int,
    classic_seeds: Sequence[str],
) -> dict[str, Any]:
    """Return how to reproduce the page.

    The installed versions and those recorded with each fit, the settings and seeds of every
    fit, the saved-fit keys and folders, and the commands that rebuild the page.
    """
    now = package_versions()
    rows = []
    recorded = {e.anchor: saved_versions(e.fit) for e in entries}
    for name, version in now.items():
        row = {"package": name, "this page": version}
        for e in entries:
            row[f"fit {e.label}/{e.level}"] = recorded[e.anchor].get(name, "")
        rows.append(row)
    versions = pd.DataFrame(rows)
    versions = versions.loc[:, [c for c in versions.columns
                                if c in ("package", "this page") or versions[c].astype(bool).any()]]
    fields = FitSettings.field_names()
    columns: dict[str, list[str]] = {}
    for e in entries:
        s = e.fit.settings
        record = {"source": e.source, **{f: s.get(f, "") for f in fields},
                  "rows": s.get("rows", ""), "cells": s.get("cells", ""),
                  "fit key": s.get("fit_key", ""), "saved fit": e.fit.path or "not saved",
                  "sampling seconds": e.fit.timings.get("sample_seconds", np.nan)}
        columns[f"{e.label} / {e.level}"] = [
            ", ".join(map(str, v)) if isinstance(v, list | tuple) else number(v, 1)
            if isinstance(v, float) else str(v) for v in record.values()]
    settings = pd.DataFrame({"setting": list(record), **columns})
    seeds = [f"sampler seed of {e.label}/{e.level}: {e.fit.settings.get('random_seed')}"
             for e in entries]
    seeds.append(f"posterior predictive draws: random_seed={random_seed}")
    seeds += classic_seeds
    if comparison is not None and comparison.settings.get("seeds"):
        seeds += [f"comparison {k}: {v}" for k, v in comparison.settings["seeds"].items()]
    return {"versions": frame_table(versions, id="versions", caption="Versions"),
            "settings": frame_table(settings, id="settings", caption="Settings of every fit"),
            "seeds": seeds, "commands": list(commands), "python": python,
            "unsaved": [f"{e.label}/{e.level}" for e in entries if not e.fit.path]}


@dataclass(frozen=True)
class GlanceLine:
    """One line of "At a glance".

    Which contrast (``"associated - different"`` …) and the sentence the page prints.
    """

    contrast: str
    text: str


@dataclass(frozen=True)
class GlanceGroup:
    """The lines of "At a glance" under one heading.

    The lines of one fit (``kind="contrast"``) or of one paired change between embeddings
    (``kind="change"``).
    """

    kind: str
    title: str
    lines: list[GlanceLine]


def _contrast_name(row: pd.Series) -> str:
    """Return a row's contrast name (``"associated - different"`` …).

    Its ``contrast``, else its ``group`` (a table read back from CSV has NaN where the
    column is empty).
    """
    name = row.get("contrast")
    return name if isinstance(name, str) and name else str(row["group"])


def _glance_order(rows: pd.DataFrame) -> pd.DataFrame:
    """Contrast rows in :data:`GLANCE_ORDER` (others after them, as they came)."""
    names = [_contrast_name(r) for _, r in rows.iterrows()]
    rank = [GLANCE_ORDER.index(n) if n in GLANCE_ORDER else len(GLANCE_ORDER) for n in names]
    return rows.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")


def glance(
    entries: Sequence[FitEntry],
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
    comparison: Any = None,
) -> list[GlanceGroup]:
    """Return the headline: every contrast of every fit in words.

    The within-attribute contrast (associated − different) first (:data:`GLANCE_ORDER`),
    each with what it asks; then, when embeddings are compared, the paired change of every
    contrast (``comparison``: a :class:`~embias.audit.sources.ComparisonInput`, its
    ``change_contrast`` rows).
    """
    groups = []
    for e in entries:
        table = e.fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        rows = _glance_order(table[table["estimand"] == "contrast"])
        lines = [GlanceLine(_contrast_name(r), contrast_glance(r))
                 for _, r in rows.iterrows()]
        if lines:
            groups.append(GlanceGroup("contrast", f"{e.label}, {e.level} model", lines))
    if comparison is not None:
        table = comparison.table
        changes = table[table["estimand"] == "change_contrast"]
        for (embedding, reference), part in changes.groupby(["embedding", "reference"],
                                                            sort=False):
            lines = [GlanceLine(_contrast_name(r), change_glance(r))
                     for _, r in _glance_order(part).iterrows()]
            groups.append(GlanceGroup(
                "change", f"Change from {reference} to {embedding} (paired change model: "
                          f"{embedding} − {reference})", lines))
    return groups


def contrast_glance(row: pd.Series) -> str:
    """Return a contrast of a fit for "At a glance".

    What it asks, then its numbers and ROPE decision in words (:func:`contrast_sentence`).
    """
    question = CONTRAST_QUESTION.get(_contrast_name(row))
    return f"{question} {contrast_sentence(row)}" if question else contrast_sentence(row)


def change_glance(row: pd.Series) -> str:
    """Return the paired change of a contrast for "At a glance".

    Its numbers and decision (:func:`change_sentence`) and, for a credible change, which way
    the protected words moved.
    """
    sentence = change_sentence(row)
    a, _, b = _contrast_name(row).partition(" - ")
    if row["rope_decision"] == CREDIBLE_DIFFERENCE and b:
        what_a = CONNECTION_MEANING.get(a, f"{a} words")
        what_b = CONNECTION_MEANING.get(b, f"{b} words")
        way = "farther from" if float(row["estimate"]) > 0 else "closer to"
        sentence += (f" In {row['embedding']} the protected words sit {way} {what_a}, "
                     f"relative to {what_b}, than in {row['reference']}.")
    return sentence


def caveats(entries: Sequence[FitEntry], *, sections: Mapping[str, OptionalSection],
            comparison: Any, ci_prob: float) -> list[str]:
    """Return what a reader must know before trusting the numbers."""
    notes = []
    for e in entries:
        problems = e.fit.problems()
        if problems:
            notes.append(f"{e.label}, {e.level} model, convergence: {'; '.join(problems)} "
                         "(section 4).")
    for e in {x.label: x for x in entries}.values():
        report = e.fit.table.attrs.get("missing") or {}
        missing = sum(len(v.get("missing") or []) for v in report.values()
                      if isinstance(v, Mapping))
        coded = sum(int(v.get("coded_missing") or 0) for v in report.values()
                    if isinstance(v, Mapping))
        if missing:
            notes.append(f"{e.label}: {missing} word(s) of the study are missing from the "
                         "embeddings and were left out (listed in section 1).")
        if coded:
            notes.append(f"{e.label}: {coded} row(s) were coded missing (-100) in the "
                         "authors' table and were left out.")
    if ci_prob != DEFAULT_CI_PROB:
        notes.append(f"Intervals are {ci_prob:.0%}, not the default {DEFAULT_CI_PROB:.0%}.")
    notes.append("Classic MAC intervals treat the S values as independent although they share "
                 "words: they are the classic, optimistic ones.")
    if comparison is not None and comparison.unmatched:
        notes.append(f"{comparison.unmatched} word pairs are not in every embedding and are "
                     "left out of the comparison.")
    absent = [name for name, section in sections.items() if not section.computed]
    if absent:
        notes.append(f"Not computed for this page: {'; '.join(absent)} (each section says "
                     "how to compute it).")
    return notes

