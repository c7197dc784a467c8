"""Incremental audio files: raw PCM appended as it comes, a WAV written atomically at the end.

A WAV header needs the final length, so a crash while writing a WAV directly
leaves a file most readers reject. We append raw int16 PCM to ``NAME.part.pcm``
(flushed every second) and only at the end write ``NAME.wav`` through a
temporary file and a rename. A crash therefore leaves the ``.part.pcm``, which `recover_parts` turns into a WAV later.
Tracks of one folder have different rates (``humans.sent`` at the suite's rate,
the recorder's tracks at ``--record-rate``), and raw PCM does not say its
rate: so when a part file is opened its rate is written beside it, in
``NAME.part.json``, and recovery reads it from there.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from floorbench.errors import FloorbenchError


class PartFileError(FloorbenchError, ValueError):
    """A leftover part file cannot be turned into a WAV (its rate is unknown)."""


def rate_path(part_path: Path) -> Path:
    """``NAME.part.json`` beside ``NAME.part.pcm``: the part's sample rate."""
    return part_path.with_name(part_path.name.removesuffix(".pcm") + ".json")


class PcmAppender:
    """Append mono int16 PCM; `finalize` writes the WAV atomically and removes the part file."""

    def __init__(self, wav_path: Path, sample_rate: int, flush_every_s: float = 1.0) -> None:
        self.wav_path = wav_path
        self.part_path = wav_path.with_suffix(".part.pcm")
        self.sample_rate = sample_rate
        wav_path.parent.mkdir(parents=True, exist_ok=True)
        rate_path(self.part_path).write_text(json.dumps({"sample_rate": sample_rate}) + "\n")
        self._f = self.part_path.open("ab")
        self.samples = 0
        self._flush_every = flush_every_s
        self._last_flush = time.monotonic()

    def write(self, pcm: np.ndarray | bytes) -> None:
        data = pcm.tobytes() if isinstance(pcm, np.ndarray) else pcm
        self._f.write(data)
        self.samples += len(data) // 2
        now = time.monotonic()
        if now - self._last_flush >= self._flush_every:
            self._f.flush()
            self._last_flush = now

    def write_silence(self, n: int) -> None:
        if n > 0:
            self.write(np.zeros(n, dtype=np.int16))

    def finalize(self) -> Path:
        if not self._f.closed:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()
        return pcm_to_wav(self.part_path, self.wav_path, self.sample_rate)


def pcm_to_wav(part_path: Path, wav_path: Path, sample_rate: int) -> Path:
    """Write `wav_path` from a raw PCM part file via tmp + rename; remove the part."""
    import soundfile as sf

    data = np.fromfile(part_path, dtype=np.int16) if part_path.exists() else np.zeros(0, np.int16)
    tmp = wav_path.with_name(f".{wav_path.name}.tmp")
    sf.write(str(tmp), data, sample_rate, subtype="PCM_16", format="WAV")
    os.replace(tmp, wav_path)
    part_path.unlink(missing_ok=True)
    rate_path(part_path).unlink(missing_ok=True)
    return wav_path


def part_rate(part_path: Path, default: int | None = None) -> int:
    """The rate recorded beside a part file; `default` only for a part written before rates were recorded."""
    try:
        rate = json.loads(rate_path(part_path).read_text(encoding="utf-8"))["sample_rate"]
    except FileNotFoundError:
        rate = default
    except (OSError, ValueError, KeyError, TypeError):
        rate = None
    if not isinstance(rate, int) or isinstance(rate, bool) or rate <= 0:
        raise PartFileError(
            f"{rate_path(part_path)}: missing or unreadable sample rate; "
            f"convert {part_path.name} by hand with its known rate"
        )
    return rate


def recover_parts(folder: Path, default_rate: int | None = None) -> list[Path]:
    """Turn every leftover ``*.part.pcm`` in `folder` into a WAV at the rate recorded beside it."""
    out = []
    for part in sorted(folder.glob("*.part.pcm")):
        wav = part.with_name(part.name.removesuffix(".part.pcm") + ".wav")
        out.append(pcm_to_wav(part, wav, part_rate(part, default_rate)))
    return out
