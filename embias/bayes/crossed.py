"""The crossed level: compared words as a random sample (a random effect per compared word).

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
S[w, con] the sum of their distances. The cost per gradient is (compared words ×
protected words × connections) multiply-adds, whatever the number of rows.

The sampler never sees the u's; after sampling each draw's u is drawn from its exact
conditional, u | rest ~ Normal(v·b, v) with v = 1/(1/τ² + c) (:func:`draw_word_effects`).
``data="raw"`` samples every u (non-centred) instead — the same posterior, kept to check
the fast one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .data import row_cells

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["WORD_KINDS", "WORD_KIND_OF_CONNECTION", "CrossedDesign", "crossed_design",
           "draw_word_effects"]

#: Random-effect class of a compared word, by the connection of its rows.
WORD_KIND_OF_CONNECTION = {"associated": "attribute", "different": "attribute",
                           "none": "neutral", "human": "human"}
#: The word kinds in reporting order.
WORD_KINDS: tuple[str, ...] = ("attribute", "neutral", "human")


@dataclass(frozen=True)
class CrossedDesign:
    """Indices of the crossed model: every row's cell and compared word, every compared
    word's kind.

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
    patterns, word_pattern
        The distinct (protected word, connection) count patterns of the compared words
        (every neutral word usually has one row with each protected word: one pattern for
        all of them), and each word's pattern: the model computes Σ_p n·coef once per
        pattern, not once per word.
    """

    row_cell: np.ndarray
    row_word: np.ndarray
    words: list[str]
    word_kind: np.ndarray
    kinds: list[str]
    word_cell_count: np.ndarray
    word_sum: np.ndarray

    @property
    def patterns(self) -> np.ndarray:
        """(pattern, protected word, connection) → rows of a word with that pattern."""
        return self._patterns()[0]

    @property
    def word_pattern(self) -> np.ndarray:
        """Index into :attr:`patterns` of every compared word."""
        return self._patterns()[1]

    def _patterns(self) -> tuple[np.ndarray, np.ndarray]:
        flat = self.word_cell_count.reshape(len(self.words), -1)
        unique, index = np.unique(flat, axis=0, return_inverse=True)
        return (unique.reshape(-1, *self.word_cell_count.shape[1:]),
                np.asarray(index, dtype=np.int64).ravel())


def crossed_design(table: pd.DataFrame, cells: pd.DataFrame) -> CrossedDesign:
    """The crossed model's indices for a cosine table (checked).

    Raises
    ------
    ValueError
        The table has no ``word_to_compare`` column; a compared word has a single row (its
        own effect cannot be told from the row's noise); a compared word's rows belong to
        two kinds (e.g. it is both a neutral and a human word).
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
    per_word = pd.DataFrame({"w": codes, "k": row_kind}).groupby("w")["k"].unique()
    mixed = [(str(words[w]), sorted(k)) for w, k in per_word.items() if len(k) > 1]
    if mixed:
        raise ValueError(f"level='crossed': compared word(s) in rows of two kinds, e.g. "
                         f"{mixed[:3]}; a word is an attribute, a neutral or a human word")
    present = set(row_kind)
    kinds = [k for k in WORD_KINDS if k in present]
    word_kind = np.array([kinds.index(per_word[w][0]) for w in range(len(words))],
                         dtype=np.int64)
    row_cell = row_cells(table, cells)
    n_pw = cells["protected_word"].nunique()
    n_con = cells["connection"].nunique()
    # cells form a full protected word × connection grid (cell_statistics checks it)
    count = np.zeros((len(words), n_pw * n_con))
    np.add.at(count, (codes, row_cell), 1.0)
    total = np.zeros((len(words), n_pw * n_con))
    np.add.at(total, (codes, row_cell), table["cosine_distance"].to_numpy(float))
    return CrossedDesign(row_cell=row_cell, row_word=codes.astype(np.int64),
                         words=[str(w) for w in words], word_kind=word_kind, kinds=kinds,
                         word_cell_count=count.reshape(len(words), n_pw, n_con),
                         word_sum=total.reshape(len(words), n_pw, n_con).sum(axis=1))


def draw_word_effects(
    posterior: DataTree,
    table: pd.DataFrame,
    cells: pd.DataFrame,
    design: CrossedDesign,
    *,
    random_seed: int,
    chunk: int = 250,
) -> np.ndarray:
    """Draws of every compared word's effect u from its exact conditional posterior
    (given each posterior draw of coef, σ and τ_u): u ~ Normal(v·b, v), v = 1/(1/τ² + c).

    Returns
    -------
    numpy.ndarray
        Shape (chain, draw, compared word).
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
    count = design.word_cell_count
    rng = np.random.default_rng([int(random_seed), 104729])
    out = np.empty((chains * draws, n_words))
    for start in range(0, chains * draws, chunk):
        s = slice(start, start + chunk)
        inv_var = sigma[s] ** -2                                        # (draw, con)
        fitted = np.einsum("wpc,dpc->dwc", count, coef[s])              # Σ_p n·coef
        b = np.einsum("dwc,dc->dw", design.word_sum[None] - fitted, inv_var)
        c = inv_var @ count.sum(axis=1).T                               # (draw, word)
        v = 1.0 / (1.0 / tau2[s] + c)
        out[s] = v * b + np.sqrt(v) * rng.standard_normal(v.shape)
    return out.reshape(chains, draws, n_words)
