"""One scenario, one room: recorder, model, playback, schedule, then the records.

Order matters: the recorder joins first (hidden), then the model (so it hears
everything from the first sample), then the playback, which starts the
preamble only once someone has subscribed to its track. Whatever ends the
scenario — the schedule finishing, the model process dying, the model leaving,
the server dying, the timeout — the recorder is stopped and its files are
finalised, so nothing already recorded is lost; `meta.json` says how it ended.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from floorbench import __version__
from floorbench.audio.files import recover_parts
from floorbench.audio.vad import VAD_RATE
from floorbench.child_env import absolute_paths
from floorbench.clock import SessionClock
from floorbench.pipelines.room.left_room import why_model_left
from floorbench.pipelines.room.model_messages import (
    ModelSpec,
)
from floorbench.pipelines.room.participant import ScenarioRoom, cancel_and_wait, settle
from floorbench.pipelines.room.playback import PlaybackParticipant
from floorbench.pipelines.room.recorder import Recorder
from floorbench.pipelines.room.schedule import LivePlan, LiveRequest
from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed
from floorbench.pipelines.run.sender_timing import sender_timing, timed_turns
from floorbench.pipelines.run.timing_verdict import (
    figures_of,
    receive_delays_ms,
    sender_figures,
    sender_verdict,
    timing_verdict,
    unmeasured,
)
from floorbench.pipelines.run.turn_mapping import dialogue_turns, measure_latency, turn_entries
from floorbench.pipelines.video.source import CameraSettings
from floorbench.pipelines.video.timing import meta_entry as video_meta
from floorbench.processors.impair import ImpairProfile
from floorbench.processors.registry import Model
from floorbench.records import (
    DialogueTurns,
    EventKind,
    FailureKind,
    Outcome,
    RunMeta,
    TimelineEvent,
    TimelineWriter,
    TrackInfo,
    read_timeline,
    write_json_atomic,
)
from floorbench.redact import redact, redact_text
from floorbench.scenarios.schema import Scenario, inside
from floorbench.scenarios.validate import LoadedSuite, ScenarioError
from floorbench.speech.acoustics import AcousticProfile, LiveAcoustics
from floorbench.plugins import suite_of
from floorbench.transports.rooms import PLAYBACK_IDENTITY, model_token, room_name
from floorbench.transports.server import LiveKitConnection, LiveKitServer

log = logging.getLogger(__name__)


SERVER_SYMPTOMS = frozenset({
    FailureKind.model_left, FailureKind.model_crashed, FailureKind.model_never_joined, FailureKind.connection_lost,
    FailureKind.join_timeout, FailureKind.internal,
})
"""how a managed server's death may show first in a room (then `ScenarioRun._blame_server` names the server)"""
TIMING_CLOCK = "timing"
"""turns.json ``clock``: each track's sender clock plus its leg's median latency (docs/transport.md)"""
STALL_S = 1.0
"""a timed-out room whose playback ran dry this long in all was the machine's failure (`playback_stalled`)"""
JOIN_S = 10.0
"""each of the harness's own set-up steps (the recorder joining, the playback publishing, the recorder
hearing it) takes well under a second on a machine that keeps up; past this it is a `join_timeout`"""


SENDER_RECORDS = (
    "humans.sent.tsv", "humans.clean.wav", "model.sent.wav", "model.sent.tsv", "model.heard.wav", "model.heard.tsv",
)
"""the senders' own records (floorbench.pipelines.room.sender_log); an earlier try's are removed before the next"""


_setup_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def setup_turn() -> asyncio.Lock:
    """Rooms of one runner set up one at a time: recorder join, model start and join, playback join.

    A room's set-up (a model process starting and building its chain — forked from a warm parent
    since `floorbench.pipelines.run.model_fork`, it no longer imports pipecat and livekit each time;
    three WebRTC connections negotiated) is the heaviest second of its life. When rooms set up together
    those bursts took both cores, and the rooms already playing paid: measured at 4 rooms on 2 cores,
    every room's playback underran 4–5 times in the second after the starts, and nowhere else. Taking
    turns delays a room's start by the set-ups ahead of it (about a second each; a model that is slow to
    join, such as a dispatched agent, holds the next room's start that long), only while others are
    setting up too; the timed part of every room, its schedule, never waits for this.
    """
    loop = asyncio.get_running_loop()
    lock = _setup_turns.get(loop)
    if lock is None:
        lock = _setup_turns[loop] = asyncio.Lock()
    return lock


@dataclass
class ScenarioSettings:
    """Per-run settings shared by every scenario."""

    record_rate: int = 16000
    model_in_rate: int = 16000
    model_out_rate: int = 24000
    model_out_queue_ms: int = 100
    """the model's published audio queue (ms, a multiple of 10)"""
    playback_queue_ms: int = 200
    model_join_timeout_s: float = 60.0
    schedule: dict[str, Any] = field(default_factory=dict)
    """the suite's schedule options (JSON: each suite reads the ones it has, e.g. suite mpe's
    ``{"tail_ms": 1000, "rules": {"endpoint_ms": 1500}}``); empty: the suite's defaults"""
    timeout_s: float | None = None
    """None: derived from the scenario's audio length and its T/N4 waits"""
    print_join: bool = False
    impair: ImpairProfile | None = None
    """network impairment on the model's audio legs (docs/transport.md); None: none"""
    acoustics: AcousticProfile | None = None
    """acoustic condition of the humans' audio (docs/acoustics.md); None: clean"""


def load_audio(path: Path, rate: int, where: str) -> np.ndarray:
    """Read a clip as mono int16 at `rate`; one-line ScenarioError on any problem."""
    import soundfile as sf
    import soxr

    try:
        x, sr = sf.read(str(path), dtype="float32", always_2d=True)
    except Exception as e:
        raise ScenarioError(f"{where}: cannot read audio {path} ({type(e).__name__}); re-render it") from None
    if sr not in (16000, 24000, 48000):
        raise ScenarioError(f"{where}: audio {path} is {sr} Hz; use 16000, 24000 or 48000 Hz")
    mono = x.mean(axis=1)
    if sr != rate:
        mono = soxr.resample(mono, sr, rate)
    return (np.clip(mono, -1.0, 1.0) * 32767).astype(np.int16)


class ScenarioRun:
    """Runs one scenario in its own room and leaves its folder complete or marked failed."""

    def __init__(
        self,
        run_id: str,
        suite: LoadedSuite,
        scenario: Scenario,
        model: Model,
        conn: LiveKitConnection,
        out_dir: Path,
        settings: ScenarioSettings,
        server: LiveKitServer | None = None,
    ) -> None:
        self.suite = suite
        self.scenario = scenario
        self.model = model
        self.conn = conn
        self.dir = inside(out_dir, scenario.scenario_id, f"scenario {scenario.scenario_id}: run folder", ScenarioError)
        self.settings = settings
        self.server = server
        self.room = room_name(run_id, scenario.scenario_id)
        self.clock = SessionClock()
        self.model_identity = str(model.config.get("identity") or "model")
        # a dispatched LiveKit Agents worker picks its own identity (agent-<job id>):
        # every model says which participant is its own (`Model.matches`)
        self.is_model: Callable[[str], bool] = model.matches
        self.timeout_s = settings.timeout_s or 3600.0
        self.recorder: Recorder | None = None
        self.playback: PlaybackParticipant | None = None
        self.external_timeout_s = settings.model_join_timeout_s
        """how long a model that joins by itself is waited for (its config's ``join_timeout_s``)"""
        self.model_proc: ModelProcess | None = None
        """set before the child starts, so whatever fails later, the run's end stops it"""
        self.acoustics: LiveAcoustics | None = None
        """the degraded humans' bed and clean clips, once the audio is loaded"""
        self.plan: LivePlan | None = None
        """the suite's plan for this room, once made (its `env` goes to the model, its `close` runs at the end)"""
        self.meta = RunMeta(
            floorbench_version=__version__,
            scenario_id=scenario.scenario_id,
            pair_id=scenario.pair_id,
            condition=str(scenario.condition),
            suite=suite.suite.name,
            room=self.room,
            created_wall_ns=self.clock.anchor.wall_ns,
            anchor=self.clock.anchor,
            model=redact(model.card()),
            versions=_versions(),
            network=settings.impair.record() if settings.impair is not None and settings.impair.active else None,
        )

    def _write_meta(self) -> None:
        write_json_atomic(self.dir / "meta.json", self.meta)

    async def run(self) -> RunMeta:
        timeline = self._open_timeline()
        try:
            await self._play(timeline)
            self.meta.outcome = Outcome.completed
        except ScenarioFailed as e:
            self._fail(timeline, *await self._blame_server(e.kind, e.reason))
        except ScenarioError as e:
            self._fail(timeline, FailureKind.bad_input, str(e))
        except asyncio.CancelledError:
            self._fail(timeline, FailureKind.interrupted, "run interrupted (Ctrl-C or SIGTERM); run again to resume")
            raise
        except Exception as e:  # a bug must not lose the recording or stop the run
            log.exception("scenario %s crashed", self.scenario.scenario_id)
            self._fail(timeline, *await self._blame_server(FailureKind.internal, f"{type(e).__name__}: {e}"))
        finally:
            infos = await self._stop_participants()
            if self.plan is not None and self.plan.close is not None:
                await settle(self.plan.close(self.dir), 10.0, f"{self.scenario.scenario_id}: the suite's services")
            await settle(self._delete_room(), 5.0, f"{self.scenario.scenario_id}: deleting room {self.room}")
            timeline.write(
                TimelineEvent(t_ms=self.clock.now_ms(), kind=EventKind.end, source="runner", reason=self.meta.outcome)
            )
            timeline.close()
            self.meta.tracks = infos
            self.meta.receivers = self.recorder.receivers() if self.recorder is not None else {}
            self.meta.duration_ms = self.clock.now_ms()
            try:  # in a worker thread: other rooms keep playing while this one's records are computed
                await asyncio.to_thread(self._finish_records, self.playback, infos)
            except Exception as e:  # the recordings stay; say why turns.json is missing
                log.exception("scenario %s: post-processing failed", self.scenario.scenario_id)
                self.meta.playback["records_error"] = f"{type(e).__name__}: {e}"
            self._record_video()  # after turns.json's records: its latency entry goes beside the audio's
            if self.model_proc is not None and self.model_proc.measured:  # beside the room's latency
                self.meta.transport_latency_ms["bridge"] = self.model_proc.measured
            if self.meta.timing is None and self.meta.outcome == Outcome.completed:
                self.meta.timing = unmeasured(str(self.meta.playback.get("records_error", "no turn was played")))
            self._write_meta()
        return self.meta

    def _open_timeline(self) -> TimelineWriter:
        """A fresh folder state: stale records gone, meta.json written, the clock anchor first on the timeline."""
        self.dir.mkdir(parents=True, exist_ok=True)
        for stale in ("meta.json", "timeline.jsonl", "turns.json", *SENDER_RECORDS):
            (self.dir / stale).unlink(missing_ok=True)
        for stale_log in self.dir.glob("tracks/*.frames.tsv"):  # appended to: an earlier try's lines would stay
            stale_log.unlink()
        self._write_meta()
        timeline = TimelineWriter(self.dir / "timeline.jsonl")
        timeline.write(
            TimelineEvent.of(
                0,
                EventKind.session_start,
                "runner",
                reason="anchor",
                monotonic_ns=self.clock.anchor.monotonic_ns,
                wall_ns=self.clock.anchor.wall_ns,
            )
        )
        return timeline

    async def _play(self, timeline: TimelineWriter) -> None:
        """Recorder, model, playback join in that order; then the schedule runs under supervision."""
        # decoding and resampling a scenario's audio takes CPU-time: off the loop, where other rooms play
        preamble, turn_audio, audio_s = await asyncio.to_thread(self._load_audio)
        plan: LivePlan = suite_of(self.scenario).part("live_schedule")(LiveRequest(
            self.scenario, self.suite, preamble, turn_audio, self.suite.suite.sample_rate, audio_s,
            self.settings.schedule,
        ))
        self.plan = plan
        schedule, timeout, camera = plan.schedule, plan.timeout_s, plan.camera
        self.meta.schedule = schedule.describe()
        self._write_meta()
        timeout = self.timeout_s = self.settings.timeout_s or timeout
        where = ScenarioRoom(self.conn, self.room, self.dir, self.clock, timeline)
        recorder = self.recorder = Recorder(
            where,
            self.settings.record_rate,
            track_names={PLAYBACK_IDENTITY: "humans"},
            is_model=self.is_model,
        )
        async with setup_turn():  # one room of this runner sets up at a time; rooms play at once
            playback = await self._set_up(where, recorder, camera)
        await self._supervise(schedule.run(playback), recorder, self.model_proc, timeout)

    async def _set_up(self, where: ScenarioRoom, recorder: Recorder, camera: CameraSettings | None) -> PlaybackParticipant:
        """Recorder, model, playback join in that order, until the recorder hears the humans' track
        (a model that joins by itself: its audio is waited for once the playback is in the room).

        The harness's own steps each have `JOIN_S`; one that takes longer is the room's failure
        (`join_timeout`, retried), not the model's: seen when a machine holds more rooms than it can.
        """
        await self._harness_step("the recorder joining the room", recorder.start(JOIN_S))
        await self._start_model(recorder)
        # the recorder's model stream feeds the schedule's speech monitor when it has the
        # monitor's rate: the model's audio is then received and decoded once per room
        # A model that joins by itself hears a caller who listens: the playback subscribes to it, since
        # a LiveKit Agents session sends no audio until a participant it can see (not the hidden
        # recorder) has subscribed to its track.
        shared = self.settings.record_rate == VAD_RATE and self.model.joins == "pipeline"
        playback = self.playback = PlaybackParticipant(
            where,
            self.suite.suite.sample_rate,
            self.is_model,
            queue_ms=self.settings.playback_queue_ms,
            listen=not shared,
            camera=camera,
            acoustics=self.acoustics,
        )
        if shared:
            recorder.model_audio_listeners.append(playback.monitor.feed)
        await self._harness_step("the playback joining and publishing the humans' track", playback.start(JOIN_S))
        if self.model.joins != "pipeline":
            await self._until_model_audio(recorder, self.external_timeout_s)
        if not await playback.wait_subscribed(JOIN_S):
            raise ScenarioFailed(
                FailureKind.join_timeout,
                self._late("the model subscribing to the humans' track") + ", or the model does not subscribe to it",
            )
        await self._until(lambda: "humans" in recorder.tracks, JOIN_S, self._late("the recorder receiving the humans' track"),
                          FailureKind.join_timeout)
        return playback

    async def _harness_step(self, what: str, step: Any) -> None:
        try:
            await step
        except TimeoutError:
            raise ScenarioFailed(FailureKind.join_timeout, self._late(what)) from None

    def _late(self, what: str) -> str:
        return (
            f"{what} took over {JOIN_S:.0f} s: the LiveKit server or this machine is overloaded "
            "(lower --concurrency) or unreachable"
        )

    def _record_video(self) -> None:
        """meta.json's ``video`` (sent and recorded tracks, timing) and the user video's latency entry."""
        video = self.playback.video if self.playback is not None else None
        recorded = self.recorder.video_infos if self.recorder is not None else {}
        if video is None and not recorded:
            return
        try:
            self.meta.video, latency = video_meta(self.dir, video.writer.summary() if video else None, recorded)
        except Exception as e:  # the recordings stay; say why the measures are missing
            log.exception("scenario %s: video timing failed", self.scenario.scenario_id)
            self.meta.video = {"tracks": recorded, "error": f"{type(e).__name__}: {e}"}
            return
        if latency is not None:
            self.meta.transport_latency_ms["humans.video"] = latency

    async def _stop_participants(self) -> dict[str, TrackInfo]:
        """Playback, model, then the recorder (so it keeps all there was); a failing stop is logged.

        The recorder's transport statistics are read first, while every track is still subscribed.
        """
        if self.recorder is not None:
            await settle(self.recorder.transport_stats(), None, f"{self.scenario.scenario_id}: transport stats")
        if self.playback is not None:
            await settle(self.playback.stop(), None, f"{self.scenario.scenario_id}: stopping the playback")
        if self.model_proc is not None:
            await settle(self.model_proc.stop(), None, f"{self.scenario.scenario_id}: stopping the model process")
        infos = None
        if self.recorder is not None:
            infos = await settle(self.recorder.stop(), None, f"{self.scenario.scenario_id}: stopping the recorder")
        return infos or {}

    def _fail(self, timeline: TimelineWriter, kind: FailureKind, reason: str) -> None:
        if self.meta.outcome == Outcome.failed:
            return
        reason = redact_text(reason)  # a reason may quote a model URL or header
        self.meta.outcome = Outcome.failed
        self.meta.failure_kind = kind
        self.meta.failure_reason = reason
        timeline.write(
            TimelineEvent.of(self.clock.now_ms(), EventKind.failure, "runner", reason=reason, failure_kind=kind)
        )

    def _load_audio(self) -> tuple[np.ndarray | None, dict[int, np.ndarray], float]:
        rate = self.suite.suite.sample_rate
        where = str(self.suite.files.get(self.scenario.scenario_id, self.scenario.scenario_id))
        pre = None
        total = 0
        if self.suite.suite.preamble.audio:
            pre = load_audio(self.suite.audio_path(self.suite.suite.preamble.audio), rate, f"{where}: preamble")
            total += len(pre)
        turns: dict[int, np.ndarray] = {}
        for t in self.scenario.turns:
            if not t.audio:
                raise ScenarioError(f"{where}: scenario {self.scenario.scenario_id}: turn {t.id}: no audio; run `floorbench render`")
            turns[t.id] = load_audio(
                self.suite.audio_path(t.audio), rate, f"{where}: scenario {self.scenario.scenario_id}: turn {t.id}"
            )
            total += len(turns[t.id])
        if self.settings.acoustics is not None and self.settings.acoustics.active:
            pre, turns = self._degrade(pre, turns, rate)
        return pre, turns, total / rate

    def _degrade(
        self, pre: np.ndarray | None, turns: dict[int, np.ndarray], rate: int
    ) -> tuple[np.ndarray | None, dict[int, np.ndarray]]:
        """The clips under the acoustic condition (the clean ones kept for ``humans.clean.wav``)."""
        from floorbench.speech.acoustics import AcousticsError, render
        from floorbench.speech.noises import NoiseError
        from floorbench.speech.rooms import RoomError

        assert self.settings.acoustics is not None
        clean = {f"turn {k}": v for k, v in turns.items()}
        if pre is not None:
            clean["preamble"] = pre
        try:
            done = render(self.settings.acoustics, rate, clean, self.scenario.scenario_id)
        except (AcousticsError, NoiseError, RoomError) as e:
            raise ScenarioError(f"--acoustics {self.settings.acoustics.name}: {e}") from None
        self.acoustics = LiveAcoustics.of(done, clean)
        self.meta.acoustics = done.record
        return done.clips.get("preamble"), {k: done.clips[f"turn {k}"] for k in turns}

    async def _start_model(self, recorder: Recorder) -> None:
        """Start the model and wait until the recorder hears its audio, or invite it and wait until it joins."""
        s = self.settings
        if self.model.joins == "pipeline":
            self.model_proc = ModelProcess(self._model_spec(), self.dir / "model.log",
                                           self.plan.env if self.plan is not None else None)
            await self.model_proc.start(s.model_join_timeout_s)
            # a silent model counts only if it was listening: its server connection is up first
            await self.model_proc.wait_connected(s.model_join_timeout_s)
            await self._until_model_audio(recorder, s.model_join_timeout_s)
            return
        # A participant that joins by itself is waited for in the room, and its audio only once the
        # playback is there too (`_set_up`): a LiveKit Agents `AgentSession` publishes its track only
        # after a user has joined, so waiting for its audio first would wait for ever.
        timeout = self.external_timeout_s = await self._invite_external()
        await self._until_model(recorder.present, timeout, "did not join")

    async def _until_model_audio(self, recorder: Recorder, within_s: float) -> None:
        await self._until_model(recorder.audio_from, within_s, "did not join with audio")
        self.model_identity = next(i for i in sorted(recorder.audio_from) if self.is_model(i))

    async def _until_model(self, seen: set[str], within_s: float, what: str) -> None:
        ident = self.model_identity
        try:
            await self._until(lambda: any(self.is_model(i) for i in seen), within_s, "")
        except ScenarioFailed as e:
            if e.kind != FailureKind.internal:  # the server died meanwhile: that, not "did not join in 60 s"
                raise
            raise ScenarioFailed(
                FailureKind.model_never_joined,
                f"model participant {ident if self.model.joins == 'pipeline' or self.model.config.get('identity') else '(any agent)'!r} "
                f"{what} within {within_s:.0f} s",
            ) from None

    def _model_spec(self) -> ModelSpec:
        s = self.settings
        return ModelSpec(
            url=self.conn.url,
            token=model_token(self.conn, self.room, self.model_identity),
            room=self.room,
            identity=self.model_identity,
            model=self.model.name or self.model.ctx.name,
            config=absolute_paths(self.model.config, Path.cwd()),  # the child runs in the scenario's folder
            suite_root=self.suite.root.resolve(),
            scenario_file=self.suite.files[self.scenario.scenario_id].resolve(),
            in_sample_rate=s.model_in_rate,
            out_sample_rate=s.model_out_rate,
            out_queue_ms=s.model_out_queue_ms,
            parent_pid=os.getpid(),
            max_lifetime_s=self.timeout_s + 120,
            impair=s.impair.spec() if s.impair is not None and s.impair.active else None,
            records_dir=self.dir.resolve(),
            clock_anchor_ns=self.clock.anchor.monotonic_ns,
        )

    async def _invite_external(self) -> float:
        """Dispatch the agent or print how to join; the join timeout to use."""
        s = self.settings
        ident = self.model_identity
        timeout = float(self.model.config.get("join_timeout_s", s.model_join_timeout_s))
        dispatch = self.model.config.get("dispatch")
        if dispatch:
            await self._dispatch(str(dispatch))
        if s.print_join or not dispatch:
            print(
                f"room {self.room} at {self.conn.url}; join as {ident!r} with token:\n"
                f"{model_token(self.conn, self.room, ident)}"
                + "".join(f"\n{k}={v}" for k, v in (self.plan.env if self.plan is not None else {}).items()),
                file=sys.stderr,
                flush=True,
            )
        return timeout

    async def _dispatch(self, agent_name: str) -> None:
        from livekit import api

        lk = api.LiveKitAPI(self.conn.http_url, self.conn.api_key, self.conn.api_secret)
        try:
            await lk.agent_dispatch.create_dispatch(
                api.CreateAgentDispatchRequest(
                    agent_name=agent_name,
                    room=self.room,
                    metadata=self._dispatch_metadata(),
                )
            )
        finally:
            await lk.aclose()

    def _dispatch_metadata(self) -> str:
        """The model's dispatch metadata, with what the plan tells the model (``tools_url``, ``mcp_url``)."""
        import json

        text = self.model.dispatch_metadata(self.room, self.scenario.scenario_id)
        told = {k.removeprefix("FLOORBENCH_").lower(): v for k, v in (self.plan.env if self.plan else {}).items()}
        return json.dumps({**json.loads(text), **told}) if told else text

    async def _delete_room(self) -> None:
        """Close the room on the server: a participant that joined by itself (a dispatched agent) is
        disconnected, not left in a room nobody plays (LiveKit keeps a room open while anyone is in it)."""
        from livekit import api

        lk = api.LiveKitAPI(self.conn.http_url, self.conn.api_key, self.conn.api_secret)
        try:
            await lk.room.delete_room(api.DeleteRoomRequest(room=self.room))
        finally:
            await lk.aclose()

    async def _until(self, cond: Any, timeout_s: float, reason: str, kind: FailureKind = FailureKind.internal) -> None:
        deadline = time.monotonic() + timeout_s
        while not cond():
            if time.monotonic() > deadline:
                raise ScenarioFailed(kind, reason)
            self._check_server()
            await asyncio.sleep(0.05)

    async def _blame_server(self, kind: FailureKind, reason: str) -> tuple[FailureKind, str]:
        """A managed server that died is the failure, whatever symptom surfaced first.

        When the server is killed, the model's participant may be seen leaving (or its
        process exiting, or a call failing) before the server watch notices: the soak
        benchmark saw `model_left`, which is not retried. Its process is checked for up to 1 s.
        """
        if self.server is None or kind not in SERVER_SYMPTOMS:
            return kind, reason
        for _ in range(10):
            if not self.server.alive():
                return FailureKind.server_died, f"the LiveKit server died during the scenario (seen first as: {reason})"
            await asyncio.sleep(0.1)
        return kind, reason

    def _check_server(self) -> None:
        if self.server is not None and not self.server.alive():
            raise ScenarioFailed(FailureKind.server_died, "the LiveKit server died during the scenario")

    async def _supervise(
        self, schedule_coro: Any, recorder: Recorder, model_proc: ModelProcess | None, timeout_s: float
    ) -> None:
        """Run the schedule; fail fast if the model dies or leaves, the server dies, or time runs out."""
        left = asyncio.Event()
        ident = self.model_identity

        def on_event(event: str, identity: str) -> None:
            if identity == ident and event in ("left", "audio_unsubscribed"):
                left.set()

        recorder.listeners.append(on_event)
        sched = asyncio.create_task(schedule_coro, name="schedule")
        watchers: dict[asyncio.Task[Any], tuple[FailureKind, str]] = {
            asyncio.create_task(left.wait()): (FailureKind.model_left, f"model participant {ident!r} left the room"),
            asyncio.create_task(self._server_watch()): (FailureKind.server_died, "the LiveKit server died during the scenario"),
        }
        if model_proc is not None:
            watchers[asyncio.create_task(model_proc.wait_exit())] = (FailureKind.model_crashed, "model process exited")
            watchers[asyncio.create_task(model_proc.wait_failed())] = (FailureKind.model_error, "model error")
        try:
            done, _ = await asyncio.wait({sched, *watchers}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
            # the child's own report says more than its exit, and any report fails the scenario
            if model_proc is not None and (failure := model_proc.failed()) is not None:
                raise failure
            if sched in done:
                sched.result()
                return
            if not done:
                raise ScenarioFailed(*self._why_late(timeout_s))
            task = next(iter(done))
            kind, reason = watchers[task]
            if kind == FailureKind.model_left:  # its own doing, or a connection the server dropped?
                running = None if model_proc is None else not await model_proc.exited_within(1.0)
                kind, reason = why_model_left(ident, recorder.left_reasons.get(ident), running)
                if running is False:
                    kind = FailureKind.model_crashed
            if kind == FailureKind.model_crashed:
                assert model_proc is not None
                await model_proc.drain()
                if (failure := model_proc.failed()) is not None:
                    raise failure
                code = await model_proc.wait_exit()
                reason = f"model process exited with code {code} mid-scenario; see model.log"
            raise ScenarioFailed(kind, reason)
        finally:
            # a finished task's outcome was read above; the rest are cancelled and their errors logged
            running = [t for t in (sched, *watchers) if not t.done()]
            await cancel_and_wait(running, 10.0, f"{self.scenario.scenario_id}: schedule and watchers")
            recorder.listeners.remove(on_event)

    def _why_late(self, timeout_s: float) -> tuple[FailureKind, str]:
        """Out of time: the model's result, unless the room's own playback stalled (every wait of a
        schedule is capped, so a machine that cannot run the room is what overruns the limit)."""
        late = f"scenario did not finish within {timeout_s:.0f} s"
        slipped_s = self.playback.writer.slipped_ns / 1e9 if self.playback is not None else 0.0
        if slipped_s >= STALL_S:
            return FailureKind.playback_stalled, (
                f"{late}; its playback stalled {slipped_s:.1f} s in all: the machine is overloaded (lower --concurrency)"
            )
        return FailureKind.timeout, late

    async def _server_watch(self) -> None:
        while True:
            if self.server is not None and not self.server.alive():
                return
            await asyncio.sleep(0.2)

    def _finish_records(self, playback: PlaybackParticipant | None, infos: dict[str, TrackInfo]) -> None:
        """turns.json on the timing clock, the legs' latencies, both timing verdicts (meta.json).

        The receiver-clock figures come first, as before the sender records (`turn_mapping`: the turns in
        the recorder's copy; meta.json ``timing_receiver``), then every track is timed at its sender where
        floorbench owns it (`sender_timing`; ``timing``, ``legs``). If that fails, turns.json stays on the
        recorder's clock and the verdict says why.
        """
        if playback is None or "humans" not in infos or "model" not in infos:
            return
        import soundfile as sf

        events = read_timeline(self.dir / "timeline.jsonl")
        starts, ends = turn_entries(events)
        if not starts:
            return
        sent, sr_sent = sf.read(str(self.dir / "humans.sent.wav"), dtype="int16")
        rec, sr_rec = sf.read(str(self.dir / "humans.wav"), dtype="int16")
        humans, model = infos["humans"], infos["model"]
        latency = measure_latency(sent, sr_sent, rec, sr_rec, starts, humans.start_ns)
        fit = playback.writer.fit()
        underruns = playback.writer.underruns
        self.meta.transport_latency_ms = {"humans": latency.summary()}
        self.meta.playback = {
            "online_start_ns": playback.writer.first_write_ns,
            "capture_fit_start_ns": fit.start_ns,
            "underruns": underruns,
            "queue_ms": playback.queue_ms,
            "turn_onset_error_ms": latency.onset_errors(),
        }
        self._measure_sent_snr()
        delays = receive_delays_ms(events)
        self.meta.timing_receiver = timing_verdict(figures_of(latency, underruns, delays))
        on_recorder = dialogue_turns(self.scenario.turns, starts, ends, latency, humans.start_ns - model.start_ns)
        turns, clock, time_map = on_recorder, None, None
        try:
            if self.model.joins == "pipeline":  # a model process killed at the end leaves its records as parts
                recover_parts(self.dir)
            timing = sender_timing(self.dir, starts, ends, humans, model, model_is_ours=self.model.joins == "pipeline")
        except Exception as e:
            log.exception("scenario %s: sender timing failed", self.scenario.scenario_id)
            self.meta.timing = unmeasured(f"sender timing failed ({type(e).__name__}: {e}); turns.json is on the recorder's clock")
        else:
            self.meta.transport_latency_ms.update(timing.transport())
            self.meta.legs = timing.legs([t.id for t in self.scenario.turns])
            figures = sender_figures(timing, underruns, self.meta.receivers, delays)
            self.meta.timing = sender_verdict(figures, timing.clocks.record())
            turns, clock = timed_turns(self.scenario.turns, timing, model.start_ns, on_recorder), TIMING_CLOCK
            time_map = timing.time_map.points() or None
        write_json_atomic(
            self.dir / "turns.json",
            DialogueTurns(
                scenario_id=self.scenario.scenario_id,
                pair_id=self.scenario.pair_id,
                condition=str(self.scenario.condition),
                turns=turns,
                model_wav_end_ms=model.samples * 1000 // model.sample_rate,
                clock=clock,
                model_time_map=time_map,
            ),
        )


    def _measure_sent_snr(self) -> None:
        """meta.json ``acoustics.snr_sent_track_db``: the SNR of the whole sent track, from it and the clean one."""
        clean_path = self.dir / "humans.clean.wav"
        if self.meta.acoustics is None or not clean_path.is_file():
            return
        import soundfile as sf

        from floorbench.speech.acoustics import estimate_snr_db

        sent, rate = sf.read(str(self.dir / "humans.sent.wav"), dtype="int16")
        clean, _ = sf.read(str(clean_path), dtype="int16")
        self.meta.acoustics["snr_sent_track_db"] = estimate_snr_db(sent, clean, rate)
        if self.acoustics is not None:
            self.meta.acoustics["clips_without_clean_copy"] = self.acoustics.unmatched


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for dist in ("pipecat-ai", "livekit", "livekit-api", "onnxruntime", "numpy"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            pass
    from floorbench.transports.server import LIVEKIT_VERSION

    out["livekit-server"] = LIVEKIT_VERSION
    return out
