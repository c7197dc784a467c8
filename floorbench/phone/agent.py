"""`floorbench phone-agent`: a plain SIP endpoint in auto-answer that runs floorbench's reference agents.

The agent end of the phone leg, for testing without a carrier: it listens on
``127.0.0.1:PORT``, answers every INVITE and runs one reference agent per call
(``silent``, ``echo``, ``oracle``, ``eager`` — the same processors as in a
room) in a pipecat pipeline whose input is the call's decoded audio (16 kHz)
and whose output goes back out on the call. The oracle reads the scenario it
plays from the INVITE's ``X-Floorbench-Suite`` / ``X-Floorbench-Scenario``
headers, which the phone leg sends only to a loopback address.

``--answer`` makes the endpoint misbehave on purpose, for the phone's failure
kinds: ``busy`` (486), ``decline`` (603), ``ring`` (rings, never answers),
``drop:S`` (answers, hangs up after S seconds). Every call and every DTMF
digit heard is one JSON line on stdout (the agent's log). The ``oracle`` also
answers keys (`KeyReader`): once they stop, it says which it heard, so a test's
``dtmf:`` step has a reply to judge; the other agents ignore them (``silent``
fails such a test as "no response").
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.phone.stack import CLOCK_RATE, CallState, Outbox, SipStack
from floorbench.phone.uri import PhoneError

ANSWERS = {"answer": 200, "busy": 486, "decline": 603, "ring": 180}
REPLY_QUEUE_MS = 120_000
"""a reference agent hands a whole reply at once; the call's media clock paces it out"""
KEYS_OVER_MS = 600
"""the oracle answers keys once none has come for this long, or `HASH_OVER_MS` after ``#``"""
HASH_OVER_MS = 200
"""a key is heard as it starts: the oracle lets the ``#`` end (160 ms, PJSIP's) before it answers"""
KEY_WORDS = {"*": "star", "#": "pound", **{str(i): w for i, w in enumerate(
    "zero one two three four five six seven eight nine".split())}}


def parse_answer(text: str) -> tuple[int, float | None]:
    """``answer|busy|decline|ring|drop:S`` → (SIP status, hang up after S seconds or None)."""
    if text.startswith("drop:"):
        try:
            s = float(text[5:])
        except ValueError:
            s = -1.0
        if not 0 < s <= 3600:
            raise PhoneError(f"--answer {text!r}: write drop:SECONDS with 0 < SECONDS <= 3600, e.g. drop:2")
        return 200, s
    if text not in ANSWERS:
        raise PhoneError(f"--answer {text!r}: choose one of {', '.join(ANSWERS)} or drop:SECONDS")
    return ANSWERS[text], None


def read_back(keys: str) -> str:
    """What the oracle says after keys: ``1#`` → "You pressed one, pound."."""
    return "You pressed " + ", ".join(KEY_WORDS.get(k, k) for k in keys) + "."


class KeyReader:
    """The oracle's answer to keys on one call: said into the call once they stop (`KEYS_OVER_MS`, or after ``#``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, outbox: Outbox, voice: str) -> None:
        self.loop, self.outbox, self.voice = loop, outbox, voice
        self.keys = ""
        self._timer: asyncio.TimerHandle | None = None

    def digit(self, key: str) -> None:
        """A key heard (event loop)."""
        self.keys += key
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later((HASH_OVER_MS if key == "#" else KEYS_OVER_MS) / 1000, self._over)

    def _over(self) -> None:
        keys, self.keys, self._timer = self.keys, "", None
        if keys:
            self.loop.create_task(self._say(keys))

    async def _say(self, keys: str) -> None:
        from floorbench.speech.tts import synthesize

        text = read_back(keys)
        pcm = await asyncio.to_thread(synthesize, text, self.voice, CLOCK_RATE)
        self.outbox.feed(pcm.astype(np.int16).tobytes())
        log_event("reply", keys=keys, text=text)


def log_event(event: str, **kw: Any) -> None:
    """One JSON line on stdout: an agent end's log (`phone-agent`, `phone-gateway`)."""
    print(json.dumps({"t_ms": int(time.time() * 1000), "event": event, **kw}), flush=True)


def open_call(call: CallState, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[bytes]:
    """Ready an incoming call for an agent end: what it hears arrives on the returned queue (event loop), what
    it says is queued whole on `call.outbox` and paced out by the call's media clock."""
    call.outbox = Outbox(max_ms=REPLY_QUEUE_MS)
    inbox: asyncio.Queue[bytes] = asyncio.Queue()
    call.on_audio = lambda pcm, t: loop.call_soon_threadsafe(inbox.put_nowait, pcm)
    return inbox


async def serve_calls(stack: SipStack, **ready: Any) -> None:
    """Start `stack`, say ``ready`` with its URI (and `ready`), and answer calls until cancelled."""
    await asyncio.to_thread(stack.start)
    log_event("ready", uri=f"sip:agent@127.0.0.1:{stack.port}", **ready)
    try:
        await asyncio.Event().wait()
    finally:
        await asyncio.to_thread(stack.stop)


class CallSink:
    """The reference agent's output into the call: audio queued for the media clock, an interruption clears it."""

    @staticmethod
    def processor(outbox: Outbox) -> Any:
        from pipecat.frames.frames import Frame, InterruptionFrame, OutputAudioRawFrame
        from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

        class Sink(FrameProcessor):
            async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
                await super().process_frame(frame, direction)
                if isinstance(frame, OutputAudioRawFrame):
                    pcm = np.frombuffer(frame.audio, dtype=np.int16)
                    if frame.sample_rate != CLOCK_RATE:
                        import soxr

                        pcm = soxr.resample(pcm, frame.sample_rate, CLOCK_RATE).astype(np.int16)
                    outbox.feed(pcm.tobytes())
                    return
                if isinstance(frame, InterruptionFrame):
                    outbox.clear()
                await self.push_frame(frame, direction)

        return Sink()


def _context(model: str, config: dict[str, Any], headers: dict[str, str]) -> Any:
    """The reference agent's `ModelContext` for one call (the scenario from the INVITE's headers)."""
    from floorbench.processors.registry import ModelContext
    from floorbench.scenarios.schema import Suite
    from floorbench.scenarios.validate import load_scenario_file, load_suite, read_yaml

    scenario = suite = root = None
    if headers.get("x-floorbench-suite") and headers.get("x-floorbench-scenario"):
        root = Path(headers["x-floorbench-suite"])
        files = load_suite(root, audio=False, pairs=False).files
        sid = headers["x-floorbench-scenario"]
        if sid not in files:
            raise PhoneError(f"scenario {sid!r} is not in {root}")
        scenario = load_scenario_file(files[sid], root=root)
        suite = Suite.model_validate(read_yaml(root / "suite.yaml"))
    return ModelContext(name=model, config=config, scenario=scenario, suite=suite, suite_root=root,
                        in_sample_rate=CLOCK_RATE, out_sample_rate=CLOCK_RATE)


async def play_call(call: CallState, model: str, config: dict[str, Any], inbox: asyncio.Queue[bytes]) -> None:
    """Run `model` on one answered call until it ends."""
    from pipecat.frames.frames import InputAudioRawFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.workers.runner import WorkerRunner

    from floorbench.processors.registry import create_model

    try:
        procs = list(create_model(_context(model, config, call.headers)).processors())
    except Exception as e:  # a scenario it cannot read: the agent says why, the call stays silent
        log_event("error", error=str(e).splitlines()[0] if str(e) else type(e).__name__)
        await asyncio.to_thread(call.ended.wait)
        return
    worker = PipelineWorker(Pipeline([*procs, CallSink.processor(call.outbox)]),
                            params=PipelineParams(audio_in_sample_rate=CLOCK_RATE, audio_out_sample_rate=CLOCK_RATE),
                            idle_timeout_secs=None, enable_rtvi=False, check_dangling_tasks=False)
    runner = WorkerRunner(handle_sigint=False, handle_sigterm=False)
    await runner.add_workers(worker)
    run = asyncio.create_task(runner.run())
    while not call.ended.is_set():
        try:
            pcm = await asyncio.wait_for(inbox.get(), 0.5)
        except TimeoutError:
            continue
        await worker.queue_frame(InputAudioRawFrame(audio=pcm, sample_rate=CLOCK_RATE, num_channels=1))
    await worker.cancel()
    run.cancel()


async def serve(port: int, model: str, config: dict[str, Any], answer: str, codecs: list[str]) -> None:
    """Answer calls on 127.0.0.1:`port` until interrupted."""
    from floorbench.processors.reference import DEFAULT_VOICE

    status, drop_after = parse_answer(answer)
    loop = asyncio.get_running_loop()

    def incoming(call: CallState) -> int:
        inbox = open_call(call, loop)
        reader = KeyReader(loop, call.outbox, str(config.get("voice") or DEFAULT_VOICE)) if model == "oracle" else None

        def digit(d: str, t: float) -> None:
            log_event("dtmf", digit=d)
            if reader is not None:
                loop.call_soon_threadsafe(reader.digit, d)

        call.on_digit = digit
        log_event("call", status=status, scenario=call.headers.get("x-floorbench-scenario"))
        if status == 200:
            loop.call_soon_threadsafe(lambda: loop.create_task(_answered(call, inbox)))
        return status

    async def _answered(call: CallState, inbox: asyncio.Queue[bytes]) -> None:
        if drop_after is not None:
            loop.call_later(drop_after, lambda: stack.submit(lambda: stack.hangup(call)))
        await play_call(call, model, config, inbox)
        log_event("ended", codec=call.codec, rate=call.codec_rate, digits="".join(d for d, _ in call.digits))

    stack = SipStack(port=port, codecs=codecs, on_incoming=incoming, quiet_start=True)
    await serve_calls(stack, model=model, answer=answer)


def main(port: int, model: str, config: dict[str, Any], answer: str, codecs: list[str]) -> None:
    try:
        asyncio.run(serve(port, model, config, answer, codecs))
    except KeyboardInterrupt:
        sys.exit(0)
