"""`floorbench latency`: audio latency through the SFU, one way and round trip, with chirp probes.

One room on the managed LiveKit server (or ``--livekit-url``) holds the same
three participants as a scenario: the hidden recorder, the `echo` model (a
child process, its chain impaired when a profile is given) and the playback
participant, which sends a train of marked probes (`latency_probes`) on its
continuous track and also records what it hears back from the model. After
the train, each probe is found by cross-correlation in three recordings:

- ``up``: the recorder's ``humans.wav`` — playback → SFU → a listener, one way;
- ``round_trip``: the sender's ``echo.wav`` — playback → SFU → model → SFU →
  playback, minus the echo's own delay;
- ``via_model``: the recorder's ``model.wav`` — playback → model → a listener;
- ``model_legs`` = round trip − up: the model's two legs and its chain's
  buffers, derived on the assumption that the model's inbound SFU hop costs
  what the recorder's does (both are subscribers on this machine).

Every time is on one monotonic clock (sender and receivers share a process),
so there is no offset to estimate; a probe's lag is resolved to one sample.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc

from floorbench.clock import SessionClock
from floorbench.pipelines.latency.device import (
    DEVICE,
    DeviceParticipant,
    analyse_device,
    device_lines,
)
from floorbench.pipelines.latency.probes import PROBE_MS, Recording, latencies, probe_set, stats_ms
from floorbench.pipelines.room.model_messages import ModelSpec
from floorbench.pipelines.room.participant import ScenarioRoom, settle
from floorbench.pipelines.room.playback import PlaybackParticipant
from floorbench.pipelines.room.recorder import Recorder, TrackRecording
from floorbench.pipelines.run.model_process import ModelProcess
from floorbench.processors.impair import ImpairProfile, parse_profile, read_stage_records
from floorbench.records import TimelineWriter, TrackInfo
from floorbench.redact import redact_url
from floorbench.transports.rooms import PLAYBACK_IDENTITY, model_token, room_name
from floorbench.transports.server import LiveKitConnection, LiveKitServer

MODEL = "model"
CLOCK_METHOD = (
    "one CLOCK_MONOTONIC session clock shared by sender and receivers (one process): offset 0 by construction; "
    "track times from the low-percentile fit of frame send/arrival times (floorbench.clock); "
    "lags by normalised cross-correlation at sample resolution"
)
DIRECTIONS = {
    "up": "playback → SFU → listener (one way, measured)",
    "round_trip": "playback → SFU → echo model → SFU → playback (measured, minus the echo delay)",
    "via_model": "playback → echo model → listener (measured, minus the echo delay)",
    "model_legs": "round trip − up: the model's two legs and its chain's buffers (derived)",
}


class LatencyError(RuntimeError):
    """The measurement could not run (no probe came back, a participant never joined)."""


@dataclass
class LatencyOptions:
    out: Path
    probes: int = 20
    interval_ms: int = 500
    warmup_ms: int = 3000
    """continuous silence before the first probe: the receivers' jitter buffers start deep and take a few seconds
    to shrink to their steady depth (measured: round trip 300 → 224 ms over the first 2.5 s), so probes sent at
    once would measure the start, not the room"""
    echo_delay_ms: int = 0
    connection: LiveKitConnection | None = None
    impair: ImpairProfile | None = None
    rate: int = 16000
    model_out_queue_ms: int = 100
    """the model's published queue, as in a run (ScenarioSettings.model_out_queue_ms)"""
    playback_queue_ms: int = 200
    search_ms: tuple[int, int] = (50, 1900)
    """each probe is searched from this long before to this long after its zero-delay position"""
    interleave: bool = False
    """the profile on every other probe, in one room and one chain (`impair.Interleave`): the rise is
    impaired probes' p50 − unimpaired probes' p50 of the same room"""
    passthrough_legs: str | None = None
    """unimpaired, but with the impairment stages in the model's chain at delay 0 on these legs (in, out, both):
    the baseline of an impaired measurement, the same chain as it"""
    output_device: int | None = None
    """a sound device that plays the echoed probes (`latency_device`); None: no device in the path"""
    input_device: int | None = None
    """a sound device whose capture is published into the room (`latency_device`)"""

    @property
    def with_device(self) -> bool:
        return self.output_device is not None or self.input_device is not None


@dataclass
class _Session:
    """What one measurement leaves: the sent probes and the three received tracks."""

    sent_ns: list[int] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)
    tracks: dict[str, TrackInfo] = field(default_factory=dict)
    fit_residual_us: dict[str, int] = field(default_factory=dict)
    anchor_ns: int = 0
    """the session clock's monotonic anchor (PortAudio's times are raw monotonic)"""


class _EchoAtSender:
    """The playback participant's own recording of the model's track (``echo.wav``)."""

    def __init__(self, out_dir: Path, rate: int, clock: SessionClock) -> None:
        self.rec = TrackRecording("echo", MODEL, rate, out_dir)
        self.clock = clock
        self.rate = rate
        self.task: asyncio.Task[None] | None = None

    def on_track(self, track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant) -> None:
        if p.identity == MODEL and isinstance(track, rtc.RemoteAudioTrack) and self.task is None:
            stream = rtc.AudioStream(track, sample_rate=self.rate, num_channels=1)
            self.task = asyncio.create_task(self._consume(stream), name="echo-at-sender")

    async def _consume(self, stream: rtc.AudioStream) -> None:
        try:
            async for ev in stream:
                self.rec.add(np.frombuffer(ev.frame.data, dtype=np.int16), self.clock.now_ns())
        finally:
            await settle(stream.aclose(), None, "latency: closing the echo stream")

    async def stop(self) -> TrackInfo:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        return await asyncio.to_thread(self.rec.finalize, self.clock)


async def _until(cond: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise LatencyError(f"latency: {what} within {timeout_s:.0f} s")
        await asyncio.sleep(0.05)


def _model_spec(opts: LatencyOptions, conn: LiveKitConnection, room: str) -> ModelSpec:
    impair = None
    if opts.impair is not None and opts.impair.active:  # the stages write their records beside latency.json
        impair = {**opts.impair.spec(), "records_dir": str(opts.out), "interleave": opts.interleave}
    elif opts.passthrough_legs:  # the same chain with the delay at 0: a baseline like the impaired run
        impair = {
            **parse_profile("none", opts.passthrough_legs).spec(),
            "passthrough": True,
            "records_dir": str(opts.out),
        }
    return ModelSpec(
        url=conn.url,
        token=model_token(conn, room, MODEL),
        room=room,
        identity=MODEL,
        model="echo",
        config={"delay_ms": opts.echo_delay_ms},
        in_sample_rate=opts.rate,
        out_sample_rate=opts.rate,
        out_queue_ms=opts.model_out_queue_ms,
        parent_pid=os.getpid(),
        max_lifetime_s=(opts.probes * opts.interval_ms + opts.warmup_ms) / 1000 + 180,
        impair=impair,
    )


async def _probe_train(playback: PlaybackParticipant, opts: LatencyOptions, session: _Session) -> None:
    """Schedule the probes at exact sample positions on the track and wait until the last echo is back."""
    writer = playback.writer
    templates = probe_set(opts.rate)
    first = writer.cursor + opts.rate // 2 + opts.warmup_ms * opts.rate // 1000
    step = opts.interval_ms * opts.rate // 1000
    clips = []
    for k in range(opts.probes):
        kind = k % len(templates)
        clips.append(writer.schedule(templates[kind], at=first + k * step, label=f"probe {k}"))
        session.kinds.append(kind)
    await clips[-1].written.wait()
    await asyncio.sleep(opts.search_ms[1] / 1000 + 0.5)
    session.sent_ns = [c.start for c in clips]  # sample positions; times once the writer's fit is known


async def _run_room(opts: LatencyOptions, conn: LiveKitConnection, session: _Session) -> None:
    """Recorder, echo model, playback join; the probes go out; everyone leaves and the files are written."""
    clock = SessionClock()
    timeline = TimelineWriter(opts.out / "timeline.jsonl")
    room = room_name(time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6], "latency")
    where = ScenarioRoom(conn, room, opts.out, clock, timeline)
    recorder = Recorder(
        where, opts.rate, track_names={PLAYBACK_IDENTITY: "humans"}, is_model=lambda i: i == MODEL
    )
    model = ModelProcess(_model_spec(opts, conn, room), opts.out / "model.log")
    playback = PlaybackParticipant(where, opts.rate, lambda i: i == MODEL, queue_ms=opts.playback_queue_ms)
    echo = _EchoAtSender(opts.out, opts.rate, clock)
    playback.on("track_subscribed", echo.on_track)
    device = (
        DeviceParticipant(where, MODEL, opts.output_device, opts.input_device) if opts.with_device else None
    )
    session.anchor_ns = clock.anchor.monotonic_ns
    started = False
    try:
        await recorder.start()
        await model.start(60.0)
        await _until(lambda: MODEL in recorder.audio_from, 60.0, "the echo model did not join with audio")
        if device is not None:
            await device.start()
        await playback.start()
        started = True
        await _until(
            lambda: "humans" in recorder.tracks and echo.task is not None,
            20.0,
            "the tracks were not subscribed",
        )
        await _probe_train(playback, opts, session)
    finally:
        if started:
            await playback.stop()
        else:
            await settle(playback.leave(), None, "latency: playback leaving")
        if device is not None:
            await device.stop()
        await model.stop()
        session.tracks = await recorder.stop()
        session.tracks["echo"] = await echo.stop()
        timeline.close()
    fit = playback.writer.fit()
    session.fit_residual_us = {"sent_p99": fit.residual_p99_us}
    session.sent_ns = [fit.time_ns(s) for s in session.sent_ns]


def _read(out: Path, info: TrackInfo) -> Recording:
    import soundfile as sf

    pcm, rate = sf.read(str(out / info.file), dtype="int16")
    return Recording(np.asarray(pcm), info.start_ns, int(rate))


def analyse(opts: LatencyOptions, session: _Session) -> dict[str, Any]:
    """latency.json: per-direction statistics, per-probe lags and how they were measured."""
    templates = probe_set(opts.rate)
    missing = [n for n in ("humans", "model", "echo") if n not in session.tracks]
    if missing:
        raise LatencyError(f"latency: no {', '.join(missing)} track was recorded; see {opts.out}/model.log")
    echo_ns = opts.echo_delay_ms * 1_000_000
    lags: dict[str, list[int | None]] = {}
    scores: dict[str, list[float]] = {}
    for name, track, minus in (
        ("up", "humans", 0),
        ("round_trip", "echo", echo_ns),
        ("via_model", "model", echo_ns),
    ):
        rec = _read(opts.out, session.tracks[track])
        lags[name], scores[name] = latencies(
            session.kinds, templates, session.sent_ns, rec, opts.search_ms, minus
        )
    lags["model_legs"] = [
        rt - up if rt is not None and up is not None else None
        for rt, up in zip(lags["round_trip"], lags["up"], strict=True)
    ]
    directions = {}
    for name, values in lags.items():
        found = [v for v in values if v is not None]
        directions[name] = {
            "what": DIRECTIONS[name],
            **stats_ms(found),
            "not_found": len(values) - len(found),
        }
    device = None
    if opts.with_device:
        mic = _read(opts.out, session.tracks[DEVICE]) if DEVICE in session.tracks else None
        device = analyse_device(
            opts.out,
            session.anchor_ns,
            session.kinds,
            session.sent_ns,
            echo_ns,
            mic,
            directions["up"].get("p50"),
        )
    stage = read_stage_records(opts.out)
    return {
        "record_version": 1,
        "probes": opts.probes,
        "interval_ms": opts.interval_ms,
        "warmup_ms": opts.warmup_ms,
        "probe_ms": PROBE_MS,
        "sample_rate": opts.rate,
        "resolution_ms": round(1000 / opts.rate, 4),
        "clock_method": CLOCK_METHOD,
        "echo_delay_ms": opts.echo_delay_ms,
        "model_out_queue_ms": opts.model_out_queue_ms,
        "livekit": {"url": redact_url(opts.connection.url) if opts.connection else "managed (127.0.0.1)"},
        "network": opts.impair.record() if opts.impair is not None and opts.impair.active else None,
        "stage": stage,
        "interleaved": interleaved(lags, stage, session, opts) if opts.interleave else None,
        "device": device,
        "directions": directions,
        "per_probe_ms": {k: [None if v is None else round(v / 1e6, 3) for v in vs] for k, vs in lags.items()},
        "scores": scores,
        "fit_residual_us": {
            **session.fit_residual_us,
            **{f"{n}_p99": t.fit_residual_p99_us for n, t in session.tracks.items()},
        },
    }


def probe_states(stage: dict[str, Any], session: _Session, window_ns: int) -> list[bool | None]:
    """Per probe, whether the interleaved stages impaired it: each stage's talkspurts are taken in order,
    the first one after the probe left and within `window_ns` being the probe's; None where a stage saw
    none or the stages disagree."""
    per_leg: list[list[bool | None]] = []
    for record in stage.values():
        onsets = [(t - session.anchor_ns, bool(on)) for t, on in record.get("onsets", [])]
        j, states = 0, []
        for sent in session.sent_ns:
            while j < len(onsets) and onsets[j][0] < sent:
                j += 1
            if j < len(onsets) and onsets[j][0] < sent + window_ns:
                states.append(onsets[j][1])
                j += 1
            else:
                states.append(None)
        per_leg.append(states)
    if not per_leg:
        return [None] * len(session.sent_ns)
    return [col[0] if len(set(col)) == 1 else None for col in zip(*per_leg, strict=True)]


def interleaved(
    lags: dict[str, list[int | None]], stage: dict[str, Any], session: _Session, opts: LatencyOptions
) -> dict[str, Any]:
    """Impaired probes against unimpaired ones of the same room: per direction both p50s and the rise."""
    delay = opts.impair.delay_ms if opts.impair is not None else 0
    states = probe_states(stage, session, opts.interval_ms * 1_000_000)
    out: dict[str, Any] = {
        "unimpaired_probes": states.count(False),
        "impaired_probes": states.count(True),
        "unassigned_probes": states.count(None),
        "expected_rise_ms": delay * len(opts.impair.legs) if opts.impair is not None else 0,
        "directions": {},
    }
    for name in ("round_trip", "via_model", "model_legs"):
        base = [v for v, st in zip(lags[name], states, strict=True) if v is not None and st is False]
        hurt = [v for v, st in zip(lags[name], states, strict=True) if v is not None and st is True]
        b, h = stats_ms(base), stats_ms(hurt)
        d: dict[str, Any] = {"unimpaired": b, "impaired": h}
        if b.get("n") and h.get("n"):
            d["rise_ms"] = round(h["p50"] - b["p50"], 2)
        out["directions"][name] = d
    return out


async def measure(opts: LatencyOptions) -> dict[str, Any]:
    """Run one probe train and write ``OUT/latency.json``; returns it."""
    opts.out.mkdir(parents=True, exist_ok=True)
    server = None
    conn = opts.connection
    if conn is None:
        server = LiveKitServer(log_path=opts.out / "livekit.log")
        conn = server.start()
    session = _Session()
    try:
        from floorbench.pipelines.run.runner import check_reachable

        await check_reachable(conn)
        await _run_room(opts, conn, session)
    finally:
        if server is not None:
            server.stop()
    report = await asyncio.to_thread(analyse, opts, session)
    if report["directions"]["up"].get("n", 0) == 0:
        raise LatencyError(f"latency: no probe reached the recorder; see {opts.out}")
    (opts.out / "latency.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def summary_lines(report: dict[str, Any]) -> list[str]:
    """What `floorbench latency` prints: one line per direction, then the method."""
    lines = [
        f"{report['probes']} probes every {report['interval_ms']} ms after {report.get('warmup_ms', 0)} ms of warm-up "
        f"through {report['livekit']['url']}; "
        f"resolution {report['resolution_ms']} ms (1 sample at {report['sample_rate']} Hz)"
    ]
    if report.get("network"):
        n = report["network"]
        lines.append(
            f"impairment {n['profile']} on legs {'+'.join(n['legs'])}: delay {n['delay_ms']} ms, "
            f"jitter ±{n['jitter_ms']} ms, loss {n['loss_pct']:g} % ({n['method']}; {n['netem']})"
        )
    for name, d in report["directions"].items():
        if d.get("n", 0) == 0:
            lines.append(f"  {name:11s} no probe found ({d['not_found']} missing)")
            continue
        lines.append(
            f"  {name:11s} p50 {d['p50']:7.2f}  p95 {d['p95']:7.2f}  max {d['max']:7.2f}  jitter {d['jitter']:5.2f} ms"
            f"  ({d['n']} found, {d['not_found']} missing)  {d['what']}"
        )
    if report.get("interleaved"):
        il = report["interleaved"]
        lines.append(
            f"  interleaved: {il['unimpaired_probes']} unimpaired and {il['impaired_probes']} impaired probes in one room "
            f"({il['unassigned_probes']} unassigned); expected rise {il['expected_rise_ms']} ms"
        )
        for name, d in il["directions"].items():
            if "rise_ms" in d:
                lines.append(
                    f"    {name:11s} rise {d['rise_ms']:7.2f} ms  (p50 {d['unimpaired']['p50']:.2f} → {d['impaired']['p50']:.2f})"
                )
    lines += device_lines(report.get("device"))
    lines.append(f"clock: {report['clock_method']}")
    return lines
