"""The assertions of a conversation test, judged on one trial's evidence: pure functions, no files.

Inputs are what scoring reads from a run folder (docs/testing.md "How each
assertion is measured"): the steps and their expectations (meta.json
``schedule``), where each caller clip was heard on the model's clock
(turns.json) and where its speech starts and ends as sent (past the voice's
pads), which timed steps the schedule did not play (timeline.jsonl), the
agent's speech segments from model.wav ([start_ms, end_ms), VAD with the
shared rules, and a finer cut with `yield_gap_ms` for barge-ins; each end at
the last speech sample: `floorbench.suites.agent.timing`), and the ASR text
of the agent's speech in each content window. Every result carries the
measured value, passing or not. A yield and a backchannel are timed from the
caller's first speech sample (and a backchannel's last) to the agent's stop.

Windows, on the model's clock:

- a step's *reply window*: from its clip's end (less `early_ms`) to the start
  of the next say or barge_in clip, or the end of the recording; a silence
  step's window is the silence itself;
- a caller *turn*: a say (or a branch's line) with the says that continue it
  after a pause (`pause_ms`), or a barge-in.

A branch step's clip is the line it chose (the timeline's ``branch`` line);
a step a branch's ``goto`` jumped over was not on the trial's path, so its
assertions are not judged in that trial (the trial lists it as skipped).

The records judged (`StepPlan`, `Placed`, `Evidence`, `Result`) are in
`floorbench.suites.agent.evidence`, which the persona judge reads too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from floorbench.audio.sounds import SoundRules
from floorbench.readers import search
from floorbench.suites.agent import persona_judge
from floorbench.suites.agent.evidence import (
    END_SLACK_MS,
    NOT_PLAYED,
    Evidence,
    Placed,
    Result,
    Segment,
    StepPlan,
    next_turn_start,
)
from floorbench.suites.agent.evidence import asserted as asserted  # the scorer reads it from here
from floorbench.suites.agent.rules import CONTENT, SAYS, TURN_ENDS, AgentRules, Check, StepKind
from floorbench.suites.agent.words import says

TEXT_SHOWN = 80

# -- windows -----------------------------------------------------------------------------------


def reply_window(plan: Sequence[StepPlan], ev: Evidence, n: int, rules: AgentRules) -> tuple[int, int] | None:
    """Step `n`'s reply window (None: its clip was not played)."""
    p = ev.placed.get(n)
    if p is None:
        return None
    if plan[n - 1].kind is StepKind.silence:
        return p.start_ms, p.end_ms
    if n in ev.lines:  # a persona's conversation: from its first line to the caller's next turn
        return p.start_ms, max(p.end_ms, next_turn_start(plan, ev, n))
    return max(0, p.end_ms - rules.early_ms), max(p.end_ms, next_turn_start(plan, ev, n))


def content_windows(plan: Sequence[StepPlan], ev: Evidence, test_expect: Mapping[str, Any],
                    rules: AgentRules) -> dict[str, tuple[int, int]]:
    """The windows whose agent speech needs a transcript: ``step N`` and ``test`` (the whole call)."""
    out: dict[str, tuple[int, int]] = {}
    for st in plan:
        if any(c.value in st.expect for c in CONTENT):
            w = reply_window(plan, ev, st.n, rules)
            if w is not None:
                out[f"step {st.n}"] = w
    if any(c.value in test_expect for c in CONTENT):
        out["test"] = (0, ev.duration_ms)
    return out


SOUND_RULES = SoundRules()


def loud_sound(ev: Evidence, lo: int, hi: int) -> tuple[int, int] | None:
    """(ms, start ms) of the non-speech sound inside [lo, hi) when it lasts at least `SoundRules.min_ms`."""
    parts = speech_in(ev.sounds, lo, hi)
    ms = sum(e - s for s, e in parts)
    return (ms, parts[0][0]) if parts and ms >= SOUND_RULES.min_ms else None


def speech_in(segments: Sequence[Segment], lo: int, hi: int) -> list[Segment]:
    """The parts of `segments` inside [lo, hi)."""
    return [(max(s, lo), min(e, hi)) for s, e in segments if e > lo and s < hi]


def turns(plan: Sequence[StepPlan], ev: Evidence) -> list[tuple[int, list[Placed]]]:
    """The caller's turns as heard: (first step, its clips); a say continued after a pause joins its turn."""
    out: list[tuple[int, list[Placed]]] = []
    for st in plan:
        p = ev.placed.get(st.n)
        if p is None or st.kind not in TURN_ENDS:
            continue
        if st.n in ev.lines:  # each persona line is a turn of its own
            out += [(st.n, [line]) for line in ev.lines[st.n]]
        elif st.kind is StepKind.say and st.pause_ms is not None and out:
            out[-1][1].append(p)
        else:
            out.append((st.n, [p]))
    return out


def continued(plan: Sequence[StepPlan], n: int) -> bool:
    nxt = plan[n] if n < len(plan) else None
    return nxt is not None and nxt.kind is StepKind.say and nxt.pause_ms is not None


# -- the timing assertions ---------------------------------------------------------------------


def response_latency(plan: Sequence[StepPlan], ev: Evidence, n: int, rules: AgentRules) -> tuple[int | None, str]:
    """(latency ms, measured text) of the agent's response to step `n`'s end of turn."""
    w = reply_window(plan, ev, n, rules)
    if w is None:
        return None, NOT_PLAYED
    end = ev.placed[n].end_ms
    segs = ev.fine if plan[n - 1].kind is StepKind.barge_in else ev.segments
    onset = next((s for s, _ in segs if w[0] <= s < w[1]), None)
    if onset is not None:
        return onset - end, f"{onset - end} ms"
    if any(s < w[0] and e > end for s, e in segs):
        return None, "no response (the agent was still speaking from before)"
    return None, "no response"


def responds_within(plan: Sequence[StepPlan], ev: Evidence, n: int, limit: int, rules: AgentRules) -> Result:
    lat, text = response_latency(plan, ev, n, rules)
    return Result(f"step {n} responds_within_ms", "responds_within_ms", n, f"≤ {limit} ms",
                  lat is not None and lat <= limit, text, None if lat is None else float(lat))


def overlap_of(ev: Evidence, clips: Sequence[Placed]) -> int:
    """The most ms one agent segment that began during a caller turn spoke over the caller's clips."""
    lo, hi = clips[0].start_ms, clips[-1].end_ms
    worst = 0
    for s, e in ev.segments:
        if lo <= s < hi:
            worst = max(worst, sum(max(0, min(e, c.end_ms) - max(s, c.start_ms)) for c in clips))
    return worst


def no_overlap(plan: Sequence[StepPlan], ev: Evidence, limit: int, step: int | None = None) -> Result:
    key = f"step {step} no_overlap_ms" if step is not None else "test no_overlap_ms"
    groups = [(first, clips) for first, clips in turns(plan, ev)
              if step is None or first == step or any(c == ev.placed.get(step) for c in clips)]
    if step is not None and not groups:
        return Result(key, "no_overlap_ms", step, f"≤ {limit} ms", False, NOT_PLAYED)
    worst, at = 0, None
    for first, clips in groups:
        o = overlap_of(ev, clips)
        if o > worst:
            worst, at = o, first
    measured = f"{worst} ms" + (f" (the caller's turn at step {at})" if at is not None else "")
    return Result(key, "no_overlap_ms", step, f"≤ {limit} ms", worst <= limit, measured, float(worst))


def _covering(segments: Sequence[Segment], t: int) -> Segment | None:
    return next(((s, e) for s, e in segments if s <= t < e), None)


def stop_after(ev: Evidence, t: int, gap_ms: int) -> int | None:
    """When the agent, holding the floor at `t`, stopped: None if it was not holding it.

    It holds the floor at `t` if a speech segment (pauses under 800 ms merged) covers `t`, or
    ended less than `gap_ms` before it (a pause between two sentences); it has stopped at the end
    of its run of speech (pauses of `gap_ms` cut) still going at `t` — or, if it was pausing at
    `t`, at `t` itself, unless it went on inside that segment: then at the end of the run it went
    on with.
    """
    held = _covering(ev.segments, t) or next(((s, e) for s, e in ev.segments if t - gap_ms < e <= t), None)
    if held is None:
        return None
    runs = [(s, e) for s, e in ev.fine if s < held[1] and e > held[0]]
    going = next(((s, e) for s, e in runs if s <= t < e), None)
    if going is not None:
        return going[1]
    later = next(((s, e) for s, e in runs if s > t), None)
    return t if later is None else later[1]


def yields_within(plan: Sequence[StepPlan], ev: Evidence, n: int, limit: int, rules: AgentRules) -> Result:
    def res(passed: bool, text: str, value: float | None = None) -> Result:
        return Result(f"step {n} yields_within_ms", "yields_within_ms", n, f"≤ {limit} ms", passed, text, value)

    p = ev.placed.get(n)
    if p is None:
        return res(False, NOT_PLAYED)
    start = p.speech_from  # the caller's first speech sample, not the clip's padded start
    stop = stop_after(ev, start, rules.yield_gap_ms)
    if stop is None:
        before = [e for _, e in ev.segments if e <= start]
        ago = f" (its speech ended {start - max(before)} ms before)" if before else ""
        return res(False, "the agent was not speaking when the barge-in started" + ago)
    if stop >= ev.duration_ms - END_SLACK_MS:
        return res(False, "did not stop (still speaking when the recording ended)")
    took = stop - start
    sound = loud_sound(ev, stop, max(p.end_ms, stop + SOUND_RULES.min_ms))
    if sound is not None:  # stopped speaking, not sounding: the caller still cannot be heard
        return res(False, f"speech stopped after {took} ms, then {sound[0]} ms of loud non-speech sound while "
                          "the caller spoke", float(took))
    return res(took <= limit, f"{took} ms", float(took))


def keeps_talking(plan: Sequence[StepPlan], ev: Evidence, n: int, keep_ms: int) -> Result:
    def res(passed: bool, text: str, value: float | None = None) -> Result:
        return Result(f"step {n} keeps_talking", "keeps_talking", n, f"still speaking {keep_ms} ms after it",
                      passed, text, value)

    p = ev.placed.get(n)
    if p is None:
        return res(False, NOT_PLAYED)
    seg = _covering(ev.segments, p.speech_from)  # from its first speech sample to its last, as sent
    if seg is None:
        return res(False, "the agent was not speaking when the backchannel started")
    if seg[1] >= ev.duration_ms - END_SLACK_MS:
        return res(True, "kept talking to the end of the recording", float(seg[1] - p.speech_to))
    past = seg[1] - p.speech_to
    if past < 0:
        return res(False, f"stopped {seg[1] - p.speech_from} ms into it", float(past))
    return res(past >= keep_ms, f"kept talking {past} ms past it" if past >= keep_ms else f"stopped {past} ms after it",
               float(past))


def silent(plan: Sequence[StepPlan], ev: Evidence, n: int, window: Mapping[str, Any], rules: AgentRules) -> Result:
    after, span = int(window.get("after_ms") or 0), window.get("for_ms")
    expected = "no speech in the step's window" + (f" from +{after} ms" if after else "") + (
        f" for {span} ms" if span is not None else "")

    def res(passed: bool, text: str, value: float | None = None) -> Result:
        return Result(f"step {n} silent", "silent", n, expected, passed, text, value)

    w = reply_window(plan, ev, n, rules)
    if w is None:
        return res(False, NOT_PLAYED)
    p = ev.placed[n]
    base = p.start_ms if plan[n - 1].kind is StepKind.silence else p.end_ms
    lo = base + after
    hi = w[1] if span is None else min(w[1], lo + int(span))
    spoken = speech_in(ev.segments, lo, hi)
    if not spoken:
        sound = loud_sound(ev, lo, hi)
        if sound is not None:
            ms, at = sound
            return res(False, f"no speech, but {ms} ms of loud non-speech sound (from +{at - base} ms): "
                              "not silence", float(ms))
        return res(True, f"silent for {max(0, hi - lo)} ms", 0.0)
    ms = sum(e - s for s, e in spoken)
    return res(False, f"spoke {ms} ms (from +{spoken[0][0] - base} ms)", float(ms))


def nearest_rank(values: Sequence[float], pct: int) -> float:
    """The `pct`-th percentile by nearest rank (a missing response, `inf`, counts as the slowest)."""
    xs = sorted(values)
    return xs[max(0, math.ceil(pct / 100 * len(xs)) - 1)]


def measured_turns(plan: Sequence[StepPlan]) -> list[int]:
    """The steps whose response latency counts for the latency percentiles: says that end the caller's
    turn and expect an answer (no `silent`)."""
    return [st.n for i, st in enumerate(plan) if st.kind in SAYS and not continued(plan, i + 1)
            and "silent" not in st.expect]


def latencies(plan: Sequence[StepPlan], ev: Evidence, rules: AgentRules) -> list[int | None]:
    """The response latency of each measured turn on the trial's path (None: no response or not played)."""
    out: list[int | None] = []
    for st in plan:
        if st.n in ev.skipped:
            continue
        if st.kind is StepKind.persona:
            out += persona_judge.latencies(plan, ev, st.n, rules)
        elif st.n in measured_turns(plan):
            out.append(response_latency(plan, ev, st.n, rules)[0])
    return out


def latency_percentile(plan: Sequence[StepPlan], ev: Evidence, pct: int, limit: int, rules: AgentRules) -> Result:
    check = f"latency_p{pct}_ms"
    lat = latencies(plan, ev, rules)
    key = f"test {check}"
    if not lat:
        return Result(key, check, None, f"p{pct} ≤ {limit} ms", False, "no caller turn to measure")
    v = nearest_rank([math.inf if x is None else float(x) for x in lat], pct)
    missing = sum(x is None for x in lat)
    if math.isinf(v):
        return Result(key, check, None, f"p{pct} ≤ {limit} ms", False,
                      f"no response ({missing} of {len(lat)} turns unanswered)")
    return Result(key, check, None, f"p{pct} ≤ {limit} ms", v <= limit, f"p{pct} {int(v)} ms over {len(lat)} turns", v)


# -- the content assertions --------------------------------------------------------------------


def heard(text: str) -> str:
    t = " ".join(text.split())
    if not t:
        return "heard nothing"
    return f'heard "{t[:TEXT_SHOWN]}{"…" if len(t) > TEXT_SHOWN else ""}"'


def content(key: str, step: int | None, expect: Mapping[str, Any], text: str | None,
            language: str | None = None) -> list[Result]:
    """contains / matches / not_contains on the words of one window (None: the step was not played)."""
    out: list[Result] = []

    def add(check: str, expected: str, passed: bool) -> None:
        out.append(Result(f"{key} {check}", check, step, expected, passed, NOT_PLAYED if text is None else heard(text)))

    words = list(expect.get("contains") or [])
    if words:
        add("contains", "says " + ", ".join(f'"{w}"' for w in words), text is not None and all(says(text, w, language) for w in words))
    if expect.get("matches"):
        pattern = str(expect["matches"])
        found = None if text is None else search(pattern, text)  # None: undecided within the time limit
        add("matches", f"matches /{pattern}/" + (" (timed out: counted as no match)" if text and found is None else ""),
            found is True)
    never = list(expect.get("not_contains") or [])
    if never:
        add("not_contains", "never says " + ", ".join(f'"{w}"' for w in never),
            text is not None and not any(says(text, w, language) for w in never))
    return out


def took_branch(ev: Evidence, n: int, names: Sequence[str]) -> Result:
    """The rule branch step `n` took is one of `names`; measured: the rule, why, and what it heard."""
    expected = "took " + " or ".join(f'"{b}"' for b in names)
    rec = ev.branches.get(n)
    if rec is None:
        return Result(f"step {n} took_branch", "took_branch", n, expected, False, "not played (no branch decision)")
    took = str(rec.get("rule"))
    return Result(f"step {n} took_branch", "took_branch", n, expected, took in names,
                  f'took "{took}" ({rec.get("why")}; {heard(str(rec.get("transcript") or ""))})')


# -- one trial ---------------------------------------------------------------------------------


def evaluate(plan: Sequence[StepPlan], test_expect: Mapping[str, Any], ev: Evidence, texts: Mapping[str, str],
             rules: AgentRules = AgentRules()) -> list[Result]:
    """Every assertion of one trial, in step order, then the test's own."""
    out: list[Result] = []
    for st in plan:
        e, n = st.expect, st.n
        if n in ev.skipped:
            continue  # not on this trial's path: a goto jumped over it
        if Check.took_branch in e:
            out.append(took_branch(ev, n, list(e[Check.took_branch])))
        if Check.goal_reached in e:
            out.append(persona_judge.goal_reached(ev, n))
        if Check.responds_within_ms in e and st.kind is StepKind.persona:
            out.append(persona_judge.responds_within(plan, ev, n, int(e[Check.responds_within_ms]), rules))
        elif Check.responds_within_ms in e:
            out.append(responds_within(plan, ev, n, int(e[Check.responds_within_ms]), rules))
        if Check.yields_within_ms in e:
            out.append(yields_within(plan, ev, n, int(e[Check.yields_within_ms]), rules))
        if Check.keeps_talking in e:
            out.append(keeps_talking(plan, ev, n, int(e[Check.keeps_talking])))
        if Check.no_overlap_ms in e:
            out.append(no_overlap(plan, ev, int(e[Check.no_overlap_ms]), step=n))
        if Check.silent in e:
            out.append(silent(plan, ev, n, e[Check.silent] or {}, rules))
        out += content(f"step {n}", n, e, texts.get(f"step {n}") if n in ev.placed else None, ev.language)
    te = test_expect
    if Check.no_overlap_ms in te:
        out.append(no_overlap(plan, ev, int(te[Check.no_overlap_ms])))
    for pct in (50, 95):
        if f"latency_p{pct}_ms" in te:
            out.append(latency_percentile(plan, ev, pct, int(te[f"latency_p{pct}_ms"]), rules))
    out += content("test", None, te, texts.get("test", ""), ev.language)
    out += [mos_at_least(ev, c.value, float(te[c.value])) for c in (Check.mos_min, Check.mos_p10_min) if c.value in te]
    return out


def mos_at_least(ev: Evidence, check: str, limit: float) -> Result:
    """mos_min: the worst scored agent turn's MOS; mos_p10_min: their 10th percentile (nearest rank)."""
    what = "every turn's MOS" if check == "mos_min" else "p10 MOS"
    key, expected = f"test {check}", f"{what} ≥ {limit:g}"
    if not ev.mos:
        return Result(key, check, None, expected, False, "no agent turn long enough to score (≥ 1 s of speech)")
    xs = sorted(ev.mos)
    v = xs[0] if check == "mos_min" else xs[max(0, math.ceil(0.10 * len(xs)) - 1)]
    name = "lowest" if check == "mos_min" else "p10"
    return Result(key, check, None, expected, v >= limit, f"{name} {v:.2f} over {len(xs)} turns", v)
