"""The LLM-persona caller, live (docs/callers.md): each line generated from what the agent just said.

One persona step plays up to `max_turns` lines. For each:

1. *listen* — wait for the end of the agent's turn exactly as a say does
   (`gap_ms` of its silence, at most `wait_ms` for it to start). With the
   seeded chance `barge_in.chance` the caller instead speaks over the agent
   once it has spoken `barge_in.after_ms`; with `backchannel.chance` it says
   `backchannel.text` `backchannel.after_ms` into the agent's speech (only if
   the agent is still speaking then). The draws come from one
   ``random.Random(seed, trial)``, two per line, so a trial replays the same
   choices;
2. *hear* — ASR of the agent's speech since the caller's last line (the
   branching caller's ear: the packaged ``tiny.en`` in a worker thread);
3. *think* — the endpoint writes the next line (`persona_llm`); the
   `opening`, if given, is the first line without asking it;
4. *speak* — a local voice synthesizes it in a worker thread, the line is
   played from the next sample, and written to the run folder
   (``persona/clip-<id>.wav``) for audit.

It stops when the reply says it is done (``done``), after `max_turns` lines
(``max_turns``), when the agent said nothing after a line (``agent_silent``),
or when a part of its own chain failed (``endpoint_failed``, ``asr_failed``,
``voice_failed``). Every line is a ``persona`` timeline line (reason
``line``: the line, the transcript it reacted to, ASR/LLM/TTS ms, the chain
and the caller's delay from the agent's turn over to the line's first sample)
and the stop is one more (reason ``end``, ``outcome``, ``why``). Those are
the caller's own latencies: a `responds_within_ms` is measured from each
line's end.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from floorbench.pipelines.room.schedule import MS, Playback
from floorbench.records import EventKind
from floorbench.suites.agent.caller_floor import CallerFloor, Reply
from floorbench.suites.agent.persona_llm import PersonaBrain, PersonaEndpointError, messages, parse_reply
from floorbench.suites.agent.rules import (
    AGENT_SILENT,
    ASR_FAILED,
    DONE,
    ENDPOINT_FAILED,
    MAX_TURNS,
    VOICE_FAILED,
)
from floorbench.suites.agent.schema import AgentStep

PERSONA_DIR = "persona"
"""the run folder's sub-folder (per scenario) with every line the persona said, as WAV"""


class CallerVoice(Protocol):
    """How the persona speaks (`LocalVoice`; a fake in unit tests)."""

    @property
    def voice(self) -> str: ...

    async def load(self) -> None:
        """get ready before the first line needs it (Piper loads its model once per process)"""
        ...

    async def speak(self, text: str, sample_rate: int) -> np.ndarray:
        """`text` as int16 mono at `sample_rate`; never blocks the event loop"""
        ...


class LocalVoice:
    """A local voice of `floorbench.speech.tts` (Piper, flite, festival), in a worker thread."""

    def __init__(self, voice: str) -> None:
        self._voice = voice

    @property
    def voice(self) -> str:
        return self._voice

    async def load(self) -> None:
        await self.speak("Hello.", 16000)

    async def speak(self, text: str, sample_rate: int) -> np.ndarray:
        from floorbench.speech.tts import synthesize

        return await asyncio.to_thread(synthesize, text, self._voice, sample_rate)


@dataclass
class PersonaEnd:
    """How a persona step ended."""

    outcome: str
    why: str
    lines: int


def _write_wav(path: Path, audio: np.ndarray, rate: int) -> None:
    import soundfile as sf

    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), audio, rate, subtype="PCM_16")


class PersonaCaller:
    """Plays one persona step through its schedule's waits and clip writer."""

    def __init__(self, sched: CallerFloor, st: AgentStep, brain: PersonaBrain, voice: CallerVoice,
                 out_dir: Path | None = None) -> None:
        assert st.persona is not None
        self.sched, self.st, self.p = sched, st, st.persona
        self.brain, self.voice = brain, voice
        self.out_dir = out_dir
        """the scenario's run folder: each line goes to persona/ there (None: not written, in tests)"""
        self.rng = random.Random(f"{self.p.seed}:{sched.scenario.trial}")
        self.history: list[tuple[str, str]] = []
        self._writes: list[asyncio.Task[None]] = []
        self._back_audio: asyncio.Task[np.ndarray] | None = None
        """the backchannel's words, synthesized once while the call starts (not when it is due)"""

    def _log_end(self, pb: Playback, outcome: str, why: str, lines: int) -> PersonaEnd:
        pb.log(EventKind.persona, step=self.st.n, reason="end", outcome=outcome, why=why, lines=lines,
               max_turns=self.p.max_turns)
        return PersonaEnd(outcome, why, lines)

    async def run(self, pb: Playback, reply: Reply, first: int, turn_given: bool,
                  ready: asyncio.Task[None] | None) -> tuple[int, int, Reply, PersonaEnd]:
        """Play the step; (last line's end sample, its end ns, the agent's reply since it, how it ended)."""
        s, p, st = self.sched, self.p, self.st
        end_sample, end_ns = pb.writer.cursor, pb.clock.now_ns()
        k = 0
        if p.backchannel.chance > 0 and p.backchannel.text and p.backchannel_clips:
            self._back_audio = asyncio.create_task(self._synthesize_backchannel(ready, p.backchannel.text))
        try:
            while True:
                if k == p.max_turns:
                    return end_sample, end_ns, reply, self._log_end(
                        pb, MAX_TURNS, f"said {k} lines (max_turns) without reaching its goal", k)
                barge, back = self.rng.random() < p.barge_in.chance, self.rng.random() < p.backchannel.chance
                over_ns, interrupting = await self._listen(pb, reply, first, turn_given, barge, back, k)
                if turn_given and reply.onset_ns is None:
                    return end_sample, end_ns, reply, self._log_end(
                        pb, AGENT_SILENT, f"the agent said nothing after the persona's line {k}", k)
                heard = pb.monitor.speech_audio(reply.since_ns, over_ns) if reply.onset_ns is not None else None
                text, asr_ms = None, None
                if heard is not None:
                    text, error = await s.hear(heard[0])
                    asr_ms = (pb.clock.now_ns() - over_ns) // MS
                    if error is not None:
                        return end_sample, end_ns, reply, self._log_end(pb, ASR_FAILED, error, k)
                if text is not None or turn_given:
                    self.history.append(("agent", text or ""))
                t_llm = pb.clock.now_ns()
                if k == 0 and p.opening:
                    line, done, llm_ms = p.opening, False, None
                else:
                    try:
                        raw = await asyncio.wait_for(self.brain.reply(messages(p, self.history)),
                                                     p.endpoint.timeout_s + 1)
                    except (PersonaEndpointError, TimeoutError) as e:
                        why = str(e) or f"no reply within {p.endpoint.timeout_s:g} s"
                        return end_sample, end_ns, reply, self._log_end(pb, ENDPOINT_FAILED, why, k)
                    line, done = parse_reply(raw)
                    llm_ms = (pb.clock.now_ns() - t_llm) // MS
                if not line:
                    outcome = DONE if done else ENDPOINT_FAILED
                    why = "done (the reply was only the done marker)" if done else "the endpoint gave an empty line"
                    return end_sample, end_ns, reply, self._log_end(pb, outcome, why, k)
                t_tts = pb.clock.now_ns()
                try:
                    if ready is not None:
                        await ready
                    audio = await self.voice.speak(line, s.sr)
                except Exception as e:  # a voice that cannot speak here: recorded, the trial an error
                    return end_sample, end_ns, reply, self._log_end(
                        pb, VOICE_FAILED, f"voice {self.voice.voice}: {type(e).__name__}: {e}", k)
                tts_ms = (pb.clock.now_ns() - t_tts) // MS
                k += 1
                clip = p.clips[k - 1]
                s.clip_audio[clip] = audio
                ready_ns = pb.clock.now_ns()
                at = max(first, pb.writer.cursor)
                line_ns = pb.writer.playout_ns(at)
                rel = self._keep(clip, audio, s.sr)
                pb.log(EventKind.persona, step=st.n, reason="line", line=k, clip=clip, text=line, done=done,
                       transcript=text, heard_from_ms=None if heard is None else heard[1] // MS,
                       heard_to_ms=None if heard is None else heard[2] // MS, turn_over_ms=over_ns // MS,
                       barge_in=interrupting, asr_ms=asr_ms, llm_ms=llm_ms, tts_ms=tts_ms,
                       chain_ms=(ready_ns - over_ns) // MS, line_ms=line_ns // MS,
                       caller_delay_ms=(line_ns - over_ns) // MS, audio=rel, voice=self.voice.voice)
                end_sample, end_ns = await s.play(pb, st, at, "persona", clip=clip, line=k)
                self.history.append(("caller", line))
                reply, turn_given = Reply(end_ns), True
                if done:
                    return end_sample, end_ns, reply, self._log_end(pb, DONE, "the persona said it was done", k)
        finally:
            if self._back_audio is not None and not self._back_audio.done():
                self._back_audio.cancel()
            elif self._back_audio is not None and not self._back_audio.cancelled():
                self._back_audio.exception()  # retrieved: a voice that failed and was never needed is no error
            if self._writes:
                await asyncio.gather(*self._writes, return_exceptions=True)

    async def _synthesize_backchannel(self, ready: asyncio.Task[None] | None, text: str) -> np.ndarray:
        if ready is not None:
            await ready
        return await self.voice.speak(text, self.sched.sr)

    def _keep(self, clip: int, audio: np.ndarray, rate: int) -> str | None:
        """Write the line to the run folder off the event loop; its path relative to the scenario folder."""
        if self.out_dir is None:
            return None
        rel = f"{PERSONA_DIR}/clip-{clip}.wav"
        self._writes.append(asyncio.create_task(asyncio.to_thread(_write_wav, self.out_dir / rel, audio, rate)))
        return rel

    async def _listen(self, pb: Playback, reply: Reply, first: int, turn_given: bool, barge: bool,
                      back: bool, k: int) -> tuple[int, bool]:
        """Wait for the moment to speak: (that moment, ns; whether it interrupts the agent)."""
        s, p, st = self.sched, self.p, self.st
        wait = st.wait_ms if st.wait_ms is not None else (s.rules.wait_ms if turn_given else 0)
        if turn_given and (barge or back):
            onset = await s.onset(pb, reply, wait)
            if onset is not None and back and p.backchannel.text and p.backchannel_clips:
                await self._backchannel(pb, onset, k)
            if onset is not None and barge:
                at = onset + p.barge_in.after_ms * MS
                await s.until_heard(pb, at + s.rules.vad_margin_ms * MS)
                if pb.monitor.speaking_at(at):
                    pb.log(EventKind.wait, step=st.n, reason="persona_barge_in", onset_ms=onset // MS,
                           at_ms=at // MS)
                    return pb.clock.now_ns(), True
        await s.turn_over(pb, st, reply, s.gap(st), wait, not_before=first)
        return pb.clock.now_ns(), False

    async def _backchannel(self, pb: Playback, onset: int, k: int) -> None:
        """Say the backchannel `after_ms` into the agent's speech, if it is still speaking then."""
        s, p = self.sched, self.p
        at = onset + p.backchannel.after_ms * MS
        await s.until_heard(pb, at + s.rules.vad_margin_ms * MS)
        if not pb.monitor.speaking_at(at) or p.backchannel.text is None or self._back_audio is None:
            pb.log(EventKind.wait, step=self.st.n, reason="persona_backchannel_skipped", at_ms=at // MS,
                   why="the agent was not speaking then")
            return
        clip = p.backchannel_clips[k]
        t0 = time.perf_counter_ns()
        s.clip_audio[clip] = await self._back_audio  # the same words every time: synthesized once, at the start
        tts_ms = (time.perf_counter_ns() - t0) // 1_000_000
        rel = self._keep(clip, s.clip_audio[clip], s.sr)
        pb.log(EventKind.persona, step=self.st.n, reason="backchannel", clip=clip, text=p.backchannel.text,
               tts_ms=tts_ms, audio=rel, onset_ms=onset // MS)
        await s.play(pb, self.st, s.sample_at(pb, at), "persona_backchannel", clip=clip)

