"""Write the API reference's source (``docs/api/index.rst``) from the public names.

The groups and their order come from ``embias/__init__.pyi``, the one place the public API of
``embias`` is declared (a comment line ``# ---- group`` starts a group, each ``from .module
import name as name`` line adds a name), and from ``__all__`` of ``embias.classifier`` and
``embias.studies``. Nothing here names a module path inside the package, so the reference
follows the names wherever their code moves. ``conf.py`` calls :func:`write_api_pages` before
Sphinx reads the sources; autosummary then writes one page per name under ``api/generated/``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

#: ``# ------- group name`` in the stub
_GROUP = re.compile(r"^#\s*-{3,}\s*(?P<title>\S.*?)\s*$")
#: ``from .module import name as name`` / ``from . import module as module``
_NAME = re.compile(r"^from\s+\.[\w.]*\s+import\s+(?P<name>\w+)\s+as\s+(?P<alias>\w+)\s*$")

#: One sentence under each group's heading (a group of the stub not listed here gets none).
GROUP_INTROS: dict[str, str] = {
    "load": "Embeddings and studies (word lists).",
    "tables": "Long-form cosine tables: one row per protected word × compared word.",
    "classic scores": "WEAT, MAC and their intervals (see :doc:`/user_guide/classic_scores`).",
    "fit": "The Bayesian models, saved fits and many fits at once "
           "(see :doc:`/user_guide/model_levels`).",
    "word influence": "Which words drive a result (see :doc:`/user_guide/word_influence`).",
    "sentence encoders": "Sentence tables and SEAT (see :doc:`/user_guide/sentence_encoders`).",
    "compare": "Paired comparisons of embeddings (see :doc:`/user_guide/comparing_embeddings`).",
    "simulate": "Simulations of WEAT and of simulated cosine tables.",
    "word sampling": "Word lists as samples (see :doc:`/user_guide/word_lists_as_samples`).",
    "populations": "Calibration on populations of real words.",
    "design analysis": "How many words a claim needs (see :doc:`/user_guide/design_analysis`).",
    "debias": "Hard and soft debiasing (Bolukbasi et al., Manzini et al.).",
    "report": "Interval tables, the ROPE decision and every figure.",
    "audit page": "The HTML audit page (see :doc:`/user_guide/audit_page`).",
    "subpackages": "The subpackages and modules whose names are public; their other "
                   "contents are internals.",
}


#: Subpackages with a section of their own (every name of their ``__all__``).
OWN_SECTIONS = ("embias.classifier", "embias.studies")


@dataclass
class Group:
    """One heading of the API reference and the public names under it."""

    title: str
    module: str
    names: list[str] = field(default_factory=list)
    intro: str = ""


def stub_groups(stub: Path) -> list[Group]:
    """The groups of ``embias/__init__.pyi``, in the stub's order.

    Parameters
    ----------
    stub
        The path of ``embias/__init__.pyi``.

    Returns
    -------
    list of Group
        One per ``# ---- title`` comment that is followed by at least one public name.

    Raises
    ------
    ValueError
        A public name stands before the first group comment, or twice in the stub.
    """
    groups: list[Group] = []
    seen: set[str] = set()
    for number, line in enumerate(stub.read_text(encoding="utf-8").splitlines(), 1):
        if match := _GROUP.match(line):
            title = match["title"]
            groups.append(Group(title, "embias", intro=GROUP_INTROS.get(title, "")))
        elif match := _NAME.match(line):
            name = match["alias"]
            if not groups:
                raise ValueError(f"{stub}:{number}: public name {name!r} before the first "
                                 "'# ---- group' comment")
            if name in seen:
                raise ValueError(f"{stub}:{number}: public name {name!r} declared twice")
            seen.add(name)
            groups[-1].names.append(name)
    return [g for g in groups if g.names]


def _kind(module: str, name: str) -> str:
    """``module``, ``class``, ``function`` or ``data`` for a public name."""
    obj = getattr(importlib.import_module(module), name)
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def _submodules(module: str) -> list[str]:
    """Names of the public modules of a package (no leading underscore), relative to it.

    A subpackage is listed with its own public modules after it (``bbu``, ``bbu.bounds``…),
    so that a package split into modules keeps a page for each of them.
    """
    package = importlib.import_module(module)
    folder = Path(package.__file__).parent
    names = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("_"):
            continue
        if path.suffix == ".py":
            names.append(path.stem)
        elif path.is_dir() and (path / "__init__.py").is_file():
            names.append(path.name)
            names += [f"{path.name}.{n}" for n in _submodules(f"{module}.{path.name}")]
    return names


def _autosummary(module: str, names: list[str], *, template: str | None = None) -> list[str]:
    lines = [f".. currentmodule:: {module}", "", ".. autosummary::", "   :toctree: generated/"]
    if template:
        lines.append(f"   :template: {template}")
    lines += ["", *(f"   {n}" for n in names), ""]
    return lines


def _section(title: str, char: str) -> list[str]:
    return [title, char * len(title), ""]


def _group_lines(group: Group) -> list[str]:
    lines = _section(group.title[:1].upper() + group.title[1:], "-")
    if group.intro:
        lines += [group.intro, ""]
    kinds = {n: _kind(group.module, n) for n in group.names}
    objects = [n for n in group.names if kinds[n] != "module"]
    modules = [n for n in group.names if kinds[n] == "module"]
    if objects:
        lines += _autosummary(group.module, objects)
    if modules:
        lines += _autosummary(group.module, modules, template="autosummary/module_short.rst")
    for name in modules:
        package = f"{group.module}.{name}"
        if hasattr(importlib.import_module(package), "__path__") and _submodules(package):
            # a public package: what each of its modules holds (docstring and constants)
            lines += [f".. rubric:: Modules of {package}", ""]
            lines += _autosummary(package, _submodules(package),
                                  template="autosummary/module_short.rst")
    return lines


def api_source(stub: Path) -> str:
    """The reStructuredText of the API reference page."""
    lines = [
        ".. This file is written by docs/_ext/apigen.py at every build: do not edit it.", "",
        *_section("API reference", "="),
        "Every public name of :mod:`embias`, :mod:`embias.classifier` and "
        ":mod:`embias.studies`, grouped as ``embias/__init__.pyi`` declares them. "
        "Each name is imported from ``embias`` (``embias.fit_bias_model``) when first used.",
        "",
        ".. contents:: Groups", "   :local:", "   :depth: 1", "",
        ".. py:module:: embias", "",
    ]
    for group in stub_groups(stub):
        group.names = [n for n in group.names if f"embias.{n}" not in OWN_SECTIONS]
        lines += _group_lines(group)
    for package in OWN_SECTIONS:
        module = importlib.import_module(package)
        lines += _section(package, "-")
        lines += [f".. automodule:: {package}", "   :no-members:", ""]
        names = list(module.__all__)
        by_kind: dict[str, list[str]] = {"class": [], "function": [], "data": []}
        for name in names:
            by_kind[_kind(package, name)].append(name)
        for kind, title in (("function", "Functions"), ("class", "Classes"),
                            ("data", "Constants")):
            if by_kind[kind]:
                lines += [f".. rubric:: {title}", ""]
                lines += _autosummary(package, by_kind[kind])
        lines += [".. rubric:: Modules", ""]
        lines += _autosummary(package, _submodules(package),
                              template="autosummary/module_short.rst")
    return "\n".join(lines) + "\n"


def write_api_pages(docs: Path, stub: Path) -> Path:
    """Write ``docs/api/index.rst`` when its text changed; return its path."""
    out = docs / "api" / "index.rst"
    out.parent.mkdir(exist_ok=True)
    text = api_source(stub)
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return out
