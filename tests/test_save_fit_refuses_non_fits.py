"""save_fit saves a BiasFit; anything else is refused with a ValueError naming what it got,
before anything is written (an AttributeError deep in the saving code otherwise)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import embias


@pytest.mark.parametrize(("value", "name"), [({"level": "crossed"}, "dict"), (None, "NoneType"),
                                             (pd.DataFrame({"a": [1]}), "DataFrame")])
def test_save_fit_refuses_what_is_not_a_fit(tmp_path: Path, value: object, name: str) -> None:
    target = tmp_path / "models" / "religion"
    with pytest.raises(ValueError, match=rf"save_fit\(\) saves a BiasFit .*, got {name}$"):
        embias.save_fit(value, target)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []  # nothing written, not even the models folder
