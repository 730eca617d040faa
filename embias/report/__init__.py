"""Shared reporting layer: one tidy interval table for every method in embias.

Every estimate that embias reports — a Bayesian HDI, a Student-t interval, a Bernstein
bound, a WEAT effect size with its permutation p-value — is a row of the same table
(columns ``estimand``, ``group``, ``estimate``, ``lower``, ``upper``, ``ci_prob``,
``ci_kind``, then each method's own). The kind and the probability are always set by the
code that computed the numbers (through :func:`interval_table`), never by the caller of a
plot or a renderer, so a label cannot drift from the numbers it describes.

The package, one module per idea (its public names are also importable from
``embias.report``):

- :mod:`~embias.report.intervals` — the interval table: its columns and kinds
  (:data:`~embias.report.intervals.CI_KINDS`), built, checked and stacked;
- :mod:`~embias.report.decision` — :func:`rope_decision`, Kruschke's interval + ROPE
  rule, and its three words (``embias.report.decision.DECISIONS``);
- :mod:`~embias.report.formatting` — :func:`format_number` and :func:`to_markdown`: numbers
  and tables as embias prints them;
- :mod:`~embias.report.cli_columns` — the columns the command line prints for each table;
- :mod:`~embias.report.monte_carlo` — ``share_with_mc_se``, a simulated share with
  its Monte Carlo standard error.
"""

from .cli_columns import CLI_CHANGE_COLUMNS as CLI_CHANGE_COLUMNS
from .cli_columns import CLI_CHANGE_WORD_COLUMNS as CLI_CHANGE_WORD_COLUMNS
from .cli_columns import CLI_LEVEL_COLUMNS as CLI_LEVEL_COLUMNS
from .cli_columns import CLI_SHORT_COLUMNS as CLI_SHORT_COLUMNS
from .cli_columns import CLI_SIMULATION_COLUMNS as CLI_SIMULATION_COLUMNS
from .cli_columns import CLI_WEAT_COLUMNS as CLI_WEAT_COLUMNS
from .cli_columns import CLI_WORD_COLUMNS as CLI_WORD_COLUMNS
from .decision import CREDIBLE_DIFFERENCE as CREDIBLE_DIFFERENCE
from .decision import DECISIONS as DECISIONS
from .decision import PRACTICALLY_EQUIVALENT as PRACTICALLY_EQUIVALENT
from .decision import UNDECIDED as UNDECIDED
from .decision import rope_decision as rope_decision
from .formatting import SCIENTIFIC_COLUMNS as SCIENTIFIC_COLUMNS
from .formatting import format_number as format_number
from .formatting import is_scientific_column as is_scientific_column
from .formatting import to_markdown as to_markdown
from .intervals import CI_KINDS as CI_KINDS
from .intervals import INTERVAL_COLUMNS as INTERVAL_COLUMNS
from .intervals import RETIRED_CI_KINDS as RETIRED_CI_KINDS
from .intervals import combine_interval_tables as combine_interval_tables
from .intervals import interval_table as interval_table
from .intervals import stack_interval_tables as stack_interval_tables
from .intervals import validate_interval_table as validate_interval_table
from .monte_carlo import share_with_mc_se as share_with_mc_se

__all__ = [
    "CI_KINDS",
    "DECISIONS",
    "INTERVAL_COLUMNS",
    "RETIRED_CI_KINDS",
    "SCIENTIFIC_COLUMNS",
    "combine_interval_tables",
    "format_number",
    "interval_table",
    "is_scientific_column",
    "rope_decision",
    "share_with_mc_se",
    "stack_interval_tables",
    "to_markdown",
    "validate_interval_table",
]
