"""load_embeddings: the default GloVe vectors, every file format, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest
from gensim.models import KeyedVectors

import embias
from embias.embeddings import detect_format, is_uncased, lookup_words


def test_default_is_glove_6b_50d_without_copy(glove):
    assert glove.vectors.shape == (400_000, 50)
    assert glove.vectors.dtype == np.float32
    # memory-mapped straight from the package's .npy: no copy was made
    assert isinstance(glove.vectors, np.memmap)
    assert glove.index_to_key[:4] == ["the", ",", ".", "of"]
    assert glove.key_to_index["the"] == 0
    # first line of the original glove.6B.50d.txt: "the 0.418 0.24968 -0.41242 0.1217 ..."
    np.testing.assert_allclose(glove["the"][:4], [0.418, 0.24968, -0.41242, 0.1217], atol=1e-6)
    # gensim's own similarity works on it and agrees with a hand computation
    a, b = glove["king"].astype(float), glove["queen"].astype(float)
    expected = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
    assert glove.similarity("king", "queen") == pytest.approx(expected, abs=1e-6)
    assert is_uncased(glove)


def test_limit_and_passthrough(glove):
    small = embias.load_embeddings(limit=1000)
    assert len(small.index_to_key) == 1000
    np.testing.assert_array_equal(small["of"], glove["of"])
    assert embias.load_embeddings(glove) is glove
    assert len(embias.load_embeddings(glove, limit=10).index_to_key) == 10


@pytest.fixture(scope="module")
def small_kv(glove) -> KeyedVectors:
    return embias.load_embeddings(glove, limit=300)


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("word2vec-binary", "v.bin"), ("word2vec-text", "v.txt"), ("glove-text", "g.txt"),
     ("kv", "v.kv")],
)
def test_file_formats_are_detected_and_read(small_kv, tmp_path, fmt, name):
    path = tmp_path / name
    if fmt == "kv":
        small_kv.save(str(path))
    elif fmt == "glove-text":
        small_kv.save_word2vec_format(str(path), binary=False, write_header=False)
    else:
        small_kv.save_word2vec_format(str(path), binary=fmt == "word2vec-binary")
    assert detect_format(path) == fmt
    kv = embias.load_embeddings(path)
    assert kv.index_to_key == small_kv.index_to_key
    np.testing.assert_allclose(kv.vectors, small_kv.vectors, atol=1e-5)
    if fmt == "kv":
        assert isinstance(kv.vectors, np.memmap)  # loaded with mmap
    limited = embias.load_embeddings(path, limit=7, format=fmt)
    assert limited.index_to_key == small_kv.index_to_key[:7]


def test_format_override_and_bad_file(small_kv, tmp_path):
    path = tmp_path / "v.bin"
    small_kv.save_word2vec_format(str(path), binary=True)
    data = path.read_bytes()
    truncated = tmp_path / "cut.bin"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"could not read .*cut\.bin' as word2vec-binary"):
        embias.load_embeddings(truncated)
    with pytest.raises(ValueError, match=r"as word2vec-text"):
        embias.load_embeddings(path, format="word2vec-text")
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\nthis is not an embedding\n")
    with pytest.raises(ValueError, match=r"cannot detect the embedding format of .*junk\.txt"):
        embias.load_embeddings(junk)
    with pytest.raises(ValueError, match=r"format='fasttext' is not one of"):
        embias.load_embeddings(path, format="fasttext")


def test_missing_file_and_unknown_name(tmp_path):
    missing = tmp_path / "nowhere" / "vectors.bin"
    with pytest.raises(FileNotFoundError,
                       match=r"embedding file not found: .*nowhere/vectors\.bin"):
        embias.load_embeddings(missing)
    with pytest.raises(ValueError, match=r"unknown embedding 'glove-6b-100d'; did you mean "
                                         r"'glove-6b-50d'\? Known builtin names: "
                                         r"\['glove-6b-50d'\]"):
        embias.load_embeddings("glove-6b-100d")
    with pytest.raises(ValueError, match=r"limit must be a positive integer"):
        embias.load_embeddings(limit=0)


def test_gensim_downloader_offline_message(monkeypatch, tmp_path):
    import gensim.downloader as api

    # point gensim-data at an empty folder and an address nothing listens on, so the
    # test is the same with or without a network
    monkeypatch.setattr(api, "BASE_DIR", str(tmp_path))
    monkeypatch.setattr(api, "base_dir", str(tmp_path), raising=False)
    monkeypatch.setattr(api, "DATA_LIST_URL", "http://127.0.0.1:9/list.json")
    monkeypatch.setattr(api, "DOWNLOAD_BASE_URL", "http://127.0.0.1:9/releases")
    with pytest.raises(ConnectionError) as info:
        embias.load_embeddings("gensim:word2vec-google-news-300", download_timeout=2)
    message = str(info.value)
    assert ("gensim:word2vec-google-news-300: could not download through gensim.downloader"
            in message)
    assert ("load the local file with load_embeddings('/path/to/word2vec-google-news-300.bin')"
            in message)


def test_lookup_rejects_zero_and_nan_vectors(make_kv):
    kv = make_kv({"good": [1.0, 0.0], "zero": [0.0, 0.0], "nan": [np.nan, 1.0]})
    with pytest.raises(ValueError, match=r"zero or non-finite vectors for \['zero'\] in list 'a'"):
        lookup_words(kv, {"a": ["good", "zero"]})
    with pytest.raises(ValueError, match=r"zero or non-finite vectors for \['nan'\] in list 'b'"):
        lookup_words(kv, {"b": ["nan", "good"]})
