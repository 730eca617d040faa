"""What a fit says about its convergence when r̂ cannot be computed: one chain (r̂ compares
chains) is said as such, not as "r_hat > 1.01 for every parameter (worst: nan)"."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import embias
from embias.bayes.diagnostics import convergence_problems


def small_table() -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the study's one missing word
        table = embias.study_table("religion", "glove-6b-50d")
    words = list(dict.fromkeys(table["protected_word"]))[:4]
    return table[table["protected_word"].isin(words)].reset_index(drop=True)


def test_a_one_chain_fit_says_r_hat_needs_two_chains() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = embias.fit_bias_model(small_table(), level="hierarchical", draws=300, tune=300,
                                    chains=1, random_seed=5, progress=False)
    assert fit.posterior["posterior"].sizes["chain"] == 1
    # r̂ of one chain is undefined (ArviZ gives NaN too); the ESS are computed
    diagnostics = fit.diagnostics()
    assert diagnostics["r_hat"].isna().all()
    assert np.isfinite(diagnostics["ess_bulk"]).all()
    problems = fit.problems()
    assert problems[0] == ("r_hat not computed: it compares chains and the fit has 1; "
                           "convergence is unchecked — fit with chains ≥ 2")
    assert not any("nan" in p for p in problems), problems
    messages = [str(w.message) for w in caught
                if issubclass(w.category, embias.ConvergenceWarning)]
    assert len(messages) == 1 and "it compares chains and the fit has 1" in messages[0]


def test_an_undefined_r_hat_with_two_chains_is_named_not_called_large() -> None:
    diagnostics = pd.DataFrame({"parameter": ["a", "b[x]", "c"], "variable": ["a", "b", "c"],
                                "r_hat": [1.0, np.nan, 1.2],
                                "ess_bulk": [900.0, 900.0, 900.0],
                                "ess_tail": [800.0, 800.0, 800.0]})
    assert convergence_problems(diagnostics, 0, chains=2) == [
        "r_hat > 1.01 for 1 parameter(s) (worst c: 1.200)",
        "r_hat is undefined (NaN) for 1 parameter(s) (e.g. b[x]): their draws hold NaN, or "
        "there are fewer than 2 chains or 4 draws"]
    assert convergence_problems(diagnostics.iloc[[0]], 0, chains=4) == []


@pytest.mark.parametrize("chains", [0, 1])
def test_fewer_than_two_chains_skip_the_r_hat_threshold(chains) -> None:
    diagnostics = pd.DataFrame({"parameter": ["a"], "variable": ["a"], "r_hat": [np.nan],
                                "ess_bulk": [50.0], "ess_tail": [900.0]})
    assert convergence_problems(diagnostics, 2, chains=chains) == [
        f"r_hat not computed: it compares chains and the fit has {chains}; convergence is "
        "unchecked — fit with chains ≥ 2",
        "ess_bulk < 400 for 1 parameter(s) (worst a: 50); draw more samples",
        "2 divergent transition(s); raise target_accept or treat the intervals with caution"]
