"""No module of embias uses another module's private name.

A name with a leading underscore belongs to its module: a helper two modules need is public
in one of them (DESIGN §2). Every ``.py`` file under ``embias/`` is parsed (not imported);
``from <embias module> import _name`` and ``<embias module alias>._name`` are refused when
the module is another one. Private *modules* (``embias._validation``, ``cli._options``)
are the package's shared helpers and are imported by name, which is allowed; dunder names
(``__version__``) are not private.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "embias"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(source: str, module: str, *, package: str, modules: set[str]) -> list[str]:
    """``line: what`` for every use in ``source`` (the text of ``module``, in ``package``)
    of another module's private name."""
    aliases: dict[str, str] = {}
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            if not origin.startswith("embias"):
                continue
            for alias in node.names:
                if f"{origin}.{alias.name}" in modules:  # a module, imported by name
                    aliases[alias.asname or alias.name] = f"{origin}.{alias.name}"
                elif _private(alias.name) and origin != module:
                    found.append(f"{node.lineno}: from {origin} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("embias") and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and _private(node.attr)
                and aliases[node.value.id] != module):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_name() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p) for p in files}
    assert len(modules) > 50
    found = []
    for path in files:
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found += [f"{path.relative_to(PACKAGE.parent)}:{use}" for use in private_uses(
            path.read_text(encoding="utf-8"), module, package=package, modules=modules)]
    assert found == []


def test_the_check_reports_a_private_import_and_a_private_attribute() -> None:
    source = ("from .calibration import _vectors\n"
              "from . import calibration\n"
              "x = calibration._fit_rows\n"
              "from ._validation import check_int\n"
              "from .design import _own_helper\n")
    modules = {"embias.calibration", "embias._validation", "embias.design"}
    uses = private_uses(source, "embias.design", package="embias", modules=modules)
    assert uses == ["1: from embias.calibration import _vectors", "3: calibration._fit_rows"]
