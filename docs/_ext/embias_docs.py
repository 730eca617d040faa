"""Sphinx extension of embias's documentation: references by public name, and ``|x|`` text.

Two things the package's docstrings do that Sphinx does not understand by itself:

* They refer to an object by the module it is defined in (``:func:`embias.classic.weat```,
  or ``:func:`seat_test``` inside ``embias.sentences``), while the API reference documents
  it under its public name (``embias.weat``, ``embias.seat_test``). A reference Sphinx does
  not find is looked up here: when it names the same Python object as a public name, it
  links to that name's page. So the reference follows the public names wherever the code
  lives, and a reference to something that is not public stays unresolved (and fails the
  nitpicky build, unless ``conf.py`` lists it).
* They write absolute values and set sizes as ``|x|`` (``|WEAT| ≥ t``, ``|X|``), which
  reStructuredText reads as substitutions. embias defines no substitutions in docstrings,
  so every ``|`` outside inline literals is escaped before docutils reads a docstring.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

#: The packages whose public names the API reference documents (``__all__``).
PUBLIC_PACKAGES = ("embias", "embias.classifier", "embias.studies")

_public: dict[int, str] | None = None


def public_names() -> dict[int, str]:
    """``id(object)`` → documented full name, for every public name (modules excluded)."""
    global _public
    if _public is None:
        _public = {}
        for package in PUBLIC_PACKAGES:
            module = importlib.import_module(package)
            for name in module.__all__:
                obj = getattr(module, name)
                if inspect.ismodule(obj) or name.startswith("__"):
                    continue
                if _is_identity(obj):
                    _public.setdefault(id(obj), f"{package}.{name}")
    return _public


def _is_identity(obj: Any) -> bool:
    """Whether ``obj is other`` means "the same public object" (not a shared small value)."""
    return not isinstance(obj, (int, float, str, bytes, bool, type(None)))


def _import_target(path: str) -> Any:
    """The object at dotted ``path`` (modules imported as needed), or None."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        except Exception:
            return None
        try:
            for attr in parts[split:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def public_target(target: str, context: str | None) -> str | None:
    """The documented name of what ``target`` names, seen from module ``context``."""
    target = target.lstrip("~.")
    candidates = [target]
    if context:
        candidates.append(f"{context}.{target}")
    candidates.append(f"embias.{target}")
    public = public_names()
    for candidate in candidates:
        if not candidate.startswith("embias"):
            continue
        parts = candidate.split(".")
        # the object itself, or a member of a public class (embias.bayes.BiasFit.summary)
        for cut in range(len(parts), 1, -1):
            owner = _import_target(".".join(parts[:cut]))
            if owner is not None and id(owner) in public:
                rest = parts[cut:]
                if rest and _import_target(candidate) is None:
                    break
                return ".".join([public[id(owner)], *rest])
    return None


def _documented_by_short_name(env: BuildEnvironment, target: str) -> str | None:
    """The one documented embias object whose name ends with ``.target``, if exactly one."""
    suffix = "." + target.lstrip("~.")
    found = [name for name in env.domains["py"].objects
             if name.startswith("embias.") and name.endswith(suffix)]
    return found[0] if len(found) == 1 else None


def _attribute_owner(target: str, context_class: str | None, context_module: str | None
                     ) -> str | None:
    """The documented class whose Attributes section holds ``target`` (``Cls.attr``/``attr``).

    numpydoc renders a class's ``Attributes`` as a list on the class's page, not as objects
    of their own: a reference to one links to the class.
    """
    parts = target.lstrip("~.").split(".")
    attr = parts[-1]
    owners = []
    if len(parts) > 1:
        owners.append(".".join(parts[:-1]))
    if context_class:
        owners.append(context_class)
    for owner in owners:
        name = public_target(owner, context_module)
        if name is None:
            continue
        cls = _import_target(name)
        if not inspect.isclass(cls):
            continue
        fields = set(getattr(cls, "__dataclass_fields__", {})) | set(
            getattr(cls, "__annotations__", {}))
        doc = inspect.getdoc(cls) or ""
        if attr in fields or hasattr(cls, attr) or re.search(
                rf"^{re.escape(attr)}\b", doc, re.MULTILINE):
            return name
    return None


def resolve_public(app: Sphinx, env: BuildEnvironment, node: nodes.Element,
                   contnode: nodes.Element) -> nodes.Element | None:
    """``missing-reference``: link a module-path reference to the public name's page."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    tries = []
    if (name := public_target(target, node.get("py:module"))) and name != target:
        tries.append((name, (node["reftype"], "obj")))
    if name := _documented_by_short_name(env, target):
        tries.append((name, (node["reftype"], "obj")))
    if node["reftype"] in ("attr", "obj") and (
            name := _attribute_owner(target, node.get("py:class"), node.get("py:module"))):
        tries.append((name, ("class",)))
    domain = env.domains["py"]
    for name, roles in tries:
        for role in roles:
            new = node.deepcopy()
            new["reftarget"] = name
            resolved = domain.resolve_xref(env, node["refdoc"], app.builder, role, name,
                                           new, contnode)
            if resolved is not None:
                return resolved
    return None


#: an inline literal (kept as it is) or a bar
_BARS = re.compile(r"(``.*?``|`[^`]*`|\|)")


def escape_bars(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                lines: list[str]) -> None:
    """``autodoc-process-docstring``: ``|x|`` is an absolute value, not a substitution."""
    for i, line in enumerate(lines):
        if "|" not in line or line.lstrip().startswith("+"):  # a grid table's border
            continue
        lines[i] = _BARS.sub(lambda m: r"\|" if m.group(0) == "|" else m.group(0), line)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("missing-reference", resolve_public)
    app.connect("autodoc-process-docstring", escape_bars, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
