"""The agent's own voice coming back through the caller's microphone: `--acoustics …+echo[:ERL,DELAY]`.

On a speakerphone, in a car or a meeting room the far end's voice leaves the
loudspeaker, crosses the room and enters the microphone again, delayed and
filtered. `EchoPath` does that live, on the playback's clock: every frame of
the model's audio the playback receives (the audio its speech monitor hears,
16 kHz) is convolved with the room's impulse response — the profile's room,
or a single direct path without one — scaled by the echo-return loss (ERL:
how many dB quieter the echo is than the audio received), and laid into the
humans' outgoing track `DELAY` ms after it arrived, where the track writer
adds it to what it sends. ``humans.clean.wav`` keeps the caller's clean
clips; ``humans.sent.wav`` carries the echo.

Placing: received sample n arrived at ``recv_start + n / 16 kHz`` (the
monitor's own arrival clock, the earliest-arrival fit); its echo goes to the
humans' track sample whose playout is that time plus the delay. The writer
runs `queue_ms` (200 ms) ahead of playout, so a delay shorter than that plus a
margin cannot be honoured: the range starts at `DELAY_RANGE_MS` [0]. The
offset is fixed at the first frame, so the echo stays one contiguous signal;
samples that arrive after the writer passed their place are dropped and
counted (`late_ms`), never shifted. The record says what was realised.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from floorbench.errors import FloorbenchError

HEARD_RATE = 16000
"""the rate of the model's audio as the playback's monitor hears it"""
ERL_RANGE_DB = (0.0, 60.0)
DELAY_RANGE_MS = (250, 2000)
"""from the playback's 200 ms lead plus a 50 ms margin for the receive path's jitter"""
DEFAULT_ERL_DB = 20.0
DEFAULT_DELAY_MS = 300
_PART = re.compile(r"^echo(?::(?P<erl>-?\d+(?:\.\d+)?)(?:,(?P<delay>-?\d+))?)?$")


class EchoError(FloorbenchError, ValueError):
    """An echo setting out of range."""


@dataclass(frozen=True)
class EchoSpec:
    """The echo path's settings."""

    erl_db: float = DEFAULT_ERL_DB
    """echo-return loss: the echo's level below the received audio's, dB"""
    delay_ms: int = DEFAULT_DELAY_MS
    """from the model's audio arriving at the caller to its echo leaving the caller's microphone"""


def parse_echo(part: str, where: str) -> EchoSpec | None:
    """``echo``, ``echo:ERL`` or ``echo:ERL,DELAY``; None if `part` is no echo part; one-line `EchoError`
    for a value out of range."""
    if not part.startswith("echo"):
        return None
    m = _PART.match(part)
    if m is None:
        raise EchoError(f"{where}: {part!r} is not an echo part; write echo, echo:ERL or echo:ERL,DELAY "
                        f"(dB, ms: echo:20,300)")
    erl = float(m["erl"]) if m["erl"] is not None else DEFAULT_ERL_DB
    delay = int(m["delay"]) if m["delay"] is not None else DEFAULT_DELAY_MS
    if not ERL_RANGE_DB[0] <= erl <= ERL_RANGE_DB[1]:
        raise EchoError(f"{where}: echo ERL is {ERL_RANGE_DB[0]:g}..{ERL_RANGE_DB[1]:g} dB, got {erl:g}")
    if not DELAY_RANGE_MS[0] <= delay <= DELAY_RANGE_MS[1]:
        raise EchoError(f"{where}: echo delay is {DELAY_RANGE_MS[0]}..{DELAY_RANGE_MS[1]} ms, got {delay} (the "
                        "caller's track is written 200 ms ahead of playout, so a shorter echo cannot be placed)")
    return EchoSpec(erl, delay)


def echo_filter(rir: np.ndarray | None, erl_db: float) -> np.ndarray:
    """The echo's impulse response: the room's, scaled to unit energy, times the ERL's gain (a direct path alone
    without a room), so the echo's power is the received power less `erl_db`."""
    h = np.ones(1) if rir is None or not len(rir) else np.asarray(rir, dtype=np.float64)
    energy = float(np.sum(h ** 2))
    return h / np.sqrt(energy) * 10 ** (-erl_db / 20) if energy > 0 else np.zeros(1)


class EchoPath:
    """The live echo: `heard` takes the model's audio as the playback receives it, `take` hands the writer the
    echo of each block of the humans' track."""

    def __init__(self, spec: EchoSpec, rate: int, rir: np.ndarray | None = None) -> None:
        import soxr

        self.spec = spec
        self.rate = rate
        self.h = echo_filter(rir, spec.erl_db)
        self.room = rir is not None
        self._resample = soxr.ResampleStream(HEARD_RATE, rate, 1, dtype="float32") if rate != HEARD_RATE else None
        self._tail = np.zeros(max(0, len(self.h) - 1))
        self._pieces: list[tuple[int, np.ndarray]] = []
        """(track sample, echo samples) not yet written"""
        self._placed = 0
        """echo samples made so far (at `rate`)"""
        self.origin: int | None = None
        """the humans' track sample of echo sample 0"""
        self.sample_at: Callable[[int], int | None] = lambda _t: None
        """the humans' track sample that plays out at a session time (ns); None before the writer started"""
        self.cursor: Callable[[], int] = lambda: 0
        self.late = 0
        self.fed = 0
        self.realised_delay_ms: int | None = None

    def bind(self, sample_at: Callable[[int], int | None], cursor: Callable[[], int]) -> None:
        """Ties the path to the humans' track writer."""
        self.sample_at, self.cursor = sample_at, cursor

    def heard(self, pcm: np.ndarray, recv_start_ns: int | None) -> None:
        """One received frame (int16 at 16 kHz) of the model's audio; `recv_start_ns`: when received sample 0
        arrived (the monitor's arrival clock). Runs on the event loop: one FFT convolution of a 10 ms frame
        with the room's response (tests/test_echo.py times it)."""
        from scipy.signal import fftconvolve

        if recv_start_ns is None:
            return
        x = np.asarray(pcm, dtype=np.float32) / 32768.0
        if self._resample is not None:
            x = self._resample.resample_chunk(x)
        if not len(x):
            return
        if self.origin is None:
            t0 = recv_start_ns + self.fed * 1_000_000_000 // HEARD_RATE
            at = self.sample_at(t0 + self.spec.delay_ms * 1_000_000)
            if at is None:
                self.fed += len(pcm)
                return  # the writer has not started: nothing is playing yet to echo into
            late = max(0, self.cursor() - at)  # a delay the writer's lead cannot honour: as soon as it can
            self.origin = at + late - self._placed
            self.realised_delay_ms = self.spec.delay_ms + late * 1000 // self.rate
        self.fed += len(pcm)
        y = fftconvolve(x.astype(np.float64), self.h) if len(self.h) > 64 else np.convolve(x, self.h)
        y[:len(self._tail)] += self._tail
        self._tail = y[len(x):].copy()
        start = self.origin + self._placed
        self._placed += len(x)
        self._pieces.append((start, y[:len(x)]))

    def take(self, lo: int, hi: int) -> np.ndarray:
        """The echo on the humans' track samples [lo, hi) (float, full scale 1); what lies before `lo` and was
        never written is dropped and counted as late."""
        out = np.zeros(hi - lo)
        keep: list[tuple[int, np.ndarray]] = []
        for start, y in self._pieces:
            end = start + len(y)
            if start < lo:
                self.late += min(end, lo) - start
            a, b = max(lo, start), min(hi, end)
            if a < b:
                out[a - lo:b - lo] += y[a - start:b - start]
            if end > hi:
                keep.append((max(start, hi), y[max(start, hi) - start:]))
        self._pieces = keep
        return out

    def record(self) -> dict[str, Any]:
        """meta.json ``acoustics.echo``: the settings and what was realised."""
        return {"erl_db": self.spec.erl_db, "delay_ms": self.spec.delay_ms, "path": "room" if self.room else "direct",
                "filter_samples": len(self.h), "realised_delay_ms": self.realised_delay_ms,
                "heard_ms": self.fed * 1000 // HEARD_RATE, "late_ms": self.late * 1000 // self.rate,
                "origin_sample": self.origin}


def measured_erl_db(received: np.ndarray, echo: np.ndarray) -> float | None:
    """The ERL realised: received power over echo power, dB (None where either is silent)."""
    pr, pe = float(np.mean(np.asarray(received, dtype=np.float64) ** 2)), float(np.mean(np.asarray(echo) ** 2))
    return None if pr <= 0 or pe <= 0 else 10 * float(np.log10(pr / pe))


def measured_delay_samples(reference: np.ndarray, echoed: np.ndarray, max_lag: int) -> int:
    """The lag (samples) at which `echoed` best matches `reference` (cross-correlation peak, 0..max_lag)."""
    from scipy.signal import correlate

    r = np.asarray(reference, dtype=np.float64)
    e = np.asarray(echoed, dtype=np.float64)
    c = correlate(e, r, mode="full", method="fft")[len(r) - 1:len(r) + max_lag]
    return int(np.argmax(np.abs(c)))
