"""One scenario, one room: recorder, model, playback, schedule, then the records.

Order matters: the recorder joins first (hidden), then the model (so it hears
everything from the first sample), then the playback, which starts the
preamble only once someone has subscribed to its track. Whatever ends the
scenario — the schedule finishing, the model process dying, the model leaving,
the server dying, the timeout — the recorder is stopped and its files are
finalised, so nothing already recorded is lost; `meta.json` says how it ended.

`ScenarioRun` is written by concern over one state (`run_state`): the room's
set-up and playing here, the model's side of joining in `run_model`, the watch
that names why a room failed in `run_watch`, the records written after the
room in `run_records`.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np

from floorbench import __version__
from floorbench.audio.vad import VAD_RATE
from floorbench.clock import SessionClock
from floorbench.paths import remove_stale
from floorbench.pipelines.room.participant import ScenarioRoom, settle
from floorbench.pipelines.room.playback import PlaybackParticipant
from floorbench.pipelines.room.recorder import Recorder
from floorbench.pipelines.room.schedule import LivePlan, LiveRequest
from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed
from floorbench.pipelines.run.run_model import ModelJoin
from floorbench.pipelines.run.run_records import SENDER_RECORDS, RunRecords, versions
from floorbench.pipelines.run.run_state import ScenarioSettings
from floorbench.pipelines.run.run_watch import JOIN_S
from floorbench.pipelines.run.timing_verdict import unmeasured
from floorbench.pipelines.video.source import CameraSettings
from floorbench.plugins import suite_of
from floorbench.processors.registry import Model
from floorbench.records import (
    EventKind,
    FailureKind,
    Outcome,
    RunMeta,
    TimelineEvent,
    TimelineWriter,
    TrackInfo,
    with_run_fields,
)
from floorbench.redact import redact
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.schema import inside
from floorbench.scenarios.validate import LoadedSuite, ScenarioError
from floorbench.speech.acoustics import LiveAcoustics
from floorbench.transports.rooms import PLAYBACK_IDENTITY, room_name
from floorbench.transports.server import LiveKitConnection, LiveKitServer

log = logging.getLogger(__name__)


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


class ScenarioRun(ModelJoin, RunRecords):
    """Runs one scenario in its own room and leaves its folder complete or marked failed."""

    def __init__(
        self,
        run_id: str,
        suite: LoadedSuite,
        scenario: ScenarioRecord,
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
        self.meta = with_run_fields(RunMeta(
            floorbench_version=__version__,
            scenario_id=scenario.scenario_id,
            suite=suite.suite.name,
            room=self.room,
            created_wall_ns=self.clock.anchor.wall_ns,
            anchor=self.clock.anchor,
            model=redact(model.card()),
            versions=versions(),
            network=settings.impair.record() if settings.impair is not None and settings.impair.active else None,
        ), scenario.run_fields)

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
        # appended to: an earlier try's lines would stay (a tracks/ link out of the folder is refused)
        remove_stale(self.dir, "tracks", lambda name: name.endswith(".frames.tsv"), ScenarioError)
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

    async def _delete_room(self) -> None:
        """Close the room on the server: a participant that joined by itself (a dispatched agent) is
        disconnected, not left in a room nobody plays (LiveKit keeps a room open while anyone is in it)."""
        from livekit import api

        lk = api.LiveKitAPI(self.conn.http_url, self.conn.api_key, self.conn.api_secret)
        try:
            await lk.room.delete_room(api.DeleteRoomRequest(room=self.room))
        finally:
            await lk.aclose()
