"""A model that failed is never scored as a perfect listener (docs/systems-under-test.md, "When a model fails").

Unit tests: each adapter's chain reports an unreachable server as an error and
says when its connection is up or drops; the child turns errors and connection
changes into typed lines; the runner's `ModelProcess` turns those lines into
the outcome `model_error`. Live tests (real rooms): every server-backed adapter
against a port with nothing listening fails its scenario with `model_error`
and a reason naming the fix, with its files finalised; a working stand-in
server still gives `completed`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path

import pytest
from aiohttp import web
from pipecat.frames.frames import ErrorFrame, InputAudioRawFrame
from pipecat.tests.utils import SleepFrame, run_test

from floorbench.pipelines.room.model_messages import (
    REASON_CHARS,
    ModelChainError,
    ModelConnected,
    ModelDisconnected,
    ModelReady,
    ModelSpec,
    answer_line,
    one_line,
    read_event,
)
from floorbench.pipelines.room.model_participant import _Reports
from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed
from floorbench.processors.cascade_llm import LLMLink, LLMResponder
from floorbench.processors.registry import ModelContext, create_model
from floorbench.records import FailureKind, Outcome

try:
    from tests.support.audio import input_frames, silence
    from tests.support.duplex_servers import Behaviour, ReferenceServer
    from tests.support.fake_realtime import FakeRealtimeServer
except ModuleNotFoundError:
    from support.audio import input_frames, silence
    from support.duplex_servers import Behaviour, ReferenceServer
    from support.fake_realtime import FakeRealtimeServer


def closed_port() -> int:
    """A local TCP port with nothing listening (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processors(name: str, **config) -> list:
    return list(create_model(ModelContext(name=name, config=config)).processors())


class Events:
    """Records a processor's on_model_connected / on_model_disconnected calls."""

    def __init__(self, processor) -> None:
        self.seen: list[str] = []

        async def connected(_p) -> None:
            self.seen.append("connected")

        async def disconnected(_p, reason: str) -> None:
            self.seen.append(f"disconnected: {reason}")

        processor.add_event_handler("on_model_connected", connected)
        processor.add_event_handler("on_model_disconnected", disconnected)


def _errors(up) -> list[str]:
    return [f.error for f in up if isinstance(f, ErrorFrame)]


# --- messages -------------------------------------------------------------------


def test_events_round_trip_and_answers_are_not_events():
    for event in (ModelConnected(), ModelDisconnected(disconnected="gone"), ModelChainError(chain_error="x", fatal=True)):
        assert read_event(answer_line(event)) == event
    with pytest.raises(ValueError, match="not a model event line"):
        read_event(answer_line(ModelReady(pid=1, links=1)))
    with pytest.raises(ValueError, match="not a model event line"):
        read_event("pipecat says hello\n")


def test_a_reason_is_one_redacted_line():
    text = "cannot connect to wss://u:pw@host:9/x?token=abc123 (refused)\nBearer sk-LIVE-1 and KEYVALUE99"
    line = one_line(text, ("KEYVALUE99",))
    assert line == (
        "cannot connect to wss://<redacted>@host:9/x?token=<redacted> (refused) "
        "Bearer <redacted> and <redacted>"
    )
    assert len(one_line("x" * 5000)) == REASON_CHARS


# --- each adapter's chain against a stopped server -------------------------------


@pytest.mark.parametrize("adapter", ["websocket", "moshi"])
async def test_socket_adapter_against_a_closed_port_errors_and_never_connects(adapter: str):
    port = closed_port()
    (proc,) = _processors(adapter, url=f"ws://127.0.0.1:{port}/api/chat?token=SECRET1", connect_timeout_s=2)
    assert proc.reports_connection
    events = Events(proc)
    _, up = await run_test(proc, frames_to_send=[SleepFrame(sleep=0.5), *input_frames(silence(100))])
    errors = _errors(up)
    assert len(errors) == 1, errors
    assert f"cannot connect to ws://127.0.0.1:{port}/api/chat " in errors[0]
    assert "start the model server or fix `url`" in errors[0] and "SECRET1" not in errors[0]
    assert events.seen == []


async def test_socket_adapter_reports_connected_then_a_dropped_connection():
    from websockets.asyncio.server import serve

    async def close_soon(ws) -> None:  # accepts, reads the hello, then goes away mid-session
        await ws.recv()
        await asyncio.sleep(0.3)
        await ws.close()

    async with serve(close_soon, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        (proc,) = _processors("websocket", url=f"ws://127.0.0.1:{port}/")
        events = Events(proc)
        _, up = await run_test(proc, frames_to_send=[SleepFrame(sleep=1.0), *input_frames(silence(100))])
    assert events.seen == [
        "connected",
        f"disconnected: websocket-model: ws://127.0.0.1:{port}/ closed the connection; "
        "check the model server (its log says why) and run again",
    ]
    assert _errors(up) == [events.seen[1].removeprefix("disconnected: ")]


async def test_socket_adapter_closing_at_the_end_is_no_error():
    with ReferenceServer("pcm", Behaviour("echo", delay_ms=0)) as server:
        (proc,) = _processors("websocket", url=server.url)
        events = Events(proc)
        _, up = await run_test(proc, frames_to_send=[SleepFrame(sleep=0.5), *input_frames(silence(100))])
    assert events.seen == ["connected"] and _errors(up) == []


async def test_service_link_reports_connected_to_a_working_service(monkeypatch):
    monkeypatch.setenv("FB_DUMMY_KEY", "sk-dummy-1")
    with FakeRealtimeServer(answer_after_ms=300, reply_ms=200) as server:
        chain = _processors("pipecat-service", service="openai-realtime", api_key_env="FB_DUMMY_KEY",
                            params={"base_url": server.url}, interrupt_on_user_speech=False)
        _service, link = chain
        assert link.reports_connection and link.attribute == "_websocket"
        events = Events(link)
        from pipecat.pipeline.pipeline import Pipeline

        _, up = await run_test(Pipeline(chain), frames_to_send=[SleepFrame(sleep=0.8)])
    assert events.seen == ["connected"] and _errors(up) == []


class _ClosesOnEnd:
    """A stand-in service: its connection is up from the start; on the EndFrame it closes it and takes a
    while before passing the frame on (as a realtime service's stop() does); `drop_after_s` drops it
    mid-run instead."""

    @staticmethod
    def make(drop_after_s: float | None = None):  # type: ignore[no-untyped-def]
        from pipecat.frames.frames import EndFrame, StartFrame
        from pipecat.processors.frame_processor import FrameProcessor

        class Service(FrameProcessor):
            def __init__(self) -> None:
                super().__init__(name="stand-in-service")
                self._websocket: object | None = None

            async def _drop(self, after_s: float) -> None:
                await asyncio.sleep(after_s)
                self._websocket = None

            async def process_frame(self, frame, direction):  # type: ignore[no-untyped-def]
                await super().process_frame(frame, direction)
                if isinstance(frame, StartFrame):
                    self._websocket = object()
                    if drop_after_s is not None:
                        self.create_task(self._drop(drop_after_s))
                if isinstance(frame, EndFrame):
                    self._websocket = None
                    await asyncio.sleep(0.3)
                await self.push_frame(frame, direction)

        return Service()


async def test_service_link_does_not_call_the_shutdown_a_drop():
    """The service closes its connection on the EndFrame before the link sees the frame (seen in CI)."""
    from pipecat.pipeline.pipeline import Pipeline

    from floorbench.processors.service import _ServiceLink

    service = _ClosesOnEnd.make()
    link = _ServiceLink(service, "_websocket")
    events = Events(link)
    await run_test(Pipeline([service, link]), frames_to_send=[SleepFrame(sleep=0.3)])
    assert events.seen == ["connected"]


async def test_service_link_reports_a_drop_mid_run():
    from pipecat.pipeline.pipeline import Pipeline

    from floorbench.processors.service import _ServiceLink

    service = _ClosesOnEnd.make(drop_after_s=0.2)
    link = _ServiceLink(service, "_websocket")
    events = Events(link)
    await run_test(Pipeline([service, link]), frames_to_send=[SleepFrame(sleep=0.2 + link.end_grace_s + 0.5)])
    assert events.seen[0] == "connected" and len(events.seen) == 2
    assert events.seen[1].startswith("disconnected: stand-in-service") and "closed mid-scenario" in events.seen[1]


async def test_service_against_a_closed_port_errors_and_never_connects(monkeypatch):
    monkeypatch.setenv("FB_DUMMY_KEY", "sk-dummy-1")
    port = closed_port()
    chain = _processors("pipecat-service", service="openai-realtime", api_key_env="FB_DUMMY_KEY",
                        params={"base_url": f"ws://127.0.0.1:{port}/v1/realtime"}, interrupt_on_user_speech=False)
    events = Events(chain[1])
    assert chain[0].floorbench_error_hint.startswith(
        "check the service endpoint (`params`), the key in FB_DUMMY_KEY and the provider's status"
    )
    from pipecat.pipeline.pipeline import Pipeline

    _, up = await run_test(Pipeline(chain), frames_to_send=[SleepFrame(sleep=0.8)])
    errors = _errors(up)
    assert errors and "Error connecting" in errors[0], errors
    assert events.seen == []


async def test_cascade_llm_check_names_the_fix():
    port = closed_port()
    responder = LLMResponder.from_config({"base_url": f"http://127.0.0.1:{port}/v1", "model": "m"}, "cascade")
    reason = await responder.check("cascade")
    assert reason is not None
    assert reason.startswith(f"cascade llm: cannot reach http://127.0.0.1:{port}/v1 (")
    assert reason.endswith("start the LLM server or fix `llm.base_url` in the model config")

    async def refuse(_request: web.Request) -> web.Response:
        return web.Response(status=401)

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"data": []})

    for handler, expected in ((refuse, "refused the key (HTTP 401)"), (models, None)):
        app = web.Application()
        app.router.add_get("/v1/models", handler)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            got = await LLMResponder.from_config(
                {"base_url": f"http://127.0.0.1:{port}/v1", "model": "m"}, "cascade"
            ).check("cascade")
        finally:
            await runner.cleanup()
        assert (got is None) if expected is None else (got is not None and expected in got), got


async def test_cascade_llm_link_pushes_the_error():
    port = closed_port()
    link = LLMLink(LLMResponder.from_config({"base_url": f"http://127.0.0.1:{port}/v1", "model": "m"}, "cascade"), "cascade")
    events = Events(link)
    _, up = await run_test(link, frames_to_send=[SleepFrame(sleep=0.5)])
    errors = _errors(up)
    assert len(errors) == 1 and "cannot reach" in errors[0] and events.seen == []


# --- the child's reports ----------------------------------------------------------


async def test_child_reports_errors_in_both_directions_and_connection_changes(capsys):
    (proc,) = _processors("websocket", url="ws://127.0.0.1:9/")
    reports = _Reports([proc], ("sk-known",))
    assert reports.links == [proc]
    from pipecat.frames.frames import ErrorFrame as EF
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

    class Raiser(FrameProcessor):
        """Pushes one error upstream and one downstream when it sees room audio."""

        async def process_frame(self, frame, direction):
            await super().process_frame(frame, direction)
            if isinstance(frame, InputAudioRawFrame):
                await self.push_error("provider said no: key sk-known")
                await self.push_frame(EF(error="downstream failure", fatal=True), FrameDirection.DOWNSTREAM)
            else:
                await self.push_frame(frame, direction)

    raiser = Raiser(name="raiser")
    raiser.floorbench_error_hint = "fix it"  # what the service adapter sets (processors.service.ERROR_HINT)
    await run_test(raiser, frames_to_send=input_frames(silence(20)), observers=[reports.observer()])
    # the handlers the child registered, called as the processor's events call them
    await reports._connected(proc)
    await reports._disconnected(proc, "gone")
    reports.stopping = True
    await reports._disconnected(proc, "closed by the shutdown")
    lines = [read_event(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        ModelChainError(chain_error="raiser: provider said no: key <redacted>; fix it", fatal=False),
        ModelChainError(chain_error="raiser: downstream failure; fix it", fatal=True),
        ModelConnected(),
        ModelDisconnected(disconnected="gone"),
    ]


# --- the runner's side: ModelProcess turns the child's lines into the outcome ---------------


def _fake_child(lines: list[str], then_sleep_s: float = 30.0) -> tuple[str, ...]:
    """A stand-in child: reads the spec, writes `lines` (with pauses), then sleeps."""
    script = (
        "import sys, time, json\n"
        "sys.stdin.readline()\n"
        f"for line in {lines!r}:\n"
        "    sys.stdout.write(line); sys.stdout.flush(); time.sleep(0.2)\n"
        f"time.sleep({then_sleep_s})\n"
    )
    return (sys.executable, "-c", script)


def _spec() -> ModelSpec:
    return ModelSpec(url="ws://x", token="t", room="r", identity="model", model="websocket",
                     in_sample_rate=16000, out_sample_rate=24000, out_queue_ms=100, parent_pid=1,
                     max_lifetime_s=None)


async def _started(tmp_path: Path, lines: list[str]) -> ModelProcess:
    mp = ModelProcess(_spec(), tmp_path / "model.log")
    mp.argv = _fake_child(lines)
    await mp.start(10.0)
    return mp


async def test_runner_fails_a_model_that_reports_an_error_before_connecting(tmp_path: Path):
    ready = answer_line(ModelReady(pid=1, links=1))
    mp = await _started(tmp_path, [ready, answer_line(ModelChainError(chain_error="m: cannot connect; start the model server"))])
    try:
        with pytest.raises(ScenarioFailed) as e:
            await mp.wait_connected(5.0)
        assert e.value.kind == FailureKind.model_error
        assert e.value.reason == "model error: m: cannot connect; start the model server"
    finally:
        await mp.stop()


async def test_runner_fails_a_model_that_never_connects(tmp_path: Path):
    mp = await _started(tmp_path, [answer_line(ModelReady(pid=1, links=1))])
    try:
        with pytest.raises(ScenarioFailed) as e:
            await mp.wait_connected(1.0)
        assert e.value.kind == FailureKind.model_error
        assert e.value.reason.startswith("model never connected to its server within 1 s; start the model server")
    finally:
        await mp.stop()


async def test_runner_accepts_a_connection_then_fails_on_its_loss(tmp_path: Path):
    lines = [answer_line(m) for m in (ModelReady(pid=1, links=1), ModelConnected(), ModelDisconnected(disconnected="x: closed"))]
    mp = await _started(tmp_path, lines)
    try:
        await mp.wait_connected(5.0)
        assert mp.failed() is None  # connected; the loss arrives 0.2 s later
        await asyncio.wait_for(mp.wait_failed(), 5.0)
        failure = mp.failed()
        assert failure is not None and failure.kind == FailureKind.model_error
        assert failure.reason == "model lost its server connection: x: closed"
    finally:
        await mp.stop()


async def test_runner_needs_no_connection_from_a_local_model(tmp_path: Path):
    mp = await _started(tmp_path, [answer_line(ModelReady(pid=1))])
    try:
        await asyncio.wait_for(mp.wait_connected(0.1), 1.0)  # links=0: nothing to wait for
        assert mp.failed() is None
    finally:
        await mp.stop()


# --- live: every server-backed adapter against a stopped server, in a real room -------------

SCENARIO = "tiny01-explicit"


def _run_one(tmp_path: Path, tiny_suite: Path, livekit, model: str, config: dict):
    from floorbench.pipelines.run.runner import RunOptions, run_suite

    opts = RunOptions(suite=tiny_suite, model=model, out=tmp_path, connection=livekit,
                      scenarios=[SCENARIO], limit=1, progress=False, config=config)
    summary = asyncio.run(run_suite(opts))
    assert len(summary.metas) == 1
    return summary.metas[0]


def _assert_failed_with_files(tmp_path: Path, meta, *fix: str) -> None:
    assert meta.outcome == Outcome.failed, meta
    assert meta.failure_kind == FailureKind.model_error, (meta.failure_kind, meta.failure_reason)
    assert all(f in (meta.failure_reason or "") for f in fix), meta.failure_reason
    assert "\n" not in (meta.failure_reason or "")
    folder = tmp_path / SCENARIO
    stored = json.loads((folder / "meta.json").read_text())
    assert stored["outcome"] == "failed" and stored["failure_kind"] == "model_error"
    timeline = (folder / "timeline.jsonl").read_text().splitlines()
    assert json.loads(timeline[-1])["kind"] == "end"  # the timeline was closed
    assert any(json.loads(x)["kind"] == "failure" for x in timeline)
    assert (folder / "model.log").exists()


@pytest.mark.live
@pytest.mark.parametrize("adapter", ["websocket", "moshi"])
def test_live_socket_adapter_with_a_stopped_server_fails(tmp_path: Path, tiny_suite: Path, livekit, adapter: str):
    port = closed_port()
    meta = _run_one(tmp_path, tiny_suite, livekit, adapter, {"url": f"ws://127.0.0.1:{port}/", "connect_timeout_s": 3})
    _assert_failed_with_files(tmp_path, meta, f"cannot connect to ws://127.0.0.1:{port}/", "start the model server")


@pytest.mark.live
def test_live_service_with_a_stopped_endpoint_fails(tmp_path: Path, tiny_suite: Path, livekit, monkeypatch):
    monkeypatch.setenv("FB_DUMMY_REALTIME_KEY", "sk-dummy-not-a-key")
    port = closed_port()
    config = {"service": "openai-realtime", "api_key_env": "FB_DUMMY_REALTIME_KEY",
              "params": {"base_url": f"ws://127.0.0.1:{port}/v1/realtime"}}
    meta = _run_one(tmp_path, tiny_suite, livekit, "pipecat-service", config)
    _assert_failed_with_files(
        tmp_path, meta, "Error connecting", f"('127.0.0.1', {port})",
        "check the service endpoint (`params`), the key in FB_DUMMY_REALTIME_KEY",
    )
    assert "sk-dummy-not-a-key" not in (tmp_path / SCENARIO / "meta.json").read_text()


@pytest.mark.live
def test_live_cascade_with_a_stopped_llm_fails(tmp_path: Path, tiny_suite: Path, livekit):
    from floorbench.processors.cascade_speech import packaged_piper_joe, packaged_whisper_tiny

    if packaged_whisper_tiny() is None or packaged_piper_joe() is None:
        pytest.skip("needs floorbench[local]")
    port = closed_port()
    meta = _run_one(tmp_path, tiny_suite, livekit, "cascade",
                    {"llm": {"base_url": f"http://127.0.0.1:{port}/v1", "model": "m", "timeout_s": 2}})
    _assert_failed_with_files(tmp_path, meta, f"cannot reach http://127.0.0.1:{port}/v1", "llm.base_url")


@pytest.mark.live
def test_live_working_stand_in_server_completes(tmp_path: Path, tiny_suite: Path, livekit):
    with ReferenceServer("pcm", Behaviour("reply", gap_ms=700, clip_ms=400)) as server:
        meta = _run_one(tmp_path, tiny_suite, livekit, "websocket", {"url": server.url})
    assert meta.outcome == Outcome.completed, (meta.failure_kind, meta.failure_reason)
    assert (tmp_path / SCENARIO / "turns.json").exists()


class DroppingServer:
    """A pcm-ws server in a thread that takes the hello, then closes every connection after `after_s`."""

    def __init__(self, after_s: float) -> None:
        import threading

        self.after_s = after_s
        self.port = 0
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        from websockets.asyncio.server import serve

        async def handler(ws) -> None:
            await ws.recv()
            await asyncio.sleep(self.after_s)
            await ws.close()

        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        async with serve(handler, "127.0.0.1", 0) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> DroppingServer:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


@pytest.mark.live
def test_live_connection_lost_mid_scenario_fails(tmp_path: Path, tiny_suite: Path, livekit):
    with DroppingServer(after_s=4.0) as server:
        meta = _run_one(tmp_path, tiny_suite, livekit, "websocket", {"url": f"ws://127.0.0.1:{server.port}/"})
    _assert_failed_with_files(
        tmp_path, meta, f"websocket-model: ws://127.0.0.1:{server.port}/ closed the connection",
        "check the model server",
    )
    # it was connected first: the humans had started (the failure came mid-scenario, not before the room)
    assert (tmp_path / SCENARIO / "humans.wav").stat().st_size > 44
