"""The live schedule of suite `agent` (docs/testing.md "Steps"): the caller's steps, timed against the agent.

- ``say`` waits for the agent's turn to end: if the agent has started a reply
  since the caller's last turn (or is speaking), until it has been silent for
  `gap_ms` (at most `response_cap_ms` from its onset); if it has not started
  within `wait_ms`, the caller goes on. A say with `pause_ms` continues the
  caller's turn that long after the previous clip, whatever the agent does;
- ``barge_in`` / ``backchannel`` start `after_ms` after the onset of the
  agent's reply to the caller's last turn, as heard in the room; if the agent
  does not start within `onset_window_ms`, the step is not played and the
  timeline says ``not_run`` with its clip and step;
- ``silence`` plays its length of silence right after the previous step;
- ``hang_up`` waits for the agent's turn to end like a say, then ends the call;
  without one, the room stays open until the agent's last reply has ended
  (`tail_ms` of its silence);
- ``branch`` waits for the agent's turn to end like a say; then the caller
  transcribes that turn (`floorbench.suites.agent.branch.CallerEar`, off the
  event loop), takes the first rule its words match (else ``otherwise``; the
  agent said nothing: ``otherwise``), plays that rule's pre-rendered line and
  goes on from the rule's ``goto`` step, if it has one (the steps jumped over
  are timeline lines with reason ``skipped``). The decision is a ``branch``
  line: the transcript, the rule and why, and the caller's own latency (ASR,
  decision, and the delay from the end of the agent's turn to the line), which
  is the caller's, not the agent's.
- ``persona`` hands the caller to an LLM for up to `max_turns` lines, each
  made live from the agent's last turn (`floorbench.suites.agent.persona_caller`).

Every decision is a timeline line (`EventKind`) with the step's number. The
steps, their expectations and the rules go to meta.json ``schedule``
(`describe`), which is where the scorer reads them: scoring needs the run
folder alone. The schedule sees the room only through
`floorbench.pipelines.room.schedule.Playback`, so it runs on a virtual clock in
tests/test_agent_schedule.py exactly as in a LiveKit room.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from floorbench.pipelines.room.schedule import (
    MS,
    LivePlan,
    LiveRequest,
    Playback,
    sample_at,
    until_heard,
    wait_onset,
)
from floorbench.records import EventKind
from floorbench.suites.agent import tool_live
from floorbench.suites.agent.branch import CallerEar, choose
from floorbench.suites.agent.caller_floor import Reply
from floorbench.suites.agent.ear import WhisperEar
from floorbench.suites.agent.persona_caller import CallerVoice, LocalVoice, PersonaCaller
from floorbench.suites.agent.rules import TIMED_TO_AGENT, AgentRules, StepKind
from floorbench.suites.agent.schema import AgentScenario, AgentStep, Expect
from floorbench.suites.agent.tool_live import LiveTools

if TYPE_CHECKING:
    from floorbench.suites.agent.persona_llm import PersonaBrain

def _compact(expect: Expect) -> dict[str, object]:
    """Only the assertions set (meta.json stays readable)."""
    return {k: v for k, v in expect.model_dump(mode="json").items() if v is not None and v != []}


class AgentSchedule:
    """Plays one conversation test's steps against the agent's speech."""

    def __init__(self, scenario: AgentScenario, clip_audio: dict[int, np.ndarray], sample_rate: int,
                 rules: AgentRules = AgentRules(), ear: CallerEar | None = None,
                 personas: dict[int, tuple[PersonaBrain, CallerVoice]] | None = None,
                 tools: LiveTools | None = None) -> None:
        self.scenario = scenario
        self.tools = tools
        """the trial's mock tools (floorbench.suites.agent.tool_live), None: the test has none"""
        self.clip_audio = clip_audio
        self.sr = sample_rate
        self.rules = rules
        self.ear = ear
        """how the caller hears the agent's words (needed by branch steps only)"""
        self._ear_ready: asyncio.Task[None] | None = None
        self.personas = personas or {}
        """persona step number → who writes its lines and who speaks them"""
        self._voices_ready: dict[int, asyncio.Task[None]] = {}

    @property
    def branches(self) -> bool:
        """does the caller need to hear the agent's words (a branch or a persona step)?"""
        return any(st.kind in (StepKind.branch, StepKind.persona) for st in self.scenario.steps)

    def describe(self) -> dict[str, object]:
        s = self.scenario
        return {
            "policy": "agent", "test": s.test, "trial": s.trial, "trials": s.trials, "source": s.source,
            "tags": list(s.tags), "pass_threshold": s.pass_threshold, "rules": asdict(self.rules),
            "language": s.language,
            "steps": [_step_record(st) for st in s.steps],
            "expect": _compact(s.expect),
            **({"caller_asr": self.ear.model if self.ear is not None else None} if self.branches else {}),
            **({"personas": {str(n): {"endpoint": brain.card(), "voice": voice.voice}
                             for n, (brain, voice) in self.personas.items()}} if self.personas else {}),
        }

    def timeout_s(self, audio_s: float) -> float:
        """The room's limit: the test's own, else its audio plus every step's longest wait, and slack."""
        if self.scenario.timeout_s is not None:
            return self.scenario.timeout_s
        r = self.rules
        per_step = (max(r.wait_ms, r.onset_window_ms) + r.response_cap_ms + r.gap_ms) / 1000 + 1
        waits = sum(per_step + (st.ms or 0) / 1000 + (st.gap_ms or 0) / 1000
                    + (r.branch_asr_s if st.kind is StepKind.branch else 0)
                    + (st.persona.max_turns * (per_step + r.branch_asr_s + st.persona.endpoint.timeout_s + 10)
                       if st.persona is not None else 0) for st in self.scenario.steps)
        return audio_s + waits + per_step + 60

    def gap(self, st: AgentStep) -> int:
        return self.rules.gap_ms if st.gap_ms is None else st.gap_ms

    def samples(self, ms: int) -> int:
        return ms * self.sr // 1000

    async def run(self, pb: Playback) -> None:
        if self.tools is None:
            return await self._steps(pb)
        self.tools.attach(pb)
        try:
            await self._steps(pb)
            # a call still running when the agent fell silent: the call goes on until it has answered
            if self.scenario.steps[-1].kind is not StepKind.hang_up and await self.tools.until_idle(
                    self.rules.response_cap_ms):
                await self.turn_over(pb, None, Reply(pb.clock.now_ns()), self.rules.tail_ms, self.rules.wait_ms)
        finally:  # the calls go to the folder with the room's other records
            out_dir = getattr(pb, "out_dir", None)
            await self.tools.close(out_dir if isinstance(out_dir, Path) else None)

    async def _steps(self, pb: Playback) -> None:
        w = pb.writer
        first = w.cursor + self.samples(self.rules.lead_in_ms)
        reply = Reply(pb.clock.now_ns())
        turn_given = False
        prev_end = first
        if self.branches and self.ear is not None:  # loads while the first steps play
            self._ear_ready = asyncio.create_task(self.ear.load(), name="caller-ear")
        for n, (_, voice) in self.personas.items():
            self._voices_ready[n] = asyncio.create_task(voice.load(), name=f"persona-voice-{n}")
        steps, i = self.scenario.steps, 0
        while i < len(steps):
            st = steps[i]
            i += 1
            if st.kind is StepKind.branch:
                wait = st.wait_ms if st.wait_ms is not None else self.rules.wait_ms
                await self.turn_over(pb, st, reply, self.gap(st), wait, not_before=first)
                prev_end, end_ns, goto = await self._branch(pb, st, reply, max(first, w.cursor))
                reply, turn_given = Reply(end_ns), True
                if goto is not None:
                    j = next(k for k, s in enumerate(steps) if s.label == goto)
                    for skipped in steps[i:j]:
                        pb.log(EventKind.wait, step=skipped.n, reason="skipped", by_step=st.n, goto=goto)
                    i = j
            elif st.kind is StepKind.persona:
                brain, voice = self.personas[st.n]
                out_dir = getattr(pb, "out_dir", None)  # the room's scenario folder (a fake playback has none)
                caller = PersonaCaller(self, st, brain, voice, out_dir if isinstance(out_dir, Path) else None)
                prev_end, _, reply, _ = await caller.run(pb, reply, first, turn_given, self._voices_ready.get(st.n))
                turn_given = turn_given or bool(caller.history)
            elif st.kind is StepKind.hang_up:
                await self.turn_over(pb, st, reply, self.gap(st), self.rules.wait_ms if turn_given else 0)
                pb.log(EventKind.wait, reason="hang_up", step=st.n)
                break
            elif st.kind is StepKind.say and st.pause_ms is not None:
                prev_end, end_ns = await self.play(pb, st, prev_end + self.samples(st.pause_ms), "pause")
                reply = Reply(end_ns)
            elif st.kind is StepKind.say:
                wait = st.wait_ms if st.wait_ms is not None else (self.rules.wait_ms if turn_given else 0)
                # not before its own moment: an agent that began speaking in an opening silence (a greeting)
                # is a turn the say waits to end, as the rule says ("or is speaking")
                await self.turn_over(pb, st, reply, self.gap(st), wait, not_before=max(first, w.cursor))
                prev_end, end_ns = await self.play(pb, st, max(first, w.cursor), "turn_over")
                reply, turn_given = Reply(end_ns), True
            elif st.kind is StepKind.dtmf:
                wait = st.wait_ms if st.wait_ms is not None else (self.rules.wait_ms if turn_given else 0)
                await self.turn_over(pb, st, reply, self.gap(st), wait, not_before=max(first, w.cursor))
                reply, turn_given = Reply(await self._press(pb, st)), True
            elif st.kind in TIMED_TO_AGENT:
                onset = await self.onset(pb, reply, self.rules.onset_window_ms)
                if onset is None:
                    pb.log(EventKind.wait, turn_id=st.clip, step=st.n, reason="not_run", label=str(st.kind),
                           why="the agent did not start speaking after the caller's last turn")
                    continue
                at = self.sample_at(pb, onset + (st.after_ms or 0) * MS)
                prev_end, end_ns = await self.play(pb, st, at, "timed", onset_ms=onset // MS)
                if st.kind is StepKind.barge_in:
                    reply, turn_given = Reply(end_ns), True
            else:  # silence: right after the previous step
                prev_end, _ = await self.play(pb, st, max(prev_end, first), "after_previous")
        else:
            await self.turn_over(pb, None, reply, self.rules.tail_ms, self.rules.wait_ms if turn_given else 0)
        pb.log(EventKind.end, sample=w.cursor, t_ms=w.playout_ns(w.cursor) // MS)

    async def _press(self, pb: Playback, st: AgentStep) -> int:
        """Ask the phone leg to send the step's keys (a room data message); log when, and when the last key
        ends (`dtmf_span_ms`: the keys are sent one after another); return that end (session ns), from which
        the agent's reply is awaited (the agent's earlier turn, still fading in the live VAD, is not it)."""
        from floorbench.scenarios.dtmf import DTMF_REQUEST, dtmf_span_ms

        assert st.digits is not None
        send = getattr(pb, "send_data", None)
        sent_ns = pb.clock.now_ns()
        if send is None:
            pb.log(EventKind.marker, step=st.n, by="caller", reason="not_sent", label=str(st.kind), digits=st.digits,
                   why="this playback has no data channel to the phone leg")
            return sent_ns
        await send({"floorbench": DTMF_REQUEST, "digits": st.digits, "step": st.n,
                    **({"duration_ms": st.duration_ms} if st.duration_ms is not None else {})})
        end_ms = sent_ns // MS + dtmf_span_ms(st.digits, st.duration_ms)
        pb.log(EventKind.marker, t_ms=sent_ns // MS, step=st.n, by="caller", reason="dtmf", label=str(st.kind),
               digits=st.digits, duration_ms=st.duration_ms, end_ms=end_ms)
        return end_ms * MS

    def sample_at(self, pb: Playback, t_ns: int) -> int:
        """The track sample that leaves at `t_ns` (the cursor if that moment has passed)."""
        return sample_at(pb, self.sr, t_ns)

    async def play(self, pb: Playback, st: AgentStep, at: int, why: str, clip: int | None = None,
                    **extra: object) -> tuple[int, int]:
        """Play the step's clip (or `clip`) from sample `at`; log its start and end; return its end
        (sample, session ns)."""
        clip = st.clip if clip is None else clip
        assert clip is not None
        w = pb.writer
        sc = w.schedule(self.clip_audio[clip], at, f"step {st.n}")
        late = sc.start - at
        pb.log(EventKind.turn_start, turn_id=clip, step=st.n, sample=sc.start, t_ms=w.playout_ns(sc.start) // MS,
               label=str(st.kind), speaker="caller",
               reason=why if late <= 0 else f"late by {late * 1000 // self.sr} ms", **extra)
        await sc.written.wait()
        end_ns = w.playout_ns(sc.end)
        pb.log(EventKind.turn_end, turn_id=clip, step=st.n, sample=sc.end, t_ms=end_ns // MS, label=str(st.kind))
        return sc.end, end_ns

    async def hear(self, audio: np.ndarray) -> tuple[str | None, str | None]:
        """(the transcript, None) or (None, why the caller could not hear it)."""
        if self.ear is None:
            return None, "no caller ASR configured"
        try:
            if self._ear_ready is not None:
                await asyncio.wait_for(asyncio.shield(self._ear_ready), self.rules.branch_asr_s * 3)
            return await asyncio.wait_for(self.ear.transcribe(audio), self.rules.branch_asr_s), None
        except TimeoutError:
            return None, f"the caller's ASR took over {self.rules.branch_asr_s} s"
        except Exception as e:  # a model that cannot load: recorded, and the scorer makes the trial an error
            return None, f"the caller's ASR failed: {type(e).__name__}: {e}"

    async def _branch(self, pb: Playback, st: AgentStep, reply: Reply, at: int) -> tuple[int, int, str | None]:
        """Hear the agent's turn, pick the rule, log the decision, play its line; (end sample, end ns, goto)."""
        assert st.branch is not None
        over_ns = pb.clock.now_ns()
        heard = pb.monitor.speech_audio(reply.since_ns, over_ns) if reply.onset_ns is not None else None
        text, error, asr_ms = None, None, None
        if heard is not None:
            text, error = await self.hear(heard[0])
            asr_ms = (pb.clock.now_ns() - over_ns) // MS
        t0 = time.perf_counter_ns()
        choice = choose(st.branch, text)
        decide_us = (time.perf_counter_ns() - t0) // 1000
        ready_ns = pb.clock.now_ns()
        w = pb.writer
        at = max(at, w.cursor)
        line_ns = w.playout_ns(at)
        rule = choice.rule
        pb.log(EventKind.branch, step=st.n, clip=rule.clip, rule=rule.name, index=choice.index, goto=rule.goto,
               why=error or choice.why, reason="asr_failed" if error else "chosen", transcript=text,
               heard_from_ms=None if heard is None else heard[1] // MS,
               heard_to_ms=None if heard is None else heard[2] // MS,
               turn_over_ms=over_ns // MS, asr_ms=asr_ms, decide_us=decide_us, chain_ms=(ready_ns - over_ns) // MS,
               line_ms=line_ns // MS, caller_delay_ms=(line_ns - over_ns) // MS)
        end, end_ns = await self.play(pb, st, at, "branch", clip=rule.clip, rule=rule.name)
        return end, end_ns, rule.goto

    async def until_heard(self, pb: Playback, t_ns: int) -> None:
        """Return once the agent's audio up to `t_ns` was heard (or one second past it with none arriving)."""
        await until_heard(pb, t_ns)

    async def onset(self, pb: Playback, reply: Reply, window_ms: int, not_before_ns: int = 0) -> int | None:
        """The onset of the agent's reply since `reply.since_ns`, waiting up to `window_ms` for it
        (and at least until `not_before_ns`); None if it did not start."""
        if reply.onset_ns is not None:
            return reply.onset_ns
        since = reply.since_ns
        deadline = max(since + window_ms * MS, not_before_ns)
        onset, reason = await wait_onset(pb, self.rules.vad_margin_ms * MS, since, deadline)
        if onset is None:
            pb.log(EventKind.wait, reason=reason, from_ms=since // MS, until_ms=deadline // MS)
            return None
        reply.onset_ns = onset
        pb.log(EventKind.wait, reason=reason, from_ms=since // MS, onset_ms=onset // MS)
        return onset

    async def turn_over(self, pb: Playback, st: AgentStep | None, reply: Reply, gap_ms: int, wait_ms: int,
                         not_before: int = 0) -> None:
        """Wait for the end of the agent's turn: `gap_ms` of its silence after its reply began, at most
        `response_cap_ms` from the onset; no wait past `wait_ms` if it never starts."""
        not_before_ns = pb.writer.playout_ns(not_before) if not_before else 0
        onset = await self.onset(pb, reply, wait_ms, not_before_ns)
        step = st.n if st is not None else None
        if onset is None:
            pb.log(EventKind.wait, step=step, reason="no_reply", until_ms=pb.clock.now_ns() // MS)
            return
        mon = pb.monitor
        cap = onset + self.rules.response_cap_ms * MS
        while True:
            now = pb.clock.now_ns()
            if mon.silent_for_ns(now) >= gap_ms * MS:
                ended = "turn_over"
                break
            if now >= cap:
                ended = "cap"
                break
            await mon.wait_change(0.05)
        pb.log(EventKind.wait, step=step, reason=ended, until_ms=pb.clock.now_ns() // MS,
               last_speech_ms=(mon.last_speech_end_ns or 0) // MS)


def _step_record(st: AgentStep) -> dict[str, object]:
    """A step for meta.json: only the assertions set; a persona endpoint's URL without user-info or query."""
    d: dict[str, Any] = st.model_dump(mode="json", exclude_none=True)
    d["expect"] = _compact(st.expect)
    if st.persona is not None:
        from floorbench.processors.adapter_config import public_url

        d["persona"]["endpoint"]["base_url"] = public_url(st.persona.endpoint.base_url)
    return d


def _personas(s: AgentScenario, options: dict[str, object]) -> dict[int, tuple[PersonaBrain, CallerVoice]]:
    """Each persona step's endpoint and voice. The operator's binding (`persona_llm.PersonaBinding`: the
    command line's ``--persona-url``/``--persona-key-env``, else FLOORBENCH_PERSONA_URL/_KEY) sends every
    step to its URL with its key; without one, the file's endpoint is asked with no key."""
    from floorbench.safe_http import BindingError
    from floorbench.suites.agent.persona_llm import PersonaBinding

    binding = PersonaBinding.from_options(options)
    if binding.url is None:
        try:
            binding = PersonaBinding.of(None, None)
        except BindingError:
            binding = PersonaBinding()  # `test`/`load`/`worker` refuse a bad one before any room; here: no key
    out: dict[int, tuple[PersonaBrain, CallerVoice]] = {}
    for st in s.steps:
        if st.persona is not None:
            out[st.n] = (binding.endpoint(st.persona.endpoint), LocalVoice(st.persona.voice))
    return out


def live_schedule(req: LiveRequest) -> LivePlan:
    """Suite agent's part `live_schedule` (floorbench.plugins): the caller's steps, no preamble;
    a test with branch or persona steps hears the agent with the packaged ``tiny.en``."""
    s: AgentScenario = req.scenario
    ear = WhisperEar() if any(st.kind in (StepKind.branch, StepKind.persona) for st in s.steps) else None
    tools = tool_live.start(s.tools, s.trial, req.options)
    schedule = AgentSchedule(s, req.turn_audio, req.sample_rate, ear=ear, personas=_personas(s, dict(req.options)),
                             tools=tools)
    return LivePlan(schedule, schedule.timeout_s(req.audio_s), env=tools.env() if tools is not None else {},
                    close=tools.close if tools is not None else None)
