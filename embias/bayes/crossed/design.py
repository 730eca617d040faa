"""The crossed level's design: what it computes once from a cosine table.

Every row's cell and compared word, each compared word's kind (:data:`WORD_KIND_OF_CONNECTION`)
and counts, the words' count patterns and their groups by (kind, pattern) with the group
sums the integrated likelihood needs; for a sentence table also the template statistics,
which templates are sampled centred and their starting values. The equations are in the
notes of :mod:`embias.bayes.crossed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..data import CENTRED_MIN_ROWS, row_cells

__all__ = ["WORD_KINDS", "WORD_KIND_OF_CONNECTION", "CrossedDesign", "TemplateDesign",
           "WordGroups", "crossed_design"]

#: Random-effect class of a compared word, by the connection of its rows.
WORD_KIND_OF_CONNECTION = {"associated": "attribute", "different": "attribute",
                           "none": "neutral", "human": "human"}
#: The word kinds in reporting order.
WORD_KINDS: tuple[str, ...] = ("attribute", "neutral", "human")


@dataclass(frozen=True)
class TemplateDesign:
    """The template statistics of a sentence table (see the module notes).

    Attributes
    ----------
    templates
        The templates, in order of first appearance.
    row_template
        Index into :attr:`templates` of every row.
    connection_kind
        Index into the design's kinds of every connection (cells' order).
    cell_word, cell_connection, cell_template
        Per template cell (protected word, connection, template): its protected word,
        connection and template indices.
    n, mean
        Rows and mean distance of every template cell.
    ss_by_connection
        Σ of the template cells' sums of squared deviations, per connection.
    word_template_count
        (compared word, template, connection) → rows.
    interaction
        Whether the template × word kind term is in the model (two kinds or more).
    centred, centred_interaction
        Per template (and kind): whether v (v×) is sampled centred.
    start, start_interaction, start_sd, start_sd_interaction
        Moment estimates of v, v×, τ_template and τ_template×kind (starting values).
    """

    templates: list[str]
    row_template: np.ndarray
    connection_kind: np.ndarray
    cell_word: np.ndarray
    cell_connection: np.ndarray
    cell_template: np.ndarray
    n: np.ndarray
    mean: np.ndarray
    ss_by_connection: np.ndarray
    word_template_count: np.ndarray
    interaction: bool
    centred: np.ndarray
    centred_interaction: np.ndarray
    start: np.ndarray
    start_interaction: np.ndarray
    start_sd: float
    start_sd_interaction: float


@dataclass(frozen=True)
class WordGroups:
    """Compared words of one kind and one count pattern (:meth:`CrossedDesign.word_groups`).

    Attributes
    ----------
    kind, pattern
        Index into the design's kinds and count patterns, per group.
    size
        Compared words in the group.
    mean_sum
        (group, connection) → mean over the group's words of their sums of distances.
    sum_scatter
        (group, connection, connection) → Σ over the group's words of the outer product of
        (word sum − group mean) with itself.
    """

    kind: np.ndarray
    pattern: np.ndarray
    size: np.ndarray
    mean_sum: np.ndarray
    sum_scatter: np.ndarray


@dataclass(frozen=True)
class CrossedDesign:
    """Indices of the crossed model: each row's cell and compared word, each word's kind.

    For a sentence table also the template statistics.

    Attributes
    ----------
    row_cell
        Index into the cell statistics of every row.
    row_word
        Index into :attr:`words` of every row.
    words
        The compared words, in order of first appearance.
    word_kind
        Index into :attr:`kinds` of every compared word.
    kinds
        The word kinds present, in :data:`WORD_KINDS` order.
    word_cell_count
        (compared word, protected word, connection) → number of rows.
    word_sum
        (compared word, connection) → sum of the word's cosine distances.
    template
        The template statistics when the table has a ``template`` column, else ``None``.
    patterns, word_pattern
        The distinct count patterns of the compared words (every neutral word usually has
        one row with each protected word: one pattern for all of them), and each word's
        pattern: the model computes the fitted sums once per pattern, not once per word.
    """

    row_cell: np.ndarray
    row_word: np.ndarray
    words: list[str]
    word_kind: np.ndarray
    kinds: list[str]
    word_cell_count: np.ndarray
    word_sum: np.ndarray
    template: TemplateDesign | None = None

    @property
    def patterns(self) -> np.ndarray:
        """(pattern, protected word, connection) → rows of a word with that pattern."""
        return self._patterns[0]

    @property
    def pattern_template_count(self) -> np.ndarray:
        """(pattern, template, connection) → rows of a word with that pattern.

        Sentence tables only.
        """
        if self.template is None:
            raise ValueError("the table has no template column")
        return self._patterns[2]

    @property
    def word_pattern(self) -> np.ndarray:
        """Index into :attr:`patterns` of every compared word."""
        return self._patterns[1]

    def word_groups(self) -> WordGroups:
        """Return the compared words grouped by (kind, count pattern), with group sums.

        The group statistics of their sums that the integrated likelihood needs (module
        notes, "Groups").
        """
        keys = np.stack([self.word_kind, self.word_pattern], axis=1)
        unique, group = unique_rows(keys)
        n_groups, n_con = len(unique), self.word_sum.shape[1]
        size = np.bincount(group, minlength=n_groups).astype(float)
        mean = np.zeros((n_groups, n_con))
        np.add.at(mean, group, self.word_sum)
        mean /= size[:, None]
        centred = self.word_sum - mean[group]
        scatter = np.zeros((n_groups, n_con, n_con))
        np.add.at(scatter, group, centred[:, :, None] * centred[:, None, :])
        return WordGroups(kind=unique[:, 0].astype(np.int64),
                          pattern=unique[:, 1].astype(np.int64), size=size,
                          mean_sum=mean, sum_scatter=scatter)

    @cached_property
    def _patterns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n_words = len(self.words)
        flat = self.word_cell_count.reshape(n_words, -1)
        if self.template is not None:
            flat = np.concatenate(
                [flat, self.template.word_template_count.reshape(n_words, -1)], axis=1)
        unique, index = unique_rows(flat)
        size = int(np.prod(self.word_cell_count.shape[1:]))
        by_cell = unique[:, :size].reshape(-1, *self.word_cell_count.shape[1:])
        by_template = (unique[:, size:].reshape(-1, *self.template.word_template_count.shape[1:])
                       if self.template is not None else np.empty((len(unique), 0, 0)))
        return by_cell, index, by_template


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct rows of a 2-d array, sorted, and each row's index among them.

    What ``np.unique(rows, axis=0, return_inverse=True)`` returns (the inverse flat, as
    int64) for rows without NaN or −0.0, found by hashing the rows' bytes first: the
    compared words of a table share a few count patterns, and sorting hundreds of rows
    as records is most of the design's time.

    Examples
    --------
    >>> rows = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.0, 2.0], [0.0, 1.0]])
    >>> unique, inverse = unique_rows(rows)
    >>> unique.tolist(), inverse.tolist()
    ([[0.0, 1.0], [0.0, 2.0], [1.0, 0.0]], [2, 1, 2, 1, 0])
    >>> expected = np.unique(rows, axis=0, return_inverse=True)
    >>> bool((expected[0] == unique).all() and (expected[1].ravel() == inverse).all())
    True
    """
    rows = np.ascontiguousarray(rows)
    codes, _ = pd.factorize(np.array([r.tobytes() for r in rows], dtype=object))
    _, first = np.unique(codes, return_index=True)  # each distinct row's first place
    distinct = rows[first]
    unique, order = np.unique(distinct, axis=0, return_inverse=True)
    return unique, np.asarray(order, dtype=np.int64).ravel()[codes]


def crossed_design(table: pd.DataFrame, cells: pd.DataFrame) -> CrossedDesign:
    """Return the crossed model's indices for a cosine table (checked).

    A ``template`` column (a sentence table) adds the template statistics
    (:class:`TemplateDesign`).

    Parameters
    ----------
    table
        A long-form cosine table with ``word_to_compare``.
    cells
        Its :func:`~embias.bayes.data.cell_statistics`.

    Returns
    -------
    CrossedDesign
        Every row's cell and compared word, every compared word's kind and counts.

    Raises
    ------
    ValueError
        The table has no ``word_to_compare`` column; a compared word has a single row (its
        own effect cannot be told from the row's noise); a compared word's rows belong to
        two kinds (e.g. it is both a neutral and a human word); a ``template`` column with
        missing values.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.data import cell_statistics
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> cells = cell_statistics(table)
    >>> from embias.bayes.crossed import crossed_design
    >>> design = crossed_design(table, cells)
    >>> design.words, design.kinds, design.word_kind
    (['doctor', 'engineer', 'chair', 'table'], ['attribute', 'neutral'], array([0, 0, 1, 1]))
    >>> try:
    ...     crossed_design(table.iloc[:7], cell_statistics(table.iloc[:7]))
    ... except ValueError as error:
    ...     print(error)
    level='crossed': 1 compared word(s) have a single row, e.g. ['table']; a word's own
    effect needs rows with at least 2 protected words (drop those rows or use
    level='hierarchical')
    """
    if "word_to_compare" not in table.columns:
        raise ValueError("level='crossed' needs the table's word_to_compare column (which "
                         "compared word each row measures); the table has only "
                         f"{list(table.columns)}")
    words_col = table["word_to_compare"].astype(str).to_numpy()
    codes, words = pd.factorize(words_col, sort=False)
    counts = np.bincount(codes, minlength=len(words))
    single = [str(w) for w in np.asarray(words)[counts < 2]]
    if single:
        raise ValueError(f"level='crossed': {len(single)} compared word(s) have a single row, "
                         f"e.g. {single[:5]}; a word's own effect needs rows with at least 2 "
                         "protected words (drop those rows or use level='hierarchical')")
    unknown = sorted(set(table["connection"].astype(str).unique())
                     - set(WORD_KIND_OF_CONNECTION))
    if unknown:  # pragma: no cover - validate_table refuses them first
        raise ValueError(f"unknown connection(s) {unknown}")
    row_kind = table["connection"].astype(str).map(WORD_KIND_OF_CONNECTION).to_numpy()
    present = set(row_kind)
    kinds = [k for k in WORD_KINDS if k in present]
    kind_code = pd.Index(kinds).get_indexer(row_kind)
    # the (word, kind) pairs that occur: a word with two is in rows of two kinds
    pairs = np.unique(codes.astype(np.int64) * len(kinds) + kind_code)
    pair_word, pair_kind = pairs // len(kinds), pairs % len(kinds)
    kinds_per_word = np.bincount(pair_word, minlength=len(words))
    mixed = [(str(words[w]), sorted(kinds[k] for k in pair_kind[pair_word == w]))
             for w in np.flatnonzero(kinds_per_word > 1)]
    if mixed:
        raise ValueError(f"level='crossed': compared word(s) in rows of two kinds, e.g. "
                         f"{mixed[:3]}; a word is an attribute, a neutral or a human word")
    word_kind = np.zeros(len(words), dtype=np.int64)
    word_kind[pair_word] = pair_kind
    row_cell = row_cells(table, cells)
    n_pw = cells["protected_word"].nunique()
    n_con = cells["connection"].nunique()
    # cells form a full protected word × connection grid (cell_statistics checks it)
    count = np.zeros((len(words), n_pw * n_con))
    np.add.at(count, (codes, row_cell), 1.0)
    total = np.zeros((len(words), n_pw * n_con))
    np.add.at(total, (codes, row_cell), table["cosine_distance"].to_numpy(float))
    template = (_template_design(table, cells, row_cell, codes, len(words), kinds)
                if "template" in table.columns else None)
    return CrossedDesign(row_cell=row_cell, row_word=codes.astype(np.int64),
                         words=[str(w) for w in words], word_kind=word_kind, kinds=kinds,
                         word_cell_count=count.reshape(len(words), n_pw, n_con),
                         word_sum=total.reshape(len(words), n_pw, n_con).sum(axis=1),
                         template=template)


def _template_design(table: pd.DataFrame, cells: pd.DataFrame, row_cell: np.ndarray,
                     row_word: np.ndarray, n_words: int, kinds: list[str]) -> TemplateDesign:
    """Return the template cells, per-word template counts, centring and starting values."""
    column = table["template"]
    if column.isna().any():
        raise ValueError(f"level='crossed': the template column has "
                         f"{int(column.isna().sum())} missing value(s); every row of a "
                         "sentence table names its template")
    row_template, templates = pd.factorize(column.astype(str).to_numpy(), sort=False)
    n_templates = len(templates)
    cons = list(dict.fromkeys(cells["connection"]))
    n_con = len(cons)
    y = table["cosine_distance"].to_numpy(float)
    # template cells: (cell, template) pairs that have rows
    key = row_cell.astype(np.int64) * n_templates + row_template
    cell_keys, row_tcell = np.unique(key, return_inverse=True)
    row_tcell = row_tcell.ravel()
    n = np.bincount(row_tcell).astype(float)
    mean = np.bincount(row_tcell, weights=y) / n
    ss = np.bincount(row_tcell, weights=(y - mean[row_tcell]) ** 2)
    cell = cell_keys // n_templates
    cell_template = (cell_keys % n_templates).astype(np.int64)
    cell_word = (cell // n_con).astype(np.int64)
    cell_connection = (cell % n_con).astype(np.int64)
    ss_by_connection = np.bincount(cell_connection, weights=ss, minlength=n_con)
    word_template_count = np.zeros((n_words, n_templates, n_con))
    np.add.at(word_template_count, (row_word, row_template, row_cell % n_con), 1.0)
    connection_kind = np.array([kinds.index(WORD_KIND_OF_CONNECTION[c]) for c in cons],
                               dtype=np.int64)
    interaction = len(kinds) >= 2
    cell_kind = connection_kind[cell_connection]
    starts = _template_starts(
        n, mean - cells["mean"].to_numpy(float)[cell], ss, y, cell_word=cell_word,
        cell_template=cell_template, cell_kind=cell_kind, n_templates=n_templates,
        n_kinds=len(kinds), interaction=interaction)
    return TemplateDesign(
        templates=[str(t) for t in templates], row_template=row_template.astype(np.int64),
        connection_kind=connection_kind, cell_word=cell_word, cell_connection=cell_connection,
        cell_template=cell_template, n=n, mean=mean, ss_by_connection=ss_by_connection,
        word_template_count=word_template_count, interaction=interaction, **starts)


def _template_starts(n: np.ndarray, depart: np.ndarray, ss: np.ndarray, y: np.ndarray, *,
                     cell_word: np.ndarray, cell_template: np.ndarray, cell_kind: np.ndarray,
                     n_templates: int, n_kinds: int, interaction: bool) -> dict[str, Any]:
    """Return the templates' moment estimates: starting values and centring.

    From the template cells' departures from their (protected word, connection) cell
    means. Only a template that shares protected words with other templates is pinned by
    the data (relative to them); one used alone by its words (May et al.'s mass-noun
    templates when the nouns keep theirs) is told from those words' coefficients by the
    priors only, and is sampled non-centred, as is every template when few rows inform it.
    """
    dof = float((n - 1).sum())
    resid_var = float(ss.sum()) / dof if dof > 0 else float(np.var(y))
    n_words_p = int(cell_word.max()) + 1
    pairs = np.unique(cell_word * n_templates + cell_template)
    templates_per_word = np.bincount(pairs // n_templates, minlength=n_words_p)
    informative = n * (templates_per_word[cell_word] >= 2)   # rows of crossed words

    def group_means(index: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        rows = np.bincount(index, weights=informative, minlength=size)
        sums = np.bincount(index, weights=informative * depart, minlength=size)
        return np.divide(sums, rows, out=np.zeros(size), where=rows > 0), rows

    def spread(values: np.ndarray, rows: np.ndarray) -> float:
        """Return the moment variance of the effects behind ``values`` (≤ 0: noise)."""
        if values.size < 2:
            return 0.0
        return float(values.var(ddof=1)) - float(np.mean(resid_var / rows))

    def pinned(rows: np.ndarray, tau2: float) -> np.ndarray:
        return (rows >= CENTRED_MIN_ROWS) & (tau2 > 0) & (rows * tau2 / resid_var > 1)

    by_template, rows_t = group_means(cell_template, n_templates)
    crossed = rows_t > 0
    start = np.where(crossed, by_template - (by_template[crossed].mean() if crossed.any()
                                             else 0.0), 0.0)
    tau2 = spread(start[crossed], rows_t[crossed])
    by_template_kind, rows_tk = group_means(cell_template * n_kinds + cell_kind,
                                            n_templates * n_kinds)
    rows_tk = rows_tk.reshape(n_templates, n_kinds)
    present = rows_tk > 0
    departure = np.where(present, by_template_kind.reshape(n_templates, n_kinds)
                         - by_template[:, None], 0.0)
    column_mean = np.divide(departure.sum(axis=0), present.sum(axis=0),
                            out=np.zeros(n_kinds), where=present.sum(axis=0) > 0)
    out: dict[str, Any] = {
        "centred": pinned(rows_t, tau2), "start": start,
        "start_sd": float(np.sqrt(max(tau2, 0.01**2))),
        "start_interaction": np.where(present, departure - column_mean, 0.0),
        "centred_interaction": np.zeros((n_templates, n_kinds), dtype=bool),
        "start_sd_interaction": 0.01}
    if interaction:
        tau2_k = spread(out["start_interaction"][present], rows_tk[present])
        out["centred_interaction"] = pinned(rows_tk, tau2_k)
        out["start_sd_interaction"] = float(np.sqrt(max(tau2_k, 0.01**2)))
    return out
