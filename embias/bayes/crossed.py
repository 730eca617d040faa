"""The crossed level: compared words (and templates) as random samples.

Every compared word w (an attribute, neutral or human word) appears in a row with every
protected word, so its own position in the space moves all of those rows together. The
crossed level adds that offset to the hierarchical model::

    y[p, w] ~ Normal(coef[p, con(p, w)] + u[w], σ[con(p, w)])
    u[w]    ~ Normal(0, τ_u[kind(w)])        kind ∈ {attribute, neutral, human}

An attribute word keeps one u whether a row calls it *associated* or *different*, so
associated − different is compared within words. The kind of a word follows from the
connections of its rows (:data:`WORD_KIND_OF_CONNECTION`).

Identification: the u's are not constrained to sum to zero. They are a sample from a
population with mean 0, and the connection means are the population means; the
uncertainty of the sample mean of the u's (≈ τ_u/√words) is exactly what widens the
intervals when the words are treated as a sample (Clark 1973; Baayen, Davidson & Bates
2008). A zero-sum constraint would make the connection means the means of *these* words
again.

The fast exact formulation (``data="summary"``, the default) integrates u out: the rows of
one compared word, r = y − coef, are jointly Normal with covariance D + τ²·11ᵀ
(D = diag σ²[con]), whose log density has a closed form by the matrix determinant lemma
and Sherman–Morrison::

    log N(r; 0, D + τ²11ᵀ) = −½ [n log 2π + Σ log dᵢ + log(1 + τ² c) + Σ rᵢ²/dᵢ − τ² b²/(1 + τ² c)]
    with c = Σ 1/dᵢ and b = Σ rᵢ/dᵢ.

Summed over the compared words, every term is a function of small statistics, so the
likelihood never visits the rows: Σ rᵢ²/dᵢ over all rows is Σ over cells of
(SS + n(ȳ − coef)²)/σ²[con] (the cell sufficient statistics of the hierarchical model);
c = Σ_con n[w, con]/σ²[con]; and b = Σ_con (S[w, con] − Σ_p n[w, p, con]·coef[p, con])/σ²[con]
with n[w, p, con] the rows of word w with protected word p in connection con and
S[w, con] the sum of their distances.

Groups: c and the fitted part of b depend on a word only through its count pattern
(n[w, ·, ·]), and τ_u through its kind, so the words sum by group g = (kind, pattern).
With B_w = Σ_con S[w, con]/σ²[con] and F_g the fitted part of the group's pattern,
b_w = B_w − F_g and Σ_{w∈g} b_w² = ιᵀ M_g ι + n_g (S̄_gᵀι − F_g)², where ι = 1/σ² per
connection, S̄_g the group's mean of S[w, ·] and M_g the scatter matrix of its S[w, ·]
about that mean (both computed once from the data: :meth:`CrossedDesign.word_groups`).
The gradient then costs (groups × connections²) + (patterns × protected words ×
connections) multiply-adds, whatever the number of rows or compared words: religion/GloVe
has 321 compared words in 5 groups, and a leapfrog step of numpyro's NUTS costs less than
half of what one term per word costs (``benchmarks/bench_warmup_depth.py``).

The sampler never sees the u's; after sampling each draw's u is drawn from its exact
conditional, u | rest ~ Normal(v·b, v) with v = 1/(1/τ² + c) (:func:`draw_word_effects`).
``data="raw"`` samples every u (non-centred) instead — the same posterior, kept to check
the fast one.

Templates (sentence tables)
---------------------------
A sentence table (:func:`embias.sentence_table`) has a ``template`` column: each row's
protected word was put in one template, and the template is a sample of the ways a
sentence could be worded (May et al. 2019; Seshadri et al. 2022). When the table has that
column the crossed level adds a template effect::

    y[p, t, w] ~ Normal(coef[p, con] + u[w] + V[t, kind(w)], σ[con])
    V[t, k]    = v[t] + v×[t, k]
    v[t]       ~ Normal(0, τ_template)              the template's shift of all its rows
    v×[t, k]   ~ Normal(0, τ_template×kind)         its departure for one kind of word

Why the second term: on the religion table of all-MiniLM-L6-v2 (May et al.'s templates,
moment estimates) the templates' shared effect has sd ≈ 0.028, and the template × word
kind departures sd ≈ 0.015 ("They are {term}." moves attribute rows by −0.05 and neutral
rows by 0.00). A shared v[t] cancels in every contrast of connections, so with v[t] alone
the contrasts (associated − none …) would ignore which templates happened to be used; v×
is what carries the template sample into them. Associated and different share the kind
*attribute* (one V per template for both), as they share u. The term v× is left out when
the table has a single kind of compared word (it would be v itself). Priors:
τ_template, τ_template×kind ~ Exponential(10) (mean 0.1, 95% below 0.3: a template shifts
a sentence's distances by a few hundredths — 0.015–0.05 measured on religion, race and
gender — and Exponential(2), the prior of τ_u, would put half its mass above 0.3, which
with few templates, where the data cannot measure the sd, is what the intervals would
show). Reported: ``template_effect`` (v[t]) and ``template_kind_effect`` (V[t, k], the
template's effect on the rows of a kind).

Few templates: with one or two templates per kind of protected word the template sd is
barely measured (its posterior is mostly the prior), and a template used alone by its
words is told from their coefficients by the priors only; NUTS then reports divergences
(benchmarks/bench_templates.py on religion/MiniLM: 3.5% of the draws with one template per
kind, 0.1% with two, none with four or more), which a higher ``target_accept`` reduces but
does not remove. Use more templates.

u is still integrated out: given V, the rows of word w have residual
r = y − coef[p, con] − V[t, kind(w)], jointly Normal with covariance D + τ_u²·11ᵀ as above,
so the same closed form holds with the statistics taken per template:

- Σ rᵢ²/dᵢ = Σ_con SS_T[con]/σ²[con] + Σ_k n_k (ȳ_k − coef[p_k, con_k] − V[t_k, kind(con_k)])²
  / σ²[con_k], over the *template cells* k = (p, con, t) with their n, ȳ and SS, SS_T[con]
  the sum of the SS of the template cells of con;
- b = Σ_con (S[w, con] − Σ_p n[w, p, con]·coef[p, con] − Σ_t m[w, t, con]·V[t, kind(con)])
  / σ²[con], with m[w, t, con] the rows of word w in template t and connection con (the
  fitted part is linear, so it splits into a protected-word and a template sum);
- c is unchanged (it does not involve the means).

A word's *count pattern* is then its (n[w, ·, ·], m[w, ·, ·]) pair; the fitted part is
computed once per pattern. The template effects are sampled (a few dozen templates at
most); the exact conditional of u adds the V term to b. ``data="raw"`` samples u as well,
with the same template parametrisation: the two agree within Monte Carlo error
(tests/test_seat_model.py). Parametrisation of v and v×, per template (and kind):
centred when the data pin it — the template shares protected words with other templates,
and its rows × τ̂²/σ̂² > 1 (moment estimates) with at least
:data:`~embias.bayes.data.CENTRED_MIN_ROWS` rows — non-centred otherwise. A template used
alone by its protected words (e.g. a subset keeping one template per kind of word) is told
from those words' coefficients by the priors only: centred, it would make a funnel as
τ_template → 0. Starting values are the moment estimates.

Not modelled: the compared words' own templates (``pairing="mean"`` averages a compared
word over its templates inside the row; with ``pairing="all"`` the ``compared_template``
column is ignored and its variation is residual), and a protected sentence's own offset
beyond coef + V (the (p, t, con) interaction, sd ≈ 0.014 on religion/MiniLM, mostly shared
by the connections of one sentence and so cancelling in the connection contrasts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .data import CENTRED_MIN_ROWS, row_cells

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["WORD_KINDS", "WORD_KIND_OF_CONNECTION", "CrossedDesign", "TemplateDesign",
           "WordGroups", "crossed_design", "draw_protected_coefficients", "draw_word_effects",
           "integrated_protected_cells", "row_template_effects"]

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
        return self._patterns()[0]

    @property
    def pattern_template_count(self) -> np.ndarray:
        """(pattern, template, connection) → rows of a word with that pattern.

        Sentence tables only.
        """
        if self.template is None:
            raise ValueError("the table has no template column")
        return self._patterns()[2]

    @property
    def word_pattern(self) -> np.ndarray:
        """Index into :attr:`patterns` of every compared word."""
        return self._patterns()[1]

    def word_groups(self) -> WordGroups:
        """Return the compared words grouped by (kind, count pattern), with group sums.

        The group statistics of their sums that the integrated likelihood needs (module
        notes, "Groups").
        """
        keys = np.stack([self.word_kind, self.word_pattern], axis=1)
        unique, group = np.unique(keys, axis=0, return_inverse=True)
        group = np.asarray(group, dtype=np.int64).ravel()
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

    def _patterns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n_words = len(self.words)
        flat = self.word_cell_count.reshape(n_words, -1)
        if self.template is not None:
            flat = np.concatenate(
                [flat, self.template.word_template_count.reshape(n_words, -1)], axis=1)
        unique, index = np.unique(flat, axis=0, return_inverse=True)
        size = int(np.prod(self.word_cell_count.shape[1:]))
        by_cell = unique[:, :size].reshape(-1, *self.word_cell_count.shape[1:])
        by_template = (unique[:, size:].reshape(-1, *self.template.word_template_count.shape[1:])
                       if self.template is not None else np.empty((len(unique), 0, 0)))
        return by_cell, np.asarray(index, dtype=np.int64).ravel(), by_template


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
    unknown = sorted(set(table["connection"].astype(str)) - set(WORD_KIND_OF_CONNECTION))
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


def _template_kind_draws(post: Any, template: TemplateDesign, kinds: list[str]) -> np.ndarray:
    """Draws (sample, template, kind) of V[t, k] in the design's order."""
    values = post["template_kind_effect"].transpose(
        "chain", "draw", "template", "word_kind").sel(
        template=template.templates, word_kind=kinds).values
    return values.reshape(-1, len(template.templates), len(kinds))


def draw_word_effects(
    posterior: DataTree,
    table: pd.DataFrame,
    cells: pd.DataFrame,
    design: CrossedDesign,
    *,
    random_seed: int,
    chunk: int = 250,
) -> np.ndarray:
    """Draw every compared word's effect u from its exact conditional posterior.

    Given each posterior draw of coef, σ, τ_u and, for a sentence table, the template
    effects V: u ~ Normal(v·b, v), v = 1/(1/τ² + c) (module notes).

    Parameters
    ----------
    posterior
        The fit's draws: ``coef``, ``sigma``, ``tau_word`` (and ``template_kind_effect``
        for a sentence table).
    table
        The fitted table.
    cells
        Its cell statistics.
    design
        Its :func:`crossed_design`.
    random_seed
        Seed of the draws.
    chunk
        Posterior draws processed at a time (bounds the memory).

    Returns
    -------
    numpy.ndarray
        Shape (chain, draw, compared word).

    Examples
    --------
    In the second draw τ_u ≈ 0: the words have no effects.

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
    >>> from embias.bayes.crossed import crossed_design, draw_word_effects
    >>> post = xr.Dataset(
    ...     {"coef": (("chain", "draw", "protected_word", "connection"),
    ...               np.full((1, 2, 2, 2), 0.9)),
    ...      "sigma": (("chain", "draw", "connection"), np.full((1, 2, 2), 0.1)),
    ...      "tau_word": (("chain", "draw", "word_kind"), [[[0.1, 0.1], [1e-6, 1e-6]]])},
    ...     coords={"protected_word": ["he", "she"], "connection": ["associated", "none"],
    ...             "word_kind": ["attribute", "neutral"]})
    >>> u = draw_word_effects(xr.DataTree.from_dict({"posterior": post}), table, cells,
    ...                       crossed_design(table, cells), random_seed=0)
    >>> u.shape, bool(np.abs(u[0, 1]).max() < 1e-4)
    ((1, 2, 4), True)
    """
    post = posterior["posterior"]
    words = list(cells["protected_word"].drop_duplicates())
    cons = list(cells["connection"].drop_duplicates())
    coef = post["coef"].transpose("chain", "draw", "protected_word", "connection")
    coef = coef.sel(protected_word=words, connection=cons).values
    sigma = post["sigma"].transpose("chain", "draw", "connection").sel(connection=cons).values
    tau = post["tau_word"].transpose("chain", "draw", "word_kind").sel(
        word_kind=design.kinds).values
    chains, draws = coef.shape[:2]
    coef = coef.reshape(chains * draws, len(words), len(cons))
    sigma = sigma.reshape(chains * draws, len(cons))
    tau2 = (tau.reshape(chains * draws, len(design.kinds)) ** 2)[:, design.word_kind]
    n_words = len(design.words)
    # every compared word with one count pattern has the same fitted sums: compute them per
    # pattern ((draw, protected) @ (protected, pattern) per connection, small products) and
    # look each word's up
    patterns = design.patterns
    word_pattern = design.word_pattern
    pattern_by_con = np.ascontiguousarray(patterns.transpose(2, 1, 0), dtype=float)  # (c,p,k)
    template_term = None
    if design.template is not None:
        # V[t, kind(con)] per draw, and the patterns' template counts m[k, t, con]
        by_kind = _template_kind_draws(post, design.template, design.kinds)[
            :, :, design.template.connection_kind]
        template_term = (np.ascontiguousarray(
            design.pattern_template_count.transpose(2, 1, 0), dtype=float), by_kind)
    rows_by_con = patterns.sum(axis=1)[word_pattern].T.astype(float)      # (con, word)
    rng = np.random.default_rng([int(random_seed), 104729])
    out = np.empty((chains * draws, n_words))
    sums = design.word_sum.T[:, None, :]                                # (con, 1, word)
    for start in range(0, chains * draws, chunk):
        s = slice(start, start + chunk)
        inv_var = sigma[s] ** -2                                        # (draw, con)
        fitted = np.matmul(np.ascontiguousarray(coef[s].transpose(2, 0, 1)),
                           pattern_by_con)                              # (c, d, pattern)
        if template_term is not None:                                   # + Σ_t m·V
            fitted = fitted + np.matmul(
                np.ascontiguousarray(template_term[1][s].transpose(2, 0, 1)),
                template_term[0])
        fitted = fitted[:, :, word_pattern]                             # (c, d, word)
        b = np.sum((sums - fitted) * inv_var.T[:, :, None], axis=0)     # (draw, word)
        c = np.sum(inv_var.T[:, :, None] * rows_by_con[:, None, :], axis=0)  # (draw, word)
        v = 1.0 / (1.0 / tau2[s] + c)
        out[s] = v * b + np.sqrt(v) * rng.standard_normal(v.shape)
    return out.reshape(chains, draws, n_words)


def draw_protected_coefficients(
    posterior: DataTree,
    cells: pd.DataFrame,
    design: CrossedDesign,
    *,
    random_seed: int,
    chunk: int = 500,
) -> np.ndarray:
    """Draw every protected word's coefficients from their exact conditional posterior.

    For a fit whose sampler integrated them out (``integrate_coefficients``, the
    ``crossed_strata`` level): given each posterior draw of the (class) connection means,
    S (τ, the correlations ``coef_correlation`` and ``tau_protected`` when the model has
    them), σ and τ_u, the coefficients x (compared words' effects integrated out) are
    Normal with precision Q = A + I ⊗ S⁻¹ and mean Q⁻¹h
    (:func:`embias.bayes.crossed_terms.integrated_coefficients_log_likelihood`).

    Q = L (I − ZZᵀ) Lᵀ with L the Cholesky factors of the protected words' blocks
    G_p = S⁻¹ + diag(n_p/σ²) and Z = L⁻¹ V W^½ (protected cells × word groups), so
    x = Q⁻¹h + L⁻ᵀ (I − ZZᵀ)^(−½) ε, ε ~ N(0, I), and with the thin SVD Z = U s Vᵀ,
    (I − ZZᵀ)^(−½) = I + U diag((1 − s²)^(−½) − 1) Uᵀ.

    Parameters
    ----------
    posterior
        The fit's draws: ``bar`` (or ``bar_class``), ``tau``, ``sigma`` and ``tau_word``
        (with ``coef_correlation`` and ``tau_protected`` when the model has them).
    cells
        The fitted table's cell statistics.
    design
        The table's :func:`crossed_design`.
    random_seed
        Seed of the draws.
    chunk
        Posterior draws processed at a time (bounds the memory).

    Returns
    -------
    numpy.ndarray
        Shape (chain, draw, protected word, connection), in the cells' order.

    Examples
    --------
    With τ ≈ 0 the coefficients sit at their connection means:

    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.crossed import crossed_design, draw_protected_coefficients
    >>> from embias.bayes.data import cell_statistics
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> cells = cell_statistics(table)
    >>> post = xr.Dataset(
    ...     {"bar": (("chain", "draw", "connection"), [[[0.75, 1.0]]]),
    ...      "tau": (("chain", "draw", "connection"), [[[1e-6, 1e-6]]]),
    ...      "sigma": (("chain", "draw", "connection"), [[[0.1, 0.1]]]),
    ...      "tau_word": (("chain", "draw", "word_kind"), [[[0.1, 0.1]]])},
    ...     coords={"connection": ["associated", "none"], "word_kind": ["attribute", "neutral"]})
    >>> coef = draw_protected_coefficients(xr.DataTree.from_dict({"posterior": post}), cells,
    ...                                    crossed_design(table, cells), random_seed=0)
    >>> coef.shape
    (1, 1, 2, 2)
    >>> coef[0, 0].round(4)
    array([[0.75, 1.  ],
           [0.75, 1.  ]])
    """
    p = _CoefficientParameters.of(posterior["posterior"], cells, design)
    n_p, n_c = p.centre.shape[1:]
    total = p.centre.shape[0]
    shape = (n_p, n_c)
    n_pc = cells["n"].to_numpy(float).reshape(shape)
    ybar = cells["mean"].to_numpy(float).reshape(shape)
    groups = design.word_groups()
    patterns = np.asarray(design.patterns, dtype=float)[groups.pattern]   # (group, P, C)
    rows_g = patterns.sum(axis=1)                                         # (group, C)
    rng = np.random.default_rng([int(random_seed), 7331])
    out = np.empty((total, n_p, n_c))
    for start in range(0, total, chunk):
        s = slice(start, start + chunk)
        m = len(range(total)[s])
        inv_var = p.sigma[s] ** -2                                        # (m, C)
        t2 = p.tau_word[s][:, groups.kind] ** 2                           # (m, G)
        c_g = rows_g @ inv_var.T                                          # (G, m)
        w = (t2 / (1.0 + t2 * c_g.T)) * groups.size                        # (m, G)
        beta = inv_var @ groups.mean_sum.T                                # (m, G)
        v = patterns[None] * inv_var[:, None, None, :]                    # (m, G, P, C)
        precision = np.linalg.inv(p.cov[s])                               # (m, C, C)
        blocks = precision[:, None] + (n_pc[None] * inv_var[:, None, :])[..., None] * np.eye(
            n_c)                                                          # (m, P, C, C)
        h = (n_pc[None] * inv_var[:, None, :] * ybar[None]
             - np.einsum("mg,mgpc->mpc", w * beta, v)
             + np.einsum("mpc,mcd->mpd", p.centre[s], precision))
        out[s] = _conditional_draw(blocks, h, v, w, rng.standard_normal((m, n_p * n_c)))
    return out.reshape(p.chains, p.draws, n_p, n_c)


@dataclass(frozen=True)
class _CoefficientParameters:
    """A fit's draws that the coefficients' conditional needs, flattened to (sample, …)."""

    chains: int
    draws: int
    sigma: np.ndarray
    centre: np.ndarray
    cov: np.ndarray
    tau_word: np.ndarray

    @classmethod
    def of(cls, post: Any, cells: pd.DataFrame, design: CrossedDesign) -> _CoefficientParameters:
        """Read the draws from a ``posterior`` group, in the cells' order."""
        from .model import protected_strata

        words = list(cells["protected_word"].drop_duplicates())
        cons = list(cells["connection"].drop_duplicates())
        n_p, n_c = len(words), len(cons)

        def values(name: str, *dims: str, **sel: list[str]) -> np.ndarray:
            da = post[name].transpose("chain", "draw", *dims)
            return da.sel(sel).values if sel else da.values

        sigma = values("sigma", "connection", connection=cons)
        chains, draws = sigma.shape[:2]
        total = chains * draws
        tau = values("tau", "connection", connection=cons).reshape(total, n_c)
        if "bar_class" in post:
            classes, word_class, _ = protected_strata(cells)
            centre = values("bar_class", "protected_class", "connection",
                            protected_class=classes, connection=cons).reshape(
                total, len(classes), n_c)[:, word_class, :]
        else:
            centre = np.repeat(values("bar", "connection", connection=cons).reshape(
                total, 1, n_c), n_p, axis=1)
        cov = tau[:, :, None] * tau[:, None, :]
        if "coef_correlation" in post:
            cov = cov * values("coef_correlation", "connection", "connection_b",
                               connection=cons, connection_b=cons).reshape(total, n_c, n_c)
        else:
            cov = cov * np.eye(n_c)
        if "tau_protected" in post:
            cov = cov + values("tau_protected").reshape(total, 1, 1) ** 2
        return cls(chains=chains, draws=draws, sigma=sigma.reshape(total, n_c), centre=centre,
                   cov=cov, tau_word=values("tau_word", "word_kind",
                                            word_kind=design.kinds).reshape(total, -1))


def _conditional_draw(blocks: np.ndarray, h: np.ndarray, v: np.ndarray, w: np.ndarray,
                      eps: np.ndarray) -> np.ndarray:
    """Return x = Q⁻¹h + L⁻ᵀ (I − ZZᵀ)^(−½) ε for a chunk of draws (see the caller).

    ``blocks`` (m, P, C, C) are the protected words' blocks G_p, ``h`` (m, P, C), ``v``
    (m, G, P, C) the word groups' columns, ``w`` (m, G) their weights and ``eps``
    (m, P·C) standard Normal draws.
    """
    m, n_p, n_c = h.shape
    chol = np.linalg.cholesky(blocks)                                     # (m, P, C, C)
    g_h = np.linalg.solve(blocks, h[..., None])[..., 0]                   # (m, P, C)
    g_v = np.linalg.solve(blocks[:, None], v[..., None])[..., 0]          # (m, G, P, C)
    h_mat = np.einsum("mgpc,mkpc->mgk", v, g_v)
    y = np.einsum("mgpc,mpc->mg", v, g_h)
    root = np.sqrt(w)
    n_groups = w.shape[1]
    j_mat = np.eye(n_groups)[None] - root[:, :, None] * h_mat * root[:, None, :]
    mean = g_h + np.einsum("mgpc,mg->mpc", g_v,
                           root * np.linalg.solve(j_mat, (root * y)[..., None])[..., 0])
    # noise: L⁻ᵀ (I − ZZᵀ)^(−½) ε with Z = L⁻¹ V W^½ (per protected word's block)
    z = np.linalg.solve(chol[:, None], v[..., None])[..., 0] * root[:, :, None, None]
    z = z.reshape(m, n_groups, n_p * n_c).transpose(0, 2, 1)             # (m, PC, G)
    u, sv, _ = np.linalg.svd(z, full_matrices=False)
    scale = 1.0 / np.sqrt(np.clip(1.0 - sv**2, 1e-300, None)) - 1.0
    eps = eps + np.einsum("mig,mg->mi", u, scale * np.einsum("mig,mi->mg", u, eps))
    noise = np.linalg.solve(np.swapaxes(chol, -1, -2),
                            eps.reshape(m, n_p, n_c)[..., None])[..., 0]
    return mean + noise


def integrated_protected_cells(n: np.ndarray, mean: np.ndarray, ss: np.ndarray,
                               centre: np.ndarray, tau2: np.ndarray, offset2: np.ndarray,
                               sigma2: np.ndarray) -> np.ndarray:
    """Return log p(rows of one protected word | centre, τ, τ_protected, σ), coef out.

    The word's coefficients coef ~ MvN(centre, diag(τ²) + τ_protected²·11ᵀ) are
    integrated out. The cell means are jointly Normal with covariance
    diag(τ² + σ²/n) + τ_protected²·11ᵀ (determinant lemma and Sherman–Morrison); each
    cell's SS adds its within-cell term.

    Parameters
    ----------
    n, mean, ss
        The word's cells per connection: rows, mean and sum of squared deviations (the
        compared words' effects taken out of the rows).
    centre, tau2, offset2, sigma2
        The coefficients' centre and variance τ², the shared offset's variance
        τ_protected² and the residual variance σ² (``offset2`` broadcasts to (sample,),
        the others to (sample, connection)).

    Returns
    -------
    numpy.ndarray
        The log density per sample, shape (sample,).

    Examples
    --------
    One row per cell: the cell means are jointly Normal,
    N(centre, diag(τ² + σ²) + τ_protected²·11ᵀ):

    >>> import numpy as np
    >>> from scipy import stats
    >>> from embias.bayes.crossed import integrated_protected_cells
    >>> mean, centre = np.array([0.8, 1.1]), np.array([0.9, 1.0])
    >>> tau2, sigma2 = np.array([0.01, 0.02]), np.array([0.04, 0.03])
    >>> value = integrated_protected_cells(np.ones(2), mean, np.zeros(2), centre, tau2,
    ...                                    np.array(0.005), sigma2)
    >>> round(float(value), 6)
    0.866694
    >>> round(float(stats.multivariate_normal.logpdf(mean, centre,
    ...                                              np.diag(tau2 + sigma2) + 0.005)), 6)
    0.866694
    """
    log_2pi = float(np.log(2.0 * np.pi))
    within = -0.5 * np.sum((n - 1.0) * (log_2pi + np.log(sigma2)) + np.log(n) + ss / sigma2,
                           axis=-1)
    d = tau2 + sigma2 / n
    r = mean - centre
    c = np.sum(1.0 / d, axis=-1)
    b = np.sum(r / d, axis=-1)
    denom = 1.0 + offset2 * c
    between = -0.5 * (r.shape[-1] * log_2pi + np.sum(np.log(d), axis=-1) + np.log(denom)
                      + np.sum(r**2 / d, axis=-1) - offset2 * b**2 / denom)
    return within + between


def row_template_effects(posterior: DataTree, table: pd.DataFrame,
                         cells: pd.DataFrame) -> np.ndarray | None:
    """Return each row's template effect V[t, kind(w)] per posterior draw.

    For a sentence table fitted at the crossed level; adding it to the row's coef (and u)
    gives the row's mean.

    Parameters
    ----------
    posterior
        The fit's draws (``template_kind_effect``).
    table
        The fitted table (``template`` column).
    cells
        Its cell statistics.

    Returns
    -------
    numpy.ndarray or None
        Shape (sample, row) (``chain × draw`` samples, in that order); ``None`` when the
        fit has no template effects (a word table, or another level).

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
    >>> from embias.bayes.crossed import row_template_effects
    >>> table["template"] = ["T1", "T1", "T1", "T1", "T2", "T2", "T2", "T2"]
    >>> post = xr.Dataset(
    ...     {"template_kind_effect": (("chain", "draw", "template", "word_kind"),
    ...                               [[[[0.01, 0.02], [-0.01, -0.02]]]])},
    ...     coords={"template": ["T1", "T2"], "word_kind": ["attribute", "neutral"]})
    >>> row_template_effects(xr.DataTree.from_dict({"posterior": post}), table, cells)
    array([[ 0.01,  0.01,  0.02,  0.02, -0.01, -0.01, -0.02, -0.02]])
    """
    post = posterior["posterior"]
    if "template_kind_effect" not in post or "template" not in table.columns:
        return None
    design = crossed_design(table, cells)
    template = design.template
    if template is None:  # pragma: no cover - the table has a template column
        return None
    values = _template_kind_draws(post, template, design.kinds)
    row_kind = template.connection_kind[design.row_cell % len(template.connection_kind)]
    return values[:, template.row_template, row_kind]
