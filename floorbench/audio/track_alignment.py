"""Trace a recorded track back to what was sent: anchors ``(sent sample, recorded sample)`` along the track.

A receiver's jitter buffer plays out in real time but moves the content: it
inserts samples (deceleration, concealment) and removes them (acceleration),
a few ms at a time, in speech and in silence. Cross-correlating one window of
the sent track with the recording says where that window's audio ended up.
Done along every audible run of the sent track — at its onset, every
`hop_ms` inside it and at its end — this gives the anchors from which a
recorded sample's sent sample, and so its send time, follows
(`floorbench.audio.time_map`).

The search is local: once the first window is found (a long window, searched
widely), each next window is looked for around the previous lag, in a range
that grows with the distance from it (a jitter buffer moves content by a few
ms per second at most). An onset's anchor is refined with a short window that
starts exactly at the onset, so a stretch just after it does not move it.

Pure arithmetic on int16 arrays of one sample rate; no files, no room.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from floorbench.audio.alignment import best_match

AUDIBLE_PEAK = 328
"""−40 dBFS: a sample louder than this is audible (`turn_mapping.SILENT_PEAK` for the humans' turns)"""
MIN_GAP_MS = 150
"""quieter stretches shorter than this do not end an audible run"""
MIN_RUN_MS = 20
"""audible runs shorter than this are not anchored (a click)"""


@dataclass(frozen=True)
class Anchor:
    """One sent window found in the recording."""

    sent: int
    """first sample of the window in the sent track"""
    rec: int
    """the same audio's first sample in the recording"""
    score: float
    """normalised correlation peak (0..1)"""
    kind: str
    """'onset' (first sample of an audible run), 'inner' or 'offset' (the window ending the run)"""

    @property
    def lag(self) -> int:
        return self.rec - self.sent


def audible_runs(
    x: np.ndarray, sample_rate: int, peak: int = AUDIBLE_PEAK, min_gap_ms: int = MIN_GAP_MS, min_run_ms: int = MIN_RUN_MS
) -> list[tuple[int, int]]:
    """``[start, end)`` sample ranges where `x` is audible, quieter gaps under `min_gap_ms` bridged."""
    loud = np.flatnonzero(np.abs(np.asarray(x, dtype=np.int32)) > peak)
    if not len(loud):
        return []
    gap = min_gap_ms * sample_rate // 1000
    breaks = np.flatnonzero(np.diff(loud) > gap)
    starts = np.concatenate(([loud[0]], loud[breaks + 1]))
    ends = np.concatenate((loud[breaks] + 1, [loud[-1] + 1]))
    least = min_run_ms * sample_rate // 1000
    return [(int(s), int(e)) for s, e in zip(starts, ends, strict=True) if e - s >= least]


def plan_anchors(runs: list[tuple[int, int]], sample_rate: int, win_ms: int, hop_ms: int) -> list[tuple[int, str]]:
    """Where to put windows: each run's onset, every `hop_ms` inside it, and a window ending it."""
    win, hop = win_ms * sample_rate // 1000, hop_ms * sample_rate // 1000
    plan: list[tuple[int, str]] = []
    for s, e in runs:
        plan.append((s, "onset"))
        p = s + hop
        while p + win <= e - hop // 2:
            plan.append((p, "inner"))
            p += hop
        if e - win > s:
            plan.append((e - win, "offset"))
    return plan


def _window(x: np.ndarray, start: int, length: int) -> np.ndarray:
    return x[start : start + length]


def align_track(
    sent: np.ndarray,
    recorded: np.ndarray,
    sample_rate: int,
    first_lag: int,
    *,
    runs: list[tuple[int, int]] | None = None,
    win_ms: int = 80,
    hop_ms: int = 200,
    first_win_ms: int = 300,
    first_search_ms: tuple[int, int] = (-200, 2000),
    track_ms: int = 30,
    drift_ms_per_s: int = 15,
    reach_max_ms: int = 400,
    refine_ms: int = 20,
    refine_pre_ms: int = 10,
    refine_reach_ms: int = 30,
    min_score: float = 0.6,
    retry_score: float = 0.8,
    inner_score: float = 0.85,
) -> list[Anchor]:
    """Anchors of every audible run of `sent` found in `recorded` (both int16 at `sample_rate`).

    `first_lag` is where the recording would hold sent sample 0 if the leg took no time
    (recorded index − sent index, from the two clocks); the first window is searched from
    `first_search_ms[0]` to `first_search_ms[1]` beyond it, the others around the lag found last.
    A window whose best normalised peak is below `min_score` is not an anchor (an inner or ending window
    below `inner_score`: a stretch inside it splits it, and its lag may be the later part's); one not found in the
    tracked range is looked for again up to `reach_max_ms` away, with the same window and then with a
    long one, and kept there only with `retry_score`.
    """
    x = np.asarray(sent, dtype=np.float64)
    y = np.asarray(recorded, dtype=np.float64)
    ms = sample_rate // 1000
    runs = audible_runs(sent, sample_rate) if runs is None else runs
    ends = [e for _, e in runs]
    starts = [s for s, _ in runs]

    def run_end_of(pos: int) -> int:
        i = bisect_right(starts, pos) - 1
        return ends[i] if i >= 0 else pos
    win, refine = win_ms * ms, refine_ms * ms
    anchors: list[Anchor] = []
    lag: int | None = None
    last = 0
    for pos, kind in plan_anchors(runs, sample_rate, win_ms, hop_ms):
        ref = _window(x, pos, win)
        if not len(ref) or not np.any(ref):
            continue
        r, score = pos, 0.0
        if lag is not None:  # locked: near the lag found last, in a range growing with the distance from it
            reach = min(reach_max_ms * ms, track_ms * ms + drift_ms_per_s * (pos - last) // sample_rate * ms)
            r, score = best_match(ref, y, pos + lag - reach, pos + lag + reach)
        if score < min_score and lag is not None:  # moved further than tracked: the window, searched wider
            r_wide, s_wide = best_match(ref, y, pos + lag - reach_max_ms * ms, pos + lag + reach_max_ms * ms)
            if s_wide >= retry_score:
                r, score = r_wide, s_wide
        if score < min_score:  # not locked yet, or lost: lock again with a long window
            long_ref = _window(x, pos, max(win, min(first_win_ms * ms, run_end_of(pos) - pos)))
            if lag is None:
                lo, hi = pos + first_lag + first_search_ms[0] * ms, pos + first_lag + first_search_ms[1] * ms
            else:
                lo, hi = pos + lag - reach_max_ms * ms, pos + lag + reach_max_ms * ms
            r_long, s_long = best_match(long_ref, y, lo, hi)
            if s_long >= (min_score if lag is None else retry_score):
                lag = r_long - pos  # the long window's lag is its majority's: the short one says where `pos` went
                r, score = best_match(ref, y, r_long - track_ms * ms, r_long + track_ms * ms)
        if kind == "onset" and lag is not None:
            centre = r if score >= min_score else pos + lag
            r, score = _pin_onset(x, y, pos, centre, r, score, refine, refine_pre_ms * ms, refine_reach_ms * ms,
                                  min_score)
        if score < (min_score if kind == "onset" else inner_score):
            continue
        anchors.append(Anchor(pos, r, score, kind))
        lag, last = r - pos, pos
    return consistent(anchors, sample_rate)


def _pin_onset(
    x: np.ndarray, y: np.ndarray, pos: int, centre: int, r: int, score: float,
    refine: int, pre_max: int, reach: int, min_score: float,
) -> tuple[int, float]:
    """The onset itself, so that a stretch inside the window does not move it: a short window from
    just before the onset (the silence-to-sound edge pins it down), searched around `centre` (where
    the window was found or, if a stretch inside split it below the score, the lag tracked so far);
    (`r`, `score`) unchanged when it is not found."""
    pre = min(pos, pre_max)
    head = _window(x, pos - pre, pre + refine)
    r2, s2 = best_match(head, y, centre - pre - reach, centre - pre + reach)
    return (r2 + pre, max(score, s2)) if s2 >= min_score else (r, score)


def consistent(anchors: list[Anchor], sample_rate: int, max_jump_ms: int = 40) -> list[Anchor]:
    """The anchors without isolated outliers: one whose lag differs by more than `max_jump_ms` from both
    neighbours' (which agree with each other) is a false match, not a jitter buffer's step."""
    jump = max_jump_ms * sample_rate // 1000
    out: list[Anchor] = []
    for i, a in enumerate(anchors):
        if 0 < i < len(anchors) - 1:
            p, n = anchors[i - 1].lag, anchors[i + 1].lag
            if abs(a.lag - p) > jump and abs(a.lag - n) > jump and abs(p - n) <= jump:
                continue
        out.append(a)
    return out


def warp(x: np.ndarray, edits: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """`x` with samples inserted (n > 0: a copy of the n samples before, as a jitter buffer's
    deceleration repeats a pitch period) or removed (n < 0) at each ``(position, n)``; and for every
    sample of `x` its index in the result (−1 where it was removed). For tests and benchmarks."""
    out: list[np.ndarray] = []
    where = np.full(len(x), -1, dtype=np.int64)
    cursor, n_out = 0, 0
    for pos, n in sorted(edits):
        pos = max(pos, cursor)
        out.append(x[cursor:pos])
        where[cursor:pos] = np.arange(n_out, n_out + pos - cursor)
        n_out += pos - cursor
        cursor = pos
        if n > 0:
            out.append(x[max(0, pos - n) : pos].copy())
            n_out += min(n, pos)
        else:
            cursor = min(len(x), pos - n)
    out.append(x[cursor:])
    where[cursor:] = np.arange(n_out, n_out + len(x) - cursor)
    return np.concatenate(out), where
