"""The tool assertions of a conversation test, judged on one trial's calls beside its recording.

The calls come from the trial's ``tools.json`` (`floorbench.tools.records`),
moved onto the recording's clock (t = 0 at model.wav's first sample, the clock
of turns.json and of the agent's speech segments). Pure functions otherwise:
every result carries its measured value, passing or not, like every other
assertion (`floorbench.suites.agent.assertions.Result`).

Where a step carries a tool assertion, the calls it judges are those that
*started* in the step's span: from its clip's start to the start of the
caller's next turn (the end of the recording for the last). A test's
assertion judges every call. A tool assertion that needs a call and finds none
fails with ``no call``.

Timing, per call (start, end):

- ``dead_air_ms``: the longest silence — neither the agent nor the caller (its
  clips) speaking — that overlaps [start, end], measured whole: from the last
  speech before it to the next speech (the answer), both as heard in the room,
  so the agent's own path latency cancels; the agent's speech is cut at pauses
  of `yield_gap_ms` (300 ms), so a shorter pause is no dead air; the worst call
  counts. The call is timed where the agent made it, its speech where the room
  heard it, later by the agent's path (`agent_lag_ms`): the call is moved by
  that lag before the overlap is taken, and a silence must overlap it by more
  than `OVERLAP_SLACK_MS`. Otherwise an agent that says its filler as it makes
  the call would be charged the silence before the filler (its reply latency,
  which ends one path latency after the call began, as heard);
- ``filler_within_ms``: the agent was speaking at the call's start, or began
  within N ms after it;
- ``answers_within_ms``: the agent's first speech onset at or after the call's
  end is at most N ms after it (still speaking at the end: 0);
- ``waits_for_turn_end``: no call started inside the step's caller turn (from
  its clip's start to `END_PAD_MS` before its end).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from floorbench.suites.agent.assertions import turns
from floorbench.suites.agent.evidence import Evidence, Result, StepPlan, next_turn_start
from floorbench.suites.agent.rules import AgentRules, ToolCheck
from floorbench.tools.expect import ANY_TOOL, arguments_match, contains
from floorbench.tools.records import ToolCall

NO_CALL = "no call"
YIELD_GAP_MS = AgentRules.yield_gap_ms
"""the agent's speech is cut at pauses this long by default (`AgentRules.yield_gap_ms`; the scorer passes its own)"""
END_PAD_MS = 100
"""waits_for_turn_end: a call this close to a clip's end is after the turn (the clip ends with the voice's
50 ms pad of silence, and the clips are timed on the room's clock, the calls on the runner's)"""
OVERLAP_SLACK_MS = 100
"""dead_air_ms: a silence overlapping a call (moved by the agent's path) by no more than this is not the call's:
the agent began to speak as it made the call (a voice starts with silence, 50 ms for floorbench's voices, and
the path's latency varies by tens of ms from one reply to the next: 31–65 ms in one trial)"""


def _span(plan: Sequence[StepPlan], ev: Evidence, n: int) -> tuple[int, int] | None:
    p = ev.placed.get(n)
    return None if p is None else (p.start_ms, max(p.end_ms, next_turn_start(plan, ev, n)))


def _in(calls: Sequence[ToolCall], span: tuple[int, int] | None) -> list[ToolCall]:
    return list(calls) if span is None else [c for c in calls if span[0] <= c.start_ms < span[1]]


def _turn_end(plan: Sequence[StepPlan], ev: Evidence, n: int) -> int | None:
    """When the caller's turn that step `n` is part of ended (its last clip's end)."""
    for first, clips in turns(plan, ev):
        if first == n or any(c == ev.placed.get(n) for c in clips):
            return clips[-1].end_ms
    p = ev.placed.get(n)
    return None if p is None else p.end_ms


def _args(c: ToolCall) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in c.arguments.items())
    return text if len(text) <= 80 else text[:79] + "…"


def calls_tool(key: str, step: int | None, spec: Mapping[str, Any], calls: Sequence[ToolCall],
               anchor: int | None) -> Result:
    name, want = str(spec["name"]), dict(spec.get("arguments") or {})
    exact, within = spec.get("match") == "exact", spec.get("within_ms")
    expected = f"calls {name}" + (f" with {want}" if want else "") + (" (exactly)" if exact else "") + (
        f" within {within} ms of the turn's end" if within is not None else "")
    named = [c for c in calls if c.tool == name and (spec.get("after") is None or anchor is None
                                                       or c.start_ms >= anchor - 250)]
    if not calls:
        return Result(key, "calls_tool", step, expected, False, NO_CALL)
    if not named:
        others = ", ".join(sorted({c.tool for c in calls}))
        return Result(key, "calls_tool", step, expected, False, f"no call of {name} (called: {others})")
    good = [c for c in named if arguments_match(want, c.arguments, exact)]
    if not good:
        return Result(key, "calls_tool", step, expected, False, f"{name}({_args(named[0])}): arguments do not match")
    c = good[0]
    if within is None or anchor is None:
        return Result(key, "calls_tool", step, expected, True, f"{name}({_args(c)}) at {c.start_ms} ms",
                      None if anchor is None else float(c.start_ms - anchor))
    late = c.start_ms - anchor
    return Result(key, "calls_tool", step, expected, late <= int(within), f"{name}({_args(c)}) {late} ms after the turn",
                  float(late))


def no_tool_call(key: str, step: int | None, names: Sequence[str], calls: Sequence[ToolCall]) -> Result:
    anyone = ANY_TOOL in names
    hit = [c for c in calls if anyone or c.tool in names]
    expected = "no tool call" if anyone else "never calls " + ", ".join(names)
    if not hit:
        return Result(key, "no_tool_call", step, expected, True, "no call", 0.0)
    return Result(key, "no_tool_call", step, expected, False,
                  f"{len(hit)} call(s): {hit[0].tool}({_args(hit[0])}) at {hit[0].start_ms} ms", float(len(hit)))


def tool_order(names: Sequence[str], calls: Sequence[ToolCall]) -> Result:
    expected = "calls " + " then ".join(names)
    key = "test tool_order"
    if not calls:
        return Result(key, "tool_order", None, expected, False, NO_CALL)
    seq = [c.tool for c in calls]
    it = iter(seq)
    ok = all(any(x == want for x in it) for want in names)
    shown = " → ".join(seq[:12]) + (" …" if len(seq) > 12 else "")
    return Result(key, "tool_order", None, expected, ok, f"called {shown}")


def max_calls(limits: Mapping[str, int], calls: Sequence[ToolCall]) -> list[Result]:
    out = []
    for name, most in limits.items():
        n = len(calls) if name == ANY_TOOL else sum(c.tool == name for c in calls)
        what = "tool calls" if name == ANY_TOOL else f"calls of {name}"
        out.append(Result(f"test max_calls {name}", "max_calls", None, f"at most {most} {what}", n <= most,
                          f"{n} {what}", float(n)))
    return out


def final_state(spec: Mapping[str, Any], state: Mapping[str, Any] | None, calls: Sequence[ToolCall]) -> Result:
    how, want = next(iter(spec.items()))
    expected = f"the state {how} {want}"
    key = "test final_state"
    if state is None:
        return Result(key, "final_state", None, expected, False, "no tools.json (the mock's record is missing)")
    ok = dict(state) == want if how == "equals" else contains(want, dict(state))
    shown = str(dict(state))
    shown = shown if len(shown) <= 120 else shown[:119] + "…"
    return Result(key, "final_state", None, expected, ok, ("" if calls else NO_CALL + "; ") + f"state {shown}")


def _busy(ev: Evidence) -> list[tuple[int, int]]:
    """Who spoke when: the agent's speech and the caller's clips, merged."""
    spans = sorted([*ev.fine, *((p.start_ms, p.end_ms) for p in ev.placed.values())])
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def dead_air(ev: Evidence, c: ToolCall, lag_ms: int = 0) -> int:
    """The longest silence (nobody speaking) that overlaps the call's run, whole: from the last speech before
    it to the next (the end of the recording if nobody spoke again). The run is moved by `lag_ms` (the agent's
    path to the room) onto the clock its speech is heard on, and must overlap a silence by more than
    `OVERLAP_SLACK_MS`."""
    start, end = c.start_ms + lag_ms, c.end_ms + lag_ms
    worst, prev = 0, 0
    for s, e in [*_busy(ev), (ev.duration_ms, ev.duration_ms)]:
        if s > prev and min(s, end) - max(prev, start) > OVERLAP_SLACK_MS:  # [prev, s) overlaps [start, end)
            worst = max(worst, s - prev)
        prev = max(prev, e)
        if prev >= end and s >= end:
            break
    return worst


def agent_lag_ms(meta: Any) -> int:
    """The agent's path to the room as measured in the trial (meta.json ``transport_latency_ms``): the agent's
    own record of what it sent against the recording (``model_to_room``, floorbench's own agents); else the
    caller's path through the same room (``humans_sent``); else 0."""
    legs = getattr(meta, "transport_latency_ms", None) or {}
    for leg in ("model_to_room", "humans_sent"):
        us = (legs.get(leg) or {}).get("p50_us")
        if isinstance(us, int | float) and 0 <= us < 10_000_000:
            return round(us / 1000)
    return 0


def timing(check: ToolCheck, key: str, step: int | None, limit: int, ev: Evidence,
           calls: Sequence[ToolCall], lag_ms: int = 0) -> Result:
    expected = {ToolCheck.dead_air_ms: f"≤ {limit} ms of dead air while a tool runs",
                ToolCheck.filler_within_ms: f"speaks within {limit} ms of a tool starting",
                ToolCheck.answers_within_ms: f"speaks within {limit} ms of a tool returning"}[check]
    if not calls:
        return Result(key, check.value, step, expected, False, NO_CALL)
    worst, at = -1, calls[0]
    for c in calls:
        if check is ToolCheck.dead_air_ms:
            v = dead_air(ev, c, lag_ms)
        elif check is ToolCheck.filler_within_ms:
            v = _onset_from(ev.segments, c.start_ms, ev.duration_ms)
        else:
            v = _onset_from(ev.fine, c.end_ms, ev.duration_ms)
        if v > worst:
            worst, at = v, c
    if worst >= 10**9:
        return Result(key, check.value, step, expected, False, f"the agent did not speak after {at.tool} "
                      f"{'started' if check is ToolCheck.filler_within_ms else 'returned'}")
    return Result(key, check.value, step, expected, worst <= limit, f"{worst} ms ({at.tool}, call {at.n})", float(worst))


def _onset_from(segments: Sequence[tuple[int, int]], t: int, duration: int) -> int:
    """ms from `t` to the agent's speech: 0 if speaking at `t`, else its next onset (huge: none)."""
    if any(s <= t < e for s, e in segments):
        return 0
    nxt = next((s for s, _ in segments if s >= t), None)
    return 10**9 if nxt is None or nxt > duration else nxt - t


def waits_for_turn_end(plan: Sequence[StepPlan], ev: Evidence, n: int, calls: Sequence[ToolCall]) -> Result:
    key, expected = f"step {n} waits_for_turn_end", "no call before the caller's turn ended"
    p, end = ev.placed.get(n), _turn_end(plan, ev, n)
    if p is None or end is None:
        return Result(key, "waits_for_turn_end", n, expected, False, "not played")
    early = [c for c in calls if p.start_ms <= c.start_ms < end - END_PAD_MS]
    if not early:
        return Result(key, "waits_for_turn_end", n, expected, True, "no call during the turn", 0.0)
    c = early[0]
    return Result(key, "waits_for_turn_end", n, expected, False,
                  f"{c.tool} started {c.start_ms - p.start_ms} ms into the turn, {end - c.start_ms} ms before its end",
                  float(end - c.start_ms))


def evaluate(plan: Sequence[StepPlan], test_expect: Mapping[str, Any], ev: Evidence, calls: Sequence[ToolCall],
             state: Mapping[str, Any] | None, lag_ms: int = 0) -> list[Result]:
    """Every tool assertion of one trial: the steps' in step order, then the test's (`lag_ms`: `agent_lag_ms`)."""
    out: list[Result] = []
    timed = (ToolCheck.dead_air_ms, ToolCheck.filler_within_ms, ToolCheck.answers_within_ms)
    for st in plan:
        e, n = st.expect, st.n
        if n in ev.skipped or not any(c.value in e for c in ToolCheck):
            continue
        mine = _in(calls, _span(plan, ev, n))
        for i, spec in enumerate(e.get(ToolCheck.calls_tool) or []):
            out.append(calls_tool(f"step {n} calls_tool {i + 1}", n, spec, mine, _turn_end(plan, ev, n)))
        if ToolCheck.no_tool_call in e:
            out.append(no_tool_call(f"step {n} no_tool_call", n, e[ToolCheck.no_tool_call], mine))
        for check in timed:
            if check in e:
                out.append(timing(check, f"step {n} {check.value}", n, int(e[check]), ev, mine, lag_ms))
        if ToolCheck.waits_for_turn_end in e:
            out.append(waits_for_turn_end(plan, ev, n, calls))
    te = test_expect
    for i, spec in enumerate(te.get(ToolCheck.calls_tool) or []):
        after = spec.get("after")
        anchor = _turn_end(plan, ev, int(after)) if after is not None else None
        out.append(calls_tool(f"test calls_tool {i + 1}", None, spec, calls, anchor))
    if ToolCheck.no_tool_call in te:
        out.append(no_tool_call("test no_tool_call", None, te[ToolCheck.no_tool_call], calls))
    if ToolCheck.tool_order in te:
        out.append(tool_order(te[ToolCheck.tool_order], calls))
    if ToolCheck.max_calls in te:
        out += max_calls(te[ToolCheck.max_calls], calls)
    if ToolCheck.final_state in te:
        out.append(final_state(te[ToolCheck.final_state], state, calls))
    for check in timed:
        if check in te:
            out.append(timing(check, f"test {check.value}", None, int(te[check]), ev, calls, lag_ms))
    return out


def refined_speech(ev: Evidence, model_wav: Any, bridge_ms: int = YIELD_GAP_MS) -> Evidence:
    """The evidence with each of the agent's fine speech runs from its first speech sample to its last, at the
    energy edge (`floorbench.audio.edges.speech_edge`), quieter gaps under `bridge_ms` bridged: the edges of a
    silence for `dead_air_ms` and `answers_within_ms`, by the rule the silence itself is cut by (pauses under
    `yield_gap_ms` are speech). Silero calls speech a window or two after it began; and a word's last stop
    may be released about 100 ms after its closure (Piper's "check"), where the stops' own 100 ms bridge
    ends the word at the closure for one synthesis and at the release for the next (3 of 25 read 108 ms
    early). A run the recording cut keeps its end."""
    from dataclasses import replace

    from floorbench.audio.edges import EDGE_RULES, speech_edge
    from floorbench.scoring.inputs import read_model_track
    from floorbench.suites.agent.timing import CUT_MS, RATE

    audio = read_model_track(model_wav)[0]
    rules = replace(EDGE_RULES, bridge_ms=bridge_ms)
    ms = RATE // 1000
    out: list[tuple[int, int]] = []
    for i, (s, e) in enumerate(ev.fine):
        lo = out[-1][1] if out else 0
        nxt = ev.fine[i + 1][0] if i + 1 < len(ev.fine) else ev.duration_ms
        start = round(speech_edge(audio, RATE, s * ms, "onset", lo=lo * ms, hi=e * ms, rules=rules) / ms)
        end = e if e >= ev.duration_ms - CUT_MS else round(
            speech_edge(audio, RATE, e * ms, "offset", lo=s * ms, hi=nxt * ms, rules=rules) / ms)
        start = min(max(start, lo), e - 1)
        out.append((start, max(start + 1, end)))
    return replace(ev, fine=out)


def judge_trial(folder: Any, meta: Any, plan: Sequence[StepPlan], test_expect: Mapping[str, Any],
                ev: Evidence, yield_gap_ms: int = YIELD_GAP_MS) -> tuple[list[Result], dict[str, Any] | None]:
    """The tool assertions of the trial in `folder` (its tools.json, its meta.json's model track) and what the
    trial's results keep of its calls (None: the test declares no tools). `yield_gap_ms` is the gap the
    evidence's fine speech runs were cut at: the speech's edges are bridged by the same rule."""
    from floorbench.tools.records import on_model_clock, read_tools

    rec = read_tools(folder)
    uses = any(c.value in test_expect for c in ToolCheck) or any(
        c.value in st.expect for st in plan for c in ToolCheck)
    if rec is None and not uses:
        return [], None
    track = (meta.tracks.get("model") if meta is not None else None)
    start = track.start_ns // 1_000_000 if track is not None else 0
    calls = on_model_clock(rec.calls, start) if rec is not None else []
    if calls and (folder / "model.wav").is_file():
        ev = refined_speech(ev, folder / "model.wav", yield_gap_ms)
    results = evaluate(plan, test_expect, ev, calls, rec.state if rec is not None else None, agent_lag_ms(meta))
    kept = {"calls": [c.model_dump(mode="json") for c in calls], "state": rec.state if rec is not None else None,
            "clock": "recording" if track is not None else "session"}
    return results, kept
