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
import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from floorbench import __version__
from floorbench.audio.alignment import align_turns, drift_ms_per_100s, percentile_ms
from floorbench.clock import SessionClock
from floorbench.pipelines.playback import PlaybackParticipant
from floorbench.pipelines.recorder import Recorder
from floorbench.pipelines.schedules import MpeSchedule, MpeScheduleConfig
from floorbench.processors.registry import Model
from floorbench.records import (
    DialogueTurn,
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
from floorbench.scenarios.schema import Scenario
from floorbench.scenarios.validate import LoadedSuite, ScenarioError
from floorbench.transports.rooms import PLAYBACK_IDENTITY, model_token, room_name
from floorbench.transports.server import LiveKitConnection, LiveKitServer

log = logging.getLogger(__name__)

MS = 1_000_000


class ScenarioFailed(Exception):
    def __init__(self, kind: FailureKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass
class ScenarioSettings:
    """Per-run settings shared by every scenario."""

    record_rate: int = 16000
    model_in_rate: int = 16000
    model_out_rate: int = 24000
    playback_queue_ms: int = 200
    model_join_timeout_s: float = 60.0
    schedule: MpeScheduleConfig = field(default_factory=MpeScheduleConfig)
    timeout_s: float | None = None
    """None: derived from the scenario's audio length and its T/N4 waits"""
    print_join: bool = False


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


def default_timeout_s(scenario: Scenario, audio_s: float, cfg: MpeScheduleConfig) -> float:
    n_t = sum(1 for t in scenario.turns if t.label == "T")
    r = cfg.rules
    per_t = (r.onset_window_ms + r.response_cap_ms + r.endpoint_ms) / 1000 + 2
    return audio_s + len(scenario.turns) * 1.0 + n_t * per_t + (r.response_cap_ms / 1000) + 90


class ModelProcess:
    """The pipeline model's child process (floorbench.pipelines.model_participant)."""

    def __init__(self, spec: dict[str, Any], log_path: Path) -> None:
        self.spec = spec
        self.log_path = log_path
        self.proc: asyncio.subprocess.Process | None = None
        self.error: str | None = None

    async def start(self, timeout_s: float) -> None:
        env = dict(os.environ)
        logf = self.log_path.open("ab")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "floorbench.pipelines.model_participant",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=logf,
            env=env,
            start_new_session=True,
        )
        logf.close()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps(self.spec) + "\n").encode())
        await self.proc.stdin.drain()
        self.proc.stdin.close()
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout_s)
        except TimeoutError:
            raise ScenarioFailed(
                FailureKind.model_never_joined, f"model process not ready after {timeout_s:.0f} s"
            ) from None
        if not line:
            code = await self.proc.wait()
            raise ScenarioFailed(
                FailureKind.model_crashed,
                f"model process exited with code {code} before it was ready; see {self.log_path.name}",
            )
        msg = json.loads(line)
        if "error" in msg:
            raise ScenarioFailed(FailureKind.bad_input, f"model: {msg['error']}")
        (self.log_path.parent / "model.pid").write_text(str(self.proc.pid))

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    async def wait_exit(self) -> int:
        assert self.proc is not None
        return await self.proc.wait()

    async def stop(self, timeout_s: float = 5.0) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()


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
        self.run_id = run_id
        self.suite = suite
        self.scenario = scenario
        self.model = model
        self.conn = conn
        self.dir = out_dir / scenario.scenario_id
        self.settings = settings
        self.server = server
        self.room = room_name(run_id, scenario.scenario_id)
        self.clock = SessionClock()
        self.model_identity = str(model.config.get("identity") or "model")
        matches: Callable[[str], bool] | None = getattr(model, "matches", None)
        # a dispatched LiveKit Agents worker picks its own identity (agent-<job id>):
        # external models say which participant is theirs
        self.is_model: Callable[[str], bool] = matches if callable(matches) else self._named_model
        self.timeout_s = settings.timeout_s or 3600.0
        self.meta = RunMeta(
            floorbench_version=__version__,
            scenario_id=scenario.scenario_id,
            pair_id=scenario.pair_id,
            condition=str(scenario.condition),
            suite=suite.suite.name,
            room=self.room,
            created_wall_ns=self.clock.anchor.wall_ns,
            anchor=self.clock.anchor,
            model=model.card(),
            versions=_versions(),
        )

    def _named_model(self, identity: str) -> bool:
        return identity == self.model_identity

    def _write_meta(self) -> None:
        write_json_atomic(self.dir / "meta.json", self.meta)

    async def run(self) -> RunMeta:
        self.dir.mkdir(parents=True, exist_ok=True)
        for stale in ("meta.json", "timeline.jsonl", "turns.json"):
            (self.dir / stale).unlink(missing_ok=True)
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
        recorder: Recorder | None = None
        playback: PlaybackParticipant | None = None
        model_proc: ModelProcess | None = None
        infos: dict[str, TrackInfo] = {}
        try:
            preamble, turn_audio, audio_s = self._load_audio()
            schedule = MpeSchedule(
                self.scenario, preamble, turn_audio, self.suite.suite.sample_rate, self.settings.schedule
            )
            self.meta.schedule = schedule.describe()
            self._write_meta()
            timeout = self.timeout_s = self.settings.timeout_s or default_timeout_s(
                self.scenario, audio_s, self.settings.schedule
            )
            recorder = Recorder(
                self.conn,
                self.room,
                self.dir,
                self.clock,
                timeline,
                self.settings.record_rate,
                track_names={PLAYBACK_IDENTITY: "humans"},
                is_model=self.is_model,
            )
            await recorder.start()
            model_proc = await self._start_model(recorder)
            playback = PlaybackParticipant(
                self.conn,
                self.room,
                self.dir,
                self.clock,
                timeline,
                self.suite.suite.sample_rate,
                self.is_model,
                queue_ms=self.settings.playback_queue_ms,
            )
            await playback.start()
            if not await playback.wait_subscribed(10.0):
                raise ScenarioFailed(FailureKind.internal, "nobody subscribed to the playback track in 10 s")
            await self._until(lambda: "humans" in recorder.tracks, 10.0, "recorder never got the humans track")
            await self._supervise(schedule.run(playback), recorder, model_proc, timeout)
            self.meta.outcome = Outcome.completed
        except ScenarioFailed as e:
            self._fail(timeline, e.kind, e.reason)
        except ScenarioError as e:
            self._fail(timeline, FailureKind.bad_input, str(e))
        except asyncio.CancelledError:
            self._fail(timeline, FailureKind.internal, "run interrupted")
            raise
        except Exception as e:  # a bug must not lose the recording or stop the run
            log.exception("scenario %s crashed", self.scenario.scenario_id)
            self._fail(timeline, FailureKind.internal, f"{type(e).__name__}: {e}")
        finally:
            if playback is not None:
                with contextlib.suppress(Exception):
                    await playback.stop()
            if model_proc is not None:
                with contextlib.suppress(Exception):
                    await model_proc.stop()
            if recorder is not None:
                with contextlib.suppress(Exception):
                    infos = await recorder.stop()
            timeline.write(
                TimelineEvent(t_ms=self.clock.now_ms(), kind=EventKind.end, source="runner", reason=self.meta.outcome)
            )
            timeline.close()
            self.meta.tracks = infos
            self.meta.duration_ms = self.clock.now_ms()
            try:
                self._finish_records(playback, infos)
            except Exception as e:  # the recordings stay; say why turns.json is missing
                log.exception("scenario %s: post-processing failed", self.scenario.scenario_id)
                self.meta.playback["records_error"] = f"{type(e).__name__}: {e}"
            self._write_meta()
        return self.meta

    def _fail(self, timeline: TimelineWriter, kind: FailureKind, reason: str) -> None:
        if self.meta.outcome == Outcome.failed:
            return
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
        return pre, turns, total / rate

    async def _start_model(self, recorder: Recorder) -> ModelProcess | None:
        s = self.settings
        ident = self.model_identity
        proc: ModelProcess | None = None
        if self.model.joins == "pipeline":
            spec = {
                "url": self.conn.url,
                "token": model_token(self.conn, self.room, ident),
                "room": self.room,
                "identity": ident,
                "model": self.model.name or self.model.ctx.name,
                "config": self.model.config,
                "suite_root": str(self.suite.root.resolve()),
                "scenario_file": str(self.suite.files[self.scenario.scenario_id].resolve()),
                "in_sample_rate": s.model_in_rate,
                "out_sample_rate": s.model_out_rate,
                "parent_pid": os.getpid(),
                "max_lifetime_s": self.timeout_s + 120,
            }
            proc = ModelProcess(spec, self.dir / "model.log")
            await proc.start(s.model_join_timeout_s)
            timeout = s.model_join_timeout_s
        else:
            timeout = float(self.model.config.get("join_timeout_s", s.model_join_timeout_s))
            dispatch = self.model.config.get("dispatch")
            if dispatch:
                await self._dispatch(str(dispatch))
            if s.print_join or not dispatch:
                print(
                    f"room {self.room} at {self.conn.url}; join as {ident!r} with token:\n"
                    f"{model_token(self.conn, self.room, ident)}",
                    file=sys.stderr,
                    flush=True,
                )
        try:
            await self._until(lambda: any(self.is_model(i) for i in recorder.audio_from), timeout, "")
            self.model_identity = next(i for i in sorted(recorder.audio_from) if self.is_model(i))
        except ScenarioFailed:
            raise ScenarioFailed(
                FailureKind.model_never_joined,
                f"model participant {ident if self.model.joins == 'pipeline' or self.model.config.get('identity') else '(any agent)'!r} "
                f"did not join with audio within {timeout:.0f} s",
            ) from None
        return proc

    async def _dispatch(self, agent_name: str) -> None:
        from livekit import api

        lk = api.LiveKitAPI(self.conn.http_url, self.conn.api_key, self.conn.api_secret)
        try:
            await lk.agent_dispatch.create_dispatch(
                api.CreateAgentDispatchRequest(
                    agent_name=agent_name,
                    room=self.room,
                    metadata=json.dumps({"scenario_id": self.scenario.scenario_id}),
                )
            )
        finally:
            await lk.aclose()

    async def _until(self, cond: Any, timeout_s: float, reason: str) -> None:
        deadline = time.monotonic() + timeout_s
        while not cond():
            if time.monotonic() > deadline:
                raise ScenarioFailed(FailureKind.internal, reason)
            self._check_server()
            await asyncio.sleep(0.05)

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
        try:
            done, _ = await asyncio.wait({sched, *watchers}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
            if sched in done:
                sched.result()
                return
            if not done:
                raise ScenarioFailed(FailureKind.timeout, f"scenario did not finish within {timeout_s:.0f} s")
            task = next(iter(done))
            kind, reason = watchers[task]
            if kind == FailureKind.model_crashed:
                code = task.result()
                reason = f"model process exited with code {code} mid-scenario; see model.log"
            raise ScenarioFailed(kind, reason)
        finally:
            for t in (sched, *watchers):
                t.cancel()
            for t in (sched, *watchers):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            recorder.listeners.remove(on_event)

    async def _server_watch(self) -> None:
        while True:
            if self.server is not None and not self.server.alive():
                return
            await asyncio.sleep(0.2)

    def _finish_records(self, playback: PlaybackParticipant | None, infos: dict[str, TrackInfo]) -> None:
        """turns.json on the recorder clock, transport latency, onset errors (meta.json)."""
        if playback is None or "humans" not in infos or "model" not in infos:
            return
        import soundfile as sf

        events = read_timeline(self.dir / "timeline.jsonl")
        starts = {e.turn_id: e for e in events if e.kind == EventKind.turn_start and e.turn_id is not None}
        ends = {e.turn_id: e for e in events if e.kind == EventKind.turn_end and e.turn_id is not None}
        if not starts:
            return
        sent, sr_sent = sf.read(str(self.dir / "humans.sent.wav"), dtype="int16")
        rec, sr_rec = sf.read(str(self.dir / "humans.wav"), dtype="int16")
        humans, model = infos["humans"], infos["model"]
        if sr_sent != sr_rec:
            import soxr

            sent = (soxr.resample(sent.astype(np.float32), sr_sent, sr_rec)).astype(np.int16)
        ratio = sr_rec / sr_sent
        # Per turn: where the turn would sit in humans.wav if transport took no
        # time — its timeline entry (the playback's playout clock) mapped through
        # the recorded track's fit. The lag found beyond that is the latency.
        expected: dict[int, int] = {}
        probes = []
        for tid, e in sorted(starts.items()):
            if e.sample is None:
                continue
            entry_in_rec = (e.t_ms * MS - humans.start_ns) * sr_rec // 1_000_000_000
            expected[tid] = int(entry_in_rec - int(e.sample * ratio))
            probes.append((tid, int(e.sample * ratio), expected[tid]))
        lags = align_turns(sent, rec, probes, sr_rec)
        found = [lg for lg in lags if lg.score >= 0.5]
        lat_ns = [(lg.lag - expected[lg.turn_id]) * 1_000_000_000 // sr_rec for lg in found]
        times_ns = [starts[lg.turn_id].t_ms * MS for lg in found]
        lat_med = int(np.median(lat_ns)) if lat_ns else 0
        onset_err = [
            {"turn_id": lg.turn_id, "error_ms": round((lt - lat_med) / MS, 2), "latency_ms": round(lt / MS, 2)}
            for lg, lt in zip(found, lat_ns, strict=True)
        ]
        fit = playback.writer.fit()
        self.meta.transport_latency_ms = {
            "humans": {
                "method": "xcorr per turn: playback sent vs recorder received, from the turn's timeline entry",
                "n": len(found),
                "p50": percentile_ms(lat_ns, 50),
                "p95": percentile_ms(lat_ns, 95),
                "drift_ms_per_100s": drift_ms_per_100s(times_ns, lat_ns),
                "not_found": [lg.turn_id for lg in lags if lg.score < 0.5],
            }
        }
        self.meta.playback = {
            "online_start_ns": playback.writer.first_write_ns,
            "capture_fit_start_ns": fit.start_ns,
            "underruns": playback.writer.underruns,
            "queue_ms": playback.queue_ms,
            "turn_onset_error_ms": onset_err,
        }
        lag_by_turn = {lg.turn_id: lg.lag for lg in found}
        turns = []
        for t in self.scenario.turns:
            s, e = starts.get(t.id), ends.get(t.id)
            if s is None or e is None or s.sample is None or e.sample is None:
                continue
            s_sample, e_sample = s.sample, e.sample
            if t.id in lag_by_turn:
                lag = lag_by_turn[t.id]
            else:  # not found cleanly: its expected place plus the median latency
                lag = expected.get(t.id, 0) + lat_med * int(sr_rec) // 1_000_000_000
            t0 = humans.start_ns - model.start_ns

            turns.append(
                DialogueTurn(
                    turn_id=t.id,
                    speaker=t.speaker,
                    label=str(t.label),
                    start_ms=(t0 + (int(s_sample * ratio) + lag) * 1_000_000_000 // sr_rec) // MS,
                    end_ms=(t0 + (int(e_sample * ratio) + lag) * 1_000_000_000 // sr_rec) // MS,
                    text=t.text,
                    gold=t.gold,
                    gold_aliases=list(t.gold_aliases),
                )
            )
        write_json_atomic(
            self.dir / "turns.json",
            DialogueTurns(
                scenario_id=self.scenario.scenario_id,
                pair_id=self.scenario.pair_id,
                condition=str(self.scenario.condition),
                turns=turns,
                model_wav_end_ms=model.samples * 1000 // model.sample_rate,
            ),
        )


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
