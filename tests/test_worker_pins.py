"""`floorbench worker` runs only what its command line allows (pipelines/worker.py `Pins`).

Anyone who can create an agent dispatch on the LiveKit project writes a job's
metadata. A job whose token is no attempt token (``../``), whose run folder is
outside ``--out-root``, or whose model config is not the worker's own (another
``url`` for the key, ``api_key_env`` naming another variable, ``class:``
choosing a module to import), or whose settings ask for what the worker does
not allow (a persona URL or key variable in the schedule options, a room
limit out of bounds, a setting it does not know) is refused: the reason is
logged, and nothing is written for the job anywhere.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.dispatch.protocol import DispatchError, JobSpec
from floorbench.pipelines.dispatch.worker import Pins, Shelf, record_refusal, vet
from floorbench.pipelines.run import resume
from floorbench.scenarios.validate import load_suite

TINY = Path(__file__).resolve().parent / "fixtures" / "suites" / "tiny"
CONFIG = {"url": "ws://127.0.0.1:8765/", "api_key_env": "MY_SERVER_KEY"}


def _job(out: Path, **kw: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "suite": "tiny", "suite_hash": resume.suite_hash(load_suite(TINY)), "scenario_id": "tiny01-explicit",
        "model": "websocket", "config": CONFIG, "out": str(out), "run_id": "r1", "token": "0123456789abcdef",
    }
    fields.update(kw)
    return fields


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "runs"
    (r / "full").mkdir(parents=True)
    return r


def _pins(root: Path) -> Pins:
    return Pins.of(root, "websocket", CONFIG, None)


def test_a_job_asking_for_nothing_else_is_taken_and_played_with_the_workers_own_config(root: Path) -> None:
    pins, shelf = _pins(root), Shelf.load([TINY])
    spec, why = vet(json.dumps(_job(root / "full")), shelf, pins)
    assert why is None and spec is not None
    assert pins.model_and_config(spec) == ("websocket", CONFIG)
    assert pins.run_folder(spec.out) == (root / "full").resolve()


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"token": "../../outside"}, "attempt token is not 16 hexadecimal digits"),
        ({"token": "0123456789ABCDEF/.."}, "attempt token is not 16 hexadecimal digits"),
        ({"config": {**CONFIG, "url": "wss://attacker.example/"}}, "the job's model and config hash to"),
        ({"config": {**CONFIG, "api_key_env": "AWS_SECRET_ACCESS_KEY"}}, "the job's model and config hash to"),
        ({"config": {**CONFIG, "class": "os:system"}}, "the job's model and config hash to"),
        ({"model": "cascade"}, "the job's model and config hash to"),
        ({"suite_hash": "f" * 64}, "has manifest hash"),
        ({"settings": {"schedule": {"persona_url": "http://127.0.0.1:9/v1"}}}, "'persona_url' is not a job's to set"),
        ({"settings": {"schedule": {"persona_key_env": "LIVEKIT_API_SECRET"}}}, "'persona_key_env' is not a job's"),
        ({"settings": {"schedule": {"rules": {"llm": {"api_key_env": "X"}}}}}, "'api_key_env' is not a job's to set"),
        ({"settings": {"schedule": {"tail_ms": 100, "where": "https://evil.example/x"}}}, "schedule holds a URL"),
        ({"settings": {"timeout_s": 1e9}}, "timeout_s=1000000000.0; a worker takes 1 to 3600"),
        ({"settings": {"model_join_timeout_s": -1}}, "model_join_timeout_s=-1; a worker takes 1 to 3600"),
        ({"settings": {"record_rate": 8000}}, "record_rate=8000; a worker takes 16000, 24000, 48000"),
        ({"settings": {"impair": {"delay": 1}}}, "'impair' is no setting a worker takes from a job"),
    ],
)
def test_a_job_asking_for_anything_else_is_refused_logged_and_never_written(
    root: Path, change: dict[str, object], said: str, caplog: pytest.LogCaptureFixture
) -> None:
    pins, shelf = _pins(root), Shelf.load([TINY])
    metadata = json.dumps(_job(root / "full", **change))
    before = sorted(root.rglob("*"))
    spec, why = vet(metadata, shelf, pins)
    assert why is not None and said in why, why
    with caplog.at_level(logging.WARNING):
        record_refusal(spec, "box-a:1", why)
    assert said in caplog.text
    assert sorted(root.rglob("*")) == before  # not even the refusal: the folder is the job's word


def test_the_worker_plays_with_its_own_persona_binding_never_the_jobs(root: Path) -> None:
    bound = {"persona_url": "http://127.0.0.1:8088/v1", "persona_key_env": "WORKER_PERSONA_KEY"}
    pins = Pins.of(root, "websocket", CONFIG, None, bound, max_room_s=120)
    spec = JobSpec.model_validate(_job(root / "full", settings={"schedule": {"tail_ms": 500}, "timeout_s": 60.0}))
    assert pins.why_not(spec) is None
    assert pins.settings(spec).schedule == {"tail_ms": 500, **bound} and pins.settings(spec).timeout_s == 60.0
    too_long = JobSpec.model_validate(_job(root / "full", settings={"timeout_s": 600.0}))
    assert "timeout_s=600.0; a worker takes 1 to 120" in (pins.why_not(too_long) or "")
    from floorbench.pipelines.run.scenario_run import ScenarioSettings

    sent = dispatch.settings_record(ScenarioSettings(schedule={"persona_url": "http://x/v1", "tail_ms": 1}))
    assert sent["schedule"] == {"tail_ms": 1}  # a runner never sends its own binding in a job


@pytest.mark.parametrize("where", ["elsewhere", "link", "relative", "missing"])
def test_a_run_folder_outside_the_out_root_is_refused_and_never_written(
    root: Path, tmp_path: Path, where: str, caplog: pytest.LogCaptureFixture
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "link").symlink_to(elsewhere)  # inside by name, outside in fact
    out = {"elsewhere": str(elsewhere), "link": str(root / "link"), "relative": "runs/full",
           "missing": str(root / "nope")}[where]
    pins, shelf = _pins(root), Shelf.load([TINY])
    metadata = json.dumps(_job(Path(out)) | {"out": out})
    spec, why = vet(metadata, shelf, pins)
    assert why is not None and "is not a writable folder inside this worker's --out-root" in why
    with caplog.at_level(logging.WARNING):
        record_refusal(spec, "box-a:1", why)
    assert "refused" in caplog.text
    assert list(elsewhere.iterdir()) == []  # not even the refusal lands outside the root


def test_staging_never_joins_a_token_that_is_no_token(tmp_path: Path) -> None:
    assert dispatch.staging(tmp_path, "0123456789abcdef") == tmp_path / ".dispatch" / "0123456789abcdef"
    for bad in ("../x", "/etc", "0123456789abcdeg", "0123456789abcdef0", ""):
        with pytest.raises(DispatchError):
            dispatch.staging(tmp_path, bad)
    assert dispatch.is_token(dispatch.new_token())


def test_unreadable_metadata_is_refused_and_only_logged(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    pins, shelf = _pins(root), Shelf.load([TINY])
    metadata = json.dumps({"out": str(root / "full"), "token": "x"})
    spec, why = vet(metadata, shelf, pins)
    assert spec is None and why is not None and "not a floorbench job" in why
    with caplog.at_level(logging.WARNING):
        record_refusal(spec, "box-a:1", why)
    assert "not a floorbench job" in caplog.text and list((root / "full").iterdir()) == []


def test_the_pins_come_from_the_same_options_as_the_run(root: Path, tmp_path: Path) -> None:
    from floorbench.pipelines.commands import system_under_test

    cfg = tmp_path / "model.yaml"
    cfg.write_text(yaml.safe_dump({"adapter": "websocket", **CONFIG}))
    name, run_cfg = system_under_test(None, cfg, None, None)
    pins = Pins.from_command_line(root, None, cfg, None)
    assert pins.config_hash == dispatch.model_config_hash(name, run_cfg) and pins.model == "websocket"
    assert Pins.from_command_line(root, None, None, pins.config_hash.upper()).config_hash == pins.config_hash
    by_hash = Pins.of(root, None, None, pins.config_hash)
    spec = JobSpec.model_validate(_job(root / "full"))
    assert by_hash.why_not(spec) is None and by_hash.model_and_config(spec) == ("websocket", CONFIG)
    with pytest.raises(DispatchError, match="needs the model it may run"):
        Pins.from_command_line(root, None, None, None)
    with pytest.raises(DispatchError, match="is not the hash of --model/--config"):
        Pins.from_command_line(root, None, cfg, "0" * 64)
    with pytest.raises(DispatchError, match="--out-root"):
        Pins.from_command_line(root / "nope", "silent", None, None)


def test_the_worker_command_needs_its_out_root_and_its_model(root: Path) -> None:
    res = CliRunner().invoke(app, ["worker", "--suite", str(TINY), "--out-root", str(root)])
    assert res.exit_code == 2 and "needs the model it may run" in res.output, res.output
    res = CliRunner().invoke(app, ["worker", "--suite", str(TINY), "--model", "silent"])
    assert res.exit_code == 2 and "--out-root" in res.output, res.output


def test_the_workers_own_binding_and_room_limit_are_checked_before_it_connects(root: Path) -> None:
    base = ["worker", "--suite", str(TINY), "--out-root", str(root), "--model", "silent",
            "--livekit-url", "ws://127.0.0.1:9"]
    res = CliRunner().invoke(app, [*base, "--persona-key-env", "AWS_SECRET_ACCESS_KEY"])
    assert res.exit_code == 2 and "--persona-key-env needs --persona-url" in res.output, res.output
    res = CliRunner().invoke(app, [*base, "--persona-url", "gopher://127.0.0.1/v1"])
    assert res.exit_code == 2 and "give an http(s) URL" in res.output, res.output
    res = CliRunner().invoke(app, [*base, "--max-room-s", "0"])
    assert res.exit_code == 2 and "--max-room-s" in res.output, res.output
