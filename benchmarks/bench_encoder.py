"""The offline sentence encoder: agreement with a plain float64 forward pass, and speed.

Measures
- agreement of the default all-MiniLM-L6-v2 (fp32 ONNX graph on onnxruntime) with the
  reference forward pass of ``tests/test_encoders.py`` (float64, one sentence at a time)
  on real sentences: the smallest cosine between a sentence's two vectors and the largest
  error of a pairwise cosine;
- encoding throughput (sentences/s, wall and CPU) on the sentences of Caliskan et al.'s
  ten tests in May et al.'s templates, for several batch sizes and 1 or 2 threads, and the
  same for the batched numpy forward pass it was chosen over;
- the cost of loading the encoder (fresh process) and of the SEAT and table builders.

No target is stated for these figures: they are the record of the choice made and of
what a user waits for.

Run: .venv/bin/python benchmarks/bench_encoder.py   (prints its figures and writes
``benchmarks/results/bench_encoder.json``)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from record import Tables

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def corpus() -> list[str]:
    """Every distinct sentence of the ten WEAT tests' words in May et al.'s templates."""
    import embias
    from embias.sentences import word_sentences

    words = [w for i in range(1, 11) for s in embias.load_study(f"weat{i}").weat_sets()
             for w in s]
    return list(dict.fromkeys(word_sentences(words)["sentence"]))


def numpy_minilm(files, batch_size: int = 256):
    """The candidate the onnxruntime graph was chosen over: fp32 numpy, sentences sorted by
    length and batched, dense layers on the real tokens only, attention with the mask."""
    from safetensors.numpy import load
    from scipy.special import erf
    from tokenizers import Tokenizer

    w = load(files.weights)
    tok = Tokenizer.from_str(files.tokenizer)
    tok.no_padding()
    tok.enable_truncation(256)
    heads, size = 12, 32
    layers = []
    for i in range(6):
        p = f"encoder.layer.{i}."
        qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key",
                                                                              "value")])
        layers.append({
            "qkv": np.ascontiguousarray(qkv.T),
            "qkv_b": np.concatenate([w[p + f"attention.self.{n}.bias"]
                                     for n in ("query", "key", "value")]),
            **{k: np.ascontiguousarray(w[p + n + ".weight"].T) for k, n in (
                ("o", "attention.output.dense"), ("i", "intermediate.dense"),
                ("f", "output.dense"))},
            **{k + "_b": w[p + n + ".bias"] for k, n in (
                ("o", "attention.output.dense"), ("i", "intermediate.dense"),
                ("f", "output.dense"))},
            "ln1": (w[p + "attention.output.LayerNorm.weight"],
                    w[p + "attention.output.LayerNorm.bias"]),
            "ln2": (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
        })
    word = w["embeddings.word_embeddings.weight"]
    pos = (w["embeddings.position_embeddings.weight"]
           + w["embeddings.token_type_embeddings.weight"][0])
    ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    scale = np.float32(1 / np.sqrt(size))
    root_half = np.float32(1 / np.sqrt(2))

    def norm(x, gain, bias):
        x = x - x.mean(-1, keepdims=True)
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + np.float32(1e-12)) * gain + bias

    def encode(sentences):
        ids = [e.ids for e in tok.encode_batch(sentences)]
        lengths = np.array([len(i) for i in ids])
        order = np.argsort(lengths, kind="stable")
        out = np.empty((len(ids), 384), np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            b, t = rows.size, int(lengths[rows].max())
            mask = np.arange(t)[None, :] < lengths[rows][:, None]
            flat = mask.ravel()
            tokens = np.concatenate([ids[i] for i in rows])
            x = norm(word[tokens] + pos[np.nonzero(mask)[1]], *ln0)
            bias = np.where(mask, 0, -1e9).astype(np.float32)[:, None, None, :]
            for lay in layers:
                full = np.zeros((b * t, 3 * 384), np.float32)
                full[flat] = x @ lay["qkv"] + lay["qkv_b"]
                q, k, v = full.reshape(b, t, 3, heads, size).transpose(2, 0, 3, 1, 4)
                scores = (q * scale) @ k.transpose(0, 1, 3, 2) + bias
                scores = np.exp(scores - scores.max(-1, keepdims=True))
                scores /= scores.sum(-1, keepdims=True)
                ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b * t, 384)[flat]
                x = norm(x + ctx @ lay["o"] + lay["o_b"], *lay["ln1"])
                h = x @ lay["i"] + lay["i_b"]
                h = np.float32(0.5) * h * (1 + erf(h * root_half))
                x = norm(x + h @ lay["f"] + lay["f_b"], *lay["ln2"])
            pooled = np.add.reduceat(x, np.r_[0, np.cumsum(lengths[rows])[:-1]]) / lengths[
                rows][:, None]
            out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out

    return encode


def timed(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def agreement(fast: np.ndarray, ref: np.ndarray) -> list[str]:
    """The smallest cosine between a sentence's two vectors; the largest pairwise-cosine
    error (table cells)."""
    same = (fast.astype(float) * ref).sum(axis=1).min()
    err = np.abs(fast.astype(float) @ fast.T.astype(float) - ref @ ref.T).max()
    return [f"{same:.9f}", f"{err:.1e}"]


def main() -> None:
    from test_encoders import AGREEMENT_SENTENCES, reference_minilm

    from embias.encoders import DEFAULT_BATCH_SIZE, MiniLMEncoder, find_model_files

    warnings.simplefilter("ignore", UserWarning)
    sentences = corpus()
    n = len(sentences)
    words = np.mean([len(s.split()) for s in sentences])
    out = Tables(__file__, title="Offline sentence encoder (all-MiniLM-L6-v2): agreement and "
                 "speed", settings={"corpus": f"{n} distinct sentences (Caliskan et al.'s ten "
                                    "tests in May et al.'s templates), "
                                    f"{words:.1f} words each", "cpus": os.cpu_count()})

    code = ("import time; t = time.perf_counter(); from embias.encoders import "
            "default_encoder; e = default_encoder(); e(['This is Adam.']); "
            "print(time.perf_counter() - t)")
    loads = [float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                  text=True, check=True).stdout) for _ in range(3)]
    wall, cpu, files = timed(find_model_files)
    out.table("Loading the encoder", ["step", "wall (s)"], [
        ["load, fresh process (import, read + SHA-256 check, graph build, session, first "
         "sentence), best of 3", f"{min(loads):.2f}"],
        ["of which reading and checking the files", f"{wall:.2f}"]])

    check = list(AGREEMENT_SENTENCES) + sentences[:: max(1, n // 24)][:24]
    ref = reference_minilm(check)
    model = MiniLMEncoder()
    candidate = numpy_minilm(files)
    out.table(f"Agreement with the float64 per-sentence forward pass on {len(check)} real "
              "sentences", ["encoder", "min cosine(fast, reference)",
                            "max pairwise-cosine error"],
              [["onnxruntime fp32 graph (default)", *agreement(model(check), ref)],
               ["batched numpy fp32 (candidate)", *agreement(candidate(check), ref)]],
              note="The reference is the plain forward pass of tests/test_encoders.py. A "
                   "cosine of 1 and an error of 0 would be exact agreement.")

    rows = []
    for threads in (2, 1):
        for batch in (32, 64, 128):
            enc = MiniLMEncoder(batch_size=batch, num_threads=threads)
            enc(sentences[:64])
            runs = 2 if batch == DEFAULT_BATCH_SIZE else 1
            best = min((timed(enc, sentences) for _ in range(runs)), key=lambda r: r[0])
            rows.append(["onnxruntime", str(threads), str(batch), str(runs),
                         f"{n / best[0]:.0f}", f"{n / best[1]:.0f}"])
    enc = numpy_minilm(files, 256)
    best = min((timed(enc, sentences) for _ in range(2)), key=lambda r: r[0])
    rows.append(["numpy (candidate)", "2 (BLAS)", "256", "2", f"{n / best[0]:.0f}",
                 f"{n / best[1]:.0f}"])
    out.table(f"Encoding throughput on the {n} sentences",
              ["encoder", "threads", "batch", "runs", "sentences/s (wall)",
               "sentences per CPU-s"], rows,
              note=f"Best of the runs; the default batch size is {DEFAULT_BATCH_SIZE}. Wall "
                   "throughput falls when other jobs share the cores (load average recorded "
                   "above); per-CPU-second throughput does not.")

    from embias.encoders import default_encoder
    from embias.sentences import seat_overview, sentence_table

    default_encoder().clear_cache()
    wall, cpu, table = timed(lambda: seat_overview(None, random_seed=0))
    rows = [["seat_overview(): SEAT of the ten tests, sentences encoded afresh", "",
             f"{wall:.1f}", f"{cpu:.1f}"]]
    default_encoder().clear_cache()
    wall, cpu, table = timed(sentence_table, None, "weat6")
    rows.append(["sentence_table(None, 'weat6') with the controls",
                 f"{len(table):,} rows, {table.attrs['sentences']:,} sentences encoded",
                 f"{wall:.1f}", f"{cpu:.1f}"])
    out.table("Builders on the default encoder (one run each)",
              ["call", "size", "wall (s)", "CPU (s)"], rows)
    out.write()

if __name__ == "__main__":
    main()
