"""One set of checks for every argument a user gives embias, and one seed policy.

Every public function and every CLI command validates its options through these helpers,
so every error has the same shape: it names the argument, the bad value and what is
allowed, and it is a :class:`ValueError` (a :class:`UnknownNameError` — also a
``ValueError`` — for a name that is not one of the known ones, with a close-match hint).

The package imports only the standard library (numpy lazily), so the command line can use
it to check options before anything heavy is imported.

The package, one module per kind of check (every name is also importable from
``embias._validation``):

- :mod:`~embias._validation.names` — a value that must be one of the known ones
  (:class:`UnknownNameError`, :func:`check_choice`, :func:`close_match_hint`);
- :mod:`~embias._validation.numbers` — integers, numbers in a range, probabilities, shares,
  ROPE half-widths;
- :mod:`~embias._validation.words` — word lists, and a word that plays two roles;
- :mod:`~embias._validation.tables` — the columns a table must have;
- :mod:`~embias._validation.outputs` — the output policy: check before work, create
  folders when writing;
- :mod:`~embias._validation.seeds` — the seed policy.

Seed policy
-----------
``random_seed`` is the one name for seeds everywhere. It accepts a non-negative integer
(reproducible), ``None`` (a fresh seed is drawn from the OS entropy, and *recorded*
wherever the result keeps its settings, so every result can be reproduced) and, where a
function draws from a generator directly (permutation tests, simulations), a
``numpy.random.Generator``.
"""

from .names import UnknownNameError, check_choice, close_match_hint
from .numbers import check_int, check_number, check_probability, check_rope, check_share
from .outputs import check_output, writable
from .seeds import SEED_BOUND as SEED_BOUND
from .seeds import check_seed, resolve_rng
from .tables import check_columns
from .words import check_distinct_lists, check_word_list

__all__ = [
    "UnknownNameError",
    "check_choice",
    "check_columns",
    "check_distinct_lists",
    "check_int",
    "check_number",
    "check_output",
    "check_probability",
    "check_rope",
    "check_seed",
    "check_share",
    "check_word_list",
    "close_match_hint",
    "resolve_rng",
    "writable",
]
