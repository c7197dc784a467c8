"""Unit tests of the spine's single components (no room): clock fit, files, alignment,
server management, the model registry and secret redaction."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from floorbench.audio.alignment import align_turns, drift_ms_per_100s
from floorbench.audio.files import PcmAppender, recover_parts
from floorbench.clock import fit_track
from floorbench.processors.registry import (
    BUILTIN_MODELS,
    ModelContext,
    ModelError,
    create_model,
    model_class,
    redact,
)
from floorbench.records import TimelineEvent, TimelineWriter, read_timeline
from floorbench.suites.mpe.rules import MpeRules
from floorbench.suites.mpe.schedule import MpeScheduleConfig
from floorbench.transports.server import LiveKitServer, ServerError, server_config


def test_fit_recovers_track_start_despite_late_arrivals() -> None:
    rng = np.random.default_rng(0)
    sr, frame, start_ns = 16000, 160, 5_000_000_000
    ends = np.arange(1, 3001) * frame
    lateness = rng.exponential(2_000_000, len(ends)).astype(np.int64)  # ms-scale loop jitter
    lateness[rng.choice(len(ends), 20)] += 80_000_000  # a few stalls
    arrivals = start_ns + ends * 1_000_000_000 // sr + lateness
    fit = fit_track(ends, arrivals, sr)
    assert abs(fit.start_ns - start_ns) < 500_000  # within 0.5 ms
    assert fit.time_ms(sr * 10) == (start_ns + 10_000_000_000 + (fit.start_ns - start_ns)) // 1_000_000


def test_pcm_appender_is_atomic_and_recoverable(tmp_path: Path) -> None:
    a = PcmAppender(tmp_path / "x.wav", 16000)
    a.write(np.arange(1600, dtype=np.int16))
    a.write_silence(400)
    assert not (tmp_path / "x.wav").exists()  # nothing half-written under the final name
    a.finalize()
    data, sr = sf.read(str(tmp_path / "x.wav"), dtype="int16")
    assert sr == 16000 and len(data) == 2000 and data[5] == 5
    assert not (tmp_path / "x.part.pcm").exists()
    # a crash leaves the part file; recovery turns it into a WAV
    b = PcmAppender(tmp_path / "y.wav", 16000)
    b.write(np.ones(800, dtype=np.int16))
    b._f.flush()
    recover_parts(tmp_path, 16000)
    assert len(sf.read(str(tmp_path / "y.wav"), dtype="int16")[0]) == 800


def test_timeline_skips_a_torn_last_line(tmp_path: Path) -> None:
    w = TimelineWriter(tmp_path / "timeline.jsonl")
    w.write(TimelineEvent(t_ms=1, kind="turn_start", source="playback", turn_id=1, sample=16))  # type: ignore[arg-type]
    w.close()
    with (tmp_path / "timeline.jsonl").open("a") as f:
        f.write('{"t_ms": 2, "kind": "turn_e')
    events = read_timeline(tmp_path / "timeline.jsonl")
    assert len(events) == 1 and events[0].sample == 16


def test_alignment_finds_known_lags_and_drift() -> None:
    rng = np.random.default_rng(1)
    sr = 16000
    sent = np.zeros(sr * 30, dtype=np.int16)
    starts = [sr * 2, sr * 12, sr * 22]
    for s in starts:
        sent[s : s + sr] = (rng.standard_normal(sr) * 3000).astype(np.int16)
    true_lags = [800, 810, 820]  # 50 ms, growing by 10 samples per 10 s
    rec = np.zeros(sr * 31, dtype=np.int16)
    for s, lag in zip(starts, true_lags, strict=True):
        rec[s + lag : s + lag + sr] = sent[s : s + sr]
    found = align_turns(sent, rec, [(i, s, 0) for i, s in enumerate(starts)], sr)
    assert [f.lag for f in found] == true_lags
    assert all(f.score > 0.99 for f in found)
    drift = drift_ms_per_100s(
        [s * 1_000_000_000 // sr for s in starts], [lag * 1_000_000_000 // sr for lag in true_lags]
    )
    assert drift == pytest.approx(6.25, abs=0.01)  # 10 samples (0.625 ms) per 10 s


def test_schedule_gap_range_is_enforced() -> None:
    MpeScheduleConfig(MpeRules(turn_gap_ms=400))
    with pytest.raises(ValueError, match="400–500"):
        MpeScheduleConfig(MpeRules(turn_gap_ms=300))
    with pytest.raises(ValueError, match="400–500"):
        MpeRules(turn_gap_ms=501)


def test_server_config_is_loopback_only() -> None:
    cfg = server_config(7880, 7882, "k", "s" * 32)
    assert "bind_addresses:\n  - 127.0.0.1" in cfg
    assert "tcp_port: 0" in cfg and "node_ip: 127.0.0.1" in cfg
    assert "enable_loopback_candidate: true" in cfg and "turn:\n  enabled: false" in cfg


def test_server_busy_port_is_one_clear_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ServerError, match=f"port {port} on 127.0.0.1 is in use") as e:
            LiveKitServer(port=port).start()
        assert "\n" not in str(e.value)


def test_server_missing_binary_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FLOORBENCH_LIVEKIT_BIN", str(tmp_path / "nope"))
    with pytest.raises(ServerError, match="not an executable file"):
        LiveKitServer().start()


@pytest.mark.live
def test_server_starts_healthy_and_detects_death() -> None:
    srv = LiveKitServer()
    conn = srv.start()
    try:
        assert conn.url.startswith("ws://127.0.0.1:") and srv.alive()
        assert srv.api_secret not in repr(conn)
        srv.proc.kill()  # type: ignore[union-attr]
        srv.proc.wait()  # type: ignore[union-attr]
        with pytest.raises(ServerError, match="exited"):
            srv.check_alive()
    finally:
        srv.stop()


def test_unreachable_server_fails_the_run_in_one_line(tmp_path: Path, tiny_suite: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    proc = subprocess.run(
        [sys.executable, "-m", "floorbench.cli", "run", "--suite", str(tiny_suite), "--model", "silent",
         "--out", str(tmp_path / "run"), "--livekit-url", f"ws://127.0.0.1:{dead}"],
        capture_output=True, text=True, timeout=60,
        env={**__import__("os").environ, "LIVEKIT_API_KEY": "k", "LIVEKIT_API_SECRET": "topsecretvalue-abc"},
    )
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "cannot reach LiveKit" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert "topsecretvalue-abc" not in proc.stderr + proc.stdout


MINIMAL_CONFIGS: dict[str, dict[str, object]] = {
    "external": {"identity": "agent"},
}


@pytest.mark.parametrize("name", ["silent", "eager", "oracle", "echo"])
def test_every_reference_agent_is_created_by_name(name: str, tiny_suite: Path) -> None:
    from floorbench.scenarios.validate import load_suite

    suite = load_suite(tiny_suite)
    ctx = ModelContext(name=name, scenario=suite.scenarios[0], suite=suite.suite, suite_root=suite.root)
    model = create_model(ctx)
    assert model.name == name
    assert model.card()["name"] == name
    procs = model.processors()  # builds the real pipecat processors (TTS included)
    assert procs


@pytest.mark.parametrize("name", sorted(BUILTIN_MODELS))
def test_every_builtin_resolves_to_a_model_class(name: str) -> None:
    cls = model_class(name)
    assert cls.name == name


def test_unknown_model_lists_the_choices() -> None:
    with pytest.raises(ModelError, match=r"unknown model 'nope'; choose one of .*oracle"):
        create_model(ModelContext(name="nope"))


def test_oracle_without_scenario_is_a_clear_error() -> None:
    with pytest.raises(ModelError, match="oracle: needs the scenario"):
        create_model(ModelContext(name="oracle"))


def test_redact_removes_secrets_but_keeps_env_names() -> None:
    cfg = {
        "api_key": "sk-123",
        "api_key_env": "OPENAI_API_KEY",
        "params": {"token": "abc", "voice": "alloy", "headers": [{"Authorization_secret": "x"}]},
    }
    out = redact(cfg)
    assert out["api_key"] == "<redacted>" and out["api_key_env"] == "OPENAI_API_KEY"
    assert out["params"]["token"] == "<redacted>" and out["params"]["voice"] == "alloy"
    assert out["params"]["headers"][0]["Authorization_secret"] == "<redacted>"
    assert "sk-123" not in str(out)


def test_numbers_are_spelled_for_piper() -> None:
    from floorbench.speech.spoken_numbers import spell_numbers
    from floorbench.speech.tts import spoken_text

    assert spell_numbers("It was $18.50 at 7:05 on the 3rd.") == (
        "It was eighteen dollars and fifty cents at seven oh five on the third."
    )
    assert spell_numbers("1,200 people, 2.5 km, 15%") == (
        "one thousand, two hundred people, two point five km, fifteen percent"
    )
    assert spoken_text("18 dollars", "piper:joe") == "eighteen dollars"
    assert spoken_text("18 dollars", "flite:rms") == "18 dollars"  # flite expands numbers itself
