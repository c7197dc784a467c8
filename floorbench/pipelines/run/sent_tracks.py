"""The senders' own copies of a track, read back: what was sent (and when), what was heard (and when).

The playback and the model process each keep an account of the audio they
handle (floorbench.pipelines.room.sender_log): ``NAME.sent.wav`` with its
send-time log, ``NAME.heard.wav`` with its arrival log. `sender_timing` and
`hearing` time tracks from these; this module only reads them, so a missing
or unreadable file is said once, here (None, or a ValueError naming the file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from floorbench.clock import TrackFit, fit_track
from floorbench.pipelines.room.sender_log import (
    SentClock,
    heard_paths,
    read_frames_log,
    read_sent_clock,
    sent_paths,
)

NS = 1_000_000_000
T = TypeVar("T")


def resample(x: np.ndarray, rate: int, to: int) -> np.ndarray:
    if rate == to or not len(x):
        return np.asarray(x, dtype=np.int16)
    import soxr

    y = soxr.resample(np.asarray(x, dtype=np.float32), rate, to)
    return np.clip(np.rint(y), -32768, 32767).astype(np.int16)


@dataclass(frozen=True)
class SentTrack:
    """What a sender sent (int16 at its rate) and its clock."""

    audio: np.ndarray
    sample_rate: int
    clock: SentClock


@dataclass(frozen=True)
class HeardTrack:
    """What a participant received and the fit of its arrival times."""

    audio: np.ndarray
    sample_rate: int
    fit: TrackFit


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    import soundfile as sf

    audio, rate = sf.read(str(path), dtype="int16", always_2d=False)
    return np.asarray(audio, dtype=np.int16), int(rate)


def _read_logged(paths: tuple[Path, Path], timing: Callable[[Path, int], T | None]) -> tuple[np.ndarray, int, T] | None:
    """A track's audio, its rate and what its log says of its timing (`timing` reads the log); else None.

    The sent and the heard track are read alike: a track without its log, or whose log
    times nothing (`timing` gives None), cannot be timed, so it counts as missing; a wav
    that is there but unreadable is a broken recording, said as a ValueError naming the file.
    """
    wav, tsv = paths
    if not wav.is_file() or not tsv.is_file():
        return None
    try:
        audio, rate = read_wav(wav)
    except Exception as e:
        raise ValueError(f"{wav.name}: unreadable ({type(e).__name__})") from None
    timed = timing(tsv, rate)
    return None if timed is None else (audio, rate, timed)


def _heard_fit(tsv: Path, rate: int) -> TrackFit | None:
    """The fit of a ``.heard.tsv``'s arrival times; None when it logs no frame."""
    ends, arrivals = read_frames_log(tsv)
    return fit_track(ends, arrivals, rate) if len(ends) else None


def load_sent(folder: Path, name: str) -> SentTrack | None:
    """``NAME.sent.wav`` + ``NAME.sent.tsv``; None when either is missing (ValueError when unreadable)."""
    read = _read_logged(sent_paths(folder, name), read_sent_clock)
    return None if read is None else SentTrack(*read)


def load_heard(folder: Path, name: str) -> HeardTrack | None:
    """``NAME.heard.wav`` + ``NAME.heard.tsv``; None when missing or holding no frame."""
    read = _read_logged(heard_paths(folder, name), _heard_fit)
    return None if read is None else HeardTrack(*read)
