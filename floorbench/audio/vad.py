"""Silero VAD through onnxruntime, shared by the live schedule and offline scoring.

Only numpy and onnxruntime are imported, so scoring never pulls in LiveKit.
The ONNX file is the one pipecat ships (``pipecat/audio/vad/data/silero_vad.onnx``)
or the one in the ``silero-vad`` package; nothing is downloaded.

Silero v5 takes 512-sample windows at 16 kHz with 64 samples of context from
the previous window and a recurrent state of shape ``[2, B, 128]``; ``B`` > 1
runs several independent streams in one call (used by batched scoring).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

VAD_RATE = 16000
WINDOW = 512
"""samples per Silero window at 16 kHz (32 ms)"""
CONTEXT = 64
WINDOW_MS = WINDOW * 1000 // VAD_RATE


def silero_model_path() -> Path:
    """Find a packaged Silero ONNX model; raise a one-line error naming the fix."""
    for pkg, rel in (
        ("pipecat", "audio/vad/data/silero_vad.onnx"),
        ("silero_vad", "data/silero_vad.onnx"),
    ):
        spec = importlib.util.find_spec(pkg)
        if spec and spec.submodule_search_locations:
            p = Path(next(iter(spec.submodule_search_locations))) / rel
            if p.is_file():
                return p
    raise FileNotFoundError(
        "Silero VAD model not found; install pipecat-ai[silero] (it ships silero_vad.onnx)"
    )


def _session():  # type: ignore[no-untyped-def]
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.inter_op_num_threads = 1
    opts.intra_op_num_threads = 1
    return ort.InferenceSession(
        str(silero_model_path()), providers=["CPUExecutionProvider"], sess_options=opts
    )


class SileroStream:
    """Speech probabilities for B parallel 16 kHz streams, one 512-sample window per call."""

    def __init__(self, batch: int = 1, session=None) -> None:  # type: ignore[no-untyped-def]
        self.session = session if session is not None else _session()
        self.batch = batch
        self.reset()

    def reset(self) -> None:
        self.state = np.zeros((2, self.batch, 128), dtype=np.float32)
        self.context = np.zeros((self.batch, CONTEXT), dtype=np.float32)

    def __call__(self, window: np.ndarray) -> np.ndarray:
        """`window`: float32 [B, 512] (or [512]) in -1..1 → probabilities [B]."""
        x = np.asarray(window, dtype=np.float32)
        if x.ndim == 1:
            x = x[None, :]
        x = np.concatenate([self.context, x], axis=1)
        out, self.state = self.session.run(
            None, {"input": x, "state": self.state, "sr": np.array(VAD_RATE, dtype=np.int64)}
        )
        self.context = x[:, -CONTEXT:]
        return np.asarray(out, dtype=np.float32).reshape(-1)


def speech_probabilities(audio: np.ndarray) -> np.ndarray:
    """Per-window speech probabilities of one 16 kHz mono signal (float or int16)."""
    x = to_float(audio)
    n = len(x) // WINDOW
    stream = SileroStream(1)
    probs = np.empty(n, dtype=np.float32)
    for i in range(n):
        probs[i] = stream(x[i * WINDOW : (i + 1) * WINDOW])[0]
    return probs


BLOCK_WINDOWS = 512
"""windows per lane copied into the batch at a time (16 s), which bounds memory"""


def speech_probabilities_many(
    signals: Sequence[np.ndarray], batch: int = 64, session=None  # type: ignore[no-untyped-def]
) -> list[np.ndarray]:
    """Per-window speech probabilities of many 16 kHz mono signals, batched.

    Signals are sorted by length and run ``batch`` at a time as independent
    streams of one ONNX call per 32 ms step, so the per-call overhead is shared
    and the numbers are exactly those of `speech_probabilities` on each signal
    alone (the streams never mix). A signal of ``n`` samples yields
    ``n // 512`` probabilities, like `speech_probabilities`.
    """
    sigs = [np.asarray(s).reshape(-1) for s in signals]
    counts = [len(s) // WINDOW for s in sigs]
    out = [np.empty(c, dtype=np.float32) for c in counts]
    order = sorted(range(len(sigs)), key=lambda i: counts[i], reverse=True)
    if session is None and any(counts):
        session = _session()
    for g in range(0, len(order), batch):
        lanes = [i for i in order[g : g + batch] if counts[i] > 0]
        if not lanes:
            continue
        stream = SileroStream(len(lanes), session=session)
        n_max = counts[lanes[0]]
        for b0 in range(0, n_max, BLOCK_WINDOWS):
            b1 = min(n_max, b0 + BLOCK_WINDOWS)
            block = np.zeros((len(lanes), (b1 - b0) * WINDOW), dtype=np.float32)
            for j, i in enumerate(lanes):
                part = to_float(sigs[i][b0 * WINDOW : min(counts[i], b1) * WINDOW])
                block[j, : len(part)] = part
            probs = np.empty((len(lanes), b1 - b0), dtype=np.float32)
            for w in range(b1 - b0):
                probs[:, w] = stream(block[:, w * WINDOW : (w + 1) * WINDOW])
            for j, i in enumerate(lanes):
                end = min(counts[i], b1)
                if end > b0:
                    out[i][b0:end] = probs[j, : end - b0]
    return out


def to_float(audio: np.ndarray) -> np.ndarray:
    if audio.dtype == np.int16:
        return audio.astype(np.float32) / 32768.0
    return audio.astype(np.float32, copy=False)


@dataclass(frozen=True)
class VadRules:
    """The segment rules of benchmarks.md: threshold, minimum speech, merged pauses."""

    threshold: float = 0.5
    neg_threshold: float = 0.35
    """hysteresis: speech continues until the probability drops below this"""
    min_speech_ms: int = 120
    merge_gap_ms: int = 800


def probabilities_to_segments(
    probs: np.ndarray, rules: VadRules = VadRules(), window_ms: int = WINDOW_MS
) -> list[tuple[int, int]]:
    """Speech segments ``(start_ms, end_ms)`` from window probabilities.

    Hysteresis on the raw probabilities, then pauses shorter than
    `merge_gap_ms` merged, then segments shorter than `min_speech_ms` dropped
    (merge first, so a word split by a short pause is not dropped piecewise).
    """
    raw: list[tuple[int, int]] = []
    speaking = False
    start = 0
    for i, p in enumerate(probs):
        if not speaking and p >= rules.threshold:
            speaking, start = True, i
        elif speaking and p < rules.neg_threshold:
            speaking = False
            raw.append((start * window_ms, i * window_ms))
    if speaking:
        raw.append((start * window_ms, len(probs) * window_ms))
    merged: list[tuple[int, int]] = []
    for s, e in raw:
        if merged and s - merged[-1][1] < rules.merge_gap_ms:
            merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return [(s, e) for s, e in merged if e - s >= rules.min_speech_ms]
