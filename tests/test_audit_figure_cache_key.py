"""The audit page redraws its cached figures when any drawing code changes: the cache key
hashes every module of the plotting package, not only its ``__init__``."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import embias.plots
from embias.audit.render import drawing_code_files


def test_every_plotting_module_is_part_of_the_figure_cache_key() -> None:
    files = {path.resolve() for path in drawing_code_files()}
    package = Path(embias.plots.__file__).parent
    modules = [info.name for info in pkgutil.iter_modules([str(package)])]
    assert len(modules) >= 2  # a package of modules, each of which draws figures
    for name in modules:
        module = package / f"{name}.py"
        assert module.resolve() in files, name
    assert Path(embias.plots.__file__).resolve() in files
    assert {p.name for p in files} >= {"render.py", "content.py", "figures.py"}
