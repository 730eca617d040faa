"""The cells' layout: their protected words, connections and classes.

``CellLayout`` gives the coordinates and data containers every level's model has,
``HierarchicalLayout`` adds what the hierarchical family's models need (the connections
sampled centred and the protected classes as strata, ``protected_strata``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..data import choose_centring
from .structure import LevelStructure

__all__ = ["CellLayout", "HierarchicalLayout", "check_centred", "protected_strata"]


@dataclass(frozen=True)
class CellLayout:
    """The cells' protected words and connections, and each cell's indices into them.

    They make the coordinates every level's model has (``protected_word``,
    ``connection``, ``cell``).

    Attributes
    ----------
    words, cons
        The protected words and the connections, in the cells' order.
    cell_word, cell_connection
        Each cell's index into :attr:`words` and :attr:`cons`.
    cell_labels
        Each cell's label, ``"word|connection"``.
    """

    words: list[str]
    cons: list[str]
    cell_word: np.ndarray
    cell_connection: np.ndarray
    cell_labels: list[str]

    @classmethod
    def of(cls, cells: pd.DataFrame) -> CellLayout:
        """Return the layout of a cell statistics table (:func:`cell_statistics`)."""
        words = list(dict.fromkeys(cells["protected_word"]))
        cons = list(dict.fromkeys(cells["connection"]))
        return cls(
            words=words, cons=cons,
            cell_word=pd.Index(words).get_indexer(cells["protected_word"]).astype(np.int64),
            cell_connection=pd.Index(cons).get_indexer(cells["connection"]).astype(np.int64),
            cell_labels=[f"{w}|{c}" for w, c in zip(cells["protected_word"],
                                                    cells["connection"], strict=True)])

    def coords(self) -> dict[str, Any]:
        """Return the coordinates every level's model has."""
        return {"protected_word": self.words, "connection": self.cons,
                "cell": self.cell_labels}

    def data(self, prior_location: float) -> tuple[Any, Any, Any]:
        """Add the containers every level's model has (inside the model context).

        Each cell's protected word and connection, and the location of the prior of the
        connection means.
        """
        import pymc as pm

        return (pm.Data("cell_word", self.cell_word, dims="cell"),
                pm.Data("cell_connection", self.cell_connection, dims="cell"),
                pm.Data("prior_location", np.asarray(prior_location, dtype=float)))


def check_centred(centred: Sequence[str], connections: Sequence[str]) -> None:
    """Refuse centred connections that are not among the table's ``connections``.

    Raises
    ------
    ValueError
        Naming the unknown connections and the table's.

    Examples
    --------
    >>> check_centred(["none"], ["associated", "none"])
    >>> try:
    ...     check_centred(["nowhere"], ["associated", "none"])
    ... except ValueError as error:
    ...     print(error)
    centred=['nowhere'] names connections ['nowhere'] that are not in the table
    (['associated', 'none'])
    """
    unknown = sorted(set(centred) - set(connections))
    if unknown:
        raise ValueError(f"centred={list(centred)} names connections {unknown} that are "
                         f"not in the table ({list(connections)})")


@dataclass(frozen=True)
class HierarchicalLayout:
    """What the hierarchical family's models add to :class:`CellLayout`.

    The connections sampled centred (as a 0/1 mask) and, with protected classes as
    strata, the classes (:func:`protected_strata`).

    Attributes
    ----------
    cells
        The :class:`CellLayout`.
    centred_mask
        Per connection, 1.0 when its coefficients are sampled centred, else 0.0.
    strata
        :func:`protected_strata` of the cells when the structure has protected classes as
        strata, else ``None``.
    """

    cells: CellLayout
    centred_mask: np.ndarray
    strata: tuple[list[str], np.ndarray, np.ndarray] | None

    @classmethod
    def of(cls, cells: pd.DataFrame, centred: Sequence[str] | Literal["auto"],
           structure: LevelStructure) -> HierarchicalLayout:
        """Return the layout of a cell statistics table (``centred`` checked)."""
        layout = CellLayout.of(cells)
        chosen = choose_centring(cells) if centred == "auto" else tuple(centred)
        check_centred(chosen, layout.cons)
        return cls(cells=layout, centred_mask=np.array([float(c in chosen)
                                                        for c in layout.cons]),
                   strata=protected_strata(cells) if structure.strata else None)

    def coords(self) -> dict[str, Any]:
        """Return the coordinates of the hierarchical family's models."""
        coords = self.cells.coords()
        if self.strata is not None:
            coords["protected_class"] = self.strata[0]
        return coords


def protected_strata(cells: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Return the protected classes of a table as strata.

    The classes (in the cells' order), each protected word's class index and each
    class's share of the protected words (a table without classes is one stratum).
    """
    first = cells.drop_duplicates("protected_word")
    labels = first["protected_class"].astype(str).to_numpy()
    classes = list(dict.fromkeys(labels))
    index = pd.Index(classes).get_indexer(labels).astype(np.int64)
    weight = np.bincount(index, minlength=len(classes)) / float(len(index))
    return classes, index, weight
