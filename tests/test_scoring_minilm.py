"""The numpy MiniLM (no torch) against sentence-transformers, and on its own."""

from __future__ import annotations

import os

import numpy as np
import pytest

from floorbench.scoring.minilm import MiniLM, model_dir

TEXTS = [
    "the taco place",
    "The cheapest one is the taco place on Fifth, about nine dollars a head.",
    "Got it, thanks!",
    "I think the burger joint on Ninth is the cheapest option.",
    "Hey Siri, how long is the bus from campus to Ninth and Pine right now? " * 20,  # > 256 tokens
    "",
]


@pytest.fixture(scope="module")
def minilm() -> MiniLM:
    return MiniLM()


def test_embeddings_are_unit_vectors_and_meaningful(minilm: MiniLM) -> None:
    v = minilm.encode(TEXTS)
    assert v.shape == (len(TEXTS), 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[3] > v[0] @ v[2]
    assert np.allclose(minilm.encode(TEXTS[:1])[0], v[0], atol=1e-6)  # batch padding does not leak


def test_matches_sentence_transformers_when_torch_is_installed(minilm: MiniLM) -> None:
    pytest.importorskip("torch")
    st = pytest.importorskip("sentence_transformers")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    ref = st.SentenceTransformer(str(model_dir()), device="cpu").encode(TEXTS, normalize_embeddings=True)
    assert np.abs(minilm.encode(TEXTS) - ref).max() < 1e-4
