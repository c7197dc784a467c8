"""Resume and retry on synthetic run folders: what is kept, what runs again, what is refused."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from floorbench.pipelines.run import resume
from floorbench.pipelines.run.run_book import RunBook, counts_of
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.pipelines.run.timing_verdict import timing_verdict, unmeasured
from floorbench.records import (
    ClockAnchor,
    DialogueTurn,
    DialogueTurns,
    FailureKind,
    Outcome,
    RunMeta,
    TimingFigures,
    read_meta,
    write_json_atomic,
)
from floorbench.scenarios.validate import load_suite
from floorbench.scoring.inputs import discover
from floorbench.suites.mpe.score import run_selection

TINY = Path(__file__).resolve().parent / "fixtures" / "suites" / "tiny"


def meta(sid: str, outcome: Outcome, kind: FailureKind | None = None, degraded: bool = False) -> RunMeta:
    m = RunMeta(
        floorbench_version="0", scenario_id=sid, pair_id="p", condition="explicit", suite="tiny", room="r",
        created_wall_ns=0, anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), outcome=outcome, failure_kind=kind,
    )
    if outcome == Outcome.completed:
        m.timing = unmeasured("synthetic") if degraded else timing_verdict(
            TimingFigures(onset_error_p99_us=200, underruns=0, turns_measured=1, transport_latency_p95_ms=50)
        )
    return m


def folder(
    out: Path, sid: str, outcome: Outcome = Outcome.completed, skip: str = "",
    kind: FailureKind | None = None, degraded: bool = False,
) -> Path:
    """A scenario folder as a run leaves it; `skip` names a file to leave out ('' = all there)."""
    d = out / sid
    d.mkdir(parents=True)
    write_json_atomic(d / "meta.json", meta(sid, outcome, kind, degraded))
    turns = DialogueTurns(
        scenario_id=sid, pair_id="p", condition="explicit",
        turns=[DialogueTurn(turn_id=1, speaker="A", label="T", start_ms=0, end_ms=500, gold="x")],
    )
    write_json_atomic(d / "turns.json", turns)
    for name in resume.RECORDINGS:
        sf.write(str(d / name), np.zeros(1600, dtype=np.int16), 16000)
    if skip:
        (d / skip).unlink()
    return d


def test_plan_keeps_intact_completed_and_runs_everything_else(tmp_path: Path) -> None:
    folder(tmp_path, "a")
    folder(tmp_path, "b", Outcome.in_progress)
    folder(tmp_path, "c", Outcome.failed, kind=FailureKind.model_crashed)
    folder(tmp_path, "d", skip="model.wav")
    folder(tmp_path, "e", skip="turns.json")
    folder(tmp_path, "f", skip="humans.wav")
    (folder(tmp_path, "g") / "model.wav").write_bytes(b"RIFF torn")
    (folder(tmp_path, "h") / "meta.json").write_text('{"scenario_id": "h", "outco')  # torn by a kill
    folder(tmp_path, "i", Outcome.failed, kind=FailureKind.interrupted)
    p = resume.plan(tmp_path, list("abcdefghij"))
    assert p.keep == ["a"]
    assert p.run == {
        "b": "outcome in_progress",
        "c": "outcome failed",
        "d": "no readable model.wav",
        "e": "no readable turns.json",
        "f": "no readable humans.wav",
        "g": "no readable model.wav",
        "h": "no readable meta.json",
        "i": "outcome failed",
        "j": "new",
    }


def test_an_empty_recording_is_not_intact(tmp_path: Path) -> None:
    d = folder(tmp_path, "a")
    sf.write(str(d / "humans.wav"), np.zeros(0, dtype=np.int16), 16000)
    assert resume.why_not_intact(d) == "humans.wav is empty"


def test_archive_keeps_every_attempt_under_its_number(tmp_path: Path) -> None:
    d = tmp_path / "s"
    d.mkdir()
    assert resume.archive_attempt(d) == 1  # never started: nothing to keep
    for n in (1, 2):
        write_json_atomic(d / "meta.json", meta("s", Outcome.failed, FailureKind.server_died))
        (d / "timeline.jsonl").write_text(f"attempt {n}\n")
        assert resume.archive_attempt(d) == n + 1
        assert not (d / "meta.json").exists()
        assert (d / f"timeline.attempt-{n}.jsonl").read_text() == f"attempt {n}\n"
    assert sorted(p.name for p in d.glob("meta.attempt-*.json")) == ["meta.attempt-1.json", "meta.attempt-2.json"]


@pytest.mark.parametrize(
    ("kind", "retried"),
    [
        (FailureKind.server_died, True),
        (FailureKind.model_never_joined, True),
        (FailureKind.model_crashed, False),
        (FailureKind.model_left, False),
        (FailureKind.timeout, False),
        (FailureKind.bad_input, False),
        (FailureKind.internal, False),
        (FailureKind.interrupted, False),
    ],
)
def test_only_infrastructure_failures_are_retried(kind: FailureKind, retried: bool) -> None:
    m = meta("s", Outcome.failed, kind)
    assert resume.should_retry(m, tries_here=1, retries=2) is retried
    assert resume.should_retry(m, tries_here=3, retries=2) is False  # retries spent
    assert resume.should_retry(m, tries_here=1, retries=0) is False
    assert resume.should_retry(meta("s", Outcome.completed), tries_here=1, retries=2) is False


def identity() -> resume.RunIdentity:
    return resume.RunIdentity("tiny", resume.suite_hash(load_suite(TINY)), {"name": "silent", "x": 1})


def test_suite_hash_changes_with_any_scenario_file(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "tiny"
    shutil.copytree(TINY, copy)
    before = resume.suite_hash(load_suite(copy))
    assert before == resume.suite_hash(load_suite(TINY))  # names relative to the suite, not where it lies
    f = copy / "scenarios" / "tiny01-explicit.yaml"
    f.write_text(f.read_text() + "\n# edited\n")
    assert resume.suite_hash(load_suite(copy)) != before


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"suite": "mpe"}, "holds suite 'mpe', not 'tiny'"),
        ({"suite_hash": "0" * 64}, "suite 'tiny' has changed since this folder was run"),
        ({"model": {"name": "oracle"}}, "holds results of model 'oracle' with another model card than 'silent'"),
        ({"model": {"name": "silent", "x": 2}}, "holds results of model 'silent' with another model card"),
    ],
)
def test_a_folder_of_another_suite_or_model_is_refused(tmp_path: Path, change: dict[str, object], words: str) -> None:
    ident = identity()
    info = {"suite": ident.suite, "suite_hash": ident.suite_hash, "model": ident.model} | change
    with pytest.raises(resume.ResumeMismatch, match=words) as e:
        ident.check(info, tmp_path / "run.json")
    assert len(str(e.value).splitlines()) == 1
    ident.check({"suite": ident.suite, "suite_hash": ident.suite_hash, "model": {"x": 1, "name": "silent"}}, tmp_path)


def test_run_refuses_a_folder_of_another_model_before_any_room(tmp_path: Path) -> None:
    ident = identity()
    (tmp_path / "run.json").write_text(
        json.dumps({"suite": "tiny", "suite_hash": ident.suite_hash, "model": {"name": "oracle"}, "scenarios": []})
    )
    opts = RunOptions(suite=TINY, model="silent", out=tmp_path, progress=False)
    with pytest.raises(resume.ResumeMismatch, match=r"run\.json: holds results of model 'oracle'"):
        asyncio.run(run_suite(opts))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]  # no server, no folder


def test_kept_folders_of_another_model_are_refused_without_run_json(tmp_path: Path) -> None:
    folder(tmp_path, "a")  # meta.json: suite 'tiny', model card {}
    ident = identity()
    with pytest.raises(resume.ResumeMismatch, match=r"a/meta\.json: holds results of suite 'tiny', model None"):
        ident.check_kept(tmp_path, ["a"])
    resume.RunIdentity("tiny", ident.suite_hash, {}).check_kept(tmp_path, ["a"])
    with pytest.raises(resume.ResumeMismatch, match="suite 'tiny'"):
        resume.RunIdentity("mpe", ident.suite_hash, {}).check_kept(tmp_path, ["a"])


def test_run_refuses_a_broken_run_json(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{torn")
    with pytest.raises(resume.ResumeMismatch, match=r"run\.json: unreadable"):
        asyncio.run(run_suite(RunOptions(suite=TINY, model="silent", out=tmp_path, progress=False)))


def test_run_json_lists_never_started_scenarios_as_not_run(tmp_path: Path) -> None:
    folder(tmp_path, "a")
    info = {"run_id": "r1", "suite": "tiny", "scenarios": []}
    book = RunBook(tmp_path, info, ["a", "b", "c"], None)
    book.plan(["a", "b", "c"], kept=["a"])
    book.record(meta("b", Outcome.failed, FailureKind.interrupted))
    book.write(ended=True, interrupted=True)
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert [(e["scenario_id"], e["outcome"], e["timing"]) for e in run_json["scenarios"]] == [
        ("a", "completed", "ok"), ("b", "failed", None), ("c", "not_run", None),
    ]
    assert run_json["counts"] == {
        "completed": 1, "failed": 1, "not_run": 1, "in_progress": 0, "timing_ok": 1, "timing_degraded": 0,
    }
    assert run_json["sessions"][0]["kept"] == 1 and run_json["sessions"][0]["interrupted"] is True
    # a second invocation keeps the first's entries and appends a session
    book2 = RunBook(tmp_path, {"run_id": "r2", "suite": "tiny"}, ["a", "b", "c"], run_json)
    book2.record(meta("c", Outcome.completed, degraded=True))
    again = json.loads((tmp_path / "run.json").read_text())
    assert [s["run_id"] for s in again["sessions"]] == ["r1", "r2"]
    assert again["run_id"] == "r1"
    assert again["counts"]["timing_degraded"] == 1 and again["counts"]["not_run"] == 0


def test_counts_ignore_the_timing_of_failed_scenarios() -> None:
    entries = [{"outcome": "failed", "timing": "ok"}, {"outcome": "completed", "timing": "degraded"}]
    assert counts_of(entries)["timing_ok"] == 0 and counts_of(entries)["timing_degraded"] == 1


def test_score_counts_not_run_and_leaves_degraded_out_on_request(tmp_path: Path) -> None:
    folder(tmp_path, "a")
    folder(tmp_path, "b", degraded=True)
    folder(tmp_path, "c", Outcome.failed, kind=FailureKind.interrupted)
    entries = [{"scenario_id": s, "outcome": o} for s, o in
               [("a", "completed"), ("b", "completed"), ("c", "failed"), ("d", "not_run"), ("e", "not_run")]]
    (tmp_path / "run.json").write_text(json.dumps({"model": {"name": "silent"}, "scenarios": entries}))
    disc = discover(tmp_path)
    sources, counts = run_selection(disc, exclude_degraded=False)
    assert [s.folder.name for s in sources] == ["a", "b"]
    assert counts == {"not_run": 2, "timing_ok": 1, "timing_degraded": 1, "excluded_degraded": 0,
                      "clock_recorder": 2, "clock_timing": 0}  # no sender records here: the recorder's clock
    sources, counts = run_selection(disc, exclude_degraded=True)
    assert [s.folder.name for s in sources] == ["a"]
    assert counts["excluded_degraded"] == 1


def _fingerprint(d: Path) -> dict[str, tuple[int, str]]:
    """Every file of a scenario folder: (mtime ns, SHA-256)."""
    import hashlib

    return {
        str(p.relative_to(d)): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(d.rglob("*")) if p.is_file()
    }


def _outcome(d: Path) -> str | None:
    m = read_meta(d)
    return m.outcome.value if m else None


@pytest.mark.live
@pytest.mark.slow
def test_a_run_stopped_by_sigterm_resumes_exactly_the_missing_scenarios(tmp_path: Path, livekit: object) -> None:
    """`run --limit 3` stopped by SIGTERM in its second scenario, then `run --concurrency 3` on the same
    --out: the first scenario is kept untouched, the other three run, all end completed."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from floorbench.transports.server import LiveKitConnection

    assert isinstance(livekit, LiveKitConnection)
    out = tmp_path / "run"
    ids = [s.scenario_id for s in load_suite(TINY).scenarios]
    env = os.environ | {"LIVEKIT_API_KEY": livekit.api_key, "LIVEKIT_API_SECRET": livekit.api_secret}
    cmd = [sys.executable, "-m", "floorbench.cli", "run", "--suite", str(TINY), "--model", "silent",
           "--out", str(out), "--livekit-url", livekit.url, "--quiet"]
    proc = subprocess.Popen([*cmd, "--limit", "3"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not (_outcome(out / ids[0]) == "completed" and _outcome(out / ids[1]) == "in_progress"):
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be stopped"
            time.sleep(0.2)
        time.sleep(2.0)  # well inside the second scenario
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2
    said = f"error: stopped by SIGTERM: 1 completed, 2 not run, kept in {out}; run the same command again to resume"
    lines = err.strip().splitlines()
    assert lines.count(said) == 1, err[-2000:]
    # the run's last word; only the LiveKit SDK's native logger may still print as the process exits
    after = lines[lines.index(said) + 1:]
    assert all("livekit" in line for line in after), after
    first = json.loads((out / "run.json").read_text())
    assert [(e["scenario_id"], e["outcome"], e["failure_kind"]) for e in first["scenarios"]] == [
        (ids[0], "completed", None), (ids[1], "failed", "interrupted"), (ids[2], "not_run", None),
        (ids[3], "not_run", None),
    ]
    assert not (out / ids[2]).exists()
    kept = _fingerprint(out / ids[0])

    # resumed three rooms at once: what is missing is planned the same at any concurrency
    again = subprocess.run([*cmd, "--concurrency", "3"], env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert _fingerprint(out / ids[0]) == kept
    run_json = json.loads((out / "run.json").read_text())
    assert [(e["scenario_id"], e["outcome"], e["attempts"]) for e in run_json["scenarios"]] == [
        (ids[0], "completed", 1), (ids[1], "completed", 2), (ids[2], "completed", 1), (ids[3], "completed", 1),
    ]
    assert [s.get("kept") for s in run_json["sessions"]] == [0, 1]
    assert run_json["counts"]["completed"] == 4 and run_json["counts"]["not_run"] == 0
    interrupted = RunMeta.model_validate_json((out / ids[1] / "meta.attempt-1.json").read_text())
    assert (interrupted.outcome, interrupted.failure_kind) == (Outcome.failed, FailureKind.interrupted)
    assert all((out / s / "turns.json").is_file() for s in ids)
    # every completed scenario judged its own timing (ok or degraded, as the machine allowed)
    verdicts = [e["timing"] for e in run_json["scenarios"]]
    assert all(v in ("ok", "degraded") for v in verdicts), verdicts
    assert run_json["counts"]["timing_ok"] + run_json["counts"]["timing_degraded"] == 4
    metas = [read_meta(out / s) for s in ids]
    print("timing:", [m.timing.model_dump() if m and m.timing else None for m in metas])


DELAY100 = {"profile": "delay100", "delay_ms": 100, "jitter_ms": 0, "loss_pct": 0.0, "legs": ["in", "out"], "seed": 0}


def test_a_folder_run_under_another_network_impairment_is_refused(tmp_path: Path) -> None:
    plain = identity()
    impaired = resume.RunIdentity(plain.suite, plain.suite_hash, plain.model, DELAY100)
    info = {"suite": plain.suite, "suite_hash": plain.suite_hash, "model": plain.model}
    with pytest.raises(resume.ResumeMismatch, match=r"run\.json: was run with network impairment none, not 'delay100'"):
        impaired.check(info, tmp_path / "run.json")
    with pytest.raises(resume.ResumeMismatch, match=r"was run with network impairment 'delay100', not none"):
        plain.check(info | {"network": DELAY100}, tmp_path / "run.json")
    # how this machine applied it (netem or not) is not part of what makes two runs the same
    impaired.check(info | {"network": DELAY100 | {"method": "processor stage", "netem_available": False}}, tmp_path)
    plain.check(info | {"network": None}, tmp_path / "run.json")


def test_kept_folders_run_under_another_impairment_are_refused(tmp_path: Path) -> None:
    folder(tmp_path, "a")  # meta.json without a network impairment
    base = resume.RunIdentity("tiny", identity().suite_hash, {})
    base.check_kept(tmp_path, ["a"])
    with pytest.raises(resume.ResumeMismatch, match=r"a/meta\.json: was run with network impairment none, not 'delay100'"):
        resume.RunIdentity("tiny", base.suite_hash, {}, DELAY100).check_kept(tmp_path, ["a"])


@pytest.mark.live
@pytest.mark.slow
def test_a_runner_killed_mid_scenario_resumes_from_empty_files_and_keeps_the_dead_attempt(
    tmp_path: Path, livekit: object
) -> None:
    """SIGKILL (the OOM killer, a reboot) leaves part files and frame logs mid-scenario; `run` again on the same
    --out keeps them, recovered, as attempt 1's (attempt-1/), and records attempt 2 from empty files: its WAVs,
    frame logs and turns agree with its meta.json (before, the new audio was glued after the dead attempt's)."""
    import os
    import subprocess
    import sys
    import time

    from floorbench.audio.consistency import frames_log, recording_disagreement
    from floorbench.transports.server import LiveKitConnection

    assert isinstance(livekit, LiveKitConnection)
    out = tmp_path / "run"
    sid = load_suite(TINY).scenarios[0].scenario_id
    env = os.environ | {"LIVEKIT_API_KEY": livekit.api_key, "LIVEKIT_API_SECRET": livekit.api_secret}
    cmd = [sys.executable, "-m", "floorbench.cli", "run", "--suite", str(TINY), "--model", "silent",
           "--out", str(out), "--livekit-url", livekit.url, "--quiet", "--limit", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    part = out / sid / "model.part.pcm"
    try:
        deadline = time.monotonic() + 300
        while not (part.exists() and part.stat().st_size >= 3 * 16000 * 2):  # 3 s of the model's track
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be killed"
            time.sleep(0.1)
        proc.kill()  # SIGKILL: nothing is finalised
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _outcome(out / sid) == "in_progress" and part.exists()
    dead_bytes = part.stat().st_size

    # resumed three rooms at once: what is missing is planned the same at any concurrency
    again = subprocess.run([*cmd, "--concurrency", "3"], env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    folder = out / sid
    meta = read_meta(folder)
    assert meta is not None and (meta.outcome, meta.attempt) == (Outcome.completed, 2)
    # the new attempt's files agree with its meta.json, sample for sample
    turns = DialogueTurns.model_validate_json((folder / "turns.json").read_text())
    for name, info in meta.tracks.items():
        assert sf.info(str(folder / info.file)).frames == info.samples, name
        got = frames_log(folder / "tracks" / f"{name}.frames.tsv")
        assert not isinstance(got, str), got
        counts, _ = got
        assert (np.diff(counts) > 0).all() and int(counts[-1]) == info.samples, name
    assert recording_disagreement(folder, meta, turns) is None
    assert all(0 <= t.start_ms and t.end_ms <= turns.model_wav_end_ms for t in turns.turns)  # type: ignore[operator]
    assert not list(folder.glob("*.part.*"))
    # the killed attempt is kept as attempt 1's: its meta, its timeline, its recovered audio
    dead = RunMeta.model_validate_json((folder / "meta.attempt-1.json").read_text())
    assert dead.outcome == Outcome.in_progress
    assert (folder / "timeline.attempt-1.jsonl").is_file()
    kept = folder / "attempt-1"
    assert sf.info(str(kept / "model.wav")).frames >= dead_bytes // 2
    assert (kept / "tracks" / "model.frames.tsv").is_file() and not list(kept.glob("*.part.pcm"))
    assert [d.folder.name for d in discover(out).scorable] == [sid]
