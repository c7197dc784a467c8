"""What the `oracle` reference agent does in a conversation test: answers each caller turn, yields
to a barge-in, talks through a backchannel, keeps quiet where a step expects silence.

Suite agent's part `oracle` (floorbench.suites.registry). After each `say`
that ends the caller's turn the oracle says the step's `reply`, or — a test
written for a real agent has none — the words the step's `contains` asks for (in a sentence of
their own), followed by a sentence long enough to be interrupted or backchannelled; after
a barge-in (the stock oracle stops at its first speech: label ``interrupt``)
it says the step's reply or a short one. It says nothing after a say the
caller continues after a pause, nor after a step that expects `silent`.
Silence steps are not in its plan (there is nothing to find in a silence).
"""

from __future__ import annotations

from typing import Any

from floorbench.processors.reference import OracleClip, OraclePlan, OracleSettings
from floorbench.suites.agent.rules import StepKind
from floorbench.suites.agent.schema import AgentScenario, AgentStep, continues

LONG_REPLY = "I can help with that. Let me tell you more about it."
SHORT_REPLY = "Sure, go ahead."


def oracle_reply(steps: list[AgentStep], i: int) -> str | None:
    """What the oracle says after step `i` (None: nothing)."""
    st = steps[i]
    if st.expect.silent is not None or st.kind in (StepKind.backchannel, StepKind.silence):
        return None
    if st.kind is StepKind.say and continues(steps, i):
        return None
    if st.reply:
        return st.reply
    words = said_words(st.expect.contains)
    return f"{words} {LONG_REPLY}".strip() if st.kind is StepKind.say else f"{words} {SHORT_REPLY}".strip()


def said_words(words: list[str]) -> str:
    """The words a step's `contains` asks for, inside a sentence: a lone word at a reply's very start is
    the one the ASR mishears most (flite's "Banana." came back "But then"), so the oracle is not failed
    by its own phrasing."""
    w = [x.strip().rstrip(".") for x in words if x.strip()]
    if not w:
        return ""
    if len(w) == 1:
        return f"The word is {w[0]}."
    return f"The words are {', '.join(w[:-1])} and {w[-1]}."


LABEL = {StepKind.say: "say", StepKind.barge_in: "interrupt", StepKind.backchannel: "backchannel"}
"""the oracle's clip labels: ``interrupt`` makes the stock oracle stop at the clip's first speech"""


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    s: AgentScenario = scenario
    clips: list[OracleClip] = []
    for i, st in enumerate(s.steps):
        if st.clip is None or st.kind not in LABEL:
            continue
        clips.append(OracleClip(LABEL[st.kind], s.clip(st.clip).audio, oracle_reply(s.steps, i)))
    return OraclePlan(clips)
