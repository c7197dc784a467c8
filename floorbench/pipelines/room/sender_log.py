"""What a sender sent and what a listener heard, on the session clock: the files and their readers.

Every time in a score is read off recorded audio. A receiver's jitter buffer
moves that audio by a few ms here and there on a busy machine, so where
floorbench owns the sender it keeps the sender's own account
(docs/transport.md, "The timing clock"):

- ``NAME.sent.wav`` + ``NAME.sent.tsv`` — everything a published source was
  given, on one continuous track whose sample index is the sender's clock.
  One ``f`` line per frame handed to the source: ``f sample t_ns samples
  call_ns`` (the frame's first sample in the WAV, the session time it is sent
  at, its length, when it was handed over). Written by the playback's track
  writer (``humans``: its writer never stops, silence when nothing is
  scheduled; ``t_ns`` is its playout clock, slips included) and by the model
  process (``model``, `SentTrackLog`).
- ``NAME.heard.wav`` + ``NAME.heard.tsv`` — what a participant received: one
  ``n_end arrival_ns`` line per frame, as the recorder's ``tracks/*.frames.tsv``
  (`HeardTrackLog`; the model process's copy of the humans' audio).

**The model's sent clock.** A model's chain hands audio to its source in
bursts (a TTS reply comes faster than real time and waits in the source's
queue) or as it goes (a streaming model). `SentTrackLog` keeps the source's
queue as a perfect player would: a frame handed over while earlier audio is
still queued plays right after it; one handed over to an empty queue plays
at once. So a reply's first sample is timed when the model handed it over,
its later samples at real-time pace after it, and a gap between the two
(``t_ns`` of a frame later than the end of the one before) is silence the
source played — the model's, or its process's, not the room's. When the chain
clears the queue (pipecat on an interruption), what had not played by then is
dropped from the WAV, and a ``c sample t_ns dropped`` line says where the
track was cut. The source's own 10 ms tick and everything after it are the
model → room leg, measured against the recording.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from floorbench.audio.files import PcmAppender

NS = 1_000_000_000


def sent_paths(folder: Path, name: str) -> tuple[Path, Path]:
    return folder / f"{name}.sent.wav", folder / f"{name}.sent.tsv"


def heard_paths(folder: Path, name: str) -> tuple[Path, Path]:
    return folder / f"{name}.heard.wav", folder / f"{name}.heard.tsv"


class SentTrackLog:
    """The model's published source as a perfect player plays it: ``NAME.sent.wav`` + ``NAME.sent.tsv``."""

    def __init__(self, folder: Path, name: str, sample_rate: int, now_ns: Callable[[], int]) -> None:
        wav, tsv = sent_paths(folder, name)
        self.wav = PcmAppender(wav, sample_rate)
        self._tsv = tsv.open("a", encoding="utf-8")
        self.sample_rate = sample_rate
        self.now_ns = now_ns
        self.total = 0
        """samples on the track so far (the part not played yet included)"""
        self._pending: list[np.ndarray] = []
        self._flushed = 0
        self._run_t0: int | None = None
        self._run_n0 = 0

    def _time_ns(self, n: int) -> int:
        assert self._run_t0 is not None
        return self._run_t0 + (n - self._run_n0) * NS // self.sample_rate

    def end_ns(self) -> int | None:
        """When everything handed over so far has played (None before the first frame)."""
        return None if self._run_t0 is None else self._time_ns(self.total)

    def _playing_at(self, t_ns: int) -> int:
        assert self._run_t0 is not None
        return min(self.total, max(self._flushed, self._run_n0 + -(-(t_ns - self._run_t0) * self.sample_rate // NS)))

    def _flush(self, upto: int) -> None:
        """Write the pending samples before `upto` to the WAV."""
        while self._pending and self._flushed < upto:
            head = self._pending[0]
            take = min(len(head), upto - self._flushed)
            self.wav.write(head[:take])
            self._flushed += take
            if take == len(head):
                self._pending.pop(0)
            else:
                self._pending[0] = head[take:]

    def capture(self, pcm: np.ndarray) -> None:
        """A frame handed to the source now."""
        if not len(pcm):
            return
        call = self.now_ns()
        end = self.end_ns()
        if end is None or call > end:  # the queue had run empty: the frame plays at once
            self._flush(self.total)
            if end is not None:
                gap = (call - end) * self.sample_rate // NS
                self.wav.write_silence(gap)
                self.total += gap
                self._flushed += gap
            self._run_t0, self._run_n0 = call, self.total
        start = self.total
        self._pending.append(np.asarray(pcm, dtype=np.int16).copy())
        self.total += len(pcm)
        self._tsv.write(f"f\t{start}\t{self._time_ns(start)}\t{len(pcm)}\t{call}\n")
        self._flush(self._playing_at(call))

    def clear(self) -> None:
        """The chain dropped what the source had not played yet."""
        at = self.now_ns()
        end = self.end_ns()
        if end is None or at >= end:
            return
        cut = self._playing_at(at)
        dropped = self.total - cut
        self._flush(cut)
        self._pending.clear()
        self.total = cut
        self._tsv.write(f"c\t{cut}\t{at}\t{dropped}\n")
        self._tsv.flush()

    def close(self) -> Path:
        self._flush(self.total)
        self._tsv.close()
        return self.wav.finalize()


class HeardTrackLog:
    """A received stream as a participant heard it: ``NAME.heard.wav`` + ``NAME.heard.tsv``."""

    def __init__(self, folder: Path, name: str, sample_rate: int) -> None:
        wav, tsv = heard_paths(folder, name)
        self.wav = PcmAppender(wav, sample_rate)
        self._tsv = tsv.open("a", encoding="utf-8")

    def frame(self, pcm: np.ndarray, arrival_ns: int) -> None:
        self.wav.write(pcm)
        self._tsv.write(f"{self.wav.samples}\t{arrival_ns}\n")

    def close(self) -> Path:
        self._tsv.close()
        return self.wav.finalize()


# -- readers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SentGap:
    """Silence the source played between two frames: the sender was late (or chose to pause)."""

    sample: int
    """first sample after the gap"""
    gap_ns: int


@dataclass
class SentClock:
    """A sent track's sample → session time, from its ``.sent.tsv`` (frames in the order they were sent)."""

    sample_rate: int
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """first sample of each frame (increasing)"""
    times_ns: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    clears: list[tuple[int, int, int]] = field(default_factory=list)
    """(sample the track was cut at, session ns, samples dropped)"""

    @property
    def frames(self) -> int:
        return len(self.starts)

    def time_ns(self, sample: float) -> int:
        """When `sample` was sent; before the first frame and after the last, at real-time pace from them."""
        if not self.frames:
            raise ValueError("no frames were sent")
        i = max(0, int(np.searchsorted(self.starts, sample, side="right")) - 1)
        return int(self.times_ns[i] + round((sample - int(self.starts[i])) * NS / self.sample_rate))

    def gaps(self, min_ns: int = 0) -> list[SentGap]:
        """Where a frame was sent later than the end of the one before it (by more than `min_ns`)."""
        out = []
        for i in range(1, self.frames):
            end = int(self.times_ns[i - 1]) + int(self.lengths[i - 1]) * NS // self.sample_rate
            if self.starts[i] >= self.starts[i - 1] + self.lengths[i - 1]:
                gap = int(self.times_ns[i]) - end
                if gap > min_ns:
                    out.append(SentGap(int(self.starts[i]), gap))
        return out


def read_sent_clock(path: Path, sample_rate: int) -> SentClock:
    """A ``.sent.tsv``; a torn last line (a killed process) is skipped. ValueError when nothing can be read."""
    starts: list[int] = []
    times: list[int] = []
    lengths: list[int] = []
    clears: list[tuple[int, int, int]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        try:
            if parts[0] == "f" and len(parts) >= 4:
                s, t, n = int(parts[1]), int(parts[2]), int(parts[3])
                starts.append(s)
                times.append(t)
                lengths.append(n)
            elif parts[0] == "c" and len(parts) >= 4:
                cut = int(parts[1])
                clears.append((cut, int(parts[2]), int(parts[3])))
                while starts and starts[-1] >= cut:  # dropped before it played: not sent
                    starts.pop()
                    times.pop()
                    lengths.pop()
                if starts and starts[-1] + lengths[-1] > cut:
                    lengths[-1] = cut - starts[-1]
        except (ValueError, IndexError):
            continue
    return SentClock(
        sample_rate, np.array(starts, np.int64), np.array(times, np.int64), np.array(lengths, np.int64), clears
    )


def read_frames_log(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """A ``.heard.tsv`` (or the recorder's ``.frames.tsv``): (cumulative samples at each frame's end, arrival ns)."""
    ends: list[int] = []
    arrivals: list[int] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) != 2:
            continue
        try:
            n, t = int(parts[0]), int(parts[1])
        except ValueError:
            continue
        ends.append(n)
        arrivals.append(t)
    return np.array(ends, np.int64), np.array(arrivals, np.int64)
