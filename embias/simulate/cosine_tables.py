"""One simulated data set of :func:`embias.simulate.simulate_weat` as a long-form cosine table.

The table (:func:`simulated_cosine_table`) of, e.g., the data set with the largest |WEAT|
(:func:`largest_weat_index`) is ready for the Bayesian models.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..tables import TABLE_COLUMNS
from .noise import WeatSimulation

__all__ = ["largest_weat_index", "simulated_cosine_table"]


def largest_weat_index(simulation: WeatSimulation) -> int:
    """Return the index of the simulated data set with the largest |WEAT|.

    For a null simulation this is the most convincing-looking pure-noise data set; pass
    it to :func:`simulated_cosine_table`.

    Parameters
    ----------
    simulation
        Result of :func:`simulate_weat`.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> import embias
    >>> sim = embias.simulate_weat(n_sims=200, random_seed=0)
    >>> i = embias.largest_weat_index(sim)
    >>> bool(abs(sim.scores[i]) == np.abs(sim.scores).max())
    True
    """
    return int(np.argmax(np.abs(simulation.scores)))


def simulated_cosine_table(simulation: WeatSimulation, *, sim_index: int) -> pd.DataFrame:
    """One simulated data set as a long-form cosine table (DESIGN §4).

    Protected words ``x1 … xn`` (``protected_class="X"``) and ``y1 … yn`` (``"Y"``) are
    compared with attributes ``a1 … am`` (set A, ``word_class="X"``: the class it is
    stereotypically associated with, as in the published tables) and ``b1 … bm`` (set B,
    ``word_class="Y"``). ``connection`` is ``"associated"`` when the attribute set is the
    group's own (X×A, Y×B) and ``"different"`` otherwise; ``cosine_distance`` = 1 −
    ``cosine_similarity``; ``embedding="simulated"``. Ready for
    ``embias.fit_bias_model``.

    Parameters
    ----------
    simulation
        Result of :func:`simulate_weat`.
    sim_index
        Which data set (e.g. ``largest_weat_index(simulation)``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`embias.tables.TABLE_COLUMNS`, 4·n·m rows; ``attrs`` holds
        ``study``, ``sim_index``, ``weat`` (= ``simulation.scores[sim_index]``),
        ``numerator`` and the design.

    Raises
    ------
    ValueError
        ``sim_index`` not in ``0 … n_sims − 1``.

    Examples
    --------
    Two protected words per group and three attribute words per set give 4·2·3 = 24 rows:

    >>> import embias
    >>> sim = embias.simulate_weat(n_protected_per_group=2, n_attributes=3, n_sims=100,
    ...                            random_seed=0)
    >>> table = embias.simulated_cosine_table(sim, sim_index=embias.largest_weat_index(sim))
    >>> table.shape, table.attrs["weat"] == float(sim.scores[table.attrs["sim_index"]])
    ((24, 8), True)
    >>> table[["protected_word", "word_to_compare", "connection"]].iloc[[0, 3]]
      protected_word word_to_compare  connection
    0             x1              a1  associated
    3             x1              b1   different
    """
    raw = simulation.raw_similarities(sim_index)  # (2, n, 2, m)
    n, m = simulation.n_protected_per_group, simulation.n_attributes
    classes = np.array(["X", "Y"])
    g, i, a, j = (x.ravel() for x in np.indices(raw.shape))
    similarity = raw.ravel()
    table = pd.DataFrame({
        "protected_word": np.char.add(np.array(["x", "y"])[g], (i + 1).astype(str)),
        "protected_class": classes[g],
        "word_to_compare": np.char.add(np.array(["a", "b"])[a], (j + 1).astype(str)),
        "word_class": classes[a],
        "connection": np.where(g == a, "associated", "different"),
        "cosine_similarity": similarity,
        "cosine_distance": 1.0 - similarity,
        "embedding": "simulated",
    }, columns=list(TABLE_COLUMNS))
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding"):
        table[col] = table[col].astype(str)
    table.attrs = {
        "study": "simulated WEAT",
        "sim_index": int(sim_index),
        "weat": float(simulation.scores[sim_index]),
        "numerator": simulation.numerator,
        "design": {"n_protected_per_group": n, "n_attributes": m, "sd": simulation.sd,
                   "association": simulation.association, "seed": simulation.seed},
    }
    return table
