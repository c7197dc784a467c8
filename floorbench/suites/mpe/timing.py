"""The timing rules of suite mpe (docs/suites/mpe.md), applied to VAD speech segments.

The numbers are `floorbench.suites.mpe.rules.MpeRules`, the record the live schedule
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from floorbench.records import DialogueTurn
from floorbench.suites.mpe.items import Item, Kind, Metric
from floorbench.suites.mpe.rules import MpeRules

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
    """how far the recording reaches (model.wav's length, or less where turns.json's
    ``model_wav_end_ms`` says so); the window of a last turn ends here, and an
    item whose decision needs audio past it is `unscorable`"""


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


def _needed_end(turns: Sequence[DialogueTurn], i: int, rules: MpeRules) -> int:
    """Where the recording must reach for the window of turn `i` to be whole.

    The next turn's start; for the last turn, the start a next turn would have
    had (its end + the turn gap), since its window otherwise ends with the file.
    """
    return turns[i + 1].start_ms if i + 1 < len(turns) else turns[i].end_ms + rules.turn_gap_ms


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


def _unscorable(
    d: Dialogue, turn: DialogueTurn, metric: Metric, need_ms: int, what: str, **kw: object
) -> Item:
    """An item the recording does not cover: neither pass nor fail, in no denominator."""
    return _base(
        d, turn, metric, counted=False, passed=None, kind=Kind.unscorable,
        reason=f"unscorable: model.wav ends at {d.duration_ms} ms, before {what} ({need_ms} ms)", **kw,
    )


def _response_closed(d: Dialogue, i: int, stop: int, rules: MpeRules) -> int | None:
    """None when the recording shows where the response ended, else the time it must reach.

    The response is closed by the next turn (its window's end) or by
    `endpoint_ms` of silence after its last speech.
    """
    need = stop + rules.endpoint_ms
    if i + 1 < len(d.turns):
        need = min(need, d.turns[i + 1].start_ms)
    return None if d.duration_ms >= need else need


def _onset_kind(
    r_end: int, ongoing: Segment | None, onset: int | None, fresh: bool, onset_need: int, rules: MpeRules
) -> tuple[Kind, str]:
    """What happened at a request end: already speaking, a fresh or late onset, or none."""
    if ongoing:
        return Kind.already_speaking, (
            f"already speaking at the request end ({r_end} ms): segment {ongoing[0]}-{ongoing[1]} ms "
            "started before it"
        )
    if onset is None:
        return Kind.no_onset, f"no speech from the request end ({r_end} ms) to {onset_need} ms"
    return (Kind.fresh_onset if fresh else Kind.late_onset), (
        f"silent at the request end ({r_end} ms); {'onset' if fresh else 'first onset'} at {onset} ms, "
        f"{onset - r_end} ms later (limit {rules.onset_window_ms} ms)"
    )


def request_items(
    d: Dialogue, i: int, segments: Sequence[Segment], rules: MpeRules
) -> list[Item]:
    """Fresh onset, response presence and (pending content) accuracy for the T at index `i`.

    Presence is a fresh onset (within `onset_window_ms`) or speech already
    running at the request end, so presence - fresh onset = already speaking.
    A later onset is `late_onset`: outside presence and accuracy.
    """
    turn = d.turns[i]
    r_end = turn.end_ms
    w_end = max(_window_end(d.turns, i, d.duration_ms), r_end)
    common = dict(
        window_start_ms=r_end,
        window_end_ms=w_end,
        speech=overlapping(segments, r_end, w_end),
        speech_ms=speech_ms_in(segments, r_end, w_end),
        turn_index=i,
        n_turns=len(d.turns),
    )
    limit = min(r_end + rules.onset_window_ms, w_end - 1)
    ongoing = speaking_at(segments, r_end)
    onset = None if ongoing else first_onset(segments, r_end, w_end - 1)
    fresh = onset is not None and onset <= limit
    resp_from = ongoing[0] if ongoing else onset
    stop = (
        response_end(segments, max(resp_from, r_end), w_end, rules.endpoint_ms)
        if resp_from is not None
        else None
    )
    onset_need = r_end + rules.onset_window_ms
    if i + 1 < len(d.turns):
        onset_need = min(onset_need, d.turns[i + 1].start_ms)
    if not ongoing and onset is None and d.duration_ms < onset_need:
        what = "the onset window closes"
        return [
            _unscorable(d, turn, m, onset_need, what, gold=turn.gold if m is Metric.conditional_accuracy else None,
                        **common)
            for m in (Metric.fresh_onset_rate, Metric.response_presence, Metric.conditional_accuracy)
        ]

    kind, fresh_reason = _onset_kind(r_end, ongoing, onset, fresh, onset_need, rules)
    fresh_item = _base(
        d, turn, Metric.fresh_onset_rate, counted=True, passed=kind is Kind.fresh_onset, kind=kind,
        reason=fresh_reason, onset_ms=onset, stop_ms=stop, **common,
    )
    present = kind in (Kind.fresh_onset, Kind.already_speaking)
    p_kind, p_reason = {
        Kind.already_speaking: (
            Kind.continued, f"speech continued across the request end ({r_end} ms) into the response window"
        ),
        Kind.fresh_onset: (Kind.responded, f"onset at {onset} ms, within {rules.onset_window_ms} ms"),
        Kind.late_onset: (
            Kind.late_onset,
            f"onset at {onset} ms, later than {rules.onset_window_ms} ms after the request end: late onset, "
            "not presence",
        ),
        Kind.no_onset: (Kind.no_speech, fresh_reason),
    }[kind]
    presence = _base(
        d, turn, Metric.response_presence, counted=True, passed=present, kind=p_kind,
        reason=p_reason, onset_ms=onset, stop_ms=stop, **common,
    )
    return [fresh_item, presence, _accuracy_item(d, i, stop if present else None, p_kind, onset, rules, common)]


def _accuracy_item(
    d: Dialogue, i: int, stop: int | None, p_kind: Kind, onset: int | None, rules: MpeRules,
    common: Mapping[str, object],
) -> Item:
    """Conditional accuracy of the T at index `i`: pending content when there was presence."""
    turn = d.turns[i]
    if stop is None:
        why = "late onset" if p_kind is Kind.late_onset else "no response presence"
        return _base(
            d, turn, Metric.conditional_accuracy, counted=False, passed=None, kind=p_kind,
            reason=f"not counted: {why}", gold=turn.gold, onset_ms=onset, **common,
        )
    need = _response_closed(d, i, stop, rules)
    if need is not None:
        return _unscorable(
            d, turn, Metric.conditional_accuracy, need, f"the response that ran to {stop} ms is closed",
            gold=turn.gold, onset_ms=onset, stop_ms=stop, **common,
        )
    return _base(
        d, turn, Metric.conditional_accuracy, counted=True, passed=None,
        kind=Kind.empty_transcript, reason="not transcribed yet", gold=turn.gold,
        onset_ms=onset, stop_ms=stop, needs_transcript=True, **common,
    )


def silence_item(d: Dialogue, i: int, segments: Sequence[Segment], rules: MpeRules = MpeRules()) -> Item:
    """Silence keeping for the N1/N2/N3 turn at index `i` (content pending when there is speech)."""
    turn = d.turns[i]
    w_start = turn.start_ms
    w_end = max(_window_end(d.turns, i, d.duration_ms), turn.end_ms)
    in_window = overlapping(segments, w_start, w_end)
    spoken = speech_ms_in(segments, w_start, w_end)
    common = dict(window_start_ms=w_start, window_end_ms=w_end, speech=in_window, speech_ms=spoken)
    need = _needed_end(d.turns, i, rules)
    if d.duration_ms < need:
        return _unscorable(d, turn, Metric.silence_keeping, need, "the silence window ends", **common)
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
    wr_segs = [(s, e) for s, e in segments if s <= answer_end and e > q.start_ms]
    spoke = bool(wr_segs)
    wcommon = dict(
        window_start_ms=q.start_ms, window_end_ms=answer_end, speech=wr_segs,
        speech_ms=speech_ms_in(segments, q.start_ms, answer_end), resolution_turn_id=r.turn_id,
    )
    if not spoke and d.duration_ms < answer_end:
        window = _unscorable(d, q, Metric.window_response, answer_end, "the N4 window ends", **wcommon)
    else:
        window = _base(
            d, q, Metric.window_response, counted=True, passed=spoke,
            kind=Kind.spoke_in_window if spoke else Kind.silent_in_window,
            reason=(
                f"speech {wr_segs[0][0]}-{wr_segs[0][1]} ms in {q.start_ms}-{answer_end} ms"
                if spoke
                else f"no speech from the question start ({q.start_ms} ms) to {answer_end} ms"
            ),
            onset_ms=wr_segs[0][0] if spoke else None, **wcommon,
        )
    return [window, _yield_item(d, i, segments, rules)]


def _yield_item(d: Dialogue, i: int, segments: Sequence[Segment], rules: MpeRules) -> Item:
    """Yield for the N4Q at index `i`; unscorable where the recording ends before the decision."""
    q, r = d.turns[i], d.turns[i + 1]
    answer_end = q.end_ms + rules.n4_window_ms
    deadline = r.start_ms + rules.yield_deadline_ms
    obs_end = max(deadline, _window_end(d.turns, i + 1, d.duration_ms))
    obs_need = max(deadline, _needed_end(d.turns, i + 1, rules))
    common = dict(
        window_start_ms=q.start_ms, window_end_ms=obs_end, resolution_turn_id=r.turn_id,
        speech=overlapping(segments, q.start_ms, obs_end),
        speech_ms=speech_ms_in(segments, q.start_ms, obs_end),
    )
    during = overlapping(segments, q.start_ms, q.end_ms)
    onset = first_onset(segments, q.end_ms, answer_end)
    covering = speaking_at(segments, r.start_ms)
    stop: int | None = None
    passed: bool | None = None
    need: tuple[int, str] | None = None
    if during:
        onset = during[0][0]
        kind, reason = Kind.speaking_during_question, (
            f"not qualified: speech {during[0][0]}-{during[0][1]} ms overlaps the question "
            f"{q.start_ms}-{q.end_ms} ms"
        )
    elif onset is None:
        need = (answer_end, "the N4 window ends")
        kind, reason = Kind.no_onset_in_window, (
            f"not qualified: no onset from the question end ({q.end_ms} ms) to {answer_end} ms"
        )
    elif covering is None:
        need = (r.start_ms + 1, "the resolution starts")
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
            need = (obs_need, "the observation window ends")
            passed, kind, reason = True, Kind.yielded, (
                f"onset at {onset} ms; stopped at {stop} ms, {stop - r.start_ms} ms after the resolution "
                f"started (deadline {deadline} ms); silent until {obs_end} ms"
            )
    if need is not None and d.duration_ms < need[0]:
        return _unscorable(d, q, Metric.yield_rate, need[0], need[1], onset_ms=onset, stop_ms=stop, **common)
    return _base(
        d, q, Metric.yield_rate, counted=passed is not None, passed=passed, kind=kind, reason=reason,
        onset_ms=onset, stop_ms=stop, **common,
    )


def timing_items(d: Dialogue, segments: Sequence[Segment], rules: MpeRules = MpeRules()) -> list[Item]:
    """All timing items of one dialogue, in turn order."""
    items: list[Item] = []
    segs = sorted(segments)
    for i, turn in enumerate(d.turns):
        if turn.label == "T":
            items.extend(request_items(d, i, segs, rules))
        elif turn.label in SILENCE_LABELS:
            items.append(silence_item(d, i, segs, rules))
        elif turn.label == "N4Q":
            items.extend(n4_items(d, i, segs, rules))
    return items


def check_turns(turns: Sequence[DialogueTurn]) -> str | None:
    """Suite mpe's part `check_turns`: the turn rules its timing relies on, beyond what every suite's turns.json
    keeps; the first broken one as "turn N: …" (the engine names the file), or None. `turns` are in time order."""
    for i, t in enumerate(turns):
        where = f"turn {t.turn_id}"
        if t.label == "T" and not (t.gold or "").strip():
            return f"{where}: a T turn needs a 'gold' answer"
        if t.label == "N4Q" and (i + 1 >= len(turns) or turns[i + 1].label != "N4R"):
            return f"{where}: an N4Q must be followed immediately by its N4R"
        if t.label == "N4R" and (i == 0 or turns[i - 1].label != "N4Q"):
            return f"{where}: an N4R must follow its N4Q immediately"
    return None
