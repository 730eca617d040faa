"""all-MiniLM-L6-v2's forward pass as an fp32 ONNX graph, built in memory.

:func:`onnx_graph` builds the graph from the safetensors weights (with the ``onnx``
package): token + position + segment embeddings, LayerNorm, six encoder layers (fused
attention with the attention mask, exact-erf GELU), then mean pooling over the attention
mask, as the model card says. :class:`~embias.encoders.minilm.MiniLMEncoder` runs it on
onnxruntime and L2-normalises the pooled vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .model_files import import_extra

__all__ = ["HIDDEN", "onnx_graph"]

#: Width of the model's hidden states and of its sentence vectors.
HIDDEN = 384
_HEADS = 12
_LAYERS = 6
_LAYER_NORM_EPS = 1e-12


def onnx_graph(weights: dict[str, np.ndarray]) -> bytes:
    """Build all-MiniLM-L6-v2 as an fp32 ONNX graph (BertModel + mean pooling), serialised.

    Inputs ``input_ids`` and ``attention_mask`` (batch × tokens, int64) and
    ``position_ids`` (tokens, int64); output ``pooled``: the mask-weighted mean of the last
    hidden states (batch × 384), not yet normalised.

    Parameters
    ----------
    weights
        The model's tensors by name, as ``safetensors.numpy.load`` reads
        ``model.safetensors``.

    Returns
    -------
    bytes
        The serialised ONNX model (opsets: 20 and ``com.microsoft`` 1).

    Raises
    ------
    ModuleNotFoundError
        ``onnx`` is not installed (the ``sentence`` extra).
    """
    onnx = import_extra("onnx")
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
        [helper.make_tensor_value_info("pooled", float_type, ["batch", HIDDEN])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20),
                                                    helper.make_opsetid("com.microsoft", 1)])
    return model.SerializeToString()
