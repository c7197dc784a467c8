"""The model participant: a child process running one pipecat chain in the room.

    LiveKitTransport.input() → model.processors() → LiveKitTransport.output()

One process per scenario gives every model a fresh session (benchmarks.md §1
step 1), keeps pipecat's one-session-per-process assumptions (pipecat #3378),
and lets a crashing or killed model lose one scenario, not the run.

The spec (URL, token, model name, config, scenario file) arrives as JSON on
stdin so the token never appears in a process listing or a file. The process
writes one JSON line to stdout, ``{"ready": true}``, once the pipeline is built,
or ``{"error": "..."}`` with a one-line reason, then runs until SIGTERM or the
room closes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any


def _disable_dtx_on_publish() -> None:
    """pipecat's LiveKit output publishes with default options (DTX and RED on).

    Measurement tracks must be continuous (architecture.md "Clocks"), so in
    this child process every TrackPublishOptions starts with DTX and RED off.
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
    """Fallback to PDEATHSIG: notice being re-parented."""
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
            return
        await asyncio.sleep(1.0)


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def run(spec: dict[str, Any]) -> int:
    from floorbench.processors.registry import ModelContext, ModelError, create_model
    from floorbench.scenarios.validate import ScenarioError, load_scenario_file, read_yaml

    scenario = suite = None
    suite_root = Path(spec["suite_root"]) if spec.get("suite_root") else None
    try:
        if spec.get("scenario_file"):
            scenario = load_scenario_file(Path(spec["scenario_file"]), root=suite_root)
        if suite_root is not None:
            from floorbench.scenarios.schema import Suite

            suite = Suite.model_validate(read_yaml(suite_root / "suite.yaml"))
        ctx = ModelContext(
            name=spec["model"],
            config=spec.get("config") or {},
            scenario=scenario,
            suite=suite,
            suite_root=suite_root,
            in_sample_rate=int(spec.get("in_sample_rate", 16000)),
            out_sample_rate=int(spec.get("out_sample_rate", 24000)),
            room=spec["room"],
            identity=spec.get("identity", "model"),
        )
        model = create_model(ctx)
        processors = model.processors()
    except (ModelError, ScenarioError) as e:
        _emit({"error": str(e)})
        return 2

    _disable_dtx_on_publish()
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.transports.livekit.transport import LiveKitParams, LiveKitTransport
    from pipecat.workers.runner import WorkerRunner

    transport = LiveKitTransport(
        url=spec["url"],
        token=spec["token"],
        room_name=spec["room"],
        params=LiveKitParams(
            audio_in_enabled=True,
            audio_out_enabled=True,
            audio_in_sample_rate=ctx.in_sample_rate,
            audio_out_sample_rate=ctx.out_sample_rate,
            audio_in_user_tracks=False,
            audio_out_queue_size_ms=int(spec.get("out_queue_ms", 100)),
        ),
    )
    pipeline = Pipeline([transport.input(), *processors, transport.output()])
    worker = PipelineWorker(
        pipeline,
        params=PipelineParams(
            audio_in_sample_rate=ctx.in_sample_rate, audio_out_sample_rate=ctx.out_sample_rate
        ),
        idle_timeout_secs=None,
        enable_rtvi=False,
        check_dangling_tasks=False,
    )
    runner = WorkerRunner(handle_sigint=False, handle_sigterm=False)
    await runner.add_workers(worker)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    @transport.event_handler("on_disconnected")
    async def _gone(*_: Any) -> None:
        stop.set()

    _emit({"ready": True, "pid": os.getpid()})
    watch = asyncio.create_task(_watch_parent(int(spec.get("parent_pid") or os.getppid()), stop))
    max_s = spec.get("max_lifetime_s")
    if max_s:
        loop.call_later(float(max_s), stop.set)
    run_task = asyncio.create_task(runner.run())
    stop_task = asyncio.create_task(stop.wait())
    await asyncio.wait({run_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
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
    spec = json.loads(sys.stdin.readline())
    sys.exit(asyncio.run(run(spec)))


if __name__ == "__main__":
    main()
