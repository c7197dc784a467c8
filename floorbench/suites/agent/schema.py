"""Records of suite `agent` (conversation tests, docs/testing.md): a test, its steps, its expectations.

A test file (YAML, `floorbench.suites.agent.validate.load_test_file`) holds
tests; each test becomes one scenario per trial in a suite folder
(`floorbench.suites.agent.importer`), which `floorbench render` renders and
`floorbench run` plays like any suite's. The scenario record is
`AgentScenario`:

- ``turns`` are the caller's clips in playing order — one per step that plays
  audio (say, barge_in, backchannel, silence), labelled with the step's kind
  (`rules.CLIP_LABELS`); a clip from an audio file or a silence is
  ``recorded`` (copied into the suite folder, never synthesized);
- ``steps`` are the test's steps with their timing and their expectations,
  each naming its clip (a ``branch`` step names one clip per rule and one for
  ``otherwise``: every line it may say is rendered beforehand, and the clips
  it does not choose are never played);
- ``expect`` holds the expectations of the whole conversation.

Like every suite's record it has ``scenario_id``, ``run_fields``,
``speakers`` and ``turns`` (each with id, speaker, label, text, audio, gold),
so the runner, the renderer and turns.json treat it as any other.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from floorbench.scenarios.schema import ID_RULE, OwnPairScenario, Speaker, UngradedClip
from floorbench.suites.agent.rules import AgentRules, StepKind
from floorbench.tools.spec import ToolSet

SUITE_KIND = "agent"


MAX_MS = AgentRules().max_ms


class _Bounded(BaseModel):
    """Every ``*_ms`` within 0..`MAX_MS` and every `matches` a bounded regex: a suite file edited by hand
    is held to what a test file is (`validate.load_test_file`), not accepted to fail in the room."""

    @model_validator(mode="after")
    def _bounds(self) -> Any:
        from floorbench.readers import compile_regex

        for name in type(self).model_fields:
            value = getattr(self, name)
            if name.endswith("_ms") and isinstance(value, int) and not 0 <= value <= MAX_MS:
                raise ValueError(f"{name}={value}; use 0–{MAX_MS}")
            if name == "matches" and value is not None:
                compile_regex("matches", value)
        return self


class SilentWindow(_Bounded):
    """`silent`: no agent speech in the step's window, from `after_ms` into it, for `for_ms` (None: to its end)."""

    model_config = ConfigDict(extra="forbid")

    after_ms: int = 0
    for_ms: int | None = None


class Expect(_Bounded):
    """The assertions of one step or of a whole test (None: not asserted); docs/testing.md "Assertions"."""

    model_config = ConfigDict(extra="forbid")

    responds_within_ms: int | None = None
    no_overlap_ms: int | None = None
    yields_within_ms: int | None = None
    keeps_talking: int | None = Field(default=None, description="ms the agent still speaks after the backchannel")
    silent: SilentWindow | None = None
    # the tool assertions (floorbench.tools.expect; judged by floorbench.suites.agent.tool_checks)
    calls_tool: list[dict[str, Any]] = Field(default_factory=list, description="each: name, arguments, match, "
                                             "after, within_ms")
    no_tool_call: list[str] = Field(default_factory=list, description="these tools ('*': any) are not called")
    tool_order: list[str] = Field(default_factory=list)
    max_calls: dict[str, int] | None = Field(default=None, description="tool ('*': all) → most calls")
    final_state: dict[str, Any] | None = Field(default=None, description="{equals: …} or {contains: …}")
    dead_air_ms: int | None = None
    filler_within_ms: int | None = None
    answers_within_ms: int | None = None
    waits_for_turn_end: bool | None = None
    latency_p50_ms: int | None = None
    latency_p95_ms: int | None = None
    contains: list[str] = Field(default_factory=list)
    matches: str | None = None
    not_contains: list[str] = Field(default_factory=list)
    took_branch: list[str] = Field(default_factory=list, description="branch: the rule it took is one of these")
    goal_reached: bool | None = Field(default=None, description="persona: its reply said it was done")
    mos_min: float | None = Field(default=None, description="every scored agent turn's MOS (DNSMOS OVRL) at least this")
    mos_p10_min: float | None = Field(default=None, description="the 10th percentile of its turns' MOS at least this")


class BranchRule(_Bounded):
    """One line a branch step may say, and when: the agent's turn includes every `contains` phrase,
    matches `matches` (both as the assertions of those names) and reads as `intent`; `otherwise` has
    none of them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="what took_branch, the timeline and results.json call it")
    contains: list[str] = Field(default_factory=list)
    matches: str | None = None
    intent: str | None = Field(default=None, description="an intent of the agent's turn (suites.agent.intents)")
    text: str = Field(description="the caller's line (its label, for an audio file)")
    clip: int | None = Field(default=None, description="the id of its clip")
    goto: str | None = Field(default=None, description="the label of a later step to go on from")
    reply: str | None = Field(default=None, description="what the `oracle` reference agent says after the line")


class Branch(BaseModel):
    """A branch step's rules, first match wins, on the transcript of the agent's last turn."""

    model_config = ConfigDict(extra="forbid")

    after: str = Field(default="agent_turn", description="what it reacts to: the agent's turn, once it has ended")
    rules: list[BranchRule]
    otherwise: BranchRule

    @property
    def options(self) -> list[BranchRule]:
        """every line it may say: the rules in order, then otherwise"""
        return [*self.rules, self.otherwise]


class PersonaEndpoint(BaseModel):
    """An OpenAI-compatible chat-completions endpoint that plays the persona, as a test file names it.

    No key and no key variable: a file is data. A key is sent only to the endpoint the operator
    names on the command line (`persona_llm.PersonaBinding`: ``--persona-url`` with
    ``--persona-key-env``), never to this `base_url` (docs/testing.md "In CI")."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="e.g. http://127.0.0.1:8088/v1 (…/chat/completions is appended)")
    model: str = "persona"
    timeout_s: float = 10.0
    temperature: float = 0.0
    max_tokens: int = 120


class PersonaTiming(_Bounded):
    """A seeded chance, per agent turn, to barge in or to backchannel `after_ms` into the agent's speech."""

    model_config = ConfigDict(extra="forbid")

    chance: float = 0.0
    after_ms: int = 1000
    text: str | None = Field(default=None, description="backchannel: what it says")


class Persona(BaseModel):
    """A persona step: who the LLM plays, what it wants, when it stops, how it takes turns."""

    model_config = ConfigDict(extra="forbid")

    goal: str
    persona: str = ""
    opening: str | None = Field(default=None, description="its first line (else the LLM's)")
    end_when: str = Field(default="", description="when it says it is done, in words (for the prompt)")
    max_turns: int = 6
    voice: str = "piper:joe"
    barge_in: PersonaTiming = Field(default_factory=PersonaTiming)
    backchannel: PersonaTiming = Field(default_factory=PersonaTiming)
    seed: int = 0
    endpoint: PersonaEndpoint
    clips: list[int] = Field(default_factory=list, description="a clip id reserved for each line it may say")
    backchannel_clips: list[int] = Field(default_factory=list, description="one per backchannel it may say")


class AgentStep(_Bounded):
    """One caller step: what it does, when, and what it expects of the agent."""

    model_config = ConfigDict(extra="forbid")

    n: int = Field(description="1-based position in the test")
    kind: StepKind
    clip: int | None = Field(default=None, description="the id of the clip it plays (None: silence-free hang_up)")
    text: str | None = None
    gap_ms: int | None = Field(default=None, description="say, hang_up: the agent's silence that ends its turn")
    wait_ms: int | None = Field(default=None, description="say: longest wait for the agent to start replying")
    pause_ms: int | None = Field(default=None, description="say: continue the caller's turn after this pause")
    after_ms: int | None = Field(default=None, description="barge_in, backchannel: offset from the agent's onset")
    ms: int | None = Field(default=None, description="silence: how long")
    reply: str | None = Field(default=None, description="what the `oracle` reference agent says after this step")
    digits: str | None = Field(default=None, description="dtmf: the keys pressed (0-9, *, #, A-D)")
    duration_ms: int | None = Field(default=None, description="dtmf: how long each key is held")
    label: str | None = Field(default=None, description="the name a branch's goto jumps to")
    branch: Branch | None = Field(default=None, description="branch: its rules (and each line's clip)")
    persona: Persona | None = Field(default=None, description="persona: who plays the caller (and its clips)")
    expect: Expect = Field(default_factory=Expect)


class AgentClip(UngradedClip):
    """One clip of the caller's track (a step's audio); timing and words are judged, not a gold answer."""

    label: str
    text: str
    audio: str | None = Field(default=None, description="relative to the suite folder")
    recorded: bool = Field(default=False, description="copied in (audio file or silence), not rendered")
    live: bool = Field(default=False, description="a persona's placeholder: its audio is made live, in the run "
                                                  "folder's persona/ (the suite holds a 10 ms silence)")
    step: int = Field(description="the step that plays it")


class AgentScenario(OwnPairScenario):
    """One trial of one conversation test."""

    suite: str = SUITE_KIND
    scenario_id: str = Field(description=f"<test>.t<trial>: {ID_RULE}")
    test: str
    source: str = Field(default="", description="the test file it came from, as given")
    trial: int = 1
    trials: int = 1
    tags: list[str] = Field(default_factory=list)
    timeout_s: float | None = None
    pass_threshold: float | None = None
    language: str = Field(default="en", description="what the call is held in (floorbench.speech.languages)")
    speakers: dict[str, Speaker]
    turns: list[AgentClip]
    steps: list[AgentStep]
    expect: Expect = Field(default_factory=Expect)
    meta: dict[str, str | int] = Field(default_factory=dict)
    tools: ToolSet | None = Field(default=None, description="the mock tools served for the trial (floorbench.tools)")

    @property
    def condition(self) -> str:
        return "test"

    @property
    def run_fields(self) -> dict[str, str]:
        """What meta.json and turns.json carry beside the id: the test is its own pair, its kind the condition."""
        return {"pair_id": self.scenario_id, "condition": self.condition}

    def clip(self, clip_id: int) -> AgentClip:
        return next(c for c in self.turns if c.id == clip_id)


def continues(steps: list[AgentStep], i: int) -> bool:
    """Does the caller go on with the same turn after step `i` (the next step is a say with pause_ms)?"""
    nxt = steps[i + 1] if i + 1 < len(steps) else None
    return nxt is not None and nxt.kind is StepKind.say and nxt.pause_ms is not None
