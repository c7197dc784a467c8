"""Audio helpers for adapter tests: frames in, energy out."""

from __future__ import annotations

import numpy as np
from pipecat.frames.frames import InputAudioRawFrame, OutputAudioRawFrame


def tone(ms: int, rate: int = 16000, freq: float = 300.0, level: float = 0.3) -> np.ndarray:
    t = np.arange(rate * ms // 1000) / rate
    return (np.sin(2 * np.pi * freq * t) * level * 32767).astype(np.int16)


def silence(ms: int, rate: int = 16000) -> np.ndarray:
    return np.zeros(rate * ms // 1000, dtype=np.int16)


def input_frames(pcm: np.ndarray, rate: int = 16000, frame_ms: int = 20) -> list[InputAudioRawFrame]:
    step = rate * frame_ms // 1000
    return [
        InputAudioRawFrame(audio=pcm[i : i + step].tobytes(), sample_rate=rate, num_channels=1)
        for i in range(0, len(pcm) - step + 1, step)
    ]


def output_audio(frames: list) -> tuple[np.ndarray, int]:
    """Concatenate every OutputAudioRawFrame (one sample rate expected)."""
    audio = [f for f in frames if isinstance(f, OutputAudioRawFrame)]
    if not audio:
        return np.zeros(0, dtype=np.int16), 0
    rates = {f.sample_rate for f in audio}
    assert len(rates) == 1, rates
    return np.concatenate([np.frombuffer(f.audio, dtype=np.int16) for f in audio]), rates.pop()


def voiced_ms(pcm: np.ndarray, rate: int, threshold_dbfs: float = -40.0, frame_ms: int = 20) -> int:
    step = rate * frame_ms // 1000
    n = 0
    for i in range(0, len(pcm) - step + 1, step):
        x = pcm[i : i + step].astype(np.float64) / 32768.0
        if 20 * np.log10(np.sqrt(np.mean(x**2)) + 1e-12) > threshold_dbfs:
            n += frame_ms
    return n
