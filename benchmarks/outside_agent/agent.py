"""A LiveKit Agents worker written outside floorbench, whose own log is the truth for its stops.

`benchmarks/outside_agent_stops.py` runs floorbench's barge-in and backchannel tests against this
agent and compares floorbench's yield and stop times with what the agent itself logged. For the
comparison to mean anything the agent keeps its own account and imports nothing from floorbench: it is
a product as a team would write it on LiveKit Agents 1.x.

- It answers the caller's first question with a long answer (flite, sentence by sentence) and any later
  turn with a short one; it yields by LiveKit's own interruption handling (VAD mode, no resume):
  `MIN_INTERRUPTION_S` of caller speech interrupts it, shorter speech (a backchannel) does not.
- The STT is a stand-in (no model): an utterance of `TURN_MIN_S` or more is a turn ("tell me more"), a
  shorter one is not (empty transcript), so a backchannel never starts a new reply.
- **Its own log** (`AGENT_LOG_DIR/<room>/`): the audio source of its published track is wrapped
  (`LoggedSource`): every frame handed to it is written to ``played.wav`` with the wall-clock time it
  starts to play (the time it was handed over plus what was still queued before it) in ``played.tsv``,
  and every cleared queue (an interruption) with its wall-clock time. A second subscription to the
  caller's track writes when each caller frame arrived (``heard.tsv``). On leaving, ``summary.json``:
  its runs of speech as played (first and last speech sample, wall ns: speech is within
  `RANGE_DB` of the loudest 10 ms it played, in 5 ms blocks; runs split by 300 ms pauses or a cleared queue), the caller's speech
  onsets as heard, its VAD's "user started speaking" events, and per interruption its own yield figure:
  from the caller's speech onset it heard to its last speech sample played.

    AGENT_NAME=outside-agent MIN_INTERRUPTION_S=0.5 AGENT_LOG_DIR=runs/outside/log \\
      python benchmarks/outside_agent/agent.py start
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
import time
import wave
from pathlib import Path

import numpy as np
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

AGENT_NAME = os.environ.get("AGENT_NAME", "outside-agent")
MIN_INTERRUPTION_S = float(os.environ.get("MIN_INTERRUPTION_S", "0.5"))
LOG_DIR = Path(os.environ.get("AGENT_LOG_DIR", "outside-agent-log"))
VOICE = "kal16"  # flite, 16 kHz
TURN_MIN_S = 0.7
RANGE_DB = 40.0  # speech: within this of the loudest 10 ms (the convention docs/testing.md states)
BLOCK_MS = 5
RUN_GAP_S = 0.3
LONG_ANSWER = ("We are open every day from nine in the morning until six in the evening. "
               "On public holidays the shop closes at two in the afternoon. "
               "You can also order online at any time, and we deliver within three working days. "
               "Returns are free for thirty days if you keep the receipt.")
SHORT_ANSWER = "Of course, go ahead."


def flite(text: str) -> tuple[bytes, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "say.wav"
        subprocess.run(["flite", "-voice", VOICE, "-t", text, "-o", str(out)], check=True, capture_output=True)
        with wave.open(str(out)) as w:
            return w.readframes(w.getnframes()), w.getframerate()


class FliteVoice(tts.TTS):
    def __init__(self) -> None:
        super().__init__(capabilities=tts.TTSCapabilities(streaming=False), sample_rate=flite("ready")[1],
                         num_channels=1)

    def synthesize(self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
                   ) -> tts.ChunkedStream:
        return _Said(tts=self, input_text=text, conn_options=conn_options)


class _Said(tts.ChunkedStream):
    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        output_emitter.initialize(request_id=utils.shortuuid(), sample_rate=self._tts.sample_rate,
                                  num_channels=1, mime_type="audio/pcm")
        output_emitter.push((await asyncio.to_thread(flite, self.input_text))[0])
        output_emitter.flush()


class LengthSTT(stt.STT):
    """Not a recogniser: a long enough utterance is a turn, a short one is not."""

    def __init__(self) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=False, interim_results=False))

    async def _recognize_impl(self, buffer: AudioBuffer, *, language: NotGivenOr[str] = NOT_GIVEN,
                              conn_options: APIConnectOptions) -> stt.SpeechEvent:
        frame = rtc.combine_audio_frames(buffer)
        text = "tell me more" if frame.duration >= TURN_MIN_S else ""
        return stt.SpeechEvent(type=stt.SpeechEventType.FINAL_TRANSCRIPT,
                               alternatives=[stt.SpeechData(language=LanguageCode("en"), text=text)])


class Shop(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="Answer by rules.")
        self.turns = 0

    async def on_user_turn_completed(self, turn_ctx: llm.ChatContext, new_message: llm.ChatMessage) -> None:
        if (new_message.text_content or "").strip():
            self.turns += 1
            self.session.say(LONG_ANSWER if self.turns == 1 else SHORT_ANSWER)
        raise StopResponse()


# --- the agent's own log ---------------------------------------------------------------------------


def loudest(pcm: np.ndarray, rate: int) -> float:
    """dBFS of the loudest 10 ms of `pcm` (a sliding window)."""
    x = pcm.astype(np.float64) / 32768
    size = rate // 100
    if len(x) < size:
        return -100.0
    power = np.convolve(x * x, np.ones(size) / size, "valid")
    return float(10 * np.log10(max(float(power.max()), 1e-10)))


def speech_samples(pcm: np.ndarray, rate: int, level_db: float) -> np.ndarray:
    """Indices of the speech samples of `pcm`: in a `BLOCK_MS` block whose RMS is within `RANGE_DB` of
    `level_db`, at least that loud themselves."""
    x = np.abs(pcm.astype(np.float64) / 32768)
    floor = 10 ** ((level_db - RANGE_DB) / 20)
    size = rate * BLOCK_MS // 1000
    n = len(x) // size * size
    rms = np.sqrt((x[:n].reshape(-1, size) ** 2).mean(axis=1)) if n else np.empty(0)
    keep = np.zeros(len(x), dtype=bool)
    keep[:n] = np.repeat(rms >= floor, size)
    return np.flatnonzero(keep & (x >= floor))


class Book:
    """What this job played, heard and detected, on the wall clock (ns)."""

    def __init__(self) -> None:
        self.played: list[tuple[int, int, np.ndarray]] = []  # (handed over, play start, int16) per frame
        self.cuts: list[int] = []
        self.heard: list[tuple[int, np.ndarray]] = []  # (arrival of the frame's end, int16 samples)
        self.detected: list[int] = []
        self.rate = 16000

    def runs(self) -> list[dict[str, int | bool]]:
        """Runs of speech as played. A cleared queue drops what was queued when it was cleared: the samples
        of frames handed over before it that were to play after it. Speech: `BLOCK_MS` blocks within
        `RANGE_DB` of the loudest 10 ms of all it played, and in them the samples that loud."""
        ns = 1e9 / self.rate
        cuts = np.asarray(sorted(self.cuts), dtype=np.int64)
        level = loudest(np.concatenate([p for _, _, p in self.played]), self.rate) if self.played else -100.0
        times: list[np.ndarray] = []
        for hand, start, pcm in self.played:
            later = cuts[cuts >= hand]
            n = len(pcm) if not len(later) else int(np.clip((later[0] - start) / ns, 0, len(pcm)))
            loud = speech_samples(pcm[:n], self.rate, level)
            times.append(start + (loud * ns).astype(np.int64))
        t = np.concatenate(times) if times else np.empty(0, dtype=np.int64)
        if not len(t):
            return []
        t.sort()
        cut_between = np.searchsorted(cuts, t[1:]) > np.searchsorted(cuts, t[:-1])
        breaks = np.flatnonzero((np.diff(t) > RUN_GAP_S * 1e9) | cut_between)
        firsts = np.r_[0, breaks + 1]
        lasts = np.r_[breaks, len(t) - 1]
        out: list[dict[str, int | bool]] = []
        for f, la in zip(firsts.tolist(), lasts.tolist(), strict=True):
            end = int(t[la] + ns)  # one past the last speech sample
            cut = bool(len(cuts) and np.any((cuts >= end - 2 * ns) & (cuts <= end + RUN_GAP_S * 1e9)))
            out.append({"first_ns": int(t[f]), "last_ns": end, "cut": cut})
        return out

    def onsets(self) -> list[int]:
        """The caller's speech onsets as this agent heard them: where a sample reaches -40 dBFS after 300 ms
        without one, the first speech sample (as `speech_samples` says, against the loudest 10 ms of the
        second after it) in the 300 ms before."""
        if not self.heard:
            return []
        pcm = np.concatenate([p for _, p in self.heard])
        at = np.concatenate([end - ((len(p) - np.arange(len(p))) * 62500) for end, p in self.heard])  # 16 kHz
        hot = np.flatnonzero(np.abs(pcm.astype(np.float64) / 32768) >= 0.01)
        if not len(hot):
            return []
        triggers = hot[np.r_[True, np.diff(at[hot]) > RUN_GAP_S * 1e9]]
        out: list[int] = []
        for k in triggers.tolist():
            a = max(0, k - 16000 * 3 // 10)
            speech = speech_samples(pcm[a : k + 1], 16000, loudest(pcm[k : k + 16000], 16000))
            out.append(int(at[a + int(speech[0])]) if len(speech) else int(at[k]))
        return out

    def write(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        with wave.open(str(folder / "played.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(self.rate)
            w.writeframes(b"".join(p.tobytes() for _, _, p in self.played))
        rows = ["sample\thanded_ns\tplay_ns"]
        n = 0
        for hand, start, pcm in self.played:
            rows.append(f"{n}\t{hand}\t{start}")
            n += len(pcm)
        rows += [f"cut\t{c}" for c in self.cuts]
        (folder / "played.tsv").write_text("\n".join(rows) + "\n")
        with wave.open(str(folder / "heard.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(b"".join(p.tobytes() for _, p in self.heard))
        rows = ["sample\tarrived_ns"]
        n = 0
        for end, pcm in self.heard:
            n += len(pcm)
            rows.append(f"{n}\t{end}")  # the frame's end sample, when it arrived
        (folder / "heard.tsv").write_text("\n".join(rows) + "\n")
        runs, onsets = self.runs(), self.onsets()
        yields = []
        for d in self.detected:
            heard = max((o for o in onsets if o <= d), default=None)
            stop = next((r for r in runs if r["cut"] and int(r["first_ns"]) <= d <= int(r["last_ns"]) + 10**9), None)
            if heard is not None and stop is not None:
                yields.append({"heard_ns": heard, "detected_ns": d, "stop_ns": stop["last_ns"],
                               "yield_ms": round((int(stop["last_ns"]) - heard) / 1e6),
                               "detected_ms": round((d - heard) / 1e6)})
        summary = {"agent": AGENT_NAME, "min_interruption_s": MIN_INTERRUPTION_S, "range_db": RANGE_DB,
                   "runs": runs, "cuts": self.cuts, "caller_onsets": onsets, "detected": self.detected,
                   "yields": yields}
        (folder / "summary.json").write_text(json.dumps(summary, indent=1))


BOOK: Book | None = None


class LoggedSource(rtc.AudioSource):
    """The published track's source, keeping the agent's account of when each frame plays."""

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        if BOOK is not None and frame.samples_per_channel:
            BOOK.rate = frame.sample_rate
            hand = time.time_ns()
            BOOK.played.append((hand, hand + int(self.queued_duration * 1e9), np.frombuffer(bytes(frame.data), dtype=np.int16).copy()))
        await super().capture_frame(frame)

    def clear_queue(self) -> None:
        if BOOK is not None:
            BOOK.cuts.append(time.time_ns())
        super().clear_queue()


rtc.AudioSource = LoggedSource  # type: ignore[misc]  # the session's room output makes its source from here


async def listen(book: Book, track: rtc.Track) -> None:
    async for ev in rtc.AudioStream.from_track(track=track, sample_rate=16000, num_channels=1):
        book.heard.append((time.time_ns(), np.frombuffer(bytes(ev.frame.data), dtype=np.int16).copy()))


def prewarm(proc: JobProcess) -> None:
    proc.userdata["vad"] = inference.VAD(min_silence_duration=0.5)
    proc.userdata["tts"] = FliteVoice()


server = AgentServer(setup_fnc=prewarm, num_idle_processes=1, initialize_process_timeout=120.0,
                     load_fnc=lambda s: len(s.active_jobs) / 4, load_threshold=1.0, host="127.0.0.1", port=0)


@server.rtc_session(agent_name=AGENT_NAME)
async def entrypoint(ctx: JobContext) -> None:
    global BOOK
    book = BOOK = Book()
    tasks: list[asyncio.Task[None]] = []

    def subscribed(track: rtc.Track, pub: rtc.RemoteTrackPublication, who: rtc.RemoteParticipant) -> None:
        if track.kind == rtc.TrackKind.KIND_AUDIO:
            tasks.append(asyncio.create_task(listen(book, track)))

    async def leave() -> None:
        for t in tasks:
            t.cancel()
        book.write(LOG_DIR / ctx.room.name)

    ctx.add_shutdown_callback(leave)
    ctx.room.on("track_subscribed", subscribed)
    session: AgentSession = AgentSession(
        vad=ctx.proc.userdata["vad"], stt=LengthSTT(), tts=ctx.proc.userdata["tts"],
        aec_warmup_duration=None,  # no echo here: interruptible from its first word
        turn_handling={
            "turn_detection": "vad",
            "endpointing": {"min_delay": 0.3},
            "interruption": {"mode": "vad", "min_duration": MIN_INTERRUPTION_S,
                             "resume_false_interruption": False, "false_interruption_timeout": None},
        },
    )
    session.on("user_state_changed", lambda ev: book.detected.append(time.time_ns()) if ev.new_state == "speaking"
               else None)
    await session.start(agent=Shop(), room=ctx.room)


if __name__ == "__main__":
    cli.run_app(server)
