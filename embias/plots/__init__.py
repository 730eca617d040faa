"""Every figure embias draws.

Plot functions take results (interval tables, predictive checks, simulations, study
results) and never recompute them; matplotlib is imported when a plot is drawn.

One module per topic (every figure is also importable from ``embias.plots``):

- :mod:`~embias.plots.forest` — :func:`plot_forest`, a forest plot of any interval table
  (the building block);
- :mod:`~embias.plots.fits` — :func:`plot_bias_fit`, the composite figure of a fit, and
  :func:`plot_predictive_check`, observed vs posterior predictive distances;
- :mod:`~embias.plots.comparison` — :func:`plot_comparison`, the composite figure of a
  comparison of embeddings;
- :mod:`~embias.plots.simulations` — :func:`plot_weat_simulations`,
  :func:`plot_simulated_table`, the pre-averaging simulations;
- :mod:`~embias.plots.sentences` — :func:`plot_template_sensitivity`, SEAT against the
  crossed model on template subsets;
- :mod:`~embias.plots.downstream` — :func:`~embias.studies.plot_downstream` and
  :func:`~embias.studies.plot_sentence_scores`, the downstream sentiment study;
- :mod:`~embias.plots.influence` — :func:`plot_word_influence`, the change of every
  contrast when a word is left out, the most influential word on top;
- :mod:`~embias.plots.word_sampling` — :func:`plot_word_sampling`, the false claims and
  coverage of the word-sampling simulation, and :func:`plot_published_refits`, the
  published tables refitted with each model;
- :mod:`~embias.plots.calibration` — :func:`plot_calibration`, the coverage of the
  population answers per quantity against the nominal line;
- :mod:`~embias.plots.design` — :func:`plot_design_analysis`, the probability of a
  credible difference and the HDI width against list size;
- :mod:`~embias.plots.bbu` — :func:`plot_bbu_coverage`, a BBU coverage simulation
  (Ethayarajh 2020, Figure 1);
- :mod:`~embias.plots.layout` — what the figures share: axis labels, the layout of the
  composite figures (``panel_grid``), legends, ROPE shading.
"""

from .bbu import plot_bbu_coverage
from .calibration import plot_calibration
from .comparison import plot_comparison
from .design import plot_design_analysis
from .downstream import plot_downstream, plot_sentence_scores
from .fits import plot_bias_fit, plot_predictive_check
from .forest import plot_forest
from .influence import plot_word_influence
from .layout import AXIS_LABELS as AXIS_LABELS
from .layout import panel_grid
from .sentences import plot_template_sensitivity
from .simulations import plot_simulated_table, plot_weat_simulations
from .word_sampling import plot_published_refits, plot_word_sampling

__all__ = [
    "panel_grid",
    "plot_bbu_coverage",
    "plot_bias_fit",
    "plot_calibration",
    "plot_comparison",
    "plot_design_analysis",
    "plot_downstream",
    "plot_forest",
    "plot_predictive_check",
    "plot_published_refits",
    "plot_sentence_scores",
    "plot_simulated_table",
    "plot_template_sensitivity",
    "plot_weat_simulations",
    "plot_word_influence",
    "plot_word_sampling",
]
