"""Suite agent's moments to the sample: the agent's stops at their energy edge, each caller clip's first and
last speech sample as it was sent (docs/testing.md, "Where a step and a stop are timed").

A yield is timed from the caller's start to the agent's stop; a backchannel's from its start and end to the
agent's stop. Timed on the clip's first sample and on the VAD segment's end, a yield read 195–258 ms longer
than an outside agent's own log said: the clip's silent pad and quiet first consonant (about 100 ms before
the agent could hear a word) were counted as the agent's, and Silero's 32 ms windows stay high for a
window or three after the audio has dropped (30–116 ms, median about 75). Both ends are taken here to the
energy edge with one function (`floorbench.audio.edges.speech_edge`):

- the agent's speech segments found by VAD on model.wav keep their onsets (response latency is the
  benchmark's VAD onset, unchanged) and their ends move to the last speech sample;
- each caller clip's first and last speech samples are found in what the playback sent
  (``humans.clean.wav`` under acoustic conditions, the clean caller; else ``humans.sent.wav``) between
  the clip's ``turn_start`` and ``turn_end`` samples, and kept as offsets into the clip, so they sit on
  the clock the clip's start is on. A folder without the sent track keeps the clip's own start and end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.audio.edges import clip_speech, speech_edge
from floorbench.records import EventKind, TimelineEvent

Segment = tuple[int, int]
RATE = 16000
"""model.wav as scoring reads it (`floorbench.scoring.inputs.read_model_track`)"""
CUT_MS = 40
"""a segment ending this close to the recording's end was cut by it: its end is not an edge"""


def refined_stops(segments: Sequence[Segment], audio: np.ndarray, duration_ms: int) -> list[Segment]:
    """The segments with each end moved to the energy edge of the 16 kHz `audio` they were found on
    (never before the segment's start; a segment the recording cut keeps its end)."""
    out: list[Segment] = []
    for i, (s, e) in enumerate(segments):
        if e >= duration_ms - CUT_MS:
            out.append((s, e))
            continue
        hi = segments[i + 1][0] * RATE // 1000 if i + 1 < len(segments) else len(audio)
        edge = speech_edge(audio, RATE, e * RATE // 1000, "offset", lo=s * RATE // 1000, hi=hi)
        out.append((s, max(s + 1, round(edge * 1000 / RATE))))
    return out


def sent_caller_track(folder: Path) -> tuple[np.ndarray, int] | None:
    """The caller's track as the playback sent it (clean, where acoustics degraded it); None if not kept."""
    import soundfile as sf

    for name in ("humans.clean.wav", "humans.sent.wav"):
        path = folder / name
        if path.is_file():
            try:
                audio, rate = sf.read(str(path), dtype="int16", always_2d=False)
            except Exception:  # an unreadable sent track: the clips keep their own start and end
                return None
            return np.asarray(audio, dtype=np.int16).reshape(-1), int(rate)
    return None


def clip_samples(events: Iterable[TimelineEvent]) -> dict[int, tuple[int, int]]:
    """Each clip's ``[turn_start sample, turn_end sample)`` on the caller's track, by turn id."""
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    for e in events:
        if e.turn_id is None or e.sample is None:
            continue
        if e.kind is EventKind.turn_start:
            starts[e.turn_id] = e.sample
        elif e.kind is EventKind.turn_end:
            ends[e.turn_id] = e.sample
    return {t: (s, ends[t]) for t, s in starts.items() if t in ends and ends[t] > s}


def speech_offsets(folder: Path, events: Sequence[TimelineEvent]) -> dict[int, tuple[int, int]]:
    """Per turn id: (ms from the clip's first sample to its first speech sample, ms from its last speech
    sample to the clip's end), as sent; a clip with no speech in it (a silence) is left out."""
    track = sent_caller_track(folder)
    if track is None:
        return {}
    audio, rate = track
    out: dict[int, tuple[int, int]] = {}
    for tid, (s, e) in clip_samples(events).items():
        clip = audio[s : min(e, len(audio))]
        span = clip_speech(clip, rate) if len(clip) else None
        if span is not None:
            out[tid] = (span[0] * 1000 // rate, (e - s - span[1]) * 1000 // rate)
    return out


def speech_fields(offsets: dict[int, tuple[int, int]], turn_id: int, start_ms: int, end_ms: int) -> dict[str, Any]:
    """`Placed`'s speech_start_ms / speech_end_ms for one clip heard at [start_ms, end_ms) (none: no offsets)."""
    off = offsets.get(turn_id)
    if off is None:
        return {}
    lead, tail = off
    return {"speech_start_ms": min(end_ms, start_ms + lead), "speech_end_ms": max(start_ms + lead, end_ms - tail)}
