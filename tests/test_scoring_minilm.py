"""The numpy MiniLM (no torch) against sentence-transformers' recorded output, and on its own.

sentence-transformers (torch) is not installed here or in CI; its embeddings of a
fixed sentence list were recorded once by tests/fixtures/reference/make.py and
are compared on every run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from floorbench.scoring.minilm import MiniLM

REFERENCE = Path(__file__).resolve().parent / "fixtures" / "reference" / "minilm_sentence_transformers.json"

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


def test_matches_sentence_transformers_recorded_embeddings(minilm: MiniLM) -> None:
    ref = json.loads(REFERENCE.read_text())
    expected = np.asarray(ref["embeddings"], dtype=np.float32)
    assert expected.shape == (len(ref["texts"]), 384) and ref["max_seq_length"] == 256
    assert "" in ref["texts"] and max(len(t) for t in ref["texts"]) > 1000  # empty and truncated cases
    got = minilm.encode(ref["texts"])
    assert float(np.abs(got - expected).max()) <= ref["tolerance_max_abs"] == 1e-5


def test_the_recorded_comparison_detects_a_wrong_port(minilm: MiniLM) -> None:
    """The tolerance is tight enough to catch a small slip in the port: a layer-norm
    epsilon of 1e-3 instead of the config's 1e-12 drifts 100 times beyond it."""
    ref = json.loads(REFERENCE.read_text())
    expected = np.asarray(ref["embeddings"], dtype=np.float32)
    broken = MiniLM()
    assert broken.eps == 1e-12
    broken.eps = 1e-3
    assert float(np.abs(broken.encode(ref["texts"]) - expected).max()) > 100 * ref["tolerance_max_abs"]
