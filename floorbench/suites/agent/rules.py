"""The rules of suite `agent` (conversation tests, docs/testing.md), declared once.

`AgentRules` holds every number of a conversation test: how the caller's
steps are timed against the agent's speech (the live schedule,
`floorbench.suites.agent.schedule`), and how an assertion reads the recording
(the evaluators, `floorbench.suites.agent.assertions`). Both record it, so a
changed number is visibly a different test. A test file may set the caller's
timing per file, test or step (`gap_ms`, `wait_ms`, `after_ms`); the defaults
are here.

Speech detection is shared by every suite (`floorbench.audio.vad.VadRules`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class StepKind(StrEnum):
    """What the caller does in one step of a test (docs/testing.md "Steps")."""

    say = "say"
    """speak a line once the agent's turn has ended (`gap_ms` of its silence), or at once if
    the agent stays silent for `wait_ms`; with `pause_ms`: go on with the same turn after a
    mid-turn pause of that length, whatever the agent does"""
    barge_in = "barge_in"
    """speak `after_ms` after the agent started its reply (interrupting it)"""
    backchannel = "backchannel"
    """say a short "mm-hm" `after_ms` after the agent started its reply (it should go on)"""
    silence = "silence"
    """stay silent for a number of ms, right after the previous step"""
    hang_up = "hang_up"
    """end the call once the agent's turn has ended (nothing after it is played or recorded)"""
    branch = "branch"
    """once the agent's turn has ended (as a say), speak the line of the first rule its words match
    (ASR of its turn, live), else the `otherwise` line; a rule may `goto` a later labelled step"""
    persona = "persona"
    """an LLM plays the caller for up to `max_turns` lines, each generated live from the agent's last
    turn (ASR), spoken with a local voice, until its reply says it is done (docs/callers.md)"""
    dtmf = "dtmf"
    """once the agent's turn has ended (as a say), press keys: the phone leg sends the digits to the agent
    as RFC 4733 events (docs/phone.md "DTMF"); a test with one runs only over a phone leg (``--via sip:``)"""


CLIP_LABELS: dict[StepKind, str] = {
    StepKind.say: "caller_say",
    StepKind.barge_in: "caller_barge_in",
    StepKind.backchannel: "caller_backchannel",
    StepKind.silence: "caller_silence",
    StepKind.branch: "caller_branch",
    StepKind.persona: "caller_persona",
}
"""each step kind that plays a clip → the label its clip carries in the scenario and turns.json
(prefixed, so that no other suite's labels are the same words)"""
TIMED_TO_AGENT = frozenset({StepKind.barge_in, StepKind.backchannel})
"""steps placed against the onset of the agent's reply"""
PERSONA_BACKCHANNEL = "caller_persona_backchannel"
"""the label of a persona's backchannel clips (its lines are `caller_persona`)"""
LABELS: tuple[str, ...] = (*CLIP_LABELS.values(), PERSONA_BACKCHANNEL)
SAYS = frozenset({StepKind.say, StepKind.branch})
"""steps that speak once the agent's turn has ended (a branch is a say whose line the agent's words choose)"""
TURN_ENDS = frozenset({StepKind.say, StepKind.branch, StepKind.barge_in, StepKind.persona, StepKind.dtmf})
"""steps whose clip hands the floor to the agent (a say the caller goes on with after a pause does not)"""


class Check(StrEnum):
    """The assertions (docs/testing.md "Assertions")."""

    responds_within_ms = "responds_within_ms"
    no_overlap_ms = "no_overlap_ms"
    yields_within_ms = "yields_within_ms"
    keeps_talking = "keeps_talking"
    silent = "silent"
    latency_p50_ms = "latency_p50_ms"
    latency_p95_ms = "latency_p95_ms"
    contains = "contains"
    matches = "matches"
    not_contains = "not_contains"
    took_branch = "took_branch"
    goal_reached = "goal_reached"
    mos_min = "mos_min"
    mos_p10_min = "mos_p10_min"


CONTENT = frozenset({Check.contains, Check.matches, Check.not_contains})
"""assertions on the agent's words (ASR of its speech)"""


class ToolCheck(StrEnum):
    """The assertions on the agent's tool calls (docs/testing.md "Tools"; floorbench.suites.agent.tool_checks)."""

    calls_tool = "calls_tool"
    no_tool_call = "no_tool_call"
    tool_order = "tool_order"
    max_calls = "max_calls"
    final_state = "final_state"
    dead_air_ms = "dead_air_ms"
    """the longest stretch inside a tool's run when neither the agent nor the caller spoke"""
    filler_within_ms = "filler_within_ms"
    """the agent spoke within N ms of a tool starting (or was speaking then)"""
    answers_within_ms = "answers_within_ms"
    """the agent spoke within N ms of a tool returning"""
    waits_for_turn_end = "waits_for_turn_end"
    """no call started before the caller's turn had ended"""


TOOL_STEP_CHECKS = frozenset({ToolCheck.calls_tool, ToolCheck.no_tool_call, ToolCheck.dead_air_ms,
                              ToolCheck.filler_within_ms, ToolCheck.answers_within_ms, ToolCheck.waits_for_turn_end})
"""tool assertions a say, branch or barge_in step may carry (judged on the calls of its window)"""
TOOL_TEST_CHECKS = frozenset(ToolCheck) - {ToolCheck.waits_for_turn_end}
"""tool assertions a whole test may carry"""
STEP_CHECKS: dict[StepKind, frozenset[Check]] = {
    StepKind.say: frozenset({Check.responds_within_ms, Check.no_overlap_ms, Check.silent}) | CONTENT,
    StepKind.barge_in: frozenset({Check.yields_within_ms, Check.responds_within_ms, Check.no_overlap_ms,
                                  Check.silent}) | CONTENT,
    StepKind.backchannel: frozenset({Check.keeps_talking}),
    StepKind.silence: frozenset({Check.silent}) | CONTENT,
    StepKind.hang_up: frozenset(),
    StepKind.branch: frozenset({Check.responds_within_ms, Check.no_overlap_ms, Check.silent, Check.took_branch})
    | CONTENT,
    StepKind.persona: frozenset({Check.goal_reached, Check.responds_within_ms, Check.no_overlap_ms}) | CONTENT,
    StepKind.dtmf: frozenset({Check.responds_within_ms, Check.silent}) | CONTENT,
}
"""the assertions a step of each kind may carry"""
QUALITY = frozenset({Check.mos_min, Check.mos_p10_min})
"""assertions on how the agent sounds (the predicted MOS of its turns, floorbench.scoring.quality)"""
TEST_CHECKS = frozenset({Check.no_overlap_ms, Check.latency_p50_ms, Check.latency_p95_ms}) | CONTENT | QUALITY
"""the assertions a whole test may carry (over the whole conversation)"""


@dataclass(frozen=True)
class AgentRules:
    """The numbers of a conversation test; defaults are floorbench's (docs/testing.md)."""

    gap_ms: int = 500
    """say: the caller speaks once the agent has been silent this long (the end of its turn)"""
    wait_ms: int = 5000
    """say after a caller turn: if the agent has not started to answer within this long, the caller
    goes on anyway (the first step waits 0 ms unless it says otherwise)"""
    after_ms: int = 1000
    """barge_in, backchannel: start this long after the onset of the agent's reply"""
    onset_window_ms: int = 5000
    """barge_in, backchannel: wait this long for the agent to start replying; otherwise the step
    is not played (and its assertions fail: "not played")"""
    response_cap_ms: int = 30000
    """the caller waits at most this long, from the agent's onset, for its turn to end"""
    tail_ms: int = 1000
    """after the last step: the room stays open until the agent has been silent this long"""
    lead_in_ms: int = 500
    """silence before the first step, once every participant has subscribed"""
    vad_margin_ms: int = 250
    """how long past a moment the schedule waits for the agent's audio of it to arrive and be analysed"""
    early_ms: int = 250
    """a response onset up to this long before the caller's clip ends still counts as a response
    (the clip's end includes the voice's trailing pad and the VAD's 32 ms grid)"""
    yield_gap_ms: int = 300
    """yields_within_ms: the agent has stopped once it has been silent this long (a finer cut than
    the 800 ms merge gap of the speech segments, so a quick reply after yielding is not merged in)"""
    keep_talking_ms: int = 500
    """keeps_talking: the agent still speaks this long after the backchannel ended"""
    branch_asr_s: int = 10
    """branch: the longest the caller's ASR of the agent's turn may take; past it the caller takes
    `otherwise` (recorded as such) rather than hold the call"""
    persona_turns: int = 20
    """persona: the most lines `max_turns` may allow"""
    persona_llm_s: int = 30
    """persona: the longest an endpoint's `timeout_s` may be"""
    max_steps: int = 50
    max_ms: int = 120000
    """largest silence, gap, wait, offset or pause a test may give"""
    max_timeout_s: int = 1800
    """longest time limit a test may set"""

    def __post_init__(self) -> None:
        for name in ("gap_ms", "wait_ms", "after_ms", "onset_window_ms", "tail_ms", "early_ms", "yield_gap_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"AgentRules.{name} must be ≥ 0")


# how a persona caller's conversation ended (floorbench.suites.agent.persona_caller; judged by persona_judge)
DONE, MAX_TURNS, AGENT_SILENT = "done", "max_turns", "agent_silent"
ENDPOINT_FAILED, ASR_FAILED, VOICE_FAILED = "endpoint_failed", "asr_failed", "voice_failed"
CHAIN_FAILURES = frozenset({ENDPOINT_FAILED, ASR_FAILED, VOICE_FAILED})
"""outcomes where the caller, not the agent, failed: the trial is an error"""
