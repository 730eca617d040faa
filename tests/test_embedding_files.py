"""Embedding files read from disk: repeated words, file handles, and the name they carry."""

from __future__ import annotations

import gc
import subprocess
import sys
import warnings

import numpy as np
import pytest
from gensim.models import KeyedVectors

import embias
from embias import embeddings


def kv_of(words: list[str], rows: list[list[float]]) -> KeyedVectors:
    kv = KeyedVectors(vector_size=len(rows[0]), count=0, dtype=np.float32)
    kv.add_vectors(words, np.asarray(rows, dtype=np.float32))
    return kv


FIRST = kv_of(["apple", "pear", "fig", "plum"],
              [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
# a second vector for 'apple' and one for 'fig', written after the first four
AGAIN = kv_of(["fig", "kiwi", "apple"], [[5, 5, 5], [0, 1, 1], [-1, 0, 0]])


def word2vec_file(path, *, binary: bool):
    """FIRST then AGAIN in one word2vec file (header: 7 vectors), written by gensim."""
    FIRST.save_word2vec_format(str(path), binary=binary, total_vec=len(FIRST) + len(AGAIN))
    AGAIN.save_word2vec_format(str(path), binary=binary, append=True, write_header=False)
    return path


def test_word2vec_text_repeated_word_names_its_lines(tmp_path):
    path = word2vec_file(tmp_path / "v.txt", binary=False)
    lines = path.read_text().splitlines()
    assert lines[0] == "7 3" and lines[1].startswith("apple ") and lines[7].startswith("apple ")
    # gensim alone keeps the first vector of each and counts 7 words
    raw = KeyedVectors.load_word2vec_format(str(path))
    assert len(raw) == 7 and raw.index_to_key[-2:] == [None, None]
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: 2 word(s) of this word2vec text file have more than one vector: "
        "'apple' (lines 2 and 8), 'fig' (lines 4 and 6). A word must have one vector (which "
        "of them is meant cannot be told; only the first would be used) — remove the "
        "repeated lines or fix the file")
    # the first 5 vectors hold one repeat only ('fig', lines 4 and 6)
    with pytest.raises(ValueError, match=r"1 word\(s\) .* 'fig' \(lines 4 and 6\)\. A word"):
        embias.load_embeddings(path, limit=5)
    # the first 4 hold none: read as they are
    kv = embias.load_embeddings(path, limit=4)
    assert kv.index_to_key == ["apple", "pear", "fig", "plum"]


def test_word2vec_binary_repeated_word_names_its_records(tmp_path):
    path = word2vec_file(tmp_path / "v.bin", binary=True)
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: 2 word(s) of this word2vec binary file have more than one vector: "
        "'apple' (records 1 and 7), 'fig' (records 3 and 5); records are counted from 1 "
        "after the header. A word must have one vector (which of them is meant cannot be "
        "told; only the first would be used) — remove the repeated records or fix the file")
    kv = embias.load_embeddings(path, limit=4)
    np.testing.assert_array_equal(kv.vectors, FIRST.vectors)


def test_glove_repeated_word_names_its_lines(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("apple 1 0 0\npear 0 1 0\nfig 0 0 1\napple -1 0 0\n")
    with pytest.raises(ValueError) as info:
        embias.load_embeddings(path)
    assert str(info.value) == (
        f"{str(path)!r}: 1 word(s) of this GloVe text file have more than one vector: "
        "'apple' (lines 1 and 4). A word must have one vector (which of them is meant cannot "
        "be told; only the first would be used) — remove the repeated lines or fix the file")
    three = embias.load_embeddings(path, limit=3)
    assert three.index_to_key == ["apple", "pear", "fig"] and len(three) == 3
    np.testing.assert_array_equal(three["fig"], [0, 0, 1])


def test_glove_is_read_as_gensim_reads_it(tmp_path):
    path = tmp_path / "g.txt"
    kv = embias.load_embeddings(limit=200)
    kv.save_word2vec_format(str(path), binary=False, write_header=False)
    ours = embias.load_embeddings(path)
    theirs = KeyedVectors.load_word2vec_format(str(path), no_header=True)
    assert ours.index_to_key == theirs.index_to_key
    assert ours.vectors.dtype == theirs.vectors.dtype == np.float32
    np.testing.assert_array_equal(ours.vectors, theirs.vectors)
    assert embias.load_embeddings(path, limit=7).index_to_key == theirs.index_to_key[:7]


def test_glove_read_leaves_no_file_open(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("apple 1 0 0\npear 0 1 0\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("apple 1 0 0\npear 0 abc 0\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        assert len(embias.load_embeddings(good)) == 2
        with pytest.raises(ValueError) as info:
            embias.load_embeddings(bad)
        assert str(info.value) == (f"{str(bad)!r}: GloVe text line 2 (word 'pear') has a "
                                   "value that is not a number: 'abc'")
        del info
        gc.collect()
    assert [str(w.message) for w in caught if w.category is ResourceWarning] == []


def test_glove_read_error_leaves_no_resource_warning_in_a_fresh_process(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("apple 1 0 0\npear 0 abc 0\n")
    code = (f"import embias\ntry:\n    embias.load_embeddings({str(bad)!r})\n"
            "except ValueError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c",
                           code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (f"{str(bad)!r}: GloVe text line 2 (word 'pear') has a "
                                   "value that is not a number: 'abc'")
    assert "ResourceWarning" not in done.stderr and "unclosed" not in done.stderr


def test_tables_of_loaded_embeddings_carry_their_name(tmp_path, glove):
    assert embeddings.embedding_name_of(glove) == "glove-6b-50d"
    with pytest.warns(UserWarning, match="literaly"):
        table = embias.cosine_table(glove, "religion")
    assert set(table.embedding) == {"glove-6b-50d"}  # was 'custom'
    # the first words of them are still them
    assert embeddings.embedding_name_of(embias.load_embeddings(limit=1000)) == "glove-6b-50d"
    assert embeddings.embedding_name_of(embias.load_embeddings(glove, limit=10)) == "glove-6b-50d"
    path = tmp_path / "small.txt"
    word2vec = kv_of(["x", "y", "a", "b"], [[1, 0], [0, 1], [1, 1], [-1, 0]])
    word2vec.save_word2vec_format(str(path))
    study = embias.Study.from_dicts("toy", {"X": ["x"], "Y": ["y"]}, {"X": ["a"], "Y": ["b"]})
    from_file = embias.load_embeddings(path)
    assert embeddings.embedding_name_of(from_file) == str(path)
    assert set(embias.cosine_table(from_file, study).embedding) == {str(path)}
    # vectors built by hand have no source: 'custom', as before; a name given wins
    assert embeddings.embedding_name_of(word2vec) is None
    assert set(embias.cosine_table(word2vec, study).embedding) == {"custom"}
    assert set(embias.cosine_table(from_file, study, embedding_name="mine").embedding) == {
        "mine"}
    # the user's own KeyedVectors is never changed
    embias.load_embeddings(word2vec, limit=2)
    assert not hasattr(word2vec, "embias_name")
