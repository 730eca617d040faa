"""A study without associations: MAC, which averages every attribute class alike, still runs
on embeddings; the sentence pipeline refuses it like the word pipeline does."""

from __future__ import annotations

import numpy as np
import pytest

import embias
from embias import Study


def _pets() -> Study:
    return Study.from_dicts("pets", {"cats": ["tabby", "siamese"], "dogs": ["poodle"]},
                            {"aloof": ["aloof", "cold"], "loyal": ["loyal"]},
                            neutral=["table"])


def test_mac_of_embeddings_needs_no_associations(make_kv):
    kv = make_kv({"tabby": [1, 0, 0], "siamese": [0.9, 0.1, 0], "poodle": [0, 1, 0],
                  "aloof": [1, 1, 0], "cold": [1, 0, 1], "loyal": [0, 1, 1],
                  "table": [0, 0, 1]})
    # Manzini's MAC by hand: mean over protected words and attribute classes of the mean
    # cosine distance to the class's words
    def distance(p: str, a: str) -> float:
        u, v = kv[p].astype(float), kv[a].astype(float)
        return 1 - u @ v / np.linalg.norm(u) / np.linalg.norm(v)

    by_hand = np.mean([np.mean([distance(p, a) for a in words])
                       for p in ("tabby", "siamese", "poodle")
                       for words in (("aloof", "cold"), ("loyal",))])
    assert embias.mac(kv, _pets()).value == pytest.approx(by_hand, abs=1e-12)


def test_sentence_table_refuses_a_study_without_associations():
    with pytest.raises(ValueError, match=r"protected class\(es\) \['cats', 'dogs'\] have no "
                                         r"associated attribute class"):
        embias.sentence_table(lambda sentences: np.ones((len(sentences), 3)), _pets())
