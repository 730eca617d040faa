"""Starting points of a structure, mapped from the crossed level's.

``structure_starting_values``: a level structure's starting points and approximate
posterior sds, from those :mod:`embias.bayes.data` gives the crossed level.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .layout import protected_strata
from .structure import LevelStructure

__all__ = ["structure_starting_values"]


def structure_starting_values(
    cells: pd.DataFrame,
    structure: LevelStructure,
    points: Sequence[dict[str, np.ndarray]],
    sds: dict[str, np.ndarray],
    *,
    centred: Sequence[str],
    random_seed: int,
) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """Return a structure's starting points and approximate posterior sds.

    They are mapped from the crossed level's (:func:`embias.bayes.data.initial_values`
    and :func:`~embias.bayes.data.approximate_posterior_sd` at ``level="crossed"``).

    Class means start at the class-wise means of the cell means (moved by the crossed
    level's sd of ``bar``); τ_protected a little above 0 (the crossed level's
    coefficients keep their meaning); correlations near 0; an attribute word's
    second effect sd at its first's, their correlation near 0.5; the coefficients, when
    sampled, where the crossed start puts them.
    """
    cons = list(dict.fromkeys(cells["connection"]))
    words = list(dict.fromkeys(cells["protected_word"]))
    ybar = cells["mean"].to_numpy(float).reshape(len(words), len(cons))
    mask = np.array([float(c in centred) for c in cons])
    rng = np.random.default_rng([int(random_seed), 31])
    _, word_class, _ = protected_strata(cells)
    out = []
    for point in points:
        coef = mask * point["coef_raw"] + (1 - mask) * (point["bar"] + point["tau"]
                                                        * point["coef_raw"])
        new = {k: v for k, v in point.items() if k not in ("bar", "coef_raw")}
        if structure.strata:
            bar_class = np.stack([ybar[word_class == c].mean(axis=0)
                                  for c in range(int(word_class.max()) + 1)])
            new["bar_class"] = bar_class + rng.uniform(-1, 1, bar_class.shape) * sds["bar"]
            centre = new["bar_class"][word_class]
        else:
            new["bar"] = point["bar"]
            centre = point["bar"][None, :]
        if not structure.integrate_coefficients:
            new["coef_raw"] = mask * coef + (1 - mask) * (coef - centre) / point["tau"]
        if structure.protected_offset:
            new["tau_protected"] = np.asarray(0.01 * np.exp(rng.uniform(-0.5, 0.5)))
        if structure.correlated:
            new["coef_correlation_raw"] = rng.uniform(-0.1, 0.1,
                                                      len(cons) * (len(cons) - 1) // 2)
        if structure.attribute_pair:
            new["tau_word_different"] = np.asarray(point["tau_word"][0])
            new["word_correlation_raw"] = np.asarray(np.arctanh(0.5) + rng.uniform(-0.1, 0.1))
        out.append(new)
    sd = {k: v for k, v in sds.items() if k != "bar"}
    sd["bar_class" if structure.strata else "bar"] = sds["bar"]
    if structure.integrate_coefficients:
        sd.pop("coef_raw", None)
    if structure.protected_offset:
        sd["tau_protected"] = np.asarray(0.3)
    if structure.correlated:
        sd["coef_correlation_raw"] = np.asarray(0.3)
    if structure.attribute_pair:
        sd["tau_word_different"] = np.asarray(0.25)
        sd["word_correlation_raw"] = np.asarray(0.4)
    return out, sd
