"""The parts of the audit page that take results computed elsewhere.

SEAT, the model comparison and the word influence are shown when given (tables and
figures), else the part says "not computed" and what would compute it
(``optional_section``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .render import Picture, Table, frame_table, picture
from .wording import decision_class


@dataclass(frozen=True)
class OptionalSection:
    """A part of the page that takes results computed elsewhere.

    It is shown when given, else "not computed" with what would compute it
    (:func:`optional_section`).

    Attributes
    ----------
    computed
        Whether the results were given.
    tables, pictures
        The results as HTML tables and figures.
    missing, command
        Why the part is absent and what would compute it (when not computed).
    """

    computed: bool
    tables: list[Table] = field(default_factory=list)
    pictures: list[Picture] = field(default_factory=list)
    missing: str = ""
    command: str = ""


def optional_section(
    value: Any,
    *,
    what: str,
    missing: str,
    command: str,
    fmt: str,
    id: str,
) -> OptionalSection:
    """Return the part of the page that shows ``value``, a result computed elsewhere.

    Parameters
    ----------
    value
        A DataFrame, a matplotlib figure, a list or tuple of those, or ``None`` (the "not
        computed" part).
    what
        What the result is (the caption of its tables and figures).
    missing, command
        Why the result may be absent and what computes it (shown when ``value`` is None).
    fmt
        ``"svg"`` or ``"png"``: how figures are inlined.
    id
        The id of the part on the page (tables get ``<id>-0``, ``<id>-1`` …).

    Returns
    -------
    OptionalSection
        The part: its tables and pictures, or why it is absent.

    Raises
    ------
    ValueError
        An item that is neither a DataFrame nor a figure (the message names its type).

    Examples
    --------
    >>> import pandas as pd
    >>> part = optional_section(pd.DataFrame({"word": ["greedy"], "influence": [0.031]}),
    ...                         what="word influence", missing="", command="", fmt="svg",
    ...                         id="word-influence")
    >>> part.computed, part.tables[0].headers, [c.text for c in part.tables[0].rows[0]]
    (True, ['word', 'influence'], ['greedy', '0.031'])
    >>> optional_section(None, what="SEAT", missing="no encoder was given",
    ...                  command="embias report … --encoder minilm", fmt="svg",
    ...                  id="seat").missing
    'no encoder was given'
    >>> optional_section("seat.csv", what="SEAT", missing="", command="", fmt="svg", id="seat")
    Traceback (most recent call last):
    ...
    ValueError: seat: expected a DataFrame, a matplotlib figure or a list of them, got str
    """
    if value is None:
        return OptionalSection(computed=False, missing=missing, command=command)
    items = list(value) if isinstance(value, list | tuple) else [value]
    tables, pictures = [], []
    for i, item in enumerate(items):
        if isinstance(item, pd.DataFrame):
            tables.append(frame_table(item.reset_index(drop=True), caption=what,
                                      id=f"{id}-{i}", cell_class=decision_class))
        elif hasattr(item, "savefig"):
            pictures.append(picture(item, alt=what, caption=what, fmt=fmt))
        else:
            raise ValueError(f"{id.replace('-', '_')}: expected a DataFrame, a matplotlib "
                             f"figure or a list of them, got {type(item).__name__}")
    return OptionalSection(computed=True, tables=tables, pictures=pictures)
