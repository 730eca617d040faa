"""The coordinates and data values of a summary model, without building it.

``summary_model_data``: what ``build_model`` would put in a model's coordinates and data
containers on the cell statistics — a batch builds one model per shape and feeds every
other table of it through these values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...settings import DEFAULT_PRIOR_LOCATION
from ..crossed.design import CrossedDesign, crossed_design
from ..crossed_terms import PAIR_COMPONENT
from .layout import CellLayout, protected_strata
from .structure import LEVEL_STRUCTURES, Level, LevelStructure, level_structure

__all__ = ["summary_model_data"]


def summary_model_data(
    cells: pd.DataFrame,
    *,
    level: Level,
    table: pd.DataFrame | None,
    centred: Sequence[str],
    prior_location: float = DEFAULT_PRIOR_LOCATION,
    design: CrossedDesign | None = None,
    structure: LevelStructure | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Return the coordinates and data values of a summary model, without building it.

    The coordinates and the data containers' values of :func:`build_model` with
    ``data="summary"`` at the hierarchical or crossed level (a table without templates):
    a batch builds one model per shape and feeds every other table of it through these
    values.

    Parameters
    ----------
    cells
        Output of :func:`~embias.bayes.data.cell_statistics`.
    level
        ``"hierarchical"``, ``"crossed"`` or ``"crossed_strata"``.
    table
        The cosine table of the cells (needed by the crossed levels).
    centred
        The connections sampled centred.
    prior_location
        Location of the priors of the connection means.
    design
        The table's :func:`~embias.bayes.crossed.crossed_design`, when already computed.
    structure
        The level's choices (default :func:`level_structure` of ``level``).

    Returns
    -------
    (coords, data)
        The model's coordinates and ``{container name: value}`` — equal to
        ``build_model(...)``'s (a test holds them together).

    Raises
    ------
    ValueError
        ``level`` is not of the hierarchical family, a crossed level without ``table``, or
        a sentence table (with templates).

    Examples
    --------
    >>> import embias
    >>> from embias.bayes import cell_statistics
    >>> from embias.bayes.model import summary_model_data
    >>> cells = cell_statistics(embias.load_published_table("religion", "reddit"))
    >>> coords, data = summary_model_data(cells, level="hierarchical", table=None,
    ...                                   centred=("none",))
    >>> coords["connection"], data["centred"]
    (['associated', 'different', 'human', 'none'], array([0., 0., 0., 1.]))
    >>> len(coords["protected_word"]), data["cell_n"][:4]
    (15, array([  4,   7,  85, 226]))
    """
    if level not in LEVEL_STRUCTURES:
        raise ValueError(f"summary_model_data() serves the levels {list(LEVEL_STRUCTURES)}, "
                         f"got level={level!r}")
    if structure is None:
        structure = level_structure(level)
    layout = CellLayout.of(cells)
    cons = layout.cons
    coords = layout.coords()
    data: dict[str, np.ndarray] = {"cell_word": layout.cell_word,
                                   "cell_connection": layout.cell_connection,
                                   "prior_location": np.asarray(float(prior_location))}
    if not structure.integrate_coefficients:
        data["centred"] = np.array([float(c in set(centred)) for c in cons])
    if structure.correlated:
        coords.update(connection_b=cons,
                      connection_pair=np.arange(len(cons) * (len(cons) - 1) // 2))
    if structure.strata:
        classes, word_class, class_weight = protected_strata(cells)
        coords["protected_class"] = classes
        data.update({"protected_word_class": word_class,
                     "protected_class_weight": class_weight})
    if structure.word_effects:
        if table is None:
            raise ValueError(f"level={level!r} needs the table (table=...)")
        if design is None:
            design = crossed_design(table, cells)
        if design.template is not None:
            raise ValueError("summary_model_data() serves tables without templates")
        _add_crossed_data(cells, table, design, structure, layout, coords, data)
    else:
        n = cells["n"].to_numpy(dtype=np.int64)
        multi = np.flatnonzero(n >= 2)
        coords["cell_multi"] = [layout.cell_labels[i] for i in multi]
        data.update({"cell_n": n, "cell_multi_index": multi,
                     "cell_mean_data": cells["mean"].to_numpy(float),
                     "cell_ss_data": cells["ss"].to_numpy(float)[multi]})
    return coords, data


def _add_crossed_data(cells: pd.DataFrame, table: pd.DataFrame, design: CrossedDesign,
                      structure: LevelStructure, layout: CellLayout, coords: dict[str, Any],
                      data: dict[str, np.ndarray]) -> None:
    """Add the crossed levels' coordinates and data values to ``coords`` and ``data``."""
    cons = layout.cons
    coords.update(row=np.arange(len(table)), word_to_compare=design.words,
                  word_kind=design.kinds, count_pattern=np.arange(len(design.patterns)))
    shape = (len(layout.words), len(cons))
    groups = design.word_groups()
    data.update({
        "cell_n": cells["n"].to_numpy(float).reshape(shape),
        "cell_mean_data": cells["mean"].to_numpy(float).reshape(shape),
        "cell_ss_data": cells["ss"].to_numpy(float).reshape(shape),
        "pattern_cell_count": np.asarray(design.patterns),
        "word_group_kind": groups.kind, "word_group_pattern": groups.pattern,
        "word_group_size": groups.size, "word_group_mean_sum": groups.mean_sum,
        "word_group_sum_scatter": groups.sum_scatter,
    })
    if structure.attribute_pair:
        component = np.zeros((len(cons), 2))
        component[np.arange(len(cons)), [PAIR_COMPONENT[c] for c in cons]] = 1.0
        coords["effect"] = [0, 1]
        data.update({"connection_component": component,
                     "word_kind_pair": np.array([float(k == "attribute")
                                                 for k in design.kinds])})
