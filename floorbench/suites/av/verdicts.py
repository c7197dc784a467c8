"""The scoring rules of suite `av` as pure functions over the model's speech segments.

Everything here takes the model's speech as VAD segments ``[start_ms, end_ms]``
on the recording's clock and one event window ``(start_ms, end_ms)`` on the
same clock, and returns plain values; `av_score` feeds it from recordings and
tests feed it hand-built segments. The numbers are `floorbench.suites.av.rules.AvRules`.

- **takeover** (Full-Duplex-Bench's rule): the model's speech inside the window
  lasts at least `takeover_min_ms`, or is shorter but carries at least
  `takeover_min_words` words (ASR of that speech);
- **TOR alignment**: the takeover equals ``EXPECTED_TAKEOVER[category]``;
- **latency**, one definition per category (`LATENCY_DEFINITIONS`), measured
  from the window's start and only inside the window: a response after the
  window's end is no response (its TOR already says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from floorbench.suites.av.rules import EXPECTED_TAKEOVER, AvRules, Category

Segment = tuple[int, int]

LATENCY_DEFINITIONS: dict[Category, str] = {
    Category.smooth_handoff: (
        "onset of the model's first speech that starts inside the window, minus the window's start "
        "(negative when speech already running at the window's start began before it)"
    ),
    Category.must_yield: (
        "end of the model's speech that was running at the window's start, minus the window's start "
        "(0 when it was already silent; none when it still talks at the window's end)"
    ),
    Category.backchannel: "onset of the model's first sound inside the window, minus the window's start",
    Category.keep_talking: "none: the model should carry on, so only its takeover is reported",
    Category.stay_silent: "none: the model should not start, so only its takeover is reported",
}
"""what `latency_ms` means per category (docs/suites/av.md, "Scoring")"""


@dataclass(frozen=True)
class WindowSpeech:
    """The model's speech around one event window, each part clipped to its span."""

    before: list[Segment]
    inside: list[Segment]
    after: list[Segment]

    @property
    def inside_ms(self) -> int:
        return sum(e - s for s, e in self.inside)


@dataclass(frozen=True)
class Latency:
    """One clip's latency under its category's definition; `ms` None when there is none to measure."""

    ms: int | None
    note: str
    """why there is (no) number: 'onset', 'started_early', 'yielded', 'already_silent', 'no_yield_in_window',
    'no_speech_in_window', 'not_defined'"""


def clip_segments(segments: Sequence[Sequence[int]], lo: int, hi: int) -> list[Segment]:
    """The parts of `segments` inside ``[lo, hi]`` (empty parts dropped)."""
    out: list[Segment] = []
    for seg in segments:
        s, e = max(int(seg[0]), lo), min(int(seg[1]), hi)
        if e > s:
            out.append((s, e))
    return out


def split_speech(segments: Sequence[Sequence[int]], window: tuple[int, int], end_ms: int) -> WindowSpeech:
    """The model's speech before, inside and after the window (the recording ends at `end_ms`)."""
    ws, we = window
    return WindowSpeech(
        before=clip_segments(segments, 0, ws),
        inside=clip_segments(segments, ws, we),
        after=clip_segments(segments, we, max(we, end_ms)),
    )


def is_takeover(speech_ms: int, words: int, rules: AvRules = AvRules()) -> bool:
    """Full-Duplex-Bench's takeover: enough speech in the window, or less with enough words."""
    if speech_ms <= 0:
        return False
    return speech_ms >= rules.takeover_min_ms or words >= rules.takeover_min_words


def is_aligned(category: Category, takeover: bool) -> bool:
    """TOR alignment: the model's takeover is what the category expects."""
    return int(takeover) == EXPECTED_TAKEOVER[category]


def _first_onset_inside(segments: Sequence[Sequence[int]], window: tuple[int, int]) -> int | None:
    ws, we = window
    onsets = [int(s[0]) for s in segments if ws <= int(s[0]) < we]
    return min(onsets) if onsets else None


def latency(category: Category, segments: Sequence[Sequence[int]], window: tuple[int, int]) -> Latency:
    """The category's latency of one clip (`LATENCY_DEFINITIONS`), from the full segment list."""
    ws, we = window
    if category in (Category.smooth_handoff, Category.backchannel):
        running = [int(s[0]) for s in segments if int(s[0]) < ws < int(s[1])]
        if running and category is Category.backchannel:  # sound going at the cue is the first in the window
            return Latency(0, "onset")
        if running:  # the model took the floor before the user handed it over: signed latency
            return Latency(min(running) - ws, "started_early")
        onset = _first_onset_inside(segments, window)
        return Latency(onset - ws, "onset") if onset is not None else Latency(None, "no_speech_in_window")
    if category is Category.must_yield:
        running = [s for s in segments if int(s[0]) <= ws < int(s[1])]
        if not running:
            return Latency(0, "already_silent")
        end = max(int(s[1]) for s in running)
        return Latency(end - ws, "yielded") if end <= we else Latency(None, "no_yield_in_window")
    return Latency(None, "not_defined")


def percentile(values: Sequence[int], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default) of a small list; None when empty."""
    if not values:
        return None
    v = sorted(values)
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))
