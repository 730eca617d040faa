"""The public API of ``embias``: declared once (``embias/__init__.pyi``), imported when used.

The stub is the declaration that ``embias/__init__.py`` reads at run time
(``lazy_loader.attach_stub``) and type checkers read statically; these tests check that
every declared name exists where the stub says, that ``embias.X``, ``from embias import X``
and ``dir(embias)`` all give the same names, and that ``import embias`` needs none of the
heavy libraries the names use.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import embias

STUB = Path(embias.__file__).with_suffix(".pyi")


def declared() -> dict[str, str]:
    """Public name → module (relative to ``embias``; ``""`` for a subpackage), from the
    stub's imports."""
    names: dict[str, str] = {}
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            assert node.level == 1, ast.unparse(node)
            for alias in node.names:
                # a stub re-exports only ``import name as name`` (PEP 484)
                assert alias.asname == alias.name, ast.unparse(node)
                assert alias.name not in names, f"{alias.name} is declared twice"
                names[alias.name] = node.module or ""
    return names


def test_the_stub_declares_the_runtime_names_and_nothing_else() -> None:
    names = declared()
    assert len(names) >= 100
    assert sorted(embias.__all__) == sorted([*names, "__version__"])
    assert dir(embias) == sorted(embias.__all__)


@pytest.mark.parametrize("name", sorted(declared()))
def test_every_declared_name_is_the_object_of_its_module(name: str) -> None:
    module = declared()[name]
    if module:
        expected = getattr(importlib.import_module(f"embias.{module}"), name)
    else:
        expected = importlib.import_module(f"embias.{name}")
    assert getattr(embias, name) is expected
    namespace: dict[str, object] = {}
    exec(f"from embias import {name}", namespace)
    assert namespace[name] is expected


@pytest.mark.parametrize("name", ["SavedFitReplacedWarning", "FitInterrupted", "read_manifest",
                                  "WeatSimulationGrid", "SeededEstimate", "embedding_name_of"])
def test_names_users_meet_in_results_and_messages_are_public(name: str) -> None:
    assert name in embias.__all__
    assert getattr(embias, name).__name__ == name


def test_an_undeclared_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="fit_bias_modle"):
        embias.fit_bias_modle  # noqa: B018


def test_import_embias_and_its_version_need_no_heavy_library() -> None:
    """With numpy, pandas, PyMC, JAX, gensim and matplotlib made unimportable, ``import
    embias`` still works, gives its version and lists its names; the first use of a name
    that needs one of them then fails on that import."""
    code = textwrap.dedent("""
        import sys
        for heavy in ("numpy", "pandas", "scipy", "pymc", "jax", "gensim", "matplotlib",
                      "arviz", "xarray"):
            sys.modules[heavy] = None  # import now raises ImportError
        import embias
        print(embias.__version__, len(dir(embias)))
        try:
            embias.fit_bias_model
        except ImportError as exc:
            print("ImportError", exc.name)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    version, count = done.stdout.splitlines()[0].split()
    assert version == embias.__version__
    assert int(count) == len(embias.__all__)
    assert done.stdout.splitlines()[1].startswith("ImportError ")
