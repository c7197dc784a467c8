"""The room participants' shared parts and the model child's boundary, without a LiveKit server.

Teardown helpers log instead of swallowing; the recorder's handlers are wired
by event name; the child process speaks typed messages and is stopped on
every path where it does not become the model in the room.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from floorbench.clock import SessionClock
from floorbench.pipelines.room.model_messages import (
    ModelFailed,
    ModelReady,
    ModelSpec,
    answer_line,
    read_answer,
)
from floorbench.pipelines.room.participant import ScenarioRoom, cancel_and_wait, settle
from floorbench.records import EventKind, FailureKind, TimelineWriter, read_timeline
from floorbench.transports.server import LiveKitConnection

CONN = LiveKitConnection("ws://127.0.0.1:9", "key", "secret-for-tests-only-0123456789abcdef")


# -- teardown helpers ----------------------------------------------------------
async def test_cancel_and_wait_logs_what_a_task_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def broken() -> None:
        raise OSError("disk full")

    async def forever() -> None:
        await asyncio.sleep(3600)

    bad = asyncio.create_task(broken(), name="writer-a")
    await asyncio.sleep(0)
    idle = asyncio.create_task(forever(), name="writer-b")
    with caplog.at_level(logging.WARNING):
        await cancel_and_wait([bad, idle], 1.0, "recorder: track writers")
    assert idle.cancelled()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["recorder: track writers: task writer-a ended with OSError: disk full; teardown goes on"]


async def test_cancel_and_wait_leaves_a_stubborn_task_behind_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue

    task = asyncio.create_task(stubborn(), name="stuck")
    await asyncio.sleep(0)
    with caplog.at_level(logging.WARNING):
        await cancel_and_wait(task, 0.05, "playback")
    assert "playback: task stuck still running" in caplog.text
    release.set()
    task.cancel()
    await asyncio.wait({task})
    await cancel_and_wait([], 1.0, "nothing")  # empty: nothing to do
    await cancel_and_wait(None, 1.0, "nothing")


async def test_settle_returns_the_value_or_logs_and_returns_none(caplog: pytest.LogCaptureFixture) -> None:
    async def ok() -> int:
        return 3

    async def fails() -> int:
        raise RuntimeError("room already closed")

    async def slow() -> int:
        await asyncio.sleep(3600)
        return 0

    with caplog.at_level(logging.WARNING):
        assert await settle(ok(), None, "ok") == 3
        assert await settle(fails(), 1.0, "leaving the room") is None
        assert await settle(slow(), 0.01, "disconnect") is None
    assert "leaving the room failed (RuntimeError: room already closed)" in caplog.text
    assert "disconnect failed (TimeoutError)" in caplog.text


# -- the recorder's room events, wired by name --------------------------------------
async def test_recorder_handlers_are_wired_by_event_name(tmp_path: Path) -> None:
    from floorbench.pipelines.room.recorder import Recorder

    timeline = TimelineWriter(tmp_path / "timeline.jsonl")
    rec = Recorder(ScenarioRoom(CONN, "room", tmp_path, SessionClock(), timeline))
    seen: list[tuple[str, str]] = []
    rec.listeners.append(lambda event, who: seen.append((event, who)))
    # the handlers `start` registers, without connecting
    rec.on("participant_connected", rec._joined)
    rec.on("participant_disconnected", rec._left)
    rec.on("data_received", rec._data)
    rec.room.emit("participant_connected", SimpleNamespace(identity="model"))
    rec.room.emit("data_received", SimpleNamespace(participant=None, data=b"hello", topic=None))
    # the server's reason, as rtc.RemoteParticipant.disconnect_reason gives it (an enum value)
    rec.room.emit("participant_disconnected", SimpleNamespace(identity="model", disconnect_reason=14))
    timeline.close()
    assert seen == [("joined", "model"), ("left", "model")]
    assert rec.present == set()
    assert rec.left_reasons == {"model": "CONNECTION_TIMEOUT"}
    events = read_timeline(tmp_path / "timeline.jsonl")
    assert [(e.kind, e.source, e.reason) for e in events] == [
        (EventKind.participant, "recorder", "joined:model"),
        (EventKind.marker, "server", "data"),
        (EventKind.participant, "recorder", "left:model"),
    ]
    assert getattr(events[-1], "disconnect_reason", None) == "CONNECTION_TIMEOUT"


# -- the child's messages -------------------------------------------------------
def spec(**over: object) -> ModelSpec:
    fields: dict[str, object] = {
        "url": "ws://127.0.0.1:9",
        "token": "jwt-secret-token",
        "room": "fb-room",
        "identity": "model",
        "model": "silent",
        "in_sample_rate": 16000,
        "out_sample_rate": 24000,
        "out_queue_ms": 100,
        "parent_pid": 1,
        "max_lifetime_s": 60.0,
    }
    fields.update(over)
    return ModelSpec.model_validate(fields)


def test_model_spec_is_strict_and_hides_the_token() -> None:
    s = spec()
    assert "jwt-secret-token" not in repr(s)
    assert ModelSpec.model_validate_json(s.line()) == s
    with pytest.raises(ValueError, match="out_queue_ms"):
        spec(out_queue_ms=None)
    with pytest.raises(ValueError, match=r"(?i)extra"):
        spec(queue_ms=100)


def test_the_child_answers_ready_or_failed_and_nothing_else() -> None:
    assert read_answer(answer_line(ModelReady(pid=42))) == ModelReady(pid=42)
    assert read_answer(b'{"error": "no key"}\n') == ModelFailed(error="no key")
    with pytest.raises(ValueError, match="not a ready/error line: 'hello'"):
        read_answer(b"hello\n")
    with pytest.raises(ValueError, match="not a ready/error line"):
        read_answer('{"ready": false, "pid": 1}')


# -- the child process is stopped on every path -------------------------------------
READY_THEN_IDLE = (
    "import sys, time; from pathlib import Path\n"
    "from floorbench.pipelines.room.model_messages import ModelReady, ModelSpec, answer_line\n"
    "spec = ModelSpec.model_validate_json(sys.stdin.readline())\n"
    "Path(sys.argv[1]).write_text(spec.model_dump_json(exclude={'token'}))\n"
    "sys.stdout.write(answer_line(ModelReady(pid=0))); sys.stdout.flush()\n"
    "time.sleep(600)\n"
)


def fake_child(monkeypatch: pytest.MonkeyPatch, code: str, *args: str) -> None:
    from floorbench.pipelines.run.model_process import ModelProcess

    monkeypatch.setattr(ModelProcess, "argv", (sys.executable, "-c", code, *args))


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("import sys; sys.stdin.readline(); import time; time.sleep(600)", FailureKind.model_never_joined),
        ("import sys; sys.stdin.readline(); print('hello', flush=True); import time; time.sleep(600)", FailureKind.internal),
        ("import sys; sys.stdin.readline(); print('{\"error\": \"no key\"}', flush=True); import time; time.sleep(600)",
         FailureKind.bad_input),
        ("import sys; sys.exit(3)", FailureKind.model_crashed),
    ],
)
async def test_a_child_that_is_not_ready_is_stopped(
    code: str, kind: FailureKind, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed

    fake_child(monkeypatch, code)
    proc = ModelProcess(spec(), tmp_path / "model.log")
    # the silent child is given 0.5 s; the others answer well within 20 s
    with pytest.raises(ScenarioFailed) as failed:
        await proc.start(0.5 if kind == FailureKind.model_never_joined else 20.0)
    assert failed.value.kind == kind
    assert proc.proc is not None and proc.proc.returncode is not None
    assert not (tmp_path / "model.pid").exists()


async def test_a_model_that_never_joins_is_stopped_by_the_runs_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_suite: Path
) -> None:
    from floorbench.pipelines.run.model_process import ScenarioFailed
    from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings
    from floorbench.processors.registry import ModelContext, create_model
    from floorbench.scenarios.validate import load_suite

    seen = tmp_path / "spec.json"
    fake_child(monkeypatch, READY_THEN_IDLE, str(seen))
    suite = load_suite(tiny_suite)
    scenario = suite.scenarios[0]
    model = create_model(ModelContext(name="silent", scenario=scenario, suite=suite.suite, suite_root=suite.root))
    settings = ScenarioSettings(model_join_timeout_s=4.0, model_out_queue_ms=120)
    run = ScenarioRun("r1", suite, scenario, model, CONN, tmp_path / "run", settings)
    run.dir.mkdir(parents=True)
    nobody = SimpleNamespace(audio_from=set())
    with pytest.raises(ScenarioFailed) as failed:
        await run._start_model(nobody)  # type: ignore[arg-type]
    assert failed.value.kind == FailureKind.model_never_joined
    assert run.model_proc is not None and run.model_proc.proc is not None
    assert run.model_proc.proc.returncode is None  # ready, in no room: still running here
    assert await run._stop_participants() == {}  # what the run's `finally` does
    assert run.model_proc.proc.returncode is not None
    sent = json.loads(seen.read_text())  # what the child read, less the token
    assert sent["out_queue_ms"] == 120 and sent["identity"] == "model" and sent["model"] == "silent"
    assert sent["scenario_file"] == str(suite.files[scenario.scenario_id].resolve())


async def test_the_real_child_reads_the_spec_and_answers_failed_for_a_bad_model(tmp_path: Path) -> None:
    from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed

    proc = ModelProcess(spec(model="no-such-model"), tmp_path / "model.log")
    with pytest.raises(ScenarioFailed) as failed:
        await proc.start(60.0)
    assert failed.value.kind == FailureKind.bad_input
    assert failed.value.reason.startswith("model: unknown model 'no-such-model'")
    assert proc.proc is not None and proc.proc.returncode is not None  # exited, or stopped on the way out
    assert "jwt-secret-token" not in (tmp_path / "model.log").read_text()
