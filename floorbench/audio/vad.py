"""Silero VAD through onnxruntime, shared by the live schedule and offline scoring.

Only numpy and onnxruntime are imported, so scoring never pulls in LiveKit.
The ONNX file is the one pipecat ships (``pipecat/audio/vad/data/silero_vad.onnx``)
or the one in the ``silero-vad`` package; nothing is downloaded.

Silero v5 takes 512-sample windows at 16 kHz with 64 samples of context from
the previous window and a recurrent state of shape ``[2, B, 128]``; ``B`` > 1
runs several independent streams in one call (used by batched scoring).
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np

from floorbench.errors import FloorbenchError

VAD_RATE = 16000
WINDOW = 512
"""samples per Silero window at 16 kHz (32 ms)"""
CONTEXT = 64
WINDOW_MS = WINDOW * 1000 // VAD_RATE


class VadModelError(FloorbenchError, FileNotFoundError):
    """The packaged Silero model is missing: nothing can tell speech from silence without it."""


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
    raise VadModelError(
        "Silero VAD model silero_vad.onnx not found; pip install 'pipecat-ai[silero]' (it ships the model), "
        "or run bash scripts/setup.sh"
    )


@functools.cache
def vad_session():  # type: ignore[no-untyped-def]
    """One Silero session per process, shared by every stream: its state is passed in and out of each
    call, and `InferenceSession.run` may be called from several threads. Creating one costs ≈ 115 ms of
    CPU, which every room's live monitor paid on the runner's event loop while other rooms played."""
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
        self.session = session if session is not None else vad_session()
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
        session = vad_session()
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


SPEECH_THRESHOLD = 0.5
"""a window is speech once Silero's probability reaches this"""
SILENCE_THRESHOLD = 0.35
"""hysteresis: speech continues until the probability drops below this"""


@dataclass(frozen=True)
class VadRules:
    """The speech rules of the benchmark (docs/suites/mpe.md, "Timing comes from the recorded audio").

    The live monitor, the scorer, the eager reference agent and the cascade all
    detect speech with these thresholds; the monitor and the scorer also apply
    the segment rules (see `SpeechSegmenter` for their order).
    """

    threshold: float = SPEECH_THRESHOLD
    """a window is speech once its probability reaches this"""
    neg_threshold: float = SILENCE_THRESHOLD
    """hysteresis: speech continues until the probability drops below this"""
    min_speech_ms: int = 120
    """speech runs shorter than this are dropped (before pauses are merged)"""
    merge_gap_ms: int = 800
    """pauses shorter than this, between kept runs, are merged into one segment"""


class Window(NamedTuple):
    """One 512-sample window of a `VadStream` and its speech probability."""

    number: int
    """windows since the stream began; the window starts at sample ``number * WINDOW``"""
    audio: np.ndarray
    """the 512 samples as fed (int16 or float)"""
    probability: float

    @property
    def start(self) -> int:
        return self.number * WINDOW


class VadStream:
    """Streaming Silero: 16 kHz chunks of any length in, one probability per window out.

    Samples that do not fill a window wait for the next chunk, so chunking never
    changes the numbers: feeding a signal in pieces gives exactly
    `speech_probabilities` of the whole. Chunks keep their dtype (int16 or float);
    don't mix the two in one stream.
    """

    def __init__(self, silero: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        self.silero = silero if silero is not None else SileroStream(1)
        """window [512] float in -1..1 → probabilities [1]; injectable for tests"""
        self.windows = 0
        self._carry: np.ndarray | None = None

    @property
    def samples(self) -> int:
        """samples fed so far"""
        return self.windows * WINDOW + (0 if self._carry is None else len(self._carry))

    def feed(self, chunk: np.ndarray) -> list[Window]:
        x = np.asarray(chunk).reshape(-1)
        if self._carry is not None and len(self._carry):
            x = np.concatenate([self._carry, x.astype(self._carry.dtype, copy=False)])
        n = len(x) // WINDOW
        out: list[Window] = []
        for i in range(n):
            w = x[i * WINDOW : (i + 1) * WINDOW]
            out.append(Window(self.windows, w, float(self.silero(to_float(w))[0])))
            self.windows += 1
        self._carry = x[n * WINDOW :].copy()
        return out


class Edge(NamedTuple):
    """A segment boundary found by `SpeechSegmenter`, in window indexes."""

    kind: Literal["onset", "offset"]
    window: int
    """onset: the segment's first speech window; offset: one past its last"""


class SpeechSegmenter:
    """The segment rules on a stream of window probabilities; batch scoring uses it too.

    Order of the rules (the benchmark's: "segments shorter than 120 ms dropped,
    pauses shorter than 800 ms merged"):

    1. hysteresis: a run of speech starts at a window with ``p >= threshold``
       and ends at the first window with ``p < neg_threshold``;
    2. runs shorter than `min_speech_ms` are dropped;
    3. of the runs kept, those separated by a pause shorter than `merge_gap_ms`
       are merged into one segment.

    So a short blip is dropped whatever surrounds it: it neither bridges two
    pauses nor joins another blip into a segment.

    Streaming: an ``onset`` edge is given as soon as a run has lasted
    `min_speech_ms` (and does not continue the open segment), dated at the run's
    first window; an ``offset`` edge once `merge_gap_ms` has passed with no kept
    run able to start inside it, dated one past the last kept speech window.
    `finish` closes what is open at the end of the signal.
    """

    def __init__(self, rules: VadRules = VadRules(), window_ms: int = WINDOW_MS) -> None:
        self.rules = rules
        self.window_ms = window_ms
        self.windows = 0
        """windows pushed so far"""
        self.in_speech = False
        """raw hysteresis state of the last window (a run in progress, kept or not yet)"""
        self.run_start = 0
        self.run_kept = False
        self.segment_open = False
        self.speech_end: int | None = None
        """one past the last window of kept speech (``windows`` while a kept run goes on)"""

    def _ms(self, n_windows: int) -> int:
        return n_windows * self.window_ms

    def push(self, p: float) -> list[Edge]:
        """Take the next window's probability; return the edges it settles."""
        r, w = self.rules, self.windows
        self.windows += 1
        edges: list[Edge] = []
        if not self.in_speech and p >= r.threshold:
            self.in_speech, self.run_start, self.run_kept = True, w, False
        elif self.in_speech and p < r.neg_threshold:
            self.in_speech = False
        if self.in_speech:
            if not self.run_kept and self._ms(w + 1 - self.run_start) >= r.min_speech_ms:
                self._keep(edges)
            if self.run_kept:
                self.speech_end = w + 1
        self._close_if_settled(edges)
        return edges

    def _keep(self, edges: list[Edge]) -> None:
        """The current run is long enough: it continues the open segment or opens one."""
        self.run_kept = True
        if self.segment_open:
            assert self.speech_end is not None
            if self._ms(self.run_start - self.speech_end) < self.rules.merge_gap_ms:
                return
            edges.append(Edge("offset", self.speech_end))
        self.segment_open = True
        edges.append(Edge("onset", self.run_start))

    def _close_if_settled(self, edges: list[Edge]) -> None:
        """Close the open segment once no kept run can start within the merge gap."""
        if not self.segment_open or (self.in_speech and self.run_kept):
            return
        assert self.speech_end is not None
        earliest = self.run_start if self.in_speech else self.windows
        if self._ms(earliest - self.speech_end) >= self.rules.merge_gap_ms:
            self.segment_open = False
            edges.append(Edge("offset", self.speech_end))

    def finish(self) -> list[Edge]:
        """End of signal: a run still going is judged by its length so far; close what is open."""
        edges: list[Edge] = []
        if self.in_speech and not self.run_kept:
            if self._ms(self.windows - self.run_start) >= self.rules.min_speech_ms:
                self._keep(edges)
                self.speech_end = self.windows
        self.in_speech = False
        if self.segment_open:
            assert self.speech_end is not None
            self.segment_open = False
            edges.append(Edge("offset", self.speech_end))
        return edges


def probabilities_to_segments(
    probs: np.ndarray, rules: VadRules = VadRules(), window_ms: int = WINDOW_MS
) -> list[tuple[int, int]]:
    """Speech segments ``(start_ms, end_ms)`` from window probabilities.

    The batch form of `SpeechSegmenter` (same code, same rule order: short runs
    dropped, then short pauses merged), so scoring and the live monitor agree.
    """
    seg = SpeechSegmenter(rules, window_ms)
    edges = [e for p in np.asarray(probs, dtype=np.float64).tolist() for e in seg.push(p)]
    edges += seg.finish()
    starts = [e.window for e in edges if e.kind == "onset"]
    ends = [e.window for e in edges if e.kind == "offset"]
    return [(s * window_ms, e * window_ms) for s, e in zip(starts, ends, strict=True)]
