"""Judging a persona step from its records (docs/callers.md): its lines as caller turns, its goal.

A persona step says several lines; each is a caller turn of its own, heard
where turns.json placed its clip (`Evidence.lines`). The agent's response to
a line is measured from that line's end to the agent's first onset before the
caller's next line, exactly as a say's: the caller's own chain (ASR, LLM,
TTS) happened before the line and is never counted. The closing line of a
persona that said it was done expects no answer (a "goodbye") and is not
measured.

`goal_reached` passes only when the persona's own end record says ``done``;
``max_turns``, ``agent_silent`` and a failure of the caller's chain fail it
with that reason (a chain failure also makes the trial an error: the score
module), and a step with no end record fails as not played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from floorbench.suites.agent.evidence import Evidence, Placed, Result, StepPlan, next_turn_start
from floorbench.suites.agent.rules import CHAIN_FAILURES, DONE, AgentRules


def measured_lines(ev: Evidence, n: int) -> list[Placed]:
    """The persona step's lines that expect an answer (all but a done persona's closing line)."""
    lines = ev.lines.get(n, [])
    end = (ev.personas.get(n) or {}).get("end") or {}
    return lines[:-1] if lines and end.get("outcome") == DONE and end.get("lines") == len(lines) else lines


def line_latency(plan: Sequence[StepPlan], ev: Evidence, n: int, i: int, rules: AgentRules) -> tuple[int | None, str]:
    """(latency ms, measured text) of the agent's response to line `i` (0-based) of persona step `n`."""
    lines = ev.lines[n]
    p = lines[i]
    hi = lines[i + 1].start_ms if i + 1 < len(lines) else max(p.end_ms, next_turn_start(plan, ev, n))
    lo = max(0, p.end_ms - rules.early_ms)
    onset = next((s for s, _ in ev.segments if lo <= s < hi), None)
    if onset is not None:
        return onset - p.end_ms, f"{onset - p.end_ms} ms"
    if any(s < lo and e > p.end_ms for s, e in ev.segments):
        return None, "no response (the agent was still speaking from before)"
    return None, "no response"


def latencies(plan: Sequence[StepPlan], ev: Evidence, n: int, rules: AgentRules) -> list[int | None]:
    lines = ev.lines.get(n, [])
    return [line_latency(plan, ev, n, i, rules)[0] for i in range(len(measured_lines(ev, n)))] if lines else []


def responds_within(plan: Sequence[StepPlan], ev: Evidence, n: int, limit: int, rules: AgentRules) -> Result:
    """Every persona line that expects an answer got one within `limit` ms of its end."""
    key, expected = f"step {n} responds_within_ms", f"≤ {limit} ms after each persona line"
    count = len(measured_lines(ev, n))
    if not count:
        return Result(key, "responds_within_ms", n, expected, False, "not played (no persona line expecting an answer)")
    got = [line_latency(plan, ev, n, i, rules) for i in range(count)]
    worst = max((x for x, _ in got if x is not None), default=None)
    ok = all(x is not None and x <= limit for x, _ in got)
    measured = "; ".join(f"line {i + 1} {text}" for i, (_, text) in enumerate(got))
    value = None if any(x is None for x, _ in got) else worst
    return Result(key, "responds_within_ms", n, expected, ok, measured, None if value is None else float(value))


def goal_reached(ev: Evidence, n: int) -> Result:
    """The persona said it was done; measured: how it ended and after how many lines."""
    key, expected = f"step {n} goal_reached", "the persona says it is done"
    end = (ev.personas.get(n) or {}).get("end")
    if not end:
        return Result(key, "goal_reached", n, expected, False, "not played (no persona record)")
    outcome, lines = str(end.get("outcome")), end.get("lines")
    if outcome == DONE:
        return Result(key, "goal_reached", n, expected, True, f"done after {lines} line(s)", float(lines or 0))
    tag = "error: " if outcome in CHAIN_FAILURES else ""
    return Result(key, "goal_reached", n, expected, False, f"{tag}{outcome} after {lines} line(s): {end.get('why')}",
                  float(lines or 0))


def chain_error(ev: Evidence) -> str | None:
    """Why the trial is an error because the caller's own chain failed (None: it did not)."""
    for n, rec in sorted(ev.personas.items()):
        end = rec.get("end") or {}
        if end.get("outcome") in CHAIN_FAILURES:
            return f"step {n} (persona): {end.get('outcome')}: {end.get('why')}"
    return None


def records(ev: Evidence) -> list[dict[str, Any]]:
    """Each persona step's records for results.json: its lines (with the caller's latencies) and its end."""
    return [{"step": n, **rec} for n, rec in sorted(ev.personas.items())]
