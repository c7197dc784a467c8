"""Suite av's scored clip and its scoring options: the records the scorer fills and the judge reads.

In a module of their own so that the scorer (`score`) and the rubric judge (`judge`),
which each need them, do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floorbench.audio.vad import VadRules
from floorbench.scoring.outcome import ScoreRequest
from floorbench.suites.av.inputs import AvInput
from floorbench.suites.av.rules import EXPECTED_TAKEOVER, AvRules
from floorbench.suites.av.verdicts import Latency


@dataclass(frozen=True)
class AvScoreOptions(ScoreRequest):
    """`floorbench score`'s options (``judge``: 'offline' leaves the rubric not judged, or 'llm:<model>')
    and the suite's rules."""

    rules: AvRules = field(default_factory=AvRules)
    vad_rules: VadRules = field(default_factory=VadRules)


@dataclass
class ClipScore:
    """One scored clip: everything av_scores.json says about it."""

    inp: AvInput
    duration_ms: int
    segments: list[tuple[int, int]]
    before: list[tuple[int, int]]
    inside: list[tuple[int, int]]
    after: list[tuple[int, int]]
    texts: dict[str, str]
    """'before', 'inside', 'after': ASR of the model's speech there"""
    takeover: bool
    aligned: bool
    latency: Latency
    rubric: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)
    """what the rubric judge reads of this clip (`av_judge.payload`)"""
    sound_in_window_ms: int = 0
    """loud sound that is not speech inside the window (`floorbench.audio.sounds`)"""
    aligned_note: str = ""
    """why an alignment earned by silence was refused"""

    def row(self) -> dict[str, Any]:
        ev = self.inp.event
        assert ev is not None and self.inp.window is not None
        return {
            "scenario_id": self.inp.scenario_id,
            "folder": self.inp.folder.name,
            "clip": ev.clip,
            "dynamic": ev.dynamic,
            "category": ev.category.value,
            "description": ev.description,
            "window_ms": list(self.inp.window),
            "window_basis": self.inp.basis,
            "expected_takeover": EXPECTED_TAKEOVER[ev.category],
            "takeover": int(self.takeover),
            "aligned": self.aligned,
            "speech_in_window_ms": sum(e - s for s, e in self.inside),
            "words_in_window": len(self.texts["inside"].split()),
            "latency_ms": self.latency.ms,
            "latency_note": self.latency.note,
            "sound_in_window_ms": self.sound_in_window_ms,
            "aligned_note": self.aligned_note,
            "segments_before": self.before,
            "segments_in": self.inside,
            "segments_after": self.after,
            "transcript": self.texts,
            "user": [
                {"clip": t.turn_id, "start_ms": t.start_ms, "end_ms": t.end_ms, "text": t.text}
                for t in self.inp.user
            ],
            "user_words": self.inp.words,
            "model_start_session_ms": self.inp.t0_ms,
            "duration_ms": self.duration_ms,
            "rubric": self.rubric,
            "rubric_payload": self.payload,
        }
