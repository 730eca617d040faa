"""Calibration on real words: do other words of the same categories land in the interval.

An interval of embias says what the evidence supports about the *categories* a study's
words stand for, not only about the few words listed. Simulations from a model cannot test
that (a model always agrees with itself); real words can. :func:`calibrate_on_populations`
takes populations of real words (:class:`~embias.populations.WordPopulations`: hundreds
of words per role), draws many studies of a design (:class:`PopulationDesign`: words per
role), fits each through the batch API (:func:`embias.fit_many`) at each model level, and
counts how often each connection mean's and contrast's interval covers the **population
answer**:

- a connection's population answer is the mean cosine distance over *all* population pairs
  of that connection, the protected classes weighted as in the design (by their numbers of
  protected words) — for ``different``, a protected class's other attribute classes are
  weighted by their numbers of attribute words in the design, as they are in a study's
  rows (:func:`population_answers`);
- a contrast's population answer is the difference of two connection answers.

Coverage is reported with its binomial Monte Carlo standard error √(p(1 − p)/n) and the
mean interval width (:meth:`PopulationCalibration.summary`);
:func:`plot_calibration` draws coverage per quantity against the nominal line.

Two helpers of :mod:`~embias.calibration.intervals` serve :mod:`embias.simulate_words`
too, which asks the same questions of simulated tables: :func:`interval_rates` (shares of
intervals with their Monte Carlo standard errors, per level and quantity) and
:func:`fit_intervals` (one fit's intervals and convergence record). They are the
package's, not part of the public API.

The package, one module per idea (every name is also importable from
``embias.calibration``):

- :mod:`~embias.calibration.answers` — the population answers (:func:`population_answers`);
- :mod:`~embias.calibration.draws` — the studies drawn from the populations
  (:func:`draw_population_studies`);
- :mod:`~embias.calibration.run` — the run: fit the studies in batches and compare their
  intervals with the answers (:func:`calibrate_on_populations`);
- :mod:`~embias.calibration.result` — its result and the coverage summary
  (:class:`PopulationCalibration`, :func:`summarize_calibration`);
- :mod:`~embias.calibration.intervals` — the intervals of repeated studies, shared with
  :mod:`embias.simulate_words` (:func:`interval_rates`, :func:`fit_intervals`);
- :mod:`~embias.calibration.figure` — the coverage figure's old import path (deprecated):
  the figure (:func:`plot_calibration`) is in :mod:`embias.plots.calibration`.
"""

from typing import Any

# Names imported ``X as X`` are importable from here, as from the module embias.calibration
# was, but not in __all__.
from .._deprecation import moved_names
from ..populations import PopulationDesign as PopulationDesign
from ..populations import WordPopulations as WordPopulations
from .answers import population_answers
from .draws import draw_population_studies
from .intervals import ESTIMANDS as ESTIMANDS
from .intervals import QUANTITIES as QUANTITIES
from .intervals import UNCHECKED_VARIABLES as UNCHECKED_VARIABLES
from .intervals import fit_intervals as fit_intervals
from .intervals import interval_rates as interval_rates
from .result import RESULT_COLUMNS, SUMMARY_COLUMNS, PopulationCalibration, summarize_calibration
from .run import STUDIES_PER_BATCH as STUDIES_PER_BATCH
from .run import calibrate_on_populations

__all__ = [
    "RESULT_COLUMNS",
    "SUMMARY_COLUMNS",
    "PopulationCalibration",
    "calibrate_on_populations",
    "draw_population_studies",
    "population_answers",
    "summarize_calibration",
]

__getattr__: Any = moved_names(__name__, {"plot_calibration": "embias.plots.calibration"})
