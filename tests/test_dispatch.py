"""Dispatch mode without rooms: the job metadata, the worker's suite-hash refusal, the lost-worker
verdicts and the exactly-once token rule on a run folder (pipelines/dispatch*.py, worker.py)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.dispatch.protocol import DispatchError, JobSpec
from floorbench.pipelines.dispatch.runner import Dispatcher, DispatchTimes, judge
from floorbench.pipelines.dispatch.worker import Shelf
from floorbench.pipelines.run import resume
from floorbench.pipelines.run.scenario_run import ScenarioSettings
from floorbench.processors.impair import parse_profile
from floorbench.records import FailureKind, Outcome, read_meta
from floorbench.scenarios.validate import load_suite
from floorbench.transports.server import LiveKitConnection, server_config

TINY = Path(__file__).resolve().parent / "fixtures" / "suites" / "tiny"
CONN = LiveKitConnection("ws://127.0.0.1:9", "k", "s" * 32)
TIMES = DispatchTimes(offer_s=10.0, accept_s=30.0, heartbeat_timeout_s=20.0, deadline_s=600.0)


def _dispatcher(out: Path, times: DispatchTimes | None = None, settings: ScenarioSettings | None = None) -> Dispatcher:
    suite = load_suite(TINY)
    return Dispatcher.for_run(CONN, "fb-test", suite=suite.suite.name, suite_hash=resume.suite_hash(suite),
                              model="silent", config={"identity": "model"}, settings=settings or ScenarioSettings(),
                              out=out, run_id="r1", times=times)


async def test_job_metadata_names_suite_hash_scenario_model_settings_and_out(tmp_path: Path) -> None:
    settings = ScenarioSettings(record_rate=24000, timeout_s=99.0, model_join_timeout_s=7.0,
                                schedule={"rules": {"endpoint_ms": 1500}, "tail_ms": 1000})
    d = _dispatcher(tmp_path / "out", settings=settings)
    try:
        spec = d.job("tiny01-explicit", 3)
        back = JobSpec.parse(spec.model_dump_json())
    finally:
        await d.aclose()
    assert back == spec
    assert (back.suite, back.suite_hash, back.scenario_id, back.model, back.attempt) == (
        "tiny", resume.suite_hash(load_suite(TINY)), "tiny01-explicit", "silent", 3)
    assert back.config == {"identity": "model"} and back.out == str((tmp_path / "out").resolve())
    assert dispatch.settings_from(back.settings) == settings  # the worker plays with the run's settings
    assert d.times.deadline_s == 99.0 + 120
    assert len(back.token) == 16 and d.job("tiny01-explicit", 3).token != back.token  # a fresh token per attempt
    assert back.room_run_id() == f"r1-{back.token[:8]}"  # and a room of its own


def test_metadata_of_another_agent_or_protocol_is_one_line_error() -> None:
    with pytest.raises(DispatchError, match="not a floorbench job") as e:
        JobSpec.parse('{"hello": 1}')
    assert "\n" not in str(e.value)
    spec = JobSpec(suite="tiny", suite_hash="h", scenario_id="x", model="silent", out="/o", run_id="r", token="t",
                   protocol=2)
    with pytest.raises(DispatchError, match="protocol 2"):
        JobSpec.parse(spec.model_dump_json())


def test_impaired_run_is_refused_in_dispatch_mode() -> None:
    with pytest.raises(DispatchError, match="--impair with --play-on workers"):
        dispatch.settings_record(ScenarioSettings(impair=parse_profile("delay100", "both", 0)))


def _spec(out: Path, **kw: object) -> JobSpec:
    suite = load_suite(TINY)
    fields: dict[str, object] = {"suite": "tiny", "suite_hash": resume.suite_hash(suite), "scenario_id": "tiny01-explicit",
                                 "model": "silent", "out": str(out), "run_id": "r1", "token": "a" * 16}
    fields.update(kw)
    return JobSpec.model_validate(fields)


def test_worker_refuses_another_suite_hash_with_one_line_reason(tmp_path: Path) -> None:
    shelf = Shelf.load([TINY])
    digest = resume.suite_hash(load_suite(TINY))
    assert shelf.why_not(_spec(tmp_path)) is None
    why = shelf.why_not(_spec(tmp_path, suite_hash="f" * 64))
    assert why == (f"suite 'tiny' at {TINY} has manifest hash {digest[:12]}, the run's is ffffffffffff; "
                   "copy the run's suite to this box")
    assert "no suite 'mpe' on this worker (it holds: tiny)" in (shelf.why_not(_spec(tmp_path, suite="mpe")) or "")
    assert shelf.why_not(_spec(tmp_path, scenario_id="nope")) == "suite 'tiny' has no scenario 'nope'"
    assert "is not a writable folder here" in (shelf.why_not(_spec(tmp_path / "missing")) or "")


def test_a_refused_job_is_unanswered_and_fails_as_lost_pointing_at_the_workers_logs() -> None:
    """A refusing worker writes nothing (not even its reason) into the folder a job names: the runner,
    unanswered, fails the attempt and says where the reason is (the worker's log)."""
    unclaimed = dispatch.ClaimState(published=False, claimed=False, beat_age_s=None)
    assert judge(unclaimed, 29.0, None, "fb", TIMES) is None  # another worker may still take it
    v = judge(unclaimed, 31.0, None, "fb", TIMES)
    assert v is not None and v.kind == FailureKind.worker_lost and "a worker that refused it logged why" in v.reason
    assert not hasattr(dispatch, "refuse") and not hasattr(dispatch, "refusals")


def test_lost_worker_verdicts() -> None:
    claimed = dispatch.ClaimState(published=False, claimed=True, beat_age_s=3.0)
    assert judge(dispatch.ClaimState(False, False, None), 31.0, None, "fb", TIMES) is not None
    nobody = judge(dispatch.ClaimState(False, False, None), 31.0, None, "fb", TIMES)
    assert nobody is not None and nobody.kind == FailureKind.worker_lost and "no worker took the job within 30 s" in nobody.reason
    assert judge(claimed, 500.0, 400.0, "fb", TIMES) is None  # beating, within its deadline
    stale = judge(dispatch.ClaimState(False, True, 21.0), 40.0, 30.0, "fb", TIMES)
    assert stale is not None and stale.kind == FailureKind.worker_lost and "stopped beating (last beat 21 s ago)" in stale.reason
    hung = judge(claimed, 700.0, 601.0, "fb", TIMES)
    assert hung is not None and hung.kind == FailureKind.worker_lost and "did not finish within 600 s" in hung.reason
    assert judge(dispatch.ClaimState(True, True, 99.0), 9e9, 9e9, "fb", TIMES) is None  # published: done
    assert FailureKind.worker_lost in resume.INFRASTRUCTURE  # --retries dispatches it again


def test_claim_beats_and_the_first_claim_wins(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    assert dispatch.look(tmp_path, spec.scenario_id, spec.token).claimed is False
    where = dispatch.claim(tmp_path, spec, "box-a:1")
    assert where is not None and where == tmp_path / ".dispatch" / spec.token
    assert dispatch.claim(tmp_path, spec, "box-b:2") is None  # offered twice: the second plays nothing
    old = time.time() - 50
    os.utime(where / "claim.json", (old, old))
    age = dispatch.look(tmp_path, spec.scenario_id, spec.token).beat_age_s
    assert age is not None and 49 <= age <= 60
    dispatch.beat(tmp_path, spec.token)
    age = dispatch.look(tmp_path, spec.scenario_id, spec.token).beat_age_s
    assert age is not None and age < 5


def _stage(out: Path, spec: JobSpec, text: str) -> None:
    staged = dispatch.staging(out, spec.token) / spec.scenario_id
    (staged / "tracks").mkdir(parents=True, exist_ok=True)
    (staged / "tracks" / "model.frames.tsv").write_text(text)
    (staged / "model.wav").write_text(text)
    (staged / "meta.json").write_text(json.dumps({"by": text}))


def test_late_finisher_after_redispatch_never_overwrites(tmp_path: Path) -> None:
    folder = tmp_path / "tiny01-explicit"
    first, second = _spec(tmp_path, token="1" * 16), _spec(tmp_path, token="2" * 16, attempt=2)
    dispatch.open_attempt(folder, first.token, 1)
    _stage(tmp_path, first, "first")
    assert dispatch.revoke(folder, first.token, "lost") is True  # the runner gave it up ...
    dispatch.open_attempt(folder, second.token, 2)  # ... and dispatched again
    _stage(tmp_path, second, "second")
    assert dispatch.publish(tmp_path, second, "box-b:2") is True
    assert dispatch.publish(tmp_path, first, "box-a:1") is False  # the late finisher: nothing moves
    assert json.loads((folder / "meta.json").read_text()) == {"by": "second"}
    assert (folder / "model.wav").read_text() == (folder / "tracks" / "model.frames.tsv").read_text() == "second"
    assert (dispatch.staging(tmp_path, first.token) / first.scenario_id / "model.wav").read_text() == "first"
    assert dispatch.publish(tmp_path, second, "box-b:2") is False  # once only, even for its own token
    state = dispatch.current(folder)
    assert (state["token"], state["state"], state["worker"]) == (second.token, "published", "box-b:2")


def test_publish_that_wins_the_race_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "tiny01-explicit"
    spec = _spec(tmp_path)
    dispatch.open_attempt(folder, spec.token, 1)
    _stage(tmp_path, spec, "done")
    assert dispatch.publish(tmp_path, spec, "box-a:1") is True
    assert dispatch.revoke(folder, spec.token, "deadline") is False  # the runner then keeps the result
    assert dispatch.current(folder)["state"] == "published"


async def test_dispatcher_records_a_lost_worker_and_ignores_its_late_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runner side, no server: the job is claimed, never beats again; the attempt is `worker_lost`."""
    out = tmp_path / "out"
    out.mkdir()
    d = _dispatcher(out, DispatchTimes(offer_s=0.2, accept_s=5.0, heartbeat_timeout_s=0.6, deadline_s=30, poll_s=0.05))
    offers: list[JobSpec] = []

    async def no_room(room: str) -> None:
        return None

    async def offer(room: str, spec: JobSpec) -> None:  # a worker takes it, stages a meta.json and dies
        offers.append(spec)
        dispatch.claim(out, spec, "box-a:1")
        staged = dispatch.staging(out, spec.token) / spec.scenario_id
        staged.mkdir(parents=True)
        (staged / "meta.json").write_text(_in_progress(spec))

    monkeypatch.setattr(d, "_create_room", no_room)
    monkeypatch.setattr(d, "_offer", offer)
    scenario = load_suite(TINY).scenarios[0]
    try:
        meta = await asyncio.wait_for(d.attempt(scenario, 1, {"name": "silent"}), 10)
    finally:
        await d.aclose()
    assert len(offers) == 1  # claimed at once: offered once
    assert (meta.outcome, meta.failure_kind, meta.attempt) == (Outcome.failed, FailureKind.worker_lost, 1)
    assert meta.failure_reason is not None and "stopped beating" in meta.failure_reason
    assert meta.room == "from-the-worker"  # the lost worker's own meta.json is the base
    assert read_meta(out / scenario.scenario_id) == meta
    assert resume.should_retry(meta, 1, 1) and not resume.should_retry(meta, 2, 1)
    assert dispatch.publish(out, offers[0], "box-a:1") is False  # it comes back late: nothing lands


def _in_progress(spec: JobSpec) -> str:
    from floorbench.records import ClockAnchor, RunMeta

    return RunMeta(floorbench_version="0", scenario_id=spec.scenario_id, pair_id="tiny01", condition="explicit",
                   suite="tiny", room="from-the-worker", created_wall_ns=1, anchor=ClockAnchor(monotonic_ns=1, wall_ns=1),
                   ).model_dump_json()


def test_multi_node_config_shares_redis() -> None:
    cfg = server_config(7880, 7881, "k", "s", redis="127.0.0.1:6390")
    assert cfg.startswith("redis:\n  address: 127.0.0.1:6390\nport: 7880\n")
    assert "redis" not in server_config(7880, 7881, "k", "s")


def test_play_on_option_names_the_agent(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from floorbench.pipelines.commands import parse_play_on

    assert (parse_play_on("local"), parse_play_on("workers"), parse_play_on("workers:gpu-boxes")) == (
        None, "floorbench", "gpu-boxes")
    for bad in ("queue", "workers:", "workers-x", "dispatch", "local:x"):
        with pytest.raises(typer.Exit):
            parse_play_on(bad)
    # the old spelling still works, with a note; it cannot be mixed with the new one
    assert parse_play_on("local", "dispatch:gpu-boxes") == "gpu-boxes"
    assert "now --play-on workers:gpu-boxes" in capsys.readouterr().err
    for old, new in (("dispatch:", "local"), ("queue", "local"), ("dispatch", "workers")):
        with pytest.raises(typer.Exit):
            parse_play_on(new, old)


async def test_dispatch_run_needs_the_workers_server(tmp_path: Path) -> None:
    from floorbench.pipelines.run.runner import RunOptions, run_suite

    with pytest.raises(ValueError, match="--play-on workers needs the LiveKit server the workers use"):
        await run_suite(RunOptions(suite=TINY, model="silent", out=tmp_path / "out", workers="floorbench"))
    assert not (tmp_path / "out").exists()  # refused before any folder or server


def test_an_attempt_a_killed_runner_left_in_flight_is_revoked_and_put_on_record(tmp_path: Path) -> None:
    """The runner was SIGKILLed while a worker played its attempt: the next runner revokes the token (the
    worker's late result stays in its staging folder), records the attempt as interrupted, then archives it."""
    scenario = load_suite(TINY).scenarios[0]
    folder = tmp_path / scenario.scenario_id
    spec = _spec(tmp_path, token="3" * 16, attempt=1)
    dispatch.open_attempt(folder, spec.token, 1)
    staged = dispatch.staging(tmp_path, spec.token) / spec.scenario_id
    staged.mkdir(parents=True)
    (staged / "meta.json").write_text(_in_progress(spec))
    assert dispatch.take_over(tmp_path, scenario, "tiny", {"name": "silent"}) is None
    meta = read_meta(folder)
    assert meta is not None and (meta.outcome, meta.failure_kind, meta.attempt) == (
        Outcome.failed, FailureKind.interrupted, 1)
    assert meta.room == "from-the-worker"
    assert dispatch.current(folder)["state"] == "revoked"
    _stage(tmp_path, spec, "late")
    assert dispatch.publish(tmp_path, spec, "box-a:1") is False  # the late finisher lands nothing
    assert resume.archive_attempt(folder) == 2
    assert dispatch.take_over(tmp_path, scenario, "tiny", {"name": "silent"}) is None  # nothing in flight now


def test_a_result_published_after_the_runner_died_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_suite(TINY).scenarios[0]
    folder = tmp_path / scenario.scenario_id
    spec = _spec(tmp_path, token="4" * 16)
    dispatch.open_attempt(folder, spec.token, 1)
    staged = dispatch.staging(tmp_path, spec.token) / spec.scenario_id
    staged.mkdir(parents=True)
    (staged / "meta.json").write_text(_in_progress(spec))
    assert dispatch.publish(tmp_path, spec, "box-a:1") is True
    monkeypatch.setattr(resume, "why_not_intact", lambda folder: None)  # as if its records were complete
    kept = dispatch.take_over(tmp_path, scenario, "tiny", {"name": "silent"})
    assert kept is not None and kept.room == "from-the-worker"
    assert dispatch.current(folder)["state"] == "published"


def test_a_worker_killed_mid_publish_leaves_files_the_next_attempt_archives(tmp_path: Path) -> None:
    """Part of a staged attempt moved into OUT/<id>/ (meta.json, moved last, not): the runner gives the attempt
    up (worker_lost, stand-in meta.json) and the retry's archive keeps the half-published files as that attempt's."""
    folder = tmp_path / "tiny01-explicit"
    spec = _spec(tmp_path, token="5" * 16)
    dispatch.open_attempt(folder, spec.token, 1)
    _stage(tmp_path, spec, "half")
    staged = dispatch.staging(tmp_path, spec.token) / spec.scenario_id
    os.replace(staged / "model.wav", folder / "model.wav")  # the kill came after the first move
    scenario = load_suite(TINY).scenarios[0]
    assert dispatch.revoke(folder, spec.token, "stopped beating") is True
    meta = dispatch.stand_in_meta(scenario, "tiny", "r", {"name": "silent"}, 1, FailureKind.worker_lost, "lost")
    from floorbench.records import write_json_atomic

    write_json_atomic(folder / "meta.json", meta)
    assert resume.archive_attempt(folder) == 2
    assert sorted(p.name for p in folder.iterdir()) == [".dispatch.lock", "attempt-1", "dispatch.json",
                                                      "meta.attempt-1.json"]
    assert (folder / "attempt-1" / "model.wav").read_text() == "half"
