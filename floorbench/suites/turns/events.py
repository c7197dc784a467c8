"""From one turns dialogue's records to the matcher's inputs: events, decisions, takeovers.

Pure functions over turns.json's clips (placed as heard on the model's
clock) and the model's speech segments (VAD, [start_ms, end_ms]):

- EOT track: positives are the ends of `eot` and `interrupt` clips (a barge-in
  is a whole user turn); negatives are `pause` spans (the clip's end to the
  next clip's start) and `noise` clips; decisions are the model's speech onsets;
- yield track: positives are the starts of `interrupt` clips; negatives are
  `backchannel` and `noise` clips; decisions are the ends of the model's speech
  (an end at the recording's end is not a decision: the model was still talking);
- takeover (Full-Duplex-Bench): after a clip, a model onset in
  ``[end − early tolerance, min(end + deadline, next clip's start)]`` starting
  a segment of at least `takeover_min_ms`.

The user is speaker 1 and the model speaker 2 (TurnBench's speaker numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from floorbench.records import DialogueTurn
from floorbench.suites.turns.match import Anchor, Span, TaskCounts, match_task
from floorbench.suites.turns.rules import TurnEvent, TurnsRules

USER = 1
E = TurnEvent
END_SLACK_MS = 40
"""a segment ending this close to the recording's end was cut by it, not ended (one VAD window and change)"""


@dataclass(frozen=True)
class TrackEvents:
    """One task's inputs, with the clip label behind each negative span (for per-type tables)."""

    positives: list[Anchor]
    negatives: list[Span]
    negative_labels: list[str]


@dataclass
class DialogueOutcome:
    """One dialogue scored: both tracks, takeovers per clip label, decisions for the export."""

    scenario_id: str
    conversation_type: str
    eot: TaskCounts
    yield_: TaskCounts
    eot_negative_labels: list[str]
    yield_negative_labels: list[str]
    takes_ms: list[int]
    yields_ms: list[int]
    takeovers: dict[str, list[bool]] = field(default_factory=dict)
    """clip label → per played clip: did the model take over after it"""


def _played(clips: Sequence[DialogueTurn]) -> list[DialogueTurn]:
    return sorted(clips, key=lambda c: (c.start_ms, c.turn_id))


def eot_events(clips: Sequence[DialogueTurn]) -> TrackEvents:
    cs = _played(clips)
    pos = [Anchor(USER, c.end_ms) for c in cs if c.label in (E.eot, E.interrupt)]
    neg: list[Span] = []
    labels: list[str] = []
    for i, c in enumerate(cs):
        if c.label == E.pause and i + 1 < len(cs):
            neg.append(Span(USER, c.end_ms, cs[i + 1].start_ms))
            labels.append(E.pause)
        elif c.label == E.noise:
            neg.append(Span(USER, c.start_ms, c.end_ms))
            labels.append(E.noise)
    return TrackEvents(pos, neg, labels)


def yield_events(clips: Sequence[DialogueTurn]) -> TrackEvents:
    cs = _played(clips)
    pos = [Anchor(USER, c.start_ms) for c in cs if c.label == E.interrupt]
    neg = [(Span(USER, c.start_ms, c.end_ms), str(c.label)) for c in cs if c.label in (E.backchannel, E.noise)]
    return TrackEvents(pos, [s for s, _ in neg], [lab for _, lab in neg])


def decisions(segments: Sequence[Sequence[int]], duration_ms: int) -> tuple[list[int], list[int]]:
    """(takes, yields): onsets of model speech, and ends that are not the recording's end."""
    takes = [int(s[0]) for s in segments]
    yields = [int(s[1]) for s in segments if int(s[1]) < duration_ms - END_SLACK_MS]
    return takes, yields


def takeovers(clips: Sequence[DialogueTurn], segments: Sequence[Sequence[int]], rules: TurnsRules) -> dict[str, list[bool]]:
    cs = _played(clips)
    out: dict[str, list[bool]] = {}
    for i, c in enumerate(cs):
        hi = c.end_ms + rules.latency_deadline_ms
        if i + 1 < len(cs):
            hi = min(hi, cs[i + 1].start_ms)
        lo = c.end_ms - rules.early_tolerance_ms
        took = any(lo <= s[0] <= hi and s[1] - s[0] >= rules.takeover_min_ms for s in segments)
        out.setdefault(str(c.label), []).append(took)
    return out


def score_dialogue(
    scenario_id: str, conversation_type: str, clips: Sequence[DialogueTurn],
    segments: Sequence[Sequence[int]], duration_ms: int, rules: TurnsRules,
) -> DialogueOutcome:
    """Both tracks of one dialogue (no excluded regions: a live scenario's labels are exact)."""
    takes, yields = decisions(segments, duration_ms)
    early, deadline = rules.early_tolerance_ms, rules.latency_deadline_ms
    ev, yv = eot_events(clips), yield_events(clips)
    return DialogueOutcome(
        scenario_id=scenario_id, conversation_type=conversation_type,
        eot=match_task(ev.positives, ev.negatives, {USER: takes}, early_ms=early, deadline_ms=deadline),
        yield_=match_task(yv.positives, yv.negatives, {USER: yields}, early_ms=early, deadline_ms=deadline),
        eot_negative_labels=ev.negative_labels, yield_negative_labels=yv.negative_labels,
        takes_ms=takes, yields_ms=yields, takeovers=takeovers(clips, segments, rules),
    )
