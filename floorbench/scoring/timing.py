"""The timing rules of suite mpe (docs/suites/mpe.md), applied to VAD speech segments.

The numbers are `floorbench.suites.mpe.MpeRules`, the record the live schedule
plays by; a scorer built from a modified record judges by the modified rules.

Pure functions of the model's speech segments (integer ms on the recorder's
clock, after the 120 ms / 800 ms rules) and the human turns; no audio, no
models. Each rule yields `Item`s whose `kind` and `reason` say what decided
them. Content (ASR and judges) is filled in later for the items marked
``needs_transcript``.

Boundary conventions (also in README.md): the model *is speaking* at t when a
segment strictly contains t (``start < t < end``), so a segment that starts
exactly at the request end is a fresh onset and one that ends exactly there is
silence; "within X ms after t" includes X; windows are half-open ``[start, end)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from floorbench.records import DialogueTurn
from floorbench.scoring.items import Item, Kind, Metric
from floorbench.suites.mpe import MpeRules

Segment = tuple[int, int]

SILENCE_LABELS = frozenset({"N1", "N2", "N3"})


@dataclass(frozen=True)
class Dialogue:
    """What the timing rules need of one scored dialogue."""

    scenario_id: str
    pair_id: str
    condition: str
    turns: list[DialogueTurn]
    duration_ms: int
    """length of model.wav; the window of a last turn ends here"""


def speaking_at(segments: Sequence[Segment], t: int) -> Segment | None:
    """The segment that strictly contains `t`, if any."""
    for s, e in segments:
        if s < t < e:
            return (s, e)
        if s >= t:
            break
    return None


def overlapping(segments: Sequence[Segment], start: int, end: int) -> list[Segment]:
    """Segments that overlap ``[start, end)``."""
    return [(s, e) for s, e in segments if s < end and e > start]


def speech_ms_in(segments: Sequence[Segment], start: int, end: int) -> int:
    return sum(min(e, end) - max(s, start) for s, e in overlapping(segments, start, end))


def first_onset(segments: Sequence[Segment], start: int, end_inclusive: int) -> int | None:
    """The first segment start in ``[start, end_inclusive]``."""
    for s, _ in segments:
        if start <= s <= end_inclusive:
            return s
    return None


def response_end(segments: Sequence[Segment], onset: int, until: int, endpoint_ms: int) -> int:
    """End of the response that began at (or spans) `onset`: the endpoint rule.

    The response ends at the end of the last segment that is followed by at
    least `endpoint_ms` of silence, looking no further than `until`.
    """
    end = onset
    for s, e in segments:
        if e <= onset or s >= until:
            continue
        if end > onset and s - end >= endpoint_ms:
            break
        end = max(end, min(e, until))
    return end


def _window_end(turns: Sequence[DialogueTurn], i: int, duration_ms: int) -> int:
    """The next turn's start, or the end of the recording for the last turn."""
    return turns[i + 1].start_ms if i + 1 < len(turns) else max(duration_ms, turns[i].end_ms)


def _base(d: Dialogue, turn: DialogueTurn, metric: Metric, **kw: object) -> Item:
    return Item(
        scenario_id=d.scenario_id,
        pair_id=d.pair_id,
        condition=d.condition,
        metric=metric,
        turn_id=turn.turn_id,
        label=turn.label,
        **kw,  # type: ignore[arg-type]
    )


def request_items(
    d: Dialogue, i: int, segments: Sequence[Segment], rules: MpeRules
) -> list[Item]:
    """Fresh onset, response presence and (pending content) accuracy for the T at index `i`."""
    turn = d.turns[i]
    r_end = turn.end_ms
    w_end = max(_window_end(d.turns, i, d.duration_ms), r_end)
    in_window = overlapping(segments, r_end, w_end)
    spoken = speech_ms_in(segments, r_end, w_end)
    common = dict(
        window_start_ms=r_end,
        window_end_ms=w_end,
        speech=in_window,
        speech_ms=spoken,
        turn_index=i,
        n_turns=len(d.turns),
    )
    limit = min(r_end + rules.onset_window_ms, w_end - 1)
    ongoing = speaking_at(segments, r_end)
    onset = None if ongoing else first_onset(segments, r_end, w_end - 1)
    resp_from = ongoing[0] if ongoing else onset
    stop = (
        response_end(segments, max(resp_from, r_end), w_end, rules.endpoint_ms)
        if resp_from is not None
        else None
    )

    if ongoing:
        fresh_kind, fresh_pass = Kind.already_speaking, False
        fresh_reason = (
            f"already speaking at the request end ({r_end} ms): segment {ongoing[0]}-{ongoing[1]} ms "
            "started before it"
        )
    elif onset is not None and onset <= limit:
        fresh_kind, fresh_pass = Kind.fresh_onset, True
        fresh_reason = (
            f"silent at the request end ({r_end} ms); onset at {onset} ms, {onset - r_end} ms later "
            f"(limit {rules.onset_window_ms} ms)"
        )
    elif onset is not None:
        fresh_kind, fresh_pass = Kind.late_onset, False
        fresh_reason = (
            f"silent at the request end ({r_end} ms); first onset at {onset} ms, {onset - r_end} ms "
            f"later (limit {rules.onset_window_ms} ms)"
        )
    else:
        fresh_kind, fresh_pass = Kind.no_onset, False
        fresh_reason = f"no speech from the request end ({r_end} ms) to the next turn ({w_end} ms)"

    fresh = _base(
        d, turn, Metric.fresh_onset_rate, counted=True, passed=fresh_pass, kind=fresh_kind,
        reason=fresh_reason, onset_ms=onset if not ongoing else None, stop_ms=stop, **common,
    )
    if ongoing:
        p_kind, p_reason = Kind.continued, (
            f"speech continued across the request end ({r_end} ms) into the response window"
        )
    elif in_window:
        p_kind, p_reason = Kind.responded, (
            f"onset at {onset} ms in the response window {r_end}-{w_end} ms"
        )
    else:
        p_kind, p_reason = Kind.no_speech, f"no speech in the response window {r_end}-{w_end} ms"
    presence = _base(
        d, turn, Metric.response_presence, counted=True, passed=bool(in_window), kind=p_kind,
        reason=p_reason, onset_ms=onset, stop_ms=stop, **common,
    )
    if in_window:
        accuracy = _base(
            d, turn, Metric.conditional_accuracy, counted=True, passed=None,
            kind=Kind.empty_transcript, reason="not transcribed yet", gold=turn.gold,
            onset_ms=onset, stop_ms=stop, needs_transcript=True, **common,
        )
    else:
        accuracy = _base(
            d, turn, Metric.conditional_accuracy, counted=False, passed=None, kind=Kind.no_speech,
            reason="not counted: no response presence", gold=turn.gold, **common,
        )
    return [fresh, presence, accuracy]


def silence_item(d: Dialogue, i: int, segments: Sequence[Segment]) -> Item:
    """Silence keeping for the N1/N2/N3 turn at index `i` (content pending when there is speech)."""
    turn = d.turns[i]
    w_start = turn.start_ms
    w_end = max(_window_end(d.turns, i, d.duration_ms), turn.end_ms)
    in_window = overlapping(segments, w_start, w_end)
    spoken = speech_ms_in(segments, w_start, w_end)
    common = dict(window_start_ms=w_start, window_end_ms=w_end, speech=in_window, speech_ms=spoken)
    if not in_window:
        return _base(
            d, turn, Metric.silence_keeping, counted=True, passed=True, kind=Kind.silent,
            reason=f"no speech in the window {w_start}-{w_end} ms", **common,
        )
    return _base(
        d, turn, Metric.silence_keeping, counted=True, passed=None, kind=Kind.empty_transcript,
        reason="not transcribed yet", onset_ms=in_window[0][0], needs_transcript=True, **common,
    )


def n4_items(d: Dialogue, i: int, segments: Sequence[Segment], rules: MpeRules) -> list[Item]:
    """Window response and yield for the N4Q at index `i` and its N4R at ``i + 1``."""
    q, r = d.turns[i], d.turns[i + 1]
    answer_end = q.end_ms + rules.n4_window_ms
    deadline = r.start_ms + rules.yield_deadline_ms
    obs_end = max(deadline, _window_end(d.turns, i + 1, d.duration_ms))

    wr_segs = [(s, e) for s, e in segments if s <= answer_end and e > q.start_ms]
    spoke = bool(wr_segs)
    window = _base(
        d, q, Metric.window_response, counted=True, passed=spoke,
        kind=Kind.spoke_in_window if spoke else Kind.silent_in_window,
        reason=(
            f"speech {wr_segs[0][0]}-{wr_segs[0][1]} ms in {q.start_ms}-{answer_end} ms"
            if spoke
            else f"no speech from the question start ({q.start_ms} ms) to {answer_end} ms"
        ),
        window_start_ms=q.start_ms, window_end_ms=answer_end, speech=wr_segs,
        speech_ms=speech_ms_in(segments, q.start_ms, answer_end),
        onset_ms=wr_segs[0][0] if spoke else None, resolution_turn_id=r.turn_id,
    )

    during = overlapping(segments, q.start_ms, q.end_ms)
    onset = first_onset(segments, q.end_ms, answer_end)
    covering = speaking_at(segments, r.start_ms)
    common = dict(
        window_start_ms=q.start_ms, window_end_ms=obs_end, resolution_turn_id=r.turn_id,
        speech=overlapping(segments, q.start_ms, obs_end),
        speech_ms=speech_ms_in(segments, q.start_ms, obs_end),
    )
    stop: int | None = None
    passed: bool | None = None
    if during:
        onset = during[0][0]
        kind, reason = Kind.speaking_during_question, (
            f"not qualified: speech {during[0][0]}-{during[0][1]} ms overlaps the question "
            f"{q.start_ms}-{q.end_ms} ms"
        )
    elif onset is None:
        kind, reason = Kind.no_onset_in_window, (
            f"not qualified: no onset from the question end ({q.end_ms} ms) to {answer_end} ms"
        )
    elif covering is None:
        kind, reason = Kind.stopped_before_resolution, (
            f"not qualified: onset at {onset} ms but silent when the resolution started ({r.start_ms} ms)"
        )
    else:
        stop = covering[1]
        later = [s for s, _ in segments if stop <= s < obs_end]
        if stop > deadline:
            passed, kind, reason = False, Kind.not_stopped, (
                f"onset at {onset} ms; still speaking at the deadline {deadline} ms (resolution start "
                f"{r.start_ms} ms + {rules.yield_deadline_ms} ms); speech ran to {stop} ms"
            )
        elif later:
            passed, kind, reason = False, Kind.restarted, (
                f"onset at {onset} ms; stopped at {stop} ms (deadline {deadline} ms) but spoke again at "
                f"{later[0]} ms, before the observation window ended ({obs_end} ms)"
            )
        else:
            passed, kind, reason = True, Kind.yielded, (
                f"onset at {onset} ms; stopped at {stop} ms, {stop - r.start_ms} ms after the resolution "
                f"started (deadline {deadline} ms); silent until {obs_end} ms"
            )
    y = _base(
        d, q, Metric.yield_rate, counted=passed is not None, passed=passed, kind=kind, reason=reason,
        onset_ms=onset, stop_ms=stop, **common,
    )
    return [window, y]


def timing_items(d: Dialogue, segments: Sequence[Segment], rules: MpeRules = MpeRules()) -> list[Item]:
    """All timing items of one dialogue, in turn order."""
    items: list[Item] = []
    segs = sorted(segments)
    for i, turn in enumerate(d.turns):
        if turn.label == "T":
            items.extend(request_items(d, i, segs, rules))
        elif turn.label in SILENCE_LABELS:
            items.append(silence_item(d, i, segs))
        elif turn.label == "N4Q":
            items.extend(n4_items(d, i, segs, rules))
    return items
