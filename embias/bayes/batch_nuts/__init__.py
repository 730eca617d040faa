"""NUTS for many chains at once, each at its own pace: one compiled program for a batch.

:func:`run_lanes` runs independent NUTS chains ("lanes") — the chains of many tables of
one shape — in one XLA program. A vectorised NUTS that builds every lane's whole tree in
lockstep waits, at every draw, for the lane with the longest tree (several times the
mean tree) and pays for nested loops and branches taken by no lane. Here one step
of the program is *one leapfrog step of every lane*: each lane carries its own tree-building
state (Hoffman & Gelman's doubling with multinomial sampling and the generalised U-turn
criterion checked on every sub-tree, Betancourt 2017, appendix A), and a lane that
finishes a draw starts its next one on the following step. The program runs until every
lane has its draws, so the cost is the slowest lane's *total* leapfrog steps, not the sum
of per-draw maxima. With fewer lanes than chains, a lane whose chain is done takes up
the next chain, so the cost is about the chains' total leapfrog steps over the lanes.

Warm-up is Stan's: a step size from a doubling/halving heuristic, dual averaging towards
``target_accept`` (γ = 0.05, t₀ = 10, κ = 0.75), a diagonal mass matrix estimated in
doubling windows (75 / 25, 50, … / 50 iterations, scaled down for short warm-ups as
numpyro and Stan do) and regularised as Stan does.

The kernel is pure JAX: ``potential`` is any function ``(z, data) -> U(z)`` of a flat
position and a pytree of data; ``jax.vmap`` over lanes gives each lane its own data. It
needs JAX's 64-bit mode (``jax_enable_x64``, which PyMC's JAX sampler module turns on
when imported): the lanes' seeds and random streams are unsigned 64-bit integers.

The package, one module per idea (every name is also importable from
``embias.bayes.batch_nuts``):

- :mod:`~embias.bayes.batch_nuts.run` — :func:`run_lanes`, the entry point, and its result
  ``LaneDraws``;
- :mod:`~embias.bayes.batch_nuts.program` — the compiled program: lanes refilled with
  chains, the switch to a dense metric, progress reports, the compile cache;
- :mod:`~embias.bayes.batch_nuts.kernel` — one lane's NUTS: its tree one leapfrog step at
  a time, its random stream, its step-size and diagonal mass-matrix adaptation;
- :mod:`~embias.bayes.batch_nuts.adaptation` — Stan's warm-up windows
  (``adaptation_schedule``, ``last_window``) and the dense metric of a window.
"""

# Names imported ``X as X`` are importable from here, as from the module
# embias.bayes.batch_nuts was, but not in __all__.
from .adaptation import adaptation_schedule
from .adaptation import dense_metric as dense_metric
from .adaptation import last_window as last_window
from .kernel import MAX_DELTA_ENERGY as MAX_DELTA_ENERGY
from .kernel import STAT_NAMES as STAT_NAMES
from .program import REPORT_EVERY as REPORT_EVERY
from .program import compiled_program as compiled_program
from .run import LaneDraws, run_lanes

__all__ = ["LaneDraws", "adaptation_schedule", "run_lanes"]
