"""Design analysis: how many words a claim needs.

Before collecting words for a study — or before adding words to one — a researcher wants
to know what a study of a given size is likely to conclude. :func:`design_analysis`
answers by simulation: for every design size (attribute words per class, protected words
per class, neutral and human words) it draws ``n_studies`` new studies, fits each
(:func:`embias.fit_many`, all the fits of an analysis in a few batches) and reports, per
contrast (associated − none, associated − different, different − none, human − none):

- ``p_credible``: the share of studies whose ``ci_prob`` HDI of the contrast lies
  entirely outside the ROPE [−rope, rope] (the decision ``"credible difference"`` of
  :func:`embias.rope_decision`), with its binomial Monte Carlo se √(p(1 − p)/n);
- ``width_mean``: the mean HDI width (upper − lower), with its Monte Carlo se sd/√n.

Both are estimates of expectations over new studies of that size. Where the new studies
come from is the ``source``:

**A fitted pilot study** (a :class:`~embias.BiasFit` at the crossed level): new studies
are drawn from the posterior predictive distribution. Study i takes one posterior draw
(the same draw index at every size, so the sizes are compared on the same draws) of the
population means ``bar[con]`` and sds ``tau[con]`` of the protected words' coefficients,
the residual sds ``sigma[con]`` and the compared words' sds ``tau_word[kind]``, then draws
new protected words, coef[p, con] ~ N(bar[con], tau[con]), new compared words,
u[w] ~ N(0, tau_word[kind(w)]), and rows y = coef + u + N(0, sigma[con])
(:func:`embias.simulate_word_table`, on the rows of the design: every protected word
against every compared word, the connections following the pilot's classes and
associations). ``p_credible`` is then the *assurance* of the design: the probability of
a credible difference averaged over what the pilot leaves uncertain, not the power at
one assumed effect.

**Populations of real words** (:class:`~embias.populations.WordPopulations`, a shipped
set's name or a folder) with embeddings: new studies are drawn from the real words
(:meth:`WordPopulations.draw_study`) and their cosine tables computed
(:func:`embias.cosine_table`); the contrast's truth reported next to the rates is the
population answer (:func:`embias.population_answers`).

:meth:`DesignAnalysis.plot` (:func:`plot_design_analysis`) draws the probability against
list size per contrast with ±2 Monte Carlo se bars, and the expected width on a second
panel.

What more attribute words cannot buy: in the crossed model a protected word's
coefficients of two connections are independent draws around their means, so the
interval of a contrast of connections (associated − different) keeps a part
√(τ[a]² + τ[b]²)/√(protected words) that no number of attribute words shrinks; a longer
protected list does. The posterior predictive inherits this (it simulates the model that
is fitted); where a real protected word's coefficients move together, the model's
intervals — and so these widths — are wider than the words require.

The package, one module per idea (every name is also importable from ``embias.design``):

- :mod:`~embias.design.designs` — study sizes, their checks, and a design's rows
  (:func:`design_table`);
- :mod:`~embias.design.pilot` — a fitted pilot study read for its posterior predictive;
- :mod:`~embias.design.sources` — the source of the studies, resolved and checked;
- :mod:`~embias.design.draws` — drawing each study's table, truth and fit job;
- :mod:`~embias.design.fitting` — fitting the studies in blocks, one row per contrast;
- :mod:`~embias.design.result` — :class:`DesignAnalysis` and its summary per design;
- :mod:`~embias.design.analysis` — :func:`design_analysis`, its arguments and its run;
- :mod:`~embias.design.figure` — the figure's old import path (deprecated): the figure
  (:func:`plot_design_analysis`) is in :mod:`embias.plots.design`.
"""

from typing import Any

from .._deprecation import moved_names
from .analysis import DEFAULT_ATTRIBUTE_WORDS, DEFAULT_BLOCK, design_analysis
from .designs import PILOT, design_table
from .result import RESULT_COLUMNS, SUMMARY_COLUMNS, DesignAnalysis, summarize_design_analysis

__all__ = [
    "DEFAULT_ATTRIBUTE_WORDS",
    "DEFAULT_BLOCK",
    "PILOT",
    "RESULT_COLUMNS",
    "SUMMARY_COLUMNS",
    "DesignAnalysis",
    "design_analysis",
    "design_table",
    "summarize_design_analysis",
]

__getattr__: Any = moved_names(__name__, {"plot_design_analysis": "embias.plots.design"})
