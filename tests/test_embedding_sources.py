"""Where embeddings come from: a path given as a ``pathlib.Path`` is a source like its
string, and an unknown builtin name is named in a message that reads as a sentence.

The tables, the calibration and the design analysis take their embeddings through one
helper (:func:`embias.embeddings.load_named_embeddings`), which also says what a table's
``embedding`` column reads.
"""

from __future__ import annotations

import numpy as np
import pytest

import embias
from embias.embeddings import keyed_vectors, load_named_embeddings
from embias.wordlists import Study

#: Two protected words and three compared words at known angles (unit vectors).
VECTORS = {
    "he": [1.0, 0.0],
    "she": [0.0, 1.0],
    "strong": [1.0, 0.0],
    "gentle": [0.0, 1.0],
    "table": [0.6, 0.8],
}


def _study() -> Study:
    return Study.from_dicts("toy", protected={"m": ["he"], "f": ["she"]},
                            attributes={"m": ["strong"], "f": ["gentle"]}, neutral=["table"])


@pytest.fixture
def glove_file(tmp_path):
    path = tmp_path / "tiny-glove.txt"
    path.write_text("".join(f"{w} {x} {y}\n" for w, (x, y) in VECTORS.items()),
                    encoding="utf-8")
    return path


def test_a_path_object_is_read_as_its_file_by_cosine_table(glove_file):
    table = embias.cosine_table(glove_file, _study())
    assert set(table["embedding"]) == {str(glove_file)}
    pairs = zip(table["protected_word"], table["word_to_compare"], strict=True)
    similarity = dict(zip(pairs, table["cosine_similarity"], strict=True))
    # cos(he, strong) = 1, cos(he, gentle) = 0, cos(he, table) = 0.6, cos(she, table) = 0.8
    assert similarity["he", "strong"] == pytest.approx(1.0)
    assert similarity["he", "gentle"] == pytest.approx(0.0, abs=1e-7)
    assert similarity["he", "table"] == pytest.approx(0.6)
    assert similarity["she", "table"] == pytest.approx(0.8)


def test_the_name_of_a_source_is_its_string_its_loaded_name_or_custom(glove_file):
    kv, name = load_named_embeddings(str(glove_file))
    assert name == str(glove_file) and kv.index_to_key == list(VECTORS)
    assert load_named_embeddings(glove_file)[1] == str(glove_file)
    # vectors loaded from a file keep its name; vectors built by hand have none
    assert load_named_embeddings(kv)[1] == str(glove_file)
    hand = keyed_vectors(list(VECTORS), np.array(list(VECTORS.values()), dtype=np.float32))
    same, name = load_named_embeddings(hand)
    assert same is hand and name == "custom"


def test_an_unknown_name_without_a_close_match_is_named_in_a_sentence():
    with pytest.raises(ValueError, match=r"^unknown embedding 'fasttext-wiki'; Known builtin "
                                         r"names: \['glove-6b-50d'\]"):
        embias.load_embeddings("fasttext-wiki")
