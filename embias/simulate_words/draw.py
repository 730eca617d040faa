"""One cosine table drawn from the crossed model with the rows of a design table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import design_indices
from .parameters import WordSamplingParameters

#: Columns of the design that a simulated table keeps (its values are replaced).
_DESIGN_COLUMNS = ("protected_word", "protected_class", "word_to_compare", "word_class",
                   "connection")


def simulate_word_table(
    design: pd.DataFrame,
    parameters: WordSamplingParameters,
    *,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """One table drawn from the crossed model with the rows of ``design``.

    Every protected word gets new coefficients coef[p, con] ~ Normal(bar[con], τ[con]),
    every compared word a new effect u[w] ~ Normal(0, τ_u[kind(w)]) (one u for all its
    rows; with ``parameters.tau_word_different`` set, an attribute word's different rows
    take a second effect, sd ``tau_word_different`` and correlation ``word_correlation``
    with u[w]), every row new noise Normal(0, σ[con]);
    ``cosine_distance = coef + u + noise`` — a row outside [0, 2], the range of a cosine
    distance, draws its noise again — and ``cosine_similarity = 1 − cosine_distance``.

    Parameters
    ----------
    design
        Cosine table whose rows (protected word, compared word, connection, classes) the
        simulated table keeps; its distances are not used.
    parameters
        The model's parameters (e.g. ``calibrate_word_sampling(design)``); must name every
        connection of the design.
    random_seed
        Seed or ``numpy.random.Generator``; ``None`` (the default) draws a seed from the
        OS entropy. The seed used is ``attrs["random_seed"]`` (None for a Generator):
        passing it back draws the same table.

    Returns
    -------
    pandas.DataFrame
        Columns of :data:`embias.tables.TABLE_COLUMNS` (``embedding="simulated"``);
        ``attrs["truth"]`` holds the drawn ``coef`` (protected word × connection frame) and
        ``word_effect`` (Series by compared word) — and ``word_effect_different`` (the
        attribute words' second effects) when the parameters have it —
        ``attrs["random_seed"]`` the seed.

    Raises
    ------
    ValueError
        A design that is not a valid cosine table or has a compared word in rows of two
        kinds or in a single row, parameters without a connection of the design, or
        parameters that put rows far outside [0, 2].

    Examples
    --------
    Four protected words in two classes, two attribute words per class and two neutral
    words: 4 × 6 rows. Each row is coef + u + noise; with the word effects and the noise
    set to 0 a row's distance is its protected word's coefficient, whose mean over the
    words is near ``bar`` (sd τ = 0.05, 4 words):

    >>> from embias.design import design_table
    >>> rows = design_table({"a": 2, "b": 2}, {"a": 2, "b": 2}, {"a": "a", "b": "b"},
    ...                     neutral=2)
    >>> parameters = WordSamplingParameters(
    ...     bar={"associated": 0.6, "different": 0.8, "none": 0.9},
    ...     tau={"associated": 0.05, "different": 0.05, "none": 0.05},
    ...     sigma={"associated": 0.0, "different": 0.0, "none": 0.0},
    ...     tau_word={"attribute": 0.0, "neutral": 0.0})
    >>> table = simulate_word_table(rows, parameters, random_seed=1)
    >>> table.shape, table.attrs["truth"]["coef"].shape
    ((24, 8), (4, 3))
    >>> coef = table.attrs["truth"]["coef"]
    >>> bool((table.groupby(["protected_word", "connection"])["cosine_distance"].mean()
    ...       == coef.stack()).all())
    True
    """
    from .._validation import resolve_rng

    rng, seed = resolve_rng(random_seed)
    ix = design_indices(design)
    missing = sorted(set(ix["connection"]) - set(parameters.bar))
    if missing:
        raise ValueError(f"parameters have no value for connection(s) {missing} of the design")
    cells = ix["cells"]
    cell_con = np.asarray(cells.get_level_values(1), dtype=str)
    coef = (np.array([parameters.bar[c] for c in cell_con])
            + np.array([parameters.tau[c] for c in cell_con]) * rng.standard_normal(len(cells)))
    tau_u = np.array([parameters.tau_word[k] for k in ix["word_kind"]])
    standard = rng.standard_normal(len(ix["words"]))
    u = tau_u * standard
    row_effect = u[ix["word_codes"]]
    truth_other = None
    if parameters.tau_word_different is not None:
        attribute = ix["word_kind"] == "attribute"
        rho = float(parameters.word_correlation)  # type: ignore[arg-type]
        other = parameters.tau_word_different * (
            rho * standard[attribute]
            + np.sqrt(1.0 - rho * rho) * rng.standard_normal(int(attribute.sum())))
        u_other = np.zeros(len(ix["words"]))
        u_other[attribute] = other
        different = ix["connection"] == "different"
        row_effect = np.where(different, u_other[ix["word_codes"]], row_effect)
        truth_other = pd.Series(other, index=pd.Index(ix["words"][attribute],
                                                      name="word_to_compare"))
    sigma = np.array([parameters.sigma[c] for c in ix["connection"]])
    location = coef[ix["cell_codes"]] + row_effect
    distance = location + sigma * rng.standard_normal(len(design))
    # a cosine distance lies in [0, 2]: a row's noise outside it is drawn again (the
    # model's Normal truncated to the possible range; rare: 2 of 4,815 rows in one table of
    # a 400-table run with the religion design, at distances near 0)
    for _ in range(100):
        outside = np.flatnonzero((distance < 0.0) | (distance > 2.0))
        if not outside.size:
            break
        distance[outside] = location[outside] + sigma[outside] * rng.standard_normal(
            outside.size)
    else:  # pragma: no cover - a row whose location is far outside [0, 2]
        raise ValueError(f"the word-sampling parameters put rows far outside [0, 2] "
                         f"(e.g. a location of {location[outside[0]]:.3f}); check them")
    table = design.loc[:, list(_DESIGN_COLUMNS)].astype(str).reset_index(drop=True)
    table.insert(5, "cosine_similarity", 1.0 - distance)
    table.insert(6, "cosine_distance", distance)
    table["embedding"] = "simulated"
    coef_frame = pd.Series(coef, index=cells).unstack()
    table.attrs = {
        "study": f"simulated ({design.attrs.get('study', 'design')})",
        "truth": {"coef": coef_frame,
                  "word_effect": pd.Series(u, index=pd.Index(ix["words"],
                                                             name="word_to_compare")),
                  **({} if truth_other is None else {"word_effect_different": truth_other})},
        "random_seed": seed,
    }
    return table
