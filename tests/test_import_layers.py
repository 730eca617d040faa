"""Nothing in embias imports from a layer above its own.

Every ``.py`` file under ``embias/`` is parsed (not imported) and every ``import`` in it
that runs is read — at module level and inside functions and methods — with relative
imports resolved to the module they name. Imports under ``if TYPE_CHECKING:`` run only for
a type checker: an annotation may name a type from any layer (``plots`` draws a
``bayes`` result and names its type), so they are not checked. Each module belongs to one layer of
:data:`LAYERS` (its package's, for a module of a package); an import of a module in a
higher layer is an error that names the file, the line and both layers. A module that no
layer lists is an error too: a new module is placed in the map when it is added.

``embias/__init__.pyi`` (the export list) is not walked: it names every public name by
design. ``from embias import NAME`` (or ``from .. import NAME``) is resolved through it to
the module that defines NAME, so the lazily loaded public API is no way around the layers;
``import embias`` alone, which reaches the public API by attribute, is allowed only in the
command line. Old module paths kept for one release (``embias.bayes.store``,
``embias.bayes.compare``) serve their moved names by name (``embias._deprecation.moved_names``)
and import nothing.

The same map, drawn, is in CONTRIBUTING.md ("The layers").
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "embias"

#: The layers, bottom first: a module may import from its own layer and those below it.
#: An entry names a module or a package (with all its modules); ``embias`` is the root
#: package's ``__init__.py`` alone.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("embias", "embias._validation", "embias._deprecation", "embias._progress",
              "embias._user_line", "embias._workers", "embias._process_setup",
              "embias.settings")),
    ("results", ("embias.report", "embias.influence_table")),
    ("words", ("embias.wordlists", "embias.embeddings", "embias.encoders", "embias.tables",
               "embias.populations")),
    ("scores", ("embias.classic", "embias.weat_population", "embias.simulate",
                "embias.sentences", "embias.debias", "embias.classifier")),
    ("figures", ("embias.plots",)),
    ("models", ("embias.bayes",)),
    ("studies", ("embias.pipeline", "embias.calibration", "embias.simulate_words",
                 "embias.design", "embias.studies")),
    ("audit", ("embias.audit",)),
    ("cli", ("embias.cli", "embias.__main__")),
)

#: The layers whose modules may ``import embias`` and use the public API by attribute.
PUBLIC_API_USERS = ("cli",)

#: What a package may not import although it is below it: the models take a table (they
#: import its schema, :mod:`embias.tables`, and the classic scores of a table) and know
#: nothing of where tables come from — word lists, embeddings, sentence encoders — or of
#: the layer that runs studies.
INDEPENDENT_OF: dict[str, tuple[str, ...]] = {
    "embias.bayes": ("embias.wordlists", "embias.embeddings", "embias.encoders",
                     "embias.populations", "embias.sentences", "embias.debias"),
}


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules(package: Path) -> dict[str, Path]:
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of ``module``'s layer (the longest matching entry)."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            matches = module == entry if entry == "embias" else (
                module == entry or module.startswith(entry + "."))
            if matches and (best is None or len(entry) > best[1]):
                best = (index, len(entry))
    return None if best is None else best[0]


def public_names(package: Path) -> dict[str, str]:
    """Public name → the module it is imported from (read from ``__init__.pyi``)."""
    out = {}
    for node in ast.parse((package / "__init__.pyi").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            base = "embias" + (f".{node.module}" if node.module else "")
            for alias in node.names:
                out[alias.asname or alias.name] = (
                    f"{base}.{alias.name}" if node.module is None else base)
    return out


def _type_checking_only(node: ast.AST) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def run_time_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but those only a type checker runs (the body of an
    ``if TYPE_CHECKING:``; its ``else`` runs)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if _type_checking_only(node):
            todo.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module ("embias" for the public API by attribute)
    line: int


def imports_of(module: str, path: Path, modules: dict[str, Path],
               public: dict[str, str]) -> list[Import]:
    """Every import of an embias module in ``path``, resolved to the module imported."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "embias" or alias.name.startswith("embias."):
                    found.append(Import(module, alias.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if base != "embias" and not base.startswith("embias."):
                continue
            for alias in node.names:
                name = f"{base}.{alias.name}"
                if name in modules:  # a submodule
                    found.append(Import(module, name, node.lineno))
                elif base == "embias" and alias.name != "__version__":
                    found.append(Import(module, public.get(alias.name, "embias"), node.lineno))
                elif base == "embias":
                    found.append(Import(module, "embias._version", node.lineno))
                else:
                    found.append(Import(module, base, node.lineno))
    return found


def upward_imports(package: Path = PACKAGE) -> tuple[list[str], list[str]]:
    """(upward imports, modules no layer lists) of the package at ``package``, each as a
    readable line."""
    modules = all_modules(package)
    public = public_names(package)
    problems: list[str] = []
    unplaced = sorted(m for m in modules if layer_of(m) is None)
    for module, path in modules.items():
        own = layer_of(module)
        if own is None:
            continue
        for imp in imports_of(module, path, modules, public):
            if imp.target == "embias":  # the public API, by attribute
                if LAYERS[own][0] not in PUBLIC_API_USERS:
                    problems.append(f"{path.relative_to(package.parent)}:{imp.line}: "
                                    f"'import embias' (the whole public API) in layer "
                                    f"{LAYERS[own][0]!r}")
                continue
            target = "embias" if imp.target == "embias._version" else imp.target
            theirs = layer_of(target)
            where = f"{path.relative_to(package.parent)}:{imp.line}: {module}"
            if theirs is not None and theirs > own:
                problems.append(f"{where} ({LAYERS[own][0]}) imports {target} "
                                f"({LAYERS[theirs][0]})")
            for inside, forbidden in INDEPENDENT_OF.items():
                if not (module == inside or module.startswith(inside + ".")):
                    continue
                for name in forbidden:
                    if target == name or target.startswith(name + "."):
                        problems.append(f"{where} imports {target}, which {inside} must "
                                        "know nothing of")
    return list(dict.fromkeys(problems)), unplaced  # one line per import statement


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    problems, unplaced = upward_imports()
    assert unplaced == [], f"modules no layer lists (place them in LAYERS): {unplaced}"
    assert problems == [], "upward imports:\n" + "\n".join(problems)


# ------------------------------------------------------------------ the checker itself
def _check(tmp_path: Path, files: dict[str, str]) -> tuple[list[str], list[str]]:
    """Run the checker on a package of these files written to ``tmp_path/embias``."""
    root = tmp_path / "embias"
    for name, text in files.items():
        file = root / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return upward_imports(root)


STUB = "from .pipeline.store import load_fit as load_fit\n"


@pytest.mark.parametrize(("text", "found"), [
    # a relative import inside a function, two levels up
    ("def f():\n    from ..pipeline.store import load_fit\n", "embias.pipeline.store"),
    # an absolute import of a package
    ("import embias.pipeline\n", "embias.pipeline"),
    # a submodule imported from its package
    ("from ..pipeline import store\n", "embias.pipeline.store"),
    # in the else of an if TYPE_CHECKING (it runs)
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\nelse:\n"
     "    from ..pipeline.store import load_fit\n", "embias.pipeline.store"),
    # a public name through the root package: resolved through __init__.pyi
    ("from .. import load_fit\n", "embias.pipeline.store"),
    # a method's import
    ("class A:\n    def m(self):\n        from embias.pipeline import store\n",
     "embias.pipeline.store"),
])
def test_an_upward_import_is_found_wherever_it_is(tmp_path: Path, text: str,
                                                  found: str) -> None:
    problems, unplaced = _check(tmp_path, {
        "__init__.py": "", "__init__.pyi": STUB, "settings.py": "",
        "bayes/__init__.py": "", "bayes/fit.py": text,
        "pipeline/__init__.py": "", "pipeline/store.py": "def load_fit(): ...\n"})
    assert unplaced == []
    assert len(problems) == 1
    assert problems[0].startswith("embias/bayes/fit.py:")
    assert problems[0].endswith(f"embias.bayes.fit (models) imports {found} (studies)")


def test_downward_same_layer_and_type_checking_imports_pass_and_a_new_module_must_be_placed(
        tmp_path: Path) -> None:
    problems, unplaced = _check(tmp_path, {
        "__init__.py": "", "__init__.pyi": STUB, "settings.py": "",
        "bayes/__init__.py": "from .fit import f\n",
        "bayes/fit.py": "from ..settings import X\nfrom .. import __version__\ndef f(): ...\n"
                        "import typing\nif typing.TYPE_CHECKING:\n"
                        "    from ..pipeline.store import load_fit\n",
        "pipeline/__init__.py": "",
        "pipeline/store.py": "from ..bayes.fit import f\nimport embias.settings\n",
        "newthing.py": ""})
    assert problems == []
    assert unplaced == ["embias.newthing"]


def test_the_public_api_by_attribute_only_on_the_command_line(tmp_path: Path) -> None:
    problems, _ = _check(tmp_path, {
        "__init__.py": "", "__init__.pyi": STUB,
        "bayes/__init__.py": "import embias\n",
        "cli/__init__.py": "import embias\n"})
    assert problems == ["embias/bayes/__init__.py:1: 'import embias' (the whole public API) "
                        "in layer 'models'"]


def test_the_models_know_nothing_of_where_tables_come_from(tmp_path: Path) -> None:
    problems, _ = _check(tmp_path, {
        "__init__.py": "", "__init__.pyi": STUB, "tables.py": "", "embeddings.py": "",
        "bayes/__init__.py": "from ..tables import X\n",
        "bayes/store.py": "def f():\n    from ..embeddings import load_embeddings\n"})
    assert problems == ["embias/bayes/store.py:2: embias.bayes.store imports "
                        "embias.embeddings, which embias.bayes must know nothing of"]
