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


EIGHT_WORDS = ["jew", "christian", "muslim", "greedy", "violent", "critical", "table", "chair"]


def _word2vec_text(tmp_path, make_kv, header: str) -> tuple[KeyedVectors, object, list[str]]:
    """8 words × 5 dims saved by gensim as word2vec text, the header replaced by ``header``."""
    rng = np.random.default_rng(11)
    kv = make_kv({w: rng.normal(size=5).tolist() for w in EIGHT_WORDS})
    path = tmp_path / "vectors.txt"
    kv.save_word2vec_format(str(path), binary=False)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "8 5" and lines[1].split()[0] == "jew" and len(lines) == 9
    path.write_text("\n".join([header, *lines[1:]]) + "\n", encoding="utf-8")
    return kv, path, lines


def test_word2vec_text_header_narrower_than_vectors_is_named(tmp_path, make_kv):
    _, path, _ = _word2vec_text(tmp_path, make_kv, "8 4")
    # text, not binary: before the fix this loaded as binary and gave 8 "words" such as
    # '210486' with shape (8, 4)
    assert detect_format(path) == "word2vec-text"
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: the word2vec text header '8 4' says 8 words × 4 dimensions, but "
        "line 2 (word 'jew') has 5 numbers after the word; fix the header or the file"
    )


def test_word2vec_text_header_wider_than_vectors_is_named(tmp_path, make_kv):
    _, path, _ = _word2vec_text(tmp_path, make_kv, "8 6")
    assert detect_format(path) == "word2vec-text"
    with pytest.raises(ValueError, match=r"the word2vec text header '8 6' says 8 words × 6 "
                                         r"dimensions, but line 2 \(word 'jew'\) has 5 "
                                         r"numbers after the word"):
        embias.load_embeddings(path)


def test_word2vec_text_header_count_disagreeing_is_named(tmp_path, make_kv):
    kv, path, _ = _word2vec_text(tmp_path, make_kv, "10 5")
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: the word2vec text header '10 5' says 10 words × 5 dimensions, but "
        "the file has 8 vector lines (the last is line 9, word 'chair'); fix the header or "
        "the file"
    )
    # fewer words in the header than lines: gensim would silently read the first 5 only
    _, path, _ = _word2vec_text(tmp_path, make_kv, "5 5")
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: the word2vec text header '5 5' says 5 words × 5 dimensions, but "
        "line 7 (word 'critical') holds vector number 6; fix the header or the file"
    )
    # asking for the first 5 words of that file is fine: the rest is not read
    first = embias.load_embeddings(path, limit=5)
    assert first.index_to_key == EIGHT_WORDS[:5]
    np.testing.assert_allclose(first.vectors, kv.vectors[:5], atol=1e-6)


def test_glove_line_of_the_wrong_width_names_line_and_word(tmp_path, make_kv):
    _, _, lines = _word2vec_text(tmp_path, make_kv, "8 5")
    rows = lines[1:]
    rows[3] = " ".join(rows[3].split()[:-1])  # line 4, 'greedy': 4 numbers instead of 5
    path = tmp_path / "glove.txt"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert detect_format(path) == "glove-text"
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: GloVe text line 4 (word 'greedy') has 4 numbers after the word, but "
        "the first line has 5; every line must be a word and 5 numbers"
    )
    rows = lines[1:]
    rows[5] = rows[5].rsplit(" ", 1)[0] + " 0.1x"  # line 6, 'critical': not a number
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: GloVe text line 6 (word 'critical') has a value that is not a "
        "number: '0.1x'"
    )


def test_lookup_keeps_one_of_two_spellings_of_the_same_vector(glove, make_kv):
    with pytest.warns(UserWarning) as record:
        words, vectors, report = lookup_words(
            glove, {"muslim": ["Muslim", "muslim", "islam"], "other": ["jew", "Jew", "JEW"]})
    assert [str(r.message) for r in record] == [
        "duplicate words after case handling (looked up in lower case) were dropped, "
        "keeping the first spelling: list 'muslim': 'muslim' is 'Muslim'; list 'other': "
        "'Jew' is 'jew', 'JEW' is 'jew'"
    ]
    assert words == {"muslim": ["Muslim", "islam"], "other": ["jew"]}
    np.testing.assert_array_equal(vectors["muslim"][0], glove["muslim"].astype(float))
    assert vectors["muslim"].shape == (2, 50) and not report
    # a cased vocabulary keeps both spellings: they are different words there
    kv = make_kv({"Muslim": [1.0, 0.0], "muslim": [0.0, 1.0]})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        words, _, _ = lookup_words(kv, {"p": ["Muslim", "muslim"]})
    assert words == {"p": ["Muslim", "muslim"]}
