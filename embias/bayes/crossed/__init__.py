"""The crossed level: compared words (and templates) as random samples.

Every compared word w (an attribute, neutral or human word) appears in a row with every
protected word, so its own position in the space moves all of those rows together. The
crossed level adds that offset to the hierarchical model::

    y[p, w] ~ Normal(coef[p, con(p, w)] + u[w], σ[con(p, w)])
    u[w]    ~ Normal(0, τ_u[kind(w)])        kind ∈ {attribute, neutral, human}

An attribute word keeps one u whether a row calls it *associated* or *different*, so
associated − different is compared within words. The kind of a word follows from the
connections of its rows
(:data:`~embias.bayes.crossed.design.WORD_KIND_OF_CONNECTION`).

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

The package, one module per idea (every name is also importable from
``embias.bayes.crossed``):

- :mod:`~embias.bayes.crossed.design` — what the crossed level computes once from a table:
  ``crossed_design`` (``CrossedDesign``: cells, compared words, their kinds, count patterns
  and word groups; ``TemplateDesign``: a sentence table's template statistics, centring and
  starting values) and the word kinds (``WORD_KIND_OF_CONNECTION``, ``WORD_KINDS``);
- :mod:`~embias.bayes.crossed.word_effects` — after sampling: the compared words' effects
  drawn from their exact conditional (``draw_word_effects``) and the rows' template effects
  (``row_template_effects``);
- :mod:`~embias.bayes.crossed.coefficients` — the protected words' coefficients when the
  sampler integrated them out: drawn from their exact conditional
  (``draw_protected_coefficients``), and their cells' integrated density
  (``integrated_protected_cells``).

The likelihood in PyTensor is in :mod:`embias.bayes.crossed_terms`.
"""

from .coefficients import draw_protected_coefficients, integrated_protected_cells
from .design import (
    WORD_KIND_OF_CONNECTION,
    WORD_KINDS,
    CrossedDesign,
    TemplateDesign,
    WordGroups,
    crossed_design,
)
from .word_effects import draw_word_effects, row_template_effects

__all__ = ["WORD_KINDS", "WORD_KIND_OF_CONNECTION", "CrossedDesign", "TemplateDesign",
           "WordGroups", "crossed_design", "draw_protected_coefficients", "draw_word_effects",
           "integrated_protected_cells", "row_template_effects"]
