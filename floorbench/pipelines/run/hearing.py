"""What the model heard, moment by moment: the humans' sent track traced through ``model.heard.wav``.

The model process's jitter buffer plays out at a steady pace and moves the
content: it sits at one delay, then steps to another. A model reacts to what
it heard, so the timing clock takes out how much later than the leg's median
the model heard the last audio before a reply (`Hearing.excess_at`); this
module finds those moments, anchor by anchor, and where the steps fell
(docs/transport.md, "The timing clock"). `sender_timing` uses it.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import numpy as np

from floorbench.audio.alignment import best_match
from floorbench.audio.track_alignment import Anchor, align_track, audible_runs
from floorbench.pipelines.run.sent_tracks import NS, HeardTrack, SentTrack, resample

HEARING_WIN_MS = 80
"""the window traced along the humans' sound (`align_track`'s default)"""
HEARING_SCORE = 0.8
"""an anchor weaker than this does not time a reply: a false match would move it by its whole error"""
STEP_FIND_MS = (40, 20, 2)
"""where two anchors of one run disagree by more than the last figure (ms), short windows (the first figure)
every few ms (the second) between them find where the jitter buffer stepped (`_find_steps`)"""
CONFIRM_SCORE = 0.6
"""along a run's tail, a window matching this well at its last anchor's lag (within the step size) confirms it"""
TAIL_EDGE_MS = 10
"""the last window along a run's tail reaches this far past its end: the sound-to-silence edge pins it, as a
short window from just before an onset pins that (`track_alignment._pin_onset`)"""
TAIL_REACH_MS = 100
"""a run whose end was not anchored: its tail is looked for this far either side of its last anchor's lag"""


@dataclass(frozen=True)
class HeardAt:
    """The model's hearing at one moment: how much later than the humans → model median it heard the last
    audio before it, and how unsure that is."""

    excess_ns: int
    uncertain_ns: int
    """how far the hearing moved between the anchor before the moment and the one after it, when the audio
    between them was heard unseen (inside a run of the humans' sound, or after an anchor that does not reach
    its run's end): when it moved, before or after the moment, is unknown. 0 when the anchor before reaches
    the end of its run: after it the model heard silence, which has no timing of its own"""


@dataclass(frozen=True)
class Hearing:
    """The humans' sent track traced through model.heard.wav: per anchor, when the model heard it (session ns)
    and that latency less the leg's median — its excess.

    The model's jitter buffer plays out at a steady pace and moves the content: it sits at one delay, then
    steps to another (on a busy machine by tens of ms, mostly in the silences between turns). A model reacts
    to what it heard, so a reply to audio heard 30 ms late leaves 30 ms late; `excess_at` is how much to take
    off a reply begun at a moment for it to be timed as if the model had heard at the median latency.
    """

    heard_ns: tuple[int, ...]
    """increasing"""
    excess_ns: tuple[int, ...]
    closes: tuple[bool, ...]
    """the anchor's window reaches the end of its run of sound (the last audio of that run it times)"""
    median_ns: int

    def excess_at(self, t_ns: int) -> HeardAt:
        """At `t_ns`: the excess of the last anchor heard by then (0 before the first)."""
        i = bisect_right(self.heard_ns, t_ns) - 1
        if i < 0:
            return HeardAt(0, 0)
        e = self.excess_ns[i]
        if i + 1 < len(self.heard_ns) and not self.closes[i]:
            return HeardAt(e, abs(self.excess_ns[i + 1] - e))
        return HeardAt(e, 0)

    def summary(self) -> dict[str, Any]:
        ex = [abs(e) for e in self.excess_ns]
        return {
            "method": "xcorr along every audible run: humans.sent.wav vs model.heard.wav",
            "anchors": len(self.excess_ns),
            "median_us": self.median_ns // 1000,
            "excess_p50_us": int(np.median(ex)) // 1000 if ex else None,
            "excess_max_us": max(ex) // 1000 if ex else None,
        }


def hearing_of(humans: SentTrack, heard: HeardTrack, median_ns: int | None) -> Hearing | None:
    """Trace the humans' sent track through what the model process received; None when nothing was found.

    `median_ns`: the humans → model median over the turns (`Arrivals.median_ns`); without it, the anchors'.
    """
    rate = heard.sample_rate
    x = resample(humans.audio, humans.sample_rate, rate)
    ratio = humans.sample_rate / rate
    runs = audible_runs(x, rate)
    if not runs or not humans.clock.frames:
        return None
    first_lag = (humans.clock.time_ns(0) - heard.fit.start_ns) * rate // NS
    anchors = [a for a in align_track(x, heard.audio, rate, int(first_lag), runs=runs, win_ms=HEARING_WIN_MS)
               if a.score >= HEARING_SCORE]
    if not anchors:
        return None
    starts = [s for s, _ in runs]
    anchors = _find_steps(x, heard.audio, rate, anchors, runs)
    win = HEARING_WIN_MS * rate // 1000

    def closes(a: Anchor) -> bool:
        return a.kind == "offset" or runs[bisect_right(starts, a.sent) - 1][1] - a.sent <= win

    heard_ns = [heard.fit.time_ns(a.rec) for a in anchors]
    latency = [h - humans.clock.time_ns(a.sent * ratio) for a, h in zip(anchors, heard_ns, strict=True)]
    med = median_ns if median_ns is not None else int(np.median(latency))
    order = sorted(range(len(anchors)), key=lambda i: heard_ns[i])
    return Hearing(
        tuple(heard_ns[i] for i in order),
        tuple(latency[i] - med for i in order),
        tuple(closes(anchors[i]) for i in order),
        med,
    )


def _find_steps(
    sent: np.ndarray, heard: np.ndarray, rate: int, anchors: list[Anchor], runs: list[tuple[int, int]]
) -> list[Anchor]:
    """`anchors` with short ones added between two of one run whose lags disagree — where the step fell —
    and along the tail of a run whose end no anchor reached.

    A reply begun between two anchors that disagree cannot tell which of them timed its cue; with anchors
    a few ms apart around the step, only a reply begun within those few ms still cannot. A run's last audio
    is the cue of a reply begun in the silence after it, so its tail is looked for too.
    """
    win_ms, hop_ms, min_step_ms = STEP_FIND_MS
    win, hop, min_step = win_ms * rate // 1000, hop_ms * rate // 1000, min_step_ms * rate // 1000
    starts = [s for s, _ in runs]
    x = np.asarray(sent, dtype=np.float64)
    y = np.asarray(heard, dtype=np.float64)
    reach = TAIL_REACH_MS * rate // 1000

    def short(pos: int, lo_lag: int, hi_lag: int, kind: str, lag: int | None = None) -> Anchor | None:
        """A short window's anchor; with `lag`, a weaker match is kept when it agrees with that lag (a quiet
        tail correlates less through a codec, and a match that confirms where the audio was is no risk)."""
        ref = x[pos : pos + win]
        if not np.any(ref):
            return None
        r, score = best_match(ref, y, pos + lo_lag, pos + hi_lag)
        agrees = lag is not None and score >= CONFIRM_SCORE and abs(r - pos - lag) <= min_step
        return Anchor(pos, r, score, kind) if score >= HEARING_SCORE or agrees else None

    out: list[Anchor] = []
    nexts: list[Anchor | None] = [*anchors[1:], None]
    for a, b in zip(anchors, nexts, strict=True):
        out.append(a)
        i = bisect_right(starts, a.sent) - 1
        if i < 0:
            continue
        end = runs[i][1]
        if b is not None and b.sent < end:  # inside one run: a step between them?
            if abs(b.lag - a.lag) <= min_step:
                continue
            lo_lag, hi_lag = min(a.lag, b.lag) - min_step, max(a.lag, b.lag) + min_step
            found = [short(pos, lo_lag, hi_lag, "inner") for pos in range(a.sent + hop, min(b.sent, end - win), hop)]
        elif end - a.sent > HEARING_WIN_MS * rate // 1000:  # the run's end not anchored: the tail, up to its end
            edge = end + TAIL_EDGE_MS * rate // 1000 - win  # the last window takes the silence after it in
            tail = [*range(a.sent + hop, end - win, hop), edge]
            found = [short(pos, a.lag - reach, a.lag + reach, "offset" if pos == edge else "inner", a.lag)
                     for pos in tail if pos > a.sent and pos + win <= len(x)]
        else:
            continue
        out.extend(f for f in found if f is not None)
    return out
