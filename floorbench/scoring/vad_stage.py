"""The VAD stage of scoring: model.wav files → speech segments, batched over files.

Files are read, resampled to 16 kHz and run through Silero (ONNX) as batches
of independent streams (`floorbench.audio.vad.speech_probabilities_many`), one
batch per task, spread over a pool of worker processes. Sorting by length
keeps the lanes of a batch busy until their common end.

Each result also carries a drawing curve (`VadResult.curve`): the Silero
probability and the loudness of the track, downsampled to at most
`CURVE_POINTS` steps, stored by `floorbench score` in vad.jsonl so that the
report draws them without reading audio or running Silero again.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import numpy as np

from floorbench.audio.sounds import non_speech_sounds
from floorbench.audio.vad import WINDOW, WINDOW_MS, VadRules, probabilities_to_segments
from floorbench.records import DialogueTurns
from floorbench.scoring.inputs import SCORING_RATE, DialogueSource, InputError, read_model_track

Segment = tuple[int, int]

CURVE_POINTS = 1000
"""at most this many steps per drawing curve (the report's timeline is under 1000 px wide)"""
CURVE_MIN_WINDOWS = 3
"""a curve step is at least this many 32 ms VAD windows (96 ms)"""


class CurveFields(TypedDict):
    """The drawing curve's fields in a vad.jsonl row."""

    curve_step_ms: int
    probability_pct: list[int]
    """highest Silero probability in each step, percent"""
    envelope_pct: list[int]
    """RMS level of each step, percent of the loudest step"""


@dataclass
class VadResult:
    """Speech of one model track."""

    path: Path
    duration_ms: int = 0
    rate: int = 0
    probabilities: np.ndarray | None = None
    """per 32 ms window"""
    window_rms: np.ndarray | None = None
    """RMS level per 32 ms window (full scale = 1), aligned with `probabilities`"""
    error: str | None = None

    def segments(self, rules: VadRules = VadRules()) -> list[Segment]:
        if self.probabilities is None:
            return []
        return probabilities_to_segments(self.probabilities, rules, WINDOW_MS)

    def curve(self) -> CurveFields | None:
        """The drawing curve as vad.jsonl stores it; None without audio.

        Per step of `curve_step_ms`: the highest Silero probability in the step
        (percent, so a short burst of speech still shows) and the step's RMS
        level as a percent of the loudest step of the track.
        """
        if self.probabilities is None or self.window_rms is None or not len(self.probabilities):
            return None
        n = len(self.probabilities)
        k = max(CURVE_MIN_WINDOWS, -(-n // CURVE_POINTS))
        starts = np.arange(0, n, k)
        prob = np.maximum.reduceat(self.probabilities, starts)
        power = np.add.reduceat(self.window_rms.astype(np.float64) ** 2, starts) / np.diff(np.append(starts, n))
        env = np.sqrt(power)
        peak = float(env.max()) or 1.0
        return CurveFields(
            curve_step_ms=k * WINDOW_MS,
            probability_pct=[int(v) for v in np.rint(prob * 100)],
            envelope_pct=[int(v) for v in np.rint(env / peak * 100)],
        )


def window_rms(audio: np.ndarray) -> np.ndarray:
    """RMS level of each whole 32 ms window of 16 kHz int16 audio (full scale = 1)."""
    n = len(audio) // WINDOW
    x = audio[: n * WINDOW].astype(np.float32).reshape(n, WINDOW) / 32768.0
    return np.sqrt((x**2).mean(axis=1))


_SESSION = None


def _worker_init() -> None:
    global _SESSION
    from floorbench.audio.vad import vad_session

    _SESSION = vad_session()


def _vad_task(paths: list[Path], batch: int) -> list[VadResult]:
    """Read a batch of files and run them as parallel Silero streams."""
    from floorbench.audio.vad import speech_probabilities_many

    results: list[VadResult] = []
    audios: list[np.ndarray] = []
    for p in paths:
        try:
            audio, rate = read_model_track(p)
        except InputError as e:
            results.append(VadResult(path=p, error=str(e)))
            continue
        results.append(
            VadResult(path=p, duration_ms=len(audio) * 1000 // SCORING_RATE, rate=rate, window_rms=window_rms(audio))
        )
        audios.append(audio)
    probs = speech_probabilities_many(audios, batch=batch, session=_SESSION)
    it = iter(probs)
    for r in results:
        if r.error is None:
            r.probabilities = next(it)
    return results


def run_vad(
    paths: Sequence[Path],
    workers: int = 2,
    batch: int = 64,
    progress: Callable[[int], None] | None = None,
) -> dict[Path, VadResult]:
    """VAD probabilities for every file, keyed by path.

    ``workers`` > 1 uses a spawn-started process pool (ONNX sessions are made
    in the workers, never forked); small jobs run in this process.
    """
    from floorbench.audio.vad import silero_model_path

    silero_model_path()  # a missing model is one error line here, not a broken worker pool
    order = sorted(paths, key=lambda p: p.stat().st_size if p.exists() else 0, reverse=True)
    size = max(1, min(batch, -(-len(order) // max(1, workers))))  # small jobs still use every worker
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    out: dict[Path, VadResult] = {}
    if workers <= 1 or len(chunks) < 2:
        _worker_init()
        for chunk in chunks:
            for r in _vad_task(chunk, batch):
                out[r.path] = r
            if progress:
                progress(len(chunk))
        return out
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as pool:
        futures = [pool.submit(_vad_task, chunk, batch) for chunk in chunks]
        for fut in futures:
            res = fut.result()
            for r in res:
                out[r.path] = r
            if progress:
                progress(len(res))
    return out


@dataclass(frozen=True)
class HeardSpeech:
    """One readable dialogue's model speech, carried onto the turns' clock for a suite's rules."""

    source: DialogueSource
    turns: DialogueTurns
    vad: VadResult
    segments_ms: list[Segment]
    """the model's speech, ``(start ms, end ms)`` on the turns' clock"""
    end_ms: int
    """how far the recording is evidence (`covered_ms`), on the turns' clock"""
    sounds_ms: list[Segment]
    """loud sound that is not speech (`floorbench.audio.sounds`), on the turns' clock: the rules read
    only speech, so a silence this covers is not the model's silence"""


def heard_speech(sources: Sequence[DialogueSource], vad: dict[Path, VadResult], rules: VadRules) -> list[HeardSpeech]:
    """Every dialogue's speech as its suite scores it: found on model.wav, onto the turns' clock.

    A model track VAD could not read marks its dialogue unreadable (`error`) and is left out,
    so a suite never scores silence it did not hear. The time map is the folder's own
    (docs/transport.md); a recorder-clock folder keeps the recording's times.
    """
    out: list[HeardSpeech] = []
    for s in sources:
        res = vad[s.model_wav]
        if res.error:
            s.error = res.error
            continue
        assert s.turns is not None
        tmap = s.time_map
        end_ms = tmap.to_timing_ms(covered_ms(res.duration_ms, s.turns.model_wav_end_ms))
        speech = res.segments(rules)
        sounds = (non_speech_sounds(res.probabilities, res.window_rms, speech)
                  if res.probabilities is not None and res.window_rms is not None else [])
        out.append(HeardSpeech(s, s.turns, res, tmap.segments_ms(speech), end_ms, tmap.segments_ms(sounds)))
    return out


def covered_ms(file_ms: int, recorded_end_ms: int | None) -> int:
    """How far the recording is evidence: the file's length, or less where turns.json says it ended earlier.

    A file shorter than ``model_wav_end_ms`` was cut: only what it holds is
    evidence, and items past it are `unscorable`, never silent.
    """
    return file_ms if recorded_end_ms is None else min(file_ms, recorded_end_ms)
