"""What the `oracle` reference agent does in a conversation test: answers each caller turn, yields
to a barge-in, talks through a backchannel, keeps quiet where a step expects silence.

Suite agent's part `oracle` (floorbench.plugins). After each `say`
that ends the caller's turn the oracle says the step's `reply`, or — a test
written for a real agent has none — the words the step's `contains` asks for (in a sentence of
their own), followed by a sentence long enough to be interrupted or backchannelled; after
a barge-in (the stock oracle stops at its first speech: label ``interrupt``)
it says the step's reply or a short one. It says nothing after a say the
caller continues after a pause, nor after a step that expects `silent`.
Silence steps are not in its plan (there is nothing to find in a silence).

A branch step's line depends on what the agent said, and the oracle is the
agent: it walks the test as the caller will, choosing each branch's rule on its
own last reply's text (`floorbench.suites.agent.branch.choose`, the caller's
rules) and following its goto, so it listens for the line the caller will say.
It relies on the caller's ASR hearing its reply as written; a reply that ASR
mishears sends the caller elsewhere and the oracle waits for a line that never
comes (write replies in plain words).
"""

from __future__ import annotations

from typing import Any

from floorbench.processors.reference import OracleClip, OraclePlan, OracleSettings
from floorbench.suites.agent.branch import choose
from floorbench.suites.agent.rules import SAYS, TURN_ENDS, StepKind
from floorbench.suites.agent.schema import AgentScenario, AgentStep, continues

LONG_REPLY = "I can help with that. Let me tell you more about it."
SHORT_REPLY = "Sure, go ahead."


def oracle_reply(steps: list[AgentStep], i: int, reply: str | None = None) -> str | None:
    """What the oracle says after step `i` (None: nothing); `reply`: a branch rule's, which wins."""
    st = steps[i]
    if st.expect.silent is not None or st.kind in (StepKind.backchannel, StepKind.silence):
        return None
    if st.kind in SAYS and continues(steps, i):
        return None
    if reply or st.reply:
        return reply or st.reply
    words = said_words(st.expect.contains)
    return f"{words} {LONG_REPLY}".strip() if st.kind in SAYS else f"{words} {SHORT_REPLY}".strip()


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


LABEL = {StepKind.say: "say", StepKind.branch: "say", StepKind.barge_in: "interrupt",
         StepKind.backchannel: "backchannel"}
"""the oracle's clip labels: ``interrupt`` makes the stock oracle stop at the clip's first speech"""


def oracle_path(s: AgentScenario) -> list[tuple[int, int, str | None]]:
    """The caller's clips as they will be played to the oracle: (step index, clip id, its reply), each
    branch taken on the oracle's own last reply."""
    out: list[tuple[int, int, str | None]] = []
    said: str | None = None
    i = 0
    while i < len(s.steps):
        st, k = s.steps[i], i
        i += 1
        clip, reply = st.clip, None
        if st.branch is not None:
            rule = choose(st.branch, said).rule
            clip, reply = rule.clip, rule.reply
            if rule.goto is not None:
                i = next(j for j, x in enumerate(s.steps) if x.label == rule.goto)
        if clip is None or st.kind not in LABEL:
            continue
        text = oracle_reply(s.steps, k, reply)
        out.append((k, clip, text))
        if st.kind in TURN_ENDS:
            said = text
    return out


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    s: AgentScenario = scenario
    path = oracle_path(s)
    clips = [OracleClip(LABEL[s.steps[k].kind], s.clip(clip).audio, text) for k, clip, text in path]
    if s.tools is not None:  # it makes the calls the test expects between a turn and its reply
        from floorbench.suites.agent.tool_oracle import expected_calls, factory

        return OraclePlan(clips, processor=factory(expected_calls(s, path)))
    return OraclePlan(clips)
