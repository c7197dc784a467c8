"""The ``dtmf:`` caller step of a test file (docs/testing.md "Steps"): keys pressed on the phone line.

A separate module because the keys travel differently from every other step:
not as audio on the caller's track but as a room data message the phone leg
turns into RFC 4733 telephone events (`floorbench.phone.leg`). So a test with
a dtmf step runs only over a phone leg (``--via sip:``): over WebRTC there is
nothing to carry the keys, and `needs_phone` refuses such a run in one line
before any room starts, rather than let a test pass or fail on keys the agent
was never sent. The rules on the keys are the leg's own (`floorbench.scenarios.dtmf`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from floorbench.scenarios.dtmf import dtmf_problem
from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.agent.format_error import AgentTestError
from floorbench.suites.agent.rules import StepKind
from floorbench.suites.agent.schema import AgentStep

PHONE_MODEL = "sip"
"""the model name of the phone leg (`floorbench.phone.leg`)"""


def keys(where: str, step: AgentStep, value: object, opt: dict[str, Any]) -> AgentStep:
    """Fill a dtmf step from the file: its keys (a bare number is read as its digits), `duration_ms`, `reply`."""
    digits = str(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else value
    problem = dtmf_problem(digits, opt.get("duration_ms"))
    if problem is not None:
        raise AgentTestError(f"{where}: {problem}")
    assert isinstance(digits, str)
    step.digits, step.duration_ms = digits.upper(), opt.get("duration_ms")
    if "reply" in opt:
        if not isinstance(opt["reply"], str) or not opt["reply"].strip():
            raise AgentTestError(f"{where}: reply must be the text the oracle says; write it or drop it")
        step.reply = opt["reply"]
    step.text = f"(keys {step.digits})"
    return step


def check(at: str, st: AgentStep) -> None:
    """A suite file's dtmf step, as the schedule relies on it (one line naming the step)."""
    problem = "it plays no clip" if st.clip is not None else dtmf_problem(st.digits, st.duration_ms)
    if problem is not None:
        raise ScenarioError(f"{at}: {problem}; regenerate it from its test file")


def needs_phone(tests: Iterable[tuple[str, list[AgentStep]]], model: str) -> None:
    """Refuse a run whose system under test is not the phone leg (model ``sip``: ``--via sip:``, or a config
    with ``adapter: sip``) when a test presses keys: (where, steps) per test."""
    if model == PHONE_MODEL:
        return
    for where, steps in tests:
        st = next((s for s in steps if s.kind is StepKind.dtmf), None)
        if st is not None:
            raise ScenarioError(f"{where}: step {st.n} (dtmf) presses keys, which only a phone leg carries; "
                                "run it with --via sip:URI (docs/phone.md), or drop the step")
