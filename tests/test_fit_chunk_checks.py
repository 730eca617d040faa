"""A chunk of batch fits without jobs is refused by name (not a division by zero)."""

import pytest

from embias.bayes.batch import run_fit_chunk


def test_an_empty_chunk_is_refused_with_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"run_fit_chunk\(\) needs at least one FitJob"):
        run_fit_chunk([])
