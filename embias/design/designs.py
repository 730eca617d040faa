"""The designs of a design analysis: study sizes, their checks, and a study's rows.

A design is a :class:`~embias.populations.PopulationDesign` (words per class of each
role); :func:`check_sizes` reads the sizes a user asks for (integers or :data:`PILOT`),
:func:`all_designs` crosses them, and :func:`design_table` builds the rows of a study of
a given size, on which :func:`embias.simulate_word_table` draws a table.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_int
from ..populations import PopulationDesign

#: A size meaning "as many as the pilot study has, class by class" (fitted source only).
PILOT = "pilot"


def per_class(value: int | Mapping[str, int]) -> float:
    """Return the words per class of a design role: the number, or the mean over classes.

    Parameters
    ----------
    value
        A number of words per class, or class → number of words.

    Returns
    -------
    float
        ``value``, or the mean of its numbers (the number when they are all equal).
    """
    if isinstance(value, Mapping):
        counts = list(value.values())
        return float(counts[0]) if len(set(counts)) == 1 else float(np.mean(counts))
    return float(value)


def check_sizes(name: str, value: Any, *, pilot: Mapping[str, int] | None) -> list[Any]:
    """Check the sizes of one role: integers ≥ 1 or :data:`PILOT`, none twice.

    :data:`PILOT` is returned as the pilot study's counts (a mapping class → number).

    Parameters
    ----------
    name
        The argument's name, for messages (``"attribute_words"``).
    value
        A size or a list of them.
    pilot
        The pilot study's words per class, or ``None`` when the source has no pilot.

    Returns
    -------
    list
        The sizes, in order: integers and class → number mappings.

    Raises
    ------
    ValueError
        A size that is not an integer ≥ 1 or :data:`PILOT`, :data:`PILOT` without a pilot,
        no size, or a size listed twice.
    """
    values = [value] if isinstance(value, int | str | np.integer) else value
    try:
        values = list(values)
    except TypeError:
        raise ValueError(f"{name} must be an integer ≥ 1, {PILOT!r} or a list of them, got "
                         f"{value!r}") from None
    if not values:
        raise ValueError(f"{name} must name at least one size, got {value!r}")
    out: list[Any] = []
    for v in values:
        if isinstance(v, str):
            if v != PILOT:
                raise ValueError(f"{name}: {v!r} is not a size; give integers ≥ 1 or "
                                 f"{PILOT!r} (the pilot study's own numbers per class)")
            if pilot is None:
                raise ValueError(f"{name}: {PILOT!r} (the pilot study's numbers per class) "
                                 "needs a fitted pilot study as the source; populations "
                                 "have no pilot — give integers ≥ 1")
            out.append(dict(pilot))
        else:
            out.append(check_int(name, v, minimum=1,
                                 why="a design needs at least one word per class"))
    shown = [str(v) if not isinstance(v, dict) else PILOT for v in out]
    twice = sorted({s for s in shown if shown.count(s) > 1})
    if twice:
        raise ValueError(f"{name} lists {twice} more than once; give each size once")
    return out


def check_controls(name: str, value: Any, default: int) -> int:
    """Return the number of neutral or human words of the designs (checked).

    Parameters
    ----------
    name
        The argument's name, for messages (``"neutral_words"``).
    value
        The number asked for (≥ 0), or ``None`` for ``default``.
    default
        The number when none is asked for (the pilot's, or the populations' default).

    Returns
    -------
    int
        The number of words.

    Raises
    ------
    ValueError
        ``value`` is not an integer ≥ 0.
    """
    if value is None:
        return default
    return check_int(name, value, minimum=0, why="0 leaves the connection out")


def check_protected_total(design: PopulationDesign, total: int) -> None:
    """Refuse a design whose studies have fewer than 2 protected words.

    Parameters
    ----------
    design
        The design, named in the message.
    total
        Its protected words over all classes.

    Raises
    ------
    ValueError
        ``total`` is below 2: the model estimates the spread of the protected words.
    """
    if total < 2:
        raise ValueError(f"protected_words={per_class(design.protected):g} gives a study of "
                         f"{total} protected word; the model needs at least 2 (the spread of "
                         "the protected words is one of its parameters)")


def design_table(
    protected: Mapping[str, int],
    attributes: Mapping[str, int],
    associations: Mapping[str, str | None],
    *,
    neutral: int = 0,
    human: int = 0,
) -> pd.DataFrame:
    """Build the rows of a study of a given size, with placeholder words and distances.

    The design :func:`embias.simulate_word_table` draws a table on.
    Every protected word is paired with every attribute, neutral and human word, as in
    :func:`embias.cosine_table`: ``associated`` when the attribute class is the one
    associated with the protected word's class, ``different`` for another class's
    attributes, ``none`` for neutral and ``human`` for human words. Words are named
    ``"<class> <i>"`` (protected), ``"<class> attribute <i>"``, ``"neutral <i>"`` and
    ``"human <i>"``.

    Parameters
    ----------
    protected, attributes
        Class → number of words (each ≥ 1).
    associations
        Protected class → its associated attribute class (``None``: every attribute row
        of the class is ``different``).
    neutral, human
        Numbers of neutral and human words (≥ 0).

    Returns
    -------
    pandas.DataFrame
        Columns of :data:`embias.tables.TABLE_COLUMNS`; ``cosine_distance`` is a
        placeholder 1 (similarity 0) until a table is drawn on the design.

    Raises
    ------
    ValueError
        A number of words that is not an integer (≥ 1 for a class, ≥ 0 for the
        controls), or a protected class without an entry in ``associations``.

    Examples
    --------
    Two protected words of class ``a`` and one of ``b``, one attribute word per class
    and one neutral word: 3 × 3 rows.

    >>> rows = design_table({"a": 2, "b": 1}, {"a": 1, "b": 1}, {"a": "a", "b": "b"},
    ...                     neutral=1)
    >>> rows[["protected_word", "word_to_compare", "connection"]].head(3)
      protected_word word_to_compare  connection
    0            a 1     a attribute 1  associated
    1            a 1     b attribute 1   different
    2            a 1       neutral 1        none
    >>> rows["connection"].value_counts().to_dict()
    {'associated': 3, 'different': 3, 'none': 3}
    >>> design_table({"a": 0}, {"a": 1}, {"a": "a"})
    Traceback (most recent call last):
    ...
    ValueError: protected['a'] must be an integer ≥ 1, got 0
    """
    from ..tables import TABLE_COLUMNS

    p_words, p_class = [], []
    for c, n in protected.items():
        n = check_int(f"protected[{c!r}]", n, minimum=1)
        p_words += [f"{c} {i + 1}" for i in range(n)]
        p_class += [c] * n
    c_words, c_class, c_kind = [], [], []
    for c, n in attributes.items():
        n = check_int(f"attributes[{c!r}]", n, minimum=1)
        c_words += [f"{c} attribute {i + 1}" for i in range(n)]
        c_class += [c] * n
        c_kind += ["attribute"] * n
    for kind, n in (("neutral", neutral), ("human", human)):
        n = check_int(kind, n, minimum=0)
        c_words += [f"{kind} {i + 1}" for i in range(n)]
        c_class += [kind] * n
        c_kind += [kind] * n
    unknown = sorted(set(protected) - set(associations))
    if unknown:
        raise ValueError(f"protected class(es) {unknown} have no entry in associations")
    n_p, n_c = len(p_words), len(c_words)
    pw_class = np.repeat(np.asarray(p_class, dtype=object), n_c)
    cw_class = np.tile(np.asarray(c_class, dtype=object), n_p)
    cw_kind = np.tile(np.asarray(c_kind, dtype=object), n_p)
    assoc = np.array([associations[c] for c in pw_class], dtype=object)
    connection = np.where(cw_kind == "neutral", "none", np.where(
        cw_kind == "human", "human", np.where(cw_class == assoc, "associated", "different")))
    table = pd.DataFrame({
        "protected_word": np.repeat(np.asarray(p_words, dtype=object), n_c),
        "protected_class": pw_class,
        "word_to_compare": np.tile(np.asarray(c_words, dtype=object), n_p),
        "word_class": cw_class,
        "connection": connection,
        "cosine_similarity": 0.0,
        "cosine_distance": 1.0,
        "embedding": "design",
    }, columns=list(TABLE_COLUMNS))
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding"):
        table[col] = table[col].astype(str)
    return table


def all_designs(protected: list[Any], attributes: list[Any], neutral: int, human: int
                ) -> list[PopulationDesign]:
    """Return every combination of the protected and attribute sizes, as designs.

    Parameters
    ----------
    protected, attributes
        Sizes of the two roles (:func:`check_sizes`).
    neutral, human
        Numbers of neutral and human words of every design.

    Returns
    -------
    list of PopulationDesign
        One design per (protected, attribute) size, protected sizes outermost.
    """
    return [PopulationDesign(protected=p, attributes=a, neutral=neutral, human=human)
            for p, a in itertools.product(protected, attributes)]

