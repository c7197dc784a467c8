"""The model participant: a child process running one pipecat chain in the room.

    LiveKitTransport.input() → model.processors() → LiveKitTransport.output()

One process per scenario gives every model a fresh session (docs/architecture.md,
"Processes"), keeps pipecat's one-session-per-process assumptions (pipecat #3378),
and lets a crashing or killed model lose one scenario, not the run.

The `ModelSpec` (URL, token, model name, config, scenario file) arrives as
one JSON line on stdin so the token never appears in a process listing or a
file. The process writes one line to stdout, `ModelReady` once the pipeline is
built or `ModelFailed` with a one-line reason (floorbench.pipelines.room.model_messages),
then runs until SIGTERM, the room closes, its parent goes, or its lifetime ends.
While it runs, `_Reports` tells the runner what it must know to trust a silent
recording: every error the chain raises (an observer sees each pipecat
``ErrorFrame`` where it is first pushed, upstream or downstream, fatal or not)
and, for processors that hold a model-server connection (``reports_connection``),
when the connection is up and when it drops.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from floorbench.child_env import pid_alive
from floorbench.pipelines.room.model_messages import (
    ModelAnswer,
    ModelChainError,
    ModelConnected,
    ModelDisconnected,
    ModelEvent,
    ModelFailed,
    ModelMeasured,
    ModelReady,
    ModelSpec,
    answer_line,
    one_line,
)

if TYPE_CHECKING:
    from floorbench.processors.registry import ModelContext


class _SenderRecords:
    """What the model process sends and hears, kept in the scenario's folder (floorbench.pipelines.room.sender_log).

    ``model.sent.*``: every frame the chain hands to its published source; ``model.heard.*``: every frame
    of the room's audio it receives (the first stream; a later one, as after a re-publish, is
    ``model.heard-2.*``). A failure to keep them is logged once and never stops the model.
    """

    def __init__(self, folder: Path, anchor_ns: int) -> None:
        from floorbench.clock import SessionClock
        from floorbench.records import ClockAnchor

        self.folder = folder
        self.clock = SessionClock(ClockAnchor(monotonic_ns=anchor_ns, wall_ns=0))
        self.sent: Any = None
        self.heard: list[Any] = []
        self._broken = False

    def _failed(self, what: str) -> None:
        if not self._broken:
            self._broken = True
            import logging

            logging.getLogger(__name__).exception("model process: keeping %s failed; timing falls back to the recorder", what)

    def source_created(self, sample_rate: int) -> None:
        """The published source exists: a model that never speaks leaves an empty record, not none."""
        if self.sent is not None or self._broken:
            return
        try:
            from floorbench.pipelines.room.sender_log import SentTrackLog

            self.sent = SentTrackLog(self.folder, "model", sample_rate, self.clock.now_ns)
        except Exception:
            self._failed("what it sends")

    def captured(self, frame: Any) -> None:
        if self._broken:
            return
        try:
            import numpy as np

            self.source_created(frame.sample_rate)
            pcm = np.frombuffer(frame.data, dtype=np.int16)
            if frame.num_channels > 1:
                pcm = pcm[:: frame.num_channels]
            self.sent.capture(pcm)
        except Exception:
            self._failed("what it sends")

    def cleared(self) -> None:
        if self.sent is not None and not self._broken:
            try:
                self.sent.clear()
            except Exception:
                self._failed("what it sends")

    def heard_stream(self) -> int:
        self.heard.append(None)
        return len(self.heard) - 1

    def received(self, stream: int, frame: Any) -> None:
        if self._broken:
            return
        try:
            import numpy as np

            from floorbench.pipelines.room.sender_log import HeardTrackLog

            arrival = self.clock.now_ns()
            if self.heard[stream] is None:
                name = "model" if stream == 0 else f"model-{stream + 1}"
                self.heard[stream] = HeardTrackLog(self.folder, name, frame.sample_rate)
            pcm = np.frombuffer(frame.data, dtype=np.int16)
            if frame.num_channels > 1:
                pcm = pcm[:: frame.num_channels]
            self.heard[stream].frame(pcm, arrival)
        except Exception:
            self._failed("what it hears")

    def close(self) -> None:
        for log in [self.sent, *self.heard]:
            if log is not None:
                try:
                    log.close()
                except Exception:
                    self._failed("its records")


def _patch_livekit_rtc(in_rate: int, records: _SenderRecords | None = None) -> None:
    """Settings pipecat's LiveKit transport does not expose, set on the `rtc` it sees.

    - Its output publishes with default options (DTX and RED on). Measurement tracks
      must be continuous (docs/architecture.md, "Clocks"), so in this child process
      every TrackPublishOptions starts with DTX and RED off.
    - Its input asks LiveKit for 48 kHz and resamples every 10 ms frame to the
      chain's rate in Python (SOXR, stream mode). LiveKit's own resampler gives the
      chain's rate directly: the model hears the room without the SOXR filter's
      bursty delay (the `echo` model's path went from 229.9 to 164.9 ms p50). The
      model process's CPU did not change measurably.
    - With `records`, its source and its streams keep what the model sends and hears on the
      session clock (`_SenderRecords`): the sender's clock of the model's track
      (docs/transport.md, "The timing clock").
    """
    from livekit import rtc

    original = rtc.TrackPublishOptions

    def no_dtx(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("dtx", False)
        kwargs.setdefault("red", False)
        return original(*args, **kwargs)

    import types

    import pipecat.transports.livekit.transport as lk_transport

    patched = types.SimpleNamespace(**{k: getattr(rtc, k) for k in dir(rtc) if not k.startswith("__")})
    patched.TrackPublishOptions = no_dtx

    class AudioStreamAtChainRate(rtc.AudioStream):
        def __init__(self, track: Any, *args: Any, **kwargs: Any) -> None:
            if not args:
                kwargs.setdefault("sample_rate", in_rate)
            super().__init__(track, *args, **kwargs)
            self._heard = records.heard_stream() if records is not None else None

        async def __anext__(self) -> Any:
            event = await super().__anext__()
            if records is not None and self._heard is not None:
                records.received(self._heard, event.frame)
            return event

    patched.AudioStream = AudioStreamAtChainRate
    if records is not None:

        class RecordedAudioSource(rtc.AudioSource):
            def __init__(self, sample_rate: int, *args: Any, **kwargs: Any) -> None:
                super().__init__(sample_rate, *args, **kwargs)
                records.source_created(sample_rate)

            async def capture_frame(self, frame: Any) -> None:
                if frame.samples_per_channel:
                    records.captured(frame)
                await super().capture_frame(frame)

            def clear_queue(self) -> None:
                records.cleared()
                super().clear_queue()

        patched.AudioSource = RecordedAudioSource
    lk_transport.rtc = patched  # type: ignore[assignment]


def _die_with_parent() -> None:
    """A model process must not outlive its runner (a killed run would leave it
    in the room, using CPU): ask Linux to SIGTERM us when the parent dies."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    except OSError:
        pass


async def _watch_parent(parent: int, stop: asyncio.Event) -> None:
    """Fallback to PDEATHSIG: notice the runner is gone (re-parented, when it is our parent; or its pid
    no longer alive, when a fork server is — `floorbench.pipelines.run.model_fork`)."""
    first = os.getppid()
    while not stop.is_set():
        if os.getppid() != first or not pid_alive(parent):
            stop.set()
            return
        await asyncio.sleep(1.0)


def _emit(answer: ModelAnswer | ModelEvent) -> None:
    sys.stdout.write(answer_line(answer))
    sys.stdout.flush()


def _config_secrets(config: dict[str, Any]) -> tuple[str, ...]:
    """Values of the environment variables the config names (``*_env``): masked in every reason."""
    names: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if str(k).endswith("_env") and isinstance(v, str):
                    names.append(v)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(config)
    return tuple(v for v in (os.environ.get(n) for n in names) if v)


class _Reports:
    """Errors, and the model-server connections' state, as lines on stdout for the runner.

    A processor that talks to a model server sets ``reports_connection`` and
    calls its ``on_model_connected`` / ``on_model_disconnected(reason)`` event
    handlers; `ModelConnected` goes out once all of them are up. Once the
    scenario is over (`stopping`) nothing more is reported: a connection
    closed by the shutdown is no failure.
    """

    def __init__(self, processors: list[Any], secrets: tuple[str, ...]) -> None:
        self.links = [p for p in processors if getattr(p, "reports_connection", False)]
        self.up: set[int] = set()
        self.secrets = secrets
        self.stopping = False
        for p in self.links:
            p.add_event_handler("on_model_connected", self._connected)
            p.add_event_handler("on_model_disconnected", self._disconnected)
        for p in processors:  # a bridge's own delay (processors.webrtc), for meta.json
            if getattr(p, "reports_measures", False):
                p.add_event_handler("on_model_measured", self._measured)

    async def _connected(self, processor: Any) -> None:
        self.up.add(id(processor))
        if len(self.up) == len(self.links) and not self.stopping:
            _emit(ModelConnected())

    async def _disconnected(self, processor: Any, reason: str) -> None:
        self.up.discard(id(processor))
        if not self.stopping:
            _emit(ModelDisconnected(disconnected=one_line(reason, self.secrets)))

    async def _measured(self, processor: Any, measured: dict[str, Any]) -> None:
        _emit(ModelMeasured(measured=measured))

    def error(self, message: str, source: str, fatal: bool) -> None:
        if self.stopping:
            return
        text = message if message.startswith(source) else f"{source}: {message}"
        _emit(ModelChainError(chain_error=one_line(text, self.secrets), fatal=fatal))

    def observer(self) -> Any:
        """A pipecat observer that reports each ErrorFrame once, where it is first pushed."""
        from pipecat.frames.frames import ErrorFrame
        from pipecat.observers.base_observer import BaseObserver, FramePushed

        reports = self

        class ErrorReporter(BaseObserver):
            def __init__(self) -> None:
                super().__init__(observe_every_push=False)

            async def on_push_frame(self, data: FramePushed) -> None:
                frame = data.frame
                if isinstance(frame, ErrorFrame):
                    source = frame.processor or data.source
                    text = str(frame.error)
                    if hint := getattr(source, "floorbench_error_hint", None):  # processors.service.ERROR_HINT
                        text = f"{text}; {hint}"
                    reports.error(text, getattr(source, "name", str(source)), bool(frame.fatal))

        return ErrorReporter()


def _build_processors(spec: ModelSpec) -> tuple[ModelContext, list[Any]]:
    """The model's per-scenario context and its processors (ModelError/ScenarioError on bad input)."""
    from floorbench.processors.registry import ModelContext, create_model
    from floorbench.scenarios.validate import load_scenario_file, read_yaml

    scenario = suite = None
    suite_root = spec.suite_root
    if spec.scenario_file:
        scenario = load_scenario_file(spec.scenario_file, root=suite_root)
    if suite_root is not None:
        from floorbench.scenarios.schema import Suite

        suite = Suite.model_validate(read_yaml(suite_root / "suite.yaml"))
    ctx = ModelContext(
        name=spec.model,
        config=spec.config,
        scenario=scenario,
        suite=suite,
        suite_root=suite_root,
        in_sample_rate=spec.in_sample_rate,
        out_sample_rate=spec.out_sample_rate,
        room=spec.room,
        identity=spec.identity,
    )
    return ctx, list(create_model(ctx).processors())


def _pipeline(
    spec: ModelSpec,
    ctx: ModelContext,
    processors: list[Any],
    observers: list[Any],
    records: _SenderRecords | None = None,
) -> tuple[Any, Any, Any]:
    """LiveKitTransport.input() → processors → LiveKitTransport.output(): (transport, runner, worker)."""
    _patch_livekit_rtc(ctx.in_sample_rate, records)
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.transports.livekit.transport import LiveKitParams, LiveKitTransport
    from pipecat.workers.runner import WorkerRunner

    from floorbench.pipelines.video.model_input import video_in_params

    transport = LiveKitTransport(
        url=spec.url,
        token=spec.token,
        room_name=spec.room,
        params=LiveKitParams(
            audio_in_enabled=True,
            audio_out_enabled=True,
            audio_in_sample_rate=ctx.in_sample_rate,
            audio_out_sample_rate=ctx.out_sample_rate,
            audio_in_user_tracks=False,
            audio_out_queue_size_ms=spec.out_queue_ms,
            # a model that looks (processors.vision_cue) gets the room's video as image frames,
            # at the rate its processors ask for (floorbench.pipelines.video.model_input)
            **video_in_params(processors),
        ),
    )
    from floorbench.processors.impair_stage import impair_stages

    ins, outs = impair_stages(spec.impair)
    pipeline = Pipeline([transport.input(), *ins, *processors, *outs, transport.output()])
    worker = PipelineWorker(
        pipeline,
        params=PipelineParams(
            audio_in_sample_rate=ctx.in_sample_rate, audio_out_sample_rate=ctx.out_sample_rate
        ),
        observers=observers,
        idle_timeout_secs=None,
        enable_rtvi=False,
        check_dangling_tasks=False,
    )
    runner = WorkerRunner(handle_sigint=False, handle_sigterm=False)
    return transport, runner, worker


async def run(spec: ModelSpec) -> int:
    from floorbench.processors.registry import ModelError
    from floorbench.scenarios.validate import ScenarioError

    try:
        ctx, processors = _build_processors(spec)
    except (ModelError, ScenarioError) as e:
        _emit(ModelFailed(error=str(e)))
        return 2
    reports = _Reports(processors, _config_secrets(spec.config))
    records = (
        _SenderRecords(spec.records_dir, spec.clock_anchor_ns)
        if spec.records_dir is not None and spec.clock_anchor_ns is not None
        else None
    )
    try:
        return await _run_pipeline(spec, ctx, processors, reports, records)
    finally:
        if records is not None:
            records.close()


async def _run_pipeline(
    spec: ModelSpec, ctx: ModelContext, processors: list[Any], reports: _Reports, records: _SenderRecords | None
) -> int:
    transport, runner, worker = _pipeline(spec, ctx, processors, [reports.observer()], records)
    await runner.add_workers(worker)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    @transport.event_handler("on_disconnected")
    async def _gone(*_: Any) -> None:
        stop.set()

    _emit(ModelReady(pid=os.getpid(), links=len(reports.links)))
    watch = asyncio.create_task(_watch_parent(spec.parent_pid, stop))
    if spec.max_lifetime_s:
        loop.call_later(spec.max_lifetime_s, stop.set)
    run_task = asyncio.create_task(runner.run())
    stop_task = asyncio.create_task(stop.wait())
    await asyncio.wait({run_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
    reports.stopping = True
    if not run_task.done():
        try:
            await asyncio.wait_for(runner.cancel(reason="scenario over"), 5.0)
            await asyncio.wait_for(run_task, 5.0)
        except (TimeoutError, asyncio.CancelledError):
            run_task.cancel()
    watch.cancel()
    return 0


def main() -> None:
    import logging

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level=os.environ.get("FLOORBENCH_MODEL_LOG", "WARNING"))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    _die_with_parent()
    spec = ModelSpec.model_validate_json(sys.stdin.readline())
    sys.exit(asyncio.run(run(spec)))


if __name__ == "__main__":
    main()
