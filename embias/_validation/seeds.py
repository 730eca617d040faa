"""Seeds: the one seed policy (``random_seed``: an integer, None or a numpy Generator)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from .numbers import is_int

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

#: Largest seed drawn when ``random_seed=None`` (fits into a C int for every sampler).
SEED_BOUND = 2**31


def check_seed(random_seed: Any, *, name: str = "random_seed") -> int:
    """Apply the seed policy of results that record their seed.

    A non-negative integer, or ``None`` for a fresh seed from the OS entropy (returned, so
    it can be recorded).

    Parameters
    ----------
    random_seed
        The seed given.
    name
        The argument, named in the message.

    Returns
    -------
    int
        The seed, in [0, :data:`SEED_BOUND`) when drawn.

    Raises
    ------
    ValueError
        Not a non-negative integer or None.

    Examples
    --------
    >>> check_seed(3)
    3
    >>> 0 <= check_seed(None) < SEED_BOUND
    True
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: random_seed must be a non-negative integer or None, got -1
    """
    if random_seed is None:
        import numpy as np

        # a SeedSequence made without entropy draws an integer from the OS
        entropy = cast(int, np.random.SeedSequence().entropy)
        return int(entropy % SEED_BOUND)
    if not is_int(random_seed) or int(random_seed) < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, got "
                         f"{random_seed!r}")
    return int(random_seed)


def resolve_rng(random_seed: Any, *, name: str = "random_seed"
                ) -> tuple[np.random.Generator, int | None]:
    """Return a numpy Generator and the integer seed it came from.

    Accepts what :func:`check_seed` accepts, or a ``numpy.random.Generator`` (used as is;
    its seed is then None).

    Parameters
    ----------
    random_seed
        A seed, None or a Generator.
    name
        The argument, named in the message.

    Returns
    -------
    generator : numpy.random.Generator
        The generator.
    seed : int or None
        Its seed (drawn when ``random_seed`` is None; None for a given Generator).

    Raises
    ------
    ValueError
        Neither a seed, None nor a Generator.

    Examples
    --------
    >>> rng, seed = resolve_rng(3)
    >>> seed, bool(rng.integers(10) == resolve_rng(3)[0].integers(10))
    (3, True)
    """
    import numpy as np

    if isinstance(random_seed, np.random.Generator):
        return random_seed, None
    try:
        seed = check_seed(random_seed, name=name)
    except ValueError:
        raise ValueError(f"{name} must be a non-negative integer, a numpy Generator or None, "
                         f"got {random_seed!r}") from None
    return np.random.default_rng(seed), seed
