"""An attribute word's two effects — among its own class's rows and among the others' —
integrated out in closed form (embias.bayes.model, ``attribute_pair``).

Known answer: scipy's multivariate Normal density of every compared word's rows with
covariance diag(σ²) + B Σ Bᵀ (B the rows' effect indicators, Σ the 2 × 2 covariance of
the word's effects), summed over the words.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from embias.bayes.crossed import crossed_design
from embias.bayes.data import cell_statistics
from embias.bayes.model import PAIR_COMPONENT, LevelStructure, build_model

CLASSES = {"a": ["a1", "a2", "a3"], "b": ["b1", "b2"], "c": ["c1", "c2"]}
ATTRIBUTES = {"a": ["x1", "x2"], "b": ["y1", "y2", "y3"], "c": ["z1", "z2"]}


def _table(seed: int, *, human: bool) -> pd.DataFrame:
    """Three classes (so 'different' rows of a protected word span two attribute classes
    and the words fall into several count patterns), neutral and optionally human words."""
    rng = np.random.default_rng(seed)
    compared = ([(w, k) for k, ws in ATTRIBUTES.items() for w in ws]
                + [(f"n{i}", "neutral") for i in range(5)]
                + ([(f"h{i}", "human") for i in range(3)] if human else []))
    rows = []
    for cls, words in CLASSES.items():
        for p in words:
            for w, k in compared:
                con = ("none" if k == "neutral" else "human" if k == "human"
                       else "associated" if k == cls else "different")
                rows.append({"protected_word": p, "protected_class": cls,
                             "word_to_compare": w, "connection": con,
                             "cosine_distance": 0.8 + 0.1 * rng.standard_normal()})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("human", [False, True])
def test_pair_marginal_likelihood_is_the_words_multivariate_normal_density(human) -> None:
    table = _table(3, human=human)
    cells = cell_statistics(table)
    structure = LevelStructure(word_effects=True, attribute_pair=True)
    model = build_model(cells, level="crossed", table=table, centred=(), structure=structure)
    rng = np.random.default_rng(5)
    cons = list(model.coords["connection"])
    words = list(model.coords["protected_word"])
    kinds = list(model.coords["word_kind"])
    bar = rng.uniform(0.7, 0.95, len(cons))
    tau = rng.uniform(0.01, 0.05, len(cons))
    sigma = rng.uniform(0.02, 0.06, len(cons))
    tau_word = rng.uniform(0.03, 0.12, len(kinds))
    tau_other, rho = 0.07, -0.4
    z = rng.standard_normal((len(words), len(cons)))
    point = {"bar": bar, "tau_log__": np.log(tau), "sigma_log__": np.log(sigma),
             "tau_word_log__": np.log(tau_word), "coef_raw": z,
             "tau_word_different_log__": np.log(tau_other),
             "word_correlation_raw": np.arctanh(rho)}
    graph = model.replace_rvs_by_values([model["cosine_distance_marginal"]])[0]
    got = model.compile_fn(graph, inputs=model.value_vars, on_unused_input="ignore",
                           mode="FAST_COMPILE")(point)
    coef = bar[None, :] + tau[None, :] * z
    design = crossed_design(table, cells)
    expected = 0.0
    for w, word in enumerate(design.words):
        part = table[table["word_to_compare"] == word]
        mu = [coef[words.index(p), cons.index(c)]
              for p, c in zip(part["protected_word"], part["connection"], strict=True)]
        var = np.array([sigma[cons.index(c)] ** 2 for c in part["connection"]])
        t = tau_word[design.word_kind[w]]
        if kinds[design.word_kind[w]] == "attribute":
            cov_effects = np.array([[t**2, rho * t * tau_other],
                                    [rho * t * tau_other, tau_other**2]])
        else:
            cov_effects = np.array([[t**2, 0.0], [0.0, 0.0]])
        b = np.zeros((len(part), 2))
        b[np.arange(len(part)), [PAIR_COMPONENT[c] for c in part["connection"]]] = 1.0
        cov = np.diag(var) + b @ cov_effects @ b.T
        expected += stats.multivariate_normal(mu, cov).logpdf(part["cosine_distance"])
    assert float(got) == pytest.approx(expected, rel=1e-10, abs=1e-8)
