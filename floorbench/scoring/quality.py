"""How the agent sounds: a non-intrusive MOS for every agent turn, on CPU.

A run records the agent's audio on one clock, so each of its turns can be
given a mean opinion score without a reference: the predictor is Microsoft's
DNSMOS, whose ONNX files the `speechmos` package ships — the SIG/BAK/OVRL
model (signal, background, overall, on the P.835 scale) and the P.808 model
(overall quality as P.808 listeners rated it). `speechmos`'s own Python
module needs librosa; floorbench reads only its packaged files, and computes
both models' inputs here: the raw 16 kHz samples for SIG/BAK/OVRL, and for
P.808 the log-mel spectrogram librosa would make (n_fft 321, hop 160, 120
Slaney mels, a periodic Hann window, zero-padded centred frames, power in dB
against the segment's maximum with an 80 dB floor, then (dB + 40) / 40),
checked against librosa 0.11 to within float rounding.

DNSMOS scores 9.01 s segments one second apart and averages them; a shorter
turn is doubled until it fills one (what DNSMOS itself does). A filled turn's
segments are the same sound rotated, so one is scored; a longer turn is
scored on at most `MAX_SEGMENTS`, evenly spread. With every segment this
reproduces `speechmos.dnsmos.run` exactly. The model was trained on read and noisy
speech with suppression artefacts, not on conversational turns or codecs;
docs/scoring.md ("Speech quality") says what it does and does not track.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import speechmos

from floorbench.errors import FloorbenchError

RATE = 16000
SEGMENT = 144160
"""DNSMOS's input: 9.01 s at 16 kHz"""
HOP = RATE
"""a long turn is scored in segments this far apart (DNSMOS's own hop)"""
MAX_SEGMENTS = 3
"""a clip longer than a segment is scored on at most this many of DNSMOS's one-second-apart segments,
evenly spread (~0.3 s of CPU each); a shorter one, filled by doubling, on one. Against DNSMOS's mean
over all of them: within 0.02 on flite sentences of 1.3-7.4 s, 0.10 on a 16 s one (docs/scoring.md)"""
MIN_TURN_MS = 1000
"""a turn shorter than this is not scored (a "yes" repeated nine times is not a voice's quality)"""
MODEL_FILES = {"sig_bak_ovr": "dnsmos_models/sig_bak_ovr.onnx", "p808": "dnsmos_models/model_v8.onnx"}
PREDICTOR = "dnsmos"
# DNSMOS's calibration of SIG/BAK/OVRL to the P.835 scale (the non-personalised model's polynomials)
_FIT = {"sig": (-0.08397278, 1.22083953, 0.0052439), "bak": (-0.13166888, 1.60915514, -0.39604546),
        "ovrl": (-0.06766283, 1.11546468, 0.04602535)}
N_FFT, MEL_HOP, N_MELS = 321, 160, 120


class QualityError(FloorbenchError):
    """The MOS predictor cannot run (its model files are missing or unreadable)."""


@dataclass(frozen=True)
class TurnMos:
    """One agent turn's predicted quality (MOS, 1–5)."""

    start_ms: int
    end_ms: int
    ovrl: float
    """DNSMOS overall (P.835 OVRL): the MOS the assertions read"""
    sig: float
    """the speech signal's own quality (distortion, band-limiting, artefacts)"""
    bak: float
    """the background's intrusiveness (noise; 5 = none heard)"""
    p808: float
    """overall quality as the P.808 model predicts it"""


def model_folder() -> Path:
    """Where speechmos keeps its ONNX files."""
    return Path(speechmos.__file__).parent


# -- the P.808 input: librosa's mel spectrogram, in numpy ----------------------------------------


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, logarithmic above."""
    f = np.asarray(f, dtype=np.float64)
    mel = f / (200.0 / 3)
    log = f >= 1000.0
    return np.where(log, 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (math.log(6.4) / 27.0), mel)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    return np.where(m >= 15.0, 1000.0 * np.exp((math.log(6.4) / 27.0) * (m - 15.0)), m * (200.0 / 3))


def mel_filters(rate: int = RATE, n_fft: int = N_FFT, n_mels: int = N_MELS) -> np.ndarray:
    """Triangular Slaney-normalised mel filters, [n_mels, n_fft // 2 + 1] (librosa.filters.mel)."""
    freqs = np.fft.rfftfreq(n_fft, 1.0 / rate)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(np.array(0.0)), _hz_to_mel(np.array(rate / 2)), n_mels + 2))
    width = np.diff(edges)
    ramps = edges[:, None] - freqs[None, :]
    lower = -ramps[:-2] / width[:-1, None]
    upper = ramps[2:] / width[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    return weights * (2.0 / (edges[2:] - edges[:-2]))[:, None]


_MEL = mel_filters()
_WINDOW = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)  # periodic Hann


def p808_features(audio: np.ndarray) -> np.ndarray:
    """[frames, 120] float32: DNSMOS's P.808 input for `audio` (float, 16 kHz)."""
    pad = N_FFT // 2
    x = np.pad(np.asarray(audio, dtype=np.float64), pad)
    n = 1 + (len(x) - N_FFT) // MEL_HOP
    frames = np.lib.stride_tricks.sliding_window_view(x, N_FFT)[::MEL_HOP][:n]
    power = np.abs(np.fft.rfft(frames * _WINDOW, axis=1)) ** 2
    mel = power @ _MEL.T
    db = 10.0 * np.log10(np.maximum(mel, 1e-10)) - 10.0 * np.log10(max(1e-10, float(mel.max())))
    db = np.maximum(db, db.max() - 80.0)
    return ((db + 40.0) / 40.0).astype(np.float32)


# -- the predictor -------------------------------------------------------------------------------


class Dnsmos:
    """DNSMOS from speechmos's ONNX files; `QualityError` (one line) if they are missing."""

    def __init__(self, folder: Path | None = None) -> None:
        import onnxruntime as ort

        self.folder = folder or model_folder()
        self.digests: dict[str, str] = {}
        sessions = {}
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        for key, rel in MODEL_FILES.items():
            path = self.folder / rel
            try:
                data = path.read_bytes()
                sessions[key] = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
            except OSError as e:
                raise QualityError(f"{path}: the MOS model file is missing ({e.strerror}); reinstall it with "
                                   "`.venv/bin/pip install --force-reinstall speechmos`") from e
            except Exception as e:  # onnxruntime raises its own types for a corrupt file
                raise QualityError(f"{path}: not a readable ONNX model ({type(e).__name__}); reinstall it with "
                                   "`.venv/bin/pip install --force-reinstall speechmos`") from e
            self.digests[key] = hashlib.sha256(data).hexdigest()[:16]
        self._main, self._p808 = sessions["sig_bak_ovr"], sessions["p808"]

    def identity(self) -> dict[str, Any]:
        """The predictor as recorded beside its scores (`predictor_identity`)."""
        return predictor_identity(self.folder, self.digests)

    def score(self, audio: np.ndarray) -> dict[str, float]:
        """ovrl, sig, bak, p808 of one clip (float in [-1, 1], 16 kHz), averaged over its segments."""
        x = np.clip(np.asarray(audio, dtype=np.float32), -1.0, 1.0)
        if len(x) == 0:
            raise ValueError("an empty clip has no quality")
        short = len(x) < SEGMENT
        while len(x) < SEGMENT:  # DNSMOS's own filling: the clip doubled until it covers a segment
            x = np.concatenate([x, x])
        hops = int(np.floor(len(x) / RATE) - SEGMENT / RATE) + 1
        # a filled clip's segments are the same sound rotated: one of them is enough (within 0.02, measured)
        picked = np.unique(np.linspace(0, hops - 1, 1 if short else min(hops, MAX_SEGMENTS)).round().astype(int))
        starts = [int(i) * HOP for i in picked]
        rows = []
        for s in starts:
            seg = x[s:s + SEGMENT]
            sig, bak, ovrl = (float(v) for v in self._main.run(None, {"input_1": seg[None, :]})[0][0])
            p808 = float(self._p808.run(None, {"input_1": p808_features(seg[:-MEL_HOP])[None]})[0][0][0])
            rows.append((np.polyval(_FIT["ovrl"], ovrl), np.polyval(_FIT["sig"], sig),
                         np.polyval(_FIT["bak"], bak), p808))
        m = np.mean(np.array(rows, dtype=np.float64), axis=0)
        return {"ovrl": round(float(m[0]), 3), "sig": round(float(m[1]), 3), "bak": round(float(m[2]), 3),
                "p808": round(float(m[3]), 3)}


def predictor_identity(folder: Path | None = None, digests: dict[str, str] | None = None) -> dict[str, Any]:
    """The predictor as results record it: name, package and version, each file with its hash; `QualityError`
    when a file is missing."""
    import importlib.metadata as md

    folder = folder or model_folder()
    if digests is None:
        digests = {}
        for key, rel in MODEL_FILES.items():
            try:
                digests[key] = hashlib.sha256((folder / rel).read_bytes()).hexdigest()[:16]
            except OSError as e:
                raise QualityError(f"{folder / rel}: the MOS model file is missing ({e.strerror}); reinstall it "
                                   "with `.venv/bin/pip install --force-reinstall speechmos`") from e
    return {"predictor": PREDICTOR, "package": f"speechmos {md.version('speechmos')}",
            "files": {k: f"{MODEL_FILES[k]} sha256:{v}" for k, v in digests.items()},
            "scale": "OVRL (P.835 overall, 1-5); sig, bak, p808 beside it", "rate": RATE,
            "segment_ms": SEGMENT * 1000 // RATE, "min_turn_ms": MIN_TURN_MS}


def turn_scores(audio: np.ndarray, segments: Sequence[tuple[int, int]], predictor: Dnsmos,
                min_ms: int = MIN_TURN_MS) -> list[TurnMos]:
    """Each agent turn (a speech segment, [start_ms, end_ms) on the track) of at least `min_ms`, scored;
    `audio` is the model's track at 16 kHz (int16 or float)."""
    x = np.asarray(audio)
    scale = 32768.0 if x.dtype == np.int16 else 1.0
    out = []
    for s, e in segments:
        if e - s < min_ms:
            continue
        clip = x[s * RATE // 1000:e * RATE // 1000].astype(np.float32) / scale
        if len(clip) * 1000 < min_ms * RATE:
            continue  # the track ended inside the turn
        out.append(TurnMos(int(s), int(e), **predictor.score(clip)))
    return out


def summary(turns: Sequence[TurnMos]) -> dict[str, Any]:
    """Per trial or run: the turns scored, and OVRL's mean, 10th percentile (nearest rank) and minimum,
    with the other scales' means."""
    if not turns:
        return {"n": 0, "mean": None, "p10": None, "min": None, "sig": None, "bak": None, "p808": None}
    ov = sorted(t.ovrl for t in turns)
    return {"n": len(ov), "mean": round(float(np.mean(ov)), 3), "p10": p10(ov), "min": ov[0],
            "sig": round(float(np.mean([t.sig for t in turns])), 3),
            "bak": round(float(np.mean([t.bak for t in turns])), 3),
            "p808": round(float(np.mean([t.p808 for t in turns])), 3)}


def pooled(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """`summary` of turns as results.json keeps them (dicts), pooled over trials or scenarios."""
    return summary([TurnMos(**r) for r in records])


def p10(values: Sequence[float]) -> float:
    """The 10th percentile by nearest rank (the same rule as the latency percentiles)."""
    xs = sorted(values)
    return xs[max(0, math.ceil(0.10 * len(xs)) - 1)]


def as_records(turns: Sequence[TurnMos]) -> list[dict[str, Any]]:
    return [asdict(t) for t in turns]
