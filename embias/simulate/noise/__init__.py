"""Pre-averaging simulations: WEAT effect sizes of simulated raw cosine similarities.

One design (:func:`simulate_weat`, :class:`WeatSimulation`), a grid of designs
(:func:`simulate_weat_grid`), and their summary as an interval table with the exact values
next to them (:func:`summarize_simulations`). The numerators, the published figures and
what survives their correction: :mod:`embias.simulate`.

The package, one module per idea (every name is also importable from
``embias.simulate.noise``):

- :mod:`~embias.simulate.noise.draws` — the raw similarities, drawn block by block from a
  seed, and their effect sizes;
- :mod:`~embias.simulate.noise.results` — :class:`WeatSimulation`,
  :class:`WeatSimulationGrid` and their interval table (:func:`summarize_simulations`);
- :mod:`~embias.simulate.noise.runs` — :func:`simulate_weat` (one design) and
  :func:`simulate_weat_grid` (a grid of designs).
"""

from .results import (
    SIMULATION_CI_KIND,
    WeatSimulation,
    WeatSimulationGrid,
    summarize_simulations,
)
from .runs import PUBLISHED_FIGURES, simulate_weat, simulate_weat_grid

__all__ = [
    "PUBLISHED_FIGURES",
    "SIMULATION_CI_KIND",
    "WeatSimulation",
    "WeatSimulationGrid",
    "simulate_weat",
    "simulate_weat_grid",
    "summarize_simulations",
]
