"""`cascade`: a real, local, weak baseline — Silero VAD → faster-whisper → responder → Piper, interruptible.

What it does with the room audio (16 kHz mono, everything the humans say):

1. **Segmenting** — Silero VAD on 32 ms windows. Speech starts after
   ``vad.onset_ms`` of speech windows; an utterance ends after
   ``vad.end_silence_ms`` below the threshold (default 450 ms: just under the
   benchmark's 500 ms turn gaps, so consecutive turns are heard apart; commas
   in speech are shorter). The tail of an utterance is kept as the preroll of
   the next, in case it already holds that turn's first syllable.
2. **Hearing** — each utterance goes to faster-whisper (tiny.en shipped in a
   package by default) in a worker thread, prompted with the assistant's name
   so that Whisper writes "Aria" rather than "area".
3. **Deciding** — `cascade_text.addressing` (name spotting + context rules) and
   `cascade_text.answer` (arithmetic over quantities heard, else extractive);
   or, with ``llm:`` configured, an OpenAI-compatible LLM writes the answer.
   A request split by a short pause (< ``join_gap_ms``) is judged joined.
   When the runner serves mock tools (``FLOORBENCH_TOOLS_URL``), the rules first
   try a tool (`cascade_tools`: a filler, the call, an answer from its
   response), and an LLM is offered them as functions.
4. **Speaking** — Piper, sentence by sentence in a worker thread, pushed as
   24 kHz ``OutputAudioRawFrame``s paced in real time with ``output_lead_ms``
   of lead, so the cascade knows when it is audible.
5. **Barge-in** — while it speaks (or is about to), a speech onset in the room
   stops it: the speaking task is cancelled, Piper is told to stop, and an
   ``InterruptionFrame`` clears the output transport's queue. Measured
   end-to-end by ``benchmarks/bargein.py``.

Latencies are logged per response and per barge-in (loguru, and as
data-channel messages with topic ``cascade`` that the recorder writes to the
timeline as markers): ASR, decision, first TTS audio, and the response latency
from the end of the human's speech to the first audio pushed.

The cascade never reads the scenario (`ModelContext.scenario`); it knows only
what it hears and its configured name.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import numpy as np
from loguru import logger
from pipecat.frames.frames import (
    InputAudioRawFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
    OutputTransportMessageUrgentFrame,
)
from pipecat.processors.frame_processor import FrameProcessor
from pydantic import Field

from floorbench.audio.vad import SILENCE_THRESHOLD, SPEECH_THRESHOLD, VAD_RATE, WINDOW, WINDOW_MS, VadStream
from floorbench.processors.adapter_config import AdapterSettings, Ms, Settings
from floorbench.processors.cascade_answer import answer
from floorbench.processors.cascade_llm import LLMLink, LLMResponder, LLMSettings
from floorbench.processors.cascade_speech import Transcriber, Voice, resolve_asr_model, resolve_voice
from floorbench.processors.cascade_text import Addressing, Heard, addressing
from floorbench.processors.cascade_tools import FILLER, ToolPlan, ToolRules, fetch_tools, tools_url
from floorbench.processors.registry import Model, ModelContext
from floorbench.processors.room_audio import RoomAudioProcessor


class AsrSettings(Settings):
    model: str = "tiny.en"
    """the packaged tiny.en, or a CTranslate2 Whisper folder (resolved to a path when the model is built)"""
    threads: int = Field(default=2, ge=1, strict=True)


class TtsSettings(Settings):
    voice: str = "piper:joe"
    """the packaged Piper voice, or a Piper .onnx file (resolved to a path when the model is built)"""
    length_scale: float | None = Field(default=None, gt=0)
    """Piper's speaking rate (> 1 is slower); None: the voice's own"""


class VadSettings(Settings):
    threshold: float = Field(default=SPEECH_THRESHOLD, ge=0, le=1)
    neg_threshold: float = Field(default=SILENCE_THRESHOLD, ge=0, le=1)
    onset_ms: Ms = 64
    """speech needed to call an onset (and to barge in)"""
    end_silence_ms: Ms = 450
    """quiet needed to end an utterance"""
    min_utterance_ms: Ms = 250
    max_utterance_ms: Ms = 20000
    preroll_ms: Ms = 300


class CascadeSettings(AdapterSettings):
    """The cascade's config (``floorbench/data/models/cascade.yaml`` spells out every default)."""

    name: str = Field(default="Aria", pattern=r"\S")
    """the assistant's name: what it listens for, and what Whisper is prompted with"""
    asr: AsrSettings = AsrSettings()
    tts: TtsSettings = TtsSettings()
    vad: VadSettings = VadSettings()
    llm: LLMSettings | None = None
    """answer with an LLM on an OpenAI-compatible endpoint instead of the rules"""
    join_gap_ms: Ms = 1200
    """a request split by a shorter pause is judged joined"""
    barge_in: bool = True
    output_lead_ms: Ms = 100
    turn_detector: Literal["silence", "smart_turn_v3"] = "silence"
    """what ends the user's turn: `vad.end_silence_ms` of silence; or that silence and pipecat's
    bundled Smart Turn v3 calling the turn complete (if it says incomplete, `smart_turn_max_wait_ms`)"""
    smart_turn_max_wait_ms: Ms = 3000
    dyadic: bool = False
    """one user talks to the model (suite turns): every utterance is for it; `dyadic_reply` when
    the rules have no answer"""
    dyadic_reply: str = "I see. Please tell me a little more about that."


def _now_ms(t0: int) -> int:
    return (time.monotonic_ns() - t0) // 1_000_000


class CascadeProcessor(RoomAudioProcessor):
    """The whole cascade in one processor (see the module docstring)."""

    def __init__(
        self, settings: CascadeSettings, llm: LLMResponder | None = None, out_rate: int = 24000
    ) -> None:
        super().__init__(name="cascade")
        self.s = settings
        """as resolved by `CascadeModel`: asr.model and tts.voice are paths"""
        self.llm = llm
        self.out_rate = out_rate
        self.history: list[Heard] = []
        self.spoken: list[str] = []
        self.latencies: list[dict[str, Any]] = []
        """every response and barge-in record, also sent as markers (for tests and benchmarks)"""
        self._t0 = time.monotonic_ns()
        self._asr_pool = ThreadPoolExecutor(1, thread_name_prefix="cascade-asr")
        self._tts_pool = ThreadPoolExecutor(1, thread_name_prefix="cascade-tts")
        self._asr: Transcriber | None = None
        self._voice: Voice | None = None
        self._loaded: asyncio.Future | None = None
        self._vad: VadStream | None = None
        self._resampler: Any = None
        self._utt: list[np.ndarray] = []
        self._pre: list[np.ndarray] = []
        self._speech_run = 0
        self._silence_run = 0
        self._in_speech = False
        self._onset_ms = 0
        self._onset_sample = 0
        self._in_samples = 0
        self._last_speech_ms = 0
        self._utterances: asyncio.Queue[tuple[np.ndarray, int, int, int]] = asyncio.Queue()
        self._worker: asyncio.Task | None = None
        self._speak_task: asyncio.Task | None = None
        self._tts_cancel = threading.Event()
        self._audible_until_ns = 0
        self._pending_answer = False
        self._closed = False
        self._smart_turn: Any = None
        """pipecat's LocalSmartTurnAnalyzerV3 when `turn_detector` is smart_turn_v3"""
        self._turn_verdict: bool | None = None
        """Smart Turn's verdict on the current silence (None: not asked since the last speech)"""
        self.tool_rules: ToolRules | None = None
        """the trial's mock tools when the runner serves them (cascade_tools), read at start"""

    # --- lifecycle ------------------------------------------------------------------

    def _load(self) -> None:
        t = time.monotonic()
        self._asr = Transcriber(self.s.asr.model, threads=self.s.asr.threads)
        self._voice = Voice(self.s.tts.voice, self.out_rate, self.s.tts.length_scale)
        # First calls are slow (graph set-up, allocations): pay that now, during the preamble.
        self._asr(np.zeros(VAD_RATE, dtype=np.int16), None)
        for _ in self._voice.sentences("Okay.", threading.Event()):
            pass
        if self.s.turn_detector == "smart_turn_v3":
            from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3

            self._smart_turn = LocalSmartTurnAnalyzerV3(cpu_count=1)  # the bundled smart-turn-v3.2-cpu.onnx
        logger.info(f"cascade: models loaded in {time.monotonic() - t:.2f} s")

    async def on_start(self) -> None:
        # the VAD is small (≈ 50 ms to load): hear from the first frame on, and let
        # utterances wait in the queue while ASR and TTS load in a worker thread
        self._vad = VadStream()
        loop = asyncio.get_running_loop()
        self._loaded = loop.run_in_executor(self._asr_pool, self._load)
        self._worker = self.create_task(self._utterance_worker(), name="cascade-utterances")
        if (base := tools_url()) is not None:
            try:
                self.tool_rules = ToolRules(base, await fetch_tools(base))
            except Exception as e:  # the scenario's tool checks then fail; the conversation goes on
                await self.push_error(f"cascade tools: cannot read {base}/tools ({type(e).__name__}: {e})")
            if self.llm is not None and self.tool_rules is not None:
                self.llm.tools = self.tool_rules

    async def on_room_audio(self, frame: InputAudioRawFrame) -> None:
        await self._on_audio(frame)

    async def on_stop(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._tts_cancel.set()
        for task in (self._speak_task, self._worker):
            if task is not None and not task.done():
                await self.cancel_task(task)
        self._asr_pool.shutdown(wait=False, cancel_futures=True)
        self._tts_pool.shutdown(wait=False, cancel_futures=True)

    # --- hearing ----------------------------------------------------------------------

    @property
    def speaking(self) -> bool:
        """Audio pushed and (by the pacing) not yet played out, or an answer about to start."""
        return (
            self._pending_answer
            or time.monotonic_ns() < self._audible_until_ns
            or (self._speak_task is not None and not self._speak_task.done())
        )

    async def _on_audio(self, frame: InputAudioRawFrame) -> None:
        if self._vad is None:
            return
        pcm = np.frombuffer(frame.audio, dtype=np.int16)
        if frame.num_channels > 1:
            pcm = pcm.reshape(-1, frame.num_channels).mean(axis=1).astype(np.int16)
        if frame.sample_rate != VAD_RATE:
            if self._resampler is None:
                import soxr

                self._resampler = soxr.ResampleStream(frame.sample_rate, VAD_RATE, 1, dtype="int16")
            pcm = self._resampler.resample_chunk(pcm)
        for w in self._vad.feed(pcm):
            self._in_samples = w.start + WINDOW
            await self._on_window(w.audio, w.probability)

    async def _on_window(self, window: np.ndarray, prob: float) -> None:
        s = self.s.vad
        now = _now_ms(self._t0)
        if not self._in_speech:
            self._pre = [*self._pre, window][-max(1, s.preroll_ms // WINDOW_MS) :]
            self._speech_run = self._speech_run + 1 if prob >= s.threshold else 0
            if self._speech_run == 1:
                self._onset_ms = now
                self._onset_sample = self._in_samples - WINDOW
            if self._speech_run * WINDOW_MS >= s.onset_ms:
                self._in_speech, self._silence_run = True, 0
                self._utt = list(self._pre)
                self._pre = []
                self._last_speech_ms = now
                if self.s.barge_in and self.speaking:
                    # audio between the first speech window's start and now (VAD needs onset_ms of it)
                    await self._barge_in(
                        detect_delay_ms=(self._in_samples - self._onset_sample) * 1000 // VAD_RATE
                    )
            return
        self._utt.append(window)
        if prob >= s.neg_threshold:
            self._silence_run = 0
            self._last_speech_ms = now
            self._turn_verdict = None
        else:
            self._silence_run += 1
        long = len(self._utt) * WINDOW_MS >= s.max_utterance_ms
        if (self._silence_run * WINDOW_MS >= s.end_silence_ms and await self._turn_complete()) or long:
            self._turn_verdict = None
            self._in_speech, self._speech_run = False, 0
            audio = np.concatenate(self._utt)
            # The tail may already hold the start of the next turn (turn gaps are ~500 ms): keep it as preroll.
            self._pre = self._utt[-max(1, s.preroll_ms // WINDOW_MS) :]
            self._utt = []
            voiced_ms = len(audio) * 1000 // VAD_RATE - self._silence_run * WINDOW_MS
            if voiced_ms >= s.min_utterance_ms:
                self._utterances.put_nowait((audio, self._onset_ms, self._last_speech_ms, now))

    async def _turn_complete(self) -> bool:
        """After `end_silence_ms` of silence: ended, unless Smart Turn v3 calls the turn incomplete;
        then only after `smart_turn_max_wait_ms` of silence. Asked once per silence, in a thread
        (about 0.25 s of CPU), so the room's audio keeps flowing meanwhile."""
        if self._smart_turn is None or self._silence_run * WINDOW_MS >= self.s.smart_turn_max_wait_ms:
            return True
        verdict = self._turn_verdict
        if verdict is None:
            audio = np.concatenate(self._utt).astype(np.float32) / 32768.0
            result = await asyncio.to_thread(self._smart_turn._predict_endpoint, audio)
            verdict = self._turn_verdict = result["prediction"] == 1
        return verdict

    async def _utterance_worker(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loaded is not None:
            await self._loaded
        while True:
            audio, start_ms, end_ms, detected_ms = await self._utterances.get()
            try:
                await self._handle_utterance(loop, audio, start_ms, end_ms, detected_ms)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # one bad utterance must not end the session
                logger.exception(f"cascade: utterance failed: {e}")

    async def _handle_utterance(
        self, loop: Any, audio: np.ndarray, start_ms: int, end_ms: int, detected_ms: int
    ) -> None:
        assert self._asr is not None
        t = time.monotonic()
        text = await loop.run_in_executor(
            self._asr_pool, self._asr, audio, f"A conversation with {self.s.name}, the assistant."
        )
        asr_ms = int((time.monotonic() - t) * 1000)
        prev = self.history[-1] if self.history else None
        heard = Heard(text, start_ms, end_ms)
        self.history.append(heard)
        await self._marker(
            {"event": "heard", "text": text, "start_ms": start_ms, "end_ms": end_ms, "asr_ms": asr_ms}
        )
        if not text:
            return
        # A request split by a short pause ("Aria, ..." <pause> "... how many?") is judged joined,
        # but only when the second part alone does not already decide it.
        joined = text
        context = self.history[:-1]
        # the utterance just before, if recent: "Don't ask me, I've lost track." → the next question is ours
        before = [prev.text] if prev is not None and start_ms - prev.end_ms < 3000 else []
        verdict = Addressing(True, "dyadic") if self.s.dyadic else addressing(text, self.s.name, before)
        if (
            not verdict.addressed
            and prev is not None
            and start_ms - prev.end_ms < self.s.join_gap_ms
            and not addressing(prev.text, self.s.name).addressed
            and (not prev.text.rstrip().endswith((".", "?", "!")) or len(prev.text.split()) <= 3)
        ):
            both = addressing(f"{prev.text} {text}", self.s.name)
            if both.addressed and both.reason == "named_request":
                joined, verdict = f"{prev.text} {text}", both
        t = time.monotonic()
        reply: str | None = None
        rule = verdict.reason
        if self.tool_rules is not None and self.llm is None and (  # prev: the request this may complete
            plan := self.tool_rules.plan(text, prev.text if prev is not None else None)
        ):
            return await self._answer_with_tool(plan, text, end_ms, asr_ms)
        if self.llm is not None and (verdict.addressed or self.llm.decides_addressing):
            try:
                reply, _ = await self.llm.reply(self.s.name, context, self.spoken, joined)
                rule = "llm" if reply else "llm_silent"
            except Exception as e:
                logger.warning(f"cascade: LLM failed ({e}); falling back to the extractive responder")
                # the run card names the LLM: a reply it did not give fails the scenario (model_error)
                await self.push_error(f"cascade llm: no reply ({type(e).__name__}: {e}); check the LLM server")
                reply = answer(joined, context, self.s.name)[0] if verdict.addressed else None
                rule = "llm_failed_fallback"
        elif verdict.addressed:
            reply, rule = answer(joined, context, self.s.name)
        if reply is None and self.s.dyadic:
            reply, rule = self.s.dyadic_reply, "dyadic_reply"
        decide_ms = int((time.monotonic() - t) * 1000)
        record: dict[str, Any] = {
            "event": "decision",
            "addressed": verdict.addressed,
            "reason": verdict.reason,
            "rule": rule,
            "text": joined,
            "reply": reply,
            "speech_end_ms": end_ms,
            "eou_wait_ms": detected_ms - end_ms,
            "asr_ms": asr_ms,
            "decide_ms": decide_ms,
        }
        if reply is None:
            await self._marker(record)
            return
        if self._in_speech and self._onset_ms > end_ms:
            record["dropped"] = "someone took the floor before the answer was ready"
            await self._marker(record)
            return
        self._pending_answer = True
        self._tts_cancel = threading.Event()
        self._speak_task = self.create_task(self._speak(reply, record), name="cascade-speak")

    async def _answer_with_tool(self, plan: ToolPlan, text: str, end_ms: int, asr_ms: int) -> None:
        """Say a filler, call the tool meanwhile, then speak what it answered (cascade_tools)."""
        assert self.tool_rules is not None
        record: dict[str, Any] = {"event": "decision", "addressed": True, "reason": "tool", "rule": "tool_filler",
                                  "tool": plan.tool.name, "arguments": plan.arguments, "text": text,
                                  "reply": FILLER, "speech_end_ms": end_ms, "asr_ms": asr_ms}
        self._pending_answer = True
        self._tts_cancel = threading.Event()
        self._speak_task = filler = self.create_task(self._speak(FILLER, record), name="cascade-speak")
        reply = await self.tool_rules.run(plan)
        if self._tts_cancel.is_set() or (self._in_speech and self._onset_ms > end_ms):
            await self._marker({**record, "rule": "tool_answer", "reply": reply,
                                "dropped": "someone took the floor during the tool call"})
            return
        # synthesised now, while the filler may still play; spoken when it has ended (`after`)
        answer_record = {**record, "rule": "tool_answer", "reply": reply, "speech_end_ms": _now_ms(self._t0)}
        self._pending_answer = True
        self.create_task(self._speak(reply, answer_record, after=filler), name="cascade-speak")

    # --- speaking ---------------------------------------------------------------------

    async def _speak(self, text: str, record: dict[str, Any], after: asyncio.Task | None = None) -> None:
        """Say `text` (after the task `after` has ended: a tool's answer after its filler)."""
        assert self._voice is not None
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[np.ndarray | None] = asyncio.Queue()
        cancel = self._tts_cancel
        t_req = time.monotonic()

        def produce() -> None:
            try:
                for pcm in self._voice.sentences(text, cancel):  # type: ignore[union-attr]
                    loop.call_soon_threadsafe(chunks.put_nowait, pcm)
            except Exception as e:  # a TTS failure ends this answer, not the session
                logger.error(f"cascade: TTS failed: {e}")
            finally:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(chunks.put_nowait, None)

        try:
            self._tts_pool.submit(produce)
        except RuntimeError:  # shutting down
            return
        rate = self.out_rate
        step = rate // 50  # 20 ms frames
        lead_ns = self.s.output_lead_ms * 1_000_000
        start_ns = 0
        pushed = 0
        try:
            while (pcm := await chunks.get()) is not None:
                if after is not None:
                    await asyncio.wait({after})  # the filler played out, or was cut
                    if cancel.is_set():
                        return
                    after, self._speak_task = None, asyncio.current_task()
                if not start_ns:
                    if self._in_speech and self._onset_ms > record["speech_end_ms"]:
                        # someone took the floor while the answer was being synthesised
                        record["event"] = "decision"
                        record["dropped"] = "someone took the floor before the answer was ready"
                        await self._marker(record)
                        return
                    start_ns = time.monotonic_ns()
                    record["tts_first_ms"] = int((time.monotonic() - t_req) * 1000)
                    record["response_latency_ms"] = _now_ms(self._t0) - record["speech_end_ms"]
                    record["event"] = "response"
                    self._pending_answer = False
                    await self._marker(record)
                    self.spoken.append(text)
                for i in range(0, len(pcm), step):
                    due = start_ns + pushed * 1_000_000_000 // rate - lead_ns
                    wait = due - time.monotonic_ns()
                    if wait > 0:
                        await asyncio.sleep(wait / 1e9)
                    piece = pcm[i : i + step]
                    await self.push_frame(OutputAudioRawFrame(piece.tobytes(), rate, 1))
                    pushed += len(piece)
                    self._audible_until_ns = start_ns + pushed * 1_000_000_000 // rate
            rest = self._audible_until_ns - time.monotonic_ns()
            if rest > 0:
                await asyncio.sleep(rest / 1e9)
        finally:
            self._pending_answer = False

    async def _barge_in(self, detect_delay_ms: int) -> None:
        t = time.monotonic_ns()
        was_audible = time.monotonic_ns() < self._audible_until_ns or (
            self._speak_task is not None and not self._speak_task.done()
        )
        await self.stop_speaking()
        record = {
            "event": "barge_in",
            "detect_delay_ms": detect_delay_ms,
            "stop_ms": (time.monotonic_ns() - t) // 1_000_000,
            "was_audible": was_audible,
            "t_ms": _now_ms(self._t0),
        }
        await self._marker(record)

    async def stop_speaking(self) -> None:
        """Stop now: drop the answer being prepared or spoken and clear what is queued for playout."""
        self._tts_cancel.set()
        self._pending_answer = False
        if self._speak_task is not None and not self._speak_task.done():
            await self.cancel_task(self._speak_task, timeout=0.5)
        self._audible_until_ns = 0
        await self.push_frame(InterruptionFrame())

    async def _marker(self, record: dict[str, Any]) -> None:
        record = {"source": "cascade", "wall_ns": time.time_ns(), **record}
        self.latencies.append(record)
        logger.info(f"cascade: {json.dumps(record)}")
        await self.push_frame(OutputTransportMessageUrgentFrame(message=json.dumps(record)))


class CascadeModel(Model[CascadeSettings], name="cascade"):
    """Silero VAD → faster-whisper → rules/LLM → Piper, all local (module docstring)."""

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        s, n = self.settings, self.name
        # local weights only: a missing model or voice is a config error now, not in the room
        self.settings = s.model_copy(
            update={
                "asr": s.asr.model_copy(update={"model": resolve_asr_model(s.asr.model, n)}),
                "tts": s.tts.model_copy(update={"voice": resolve_voice(s.tts.voice, n)}),
            }
        )
        self.llm = LLMResponder.from_settings(s.llm, n) if s.llm else None

    def processors(self) -> list[FrameProcessor]:
        cascade = CascadeProcessor(self.settings, self.llm, self.ctx.out_sample_rate)
        # an LLM the cascade cannot reach fails the scenario (cascade_llm.LLMLink)
        return [LLMLink(self.llm, self.name), cascade] if self.llm else [cascade]

    def card(self) -> dict[str, Any]:
        card = super().card()
        s = self.settings
        card.update(
            model_id="cascade: silero-vad + faster-whisper + rules/LLM + piper",
            asr_model=s.asr.model,
            tts_voice=s.tts.voice,
            responder=self.llm.card() if self.llm else "rules (floorbench.processors.cascade_text)",
            vad={
                "threshold": s.vad.threshold,
                "onset_ms": s.vad.onset_ms,
                "end_silence_ms": s.vad.end_silence_ms,
            },
            barge_in=s.barge_in,
        )
        return card
