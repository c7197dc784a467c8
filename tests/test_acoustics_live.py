"""Live: a scenario played under an acoustic condition sends the degraded humans and keeps the clean track."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import yaml

from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.pipelines.run.scenario_run import ScenarioSettings
from floorbench.records import EventKind, Outcome, read_meta, read_timeline
from floorbench.speech.acoustics import parse_acoustics
from floorbench.transports.server import LiveKitConnection

pytestmark = [pytest.mark.live, pytest.mark.slow]
pytest.importorskip("pyroomacoustics")


def short_suite(tiny_suite: Path, to: Path, sid: str) -> Path:
    """The tiny suite with no preamble and the pair of `sid` cut to three turns: a room of a few seconds."""
    shutil.copytree(tiny_suite, to)
    pair = sid.rsplit("-", 1)[0]
    for f in (to / "scenarios").glob(f"{pair}-*.yaml"):  # both of the pair: they must have as many turns
        scenario = yaml.safe_load(f.read_text())
        scenario["turns"] = scenario["turns"][:3]  # the evidence, the request (T), one turn after it
        f.write_text(yaml.safe_dump(scenario, sort_keys=False))
    suite = yaml.safe_load((to / "suite.yaml").read_text())
    suite["preamble"] = {"text": "", "voice": suite["preamble"]["voice"]}
    (to / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    return to


def test_a_degraded_run_sends_the_condition_and_keeps_the_clean_turns_on_their_samples(
    tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection
) -> None:
    sid = "tiny01-explicit"
    tiny_suite = short_suite(tiny_suite, tmp_path / "suite", sid)
    profile = parse_acoustics("reverb+pink+snr10", seed=3)
    out = tmp_path / "run"
    asyncio.run(run_suite(RunOptions(
        suite=tiny_suite, model="oracle", out=out, connection=livekit, scenarios=[sid], progress=False,
        settings=ScenarioSettings(acoustics=profile),
    )))
    folder = out / sid
    meta = read_meta(folder)
    assert meta is not None and meta.outcome == Outcome.completed, meta
    a = meta.acoustics
    assert a is not None and a["profile"] == "reverb+pink+snr10" and a["seed"] == 3
    assert abs(a["snr_measured_db"] - 10) <= 0.5
    assert a["snr_sent_track_db"] is not None and abs(a["snr_sent_track_db"] - 10) <= 1.5
    assert a["clips_without_clean_copy"] == 0
    assert (folder / "turns.json").is_file()
    sent, sr = sf.read(str(folder / "humans.sent.wav"), dtype="int16")
    clean, clean_sr = sf.read(str(folder / "humans.clean.wav"), dtype="int16")
    assert sr == clean_sr and len(sent) == len(clean)
    scenario = yaml.safe_load((tiny_suite / "scenarios" / f"{sid}.yaml").read_text())
    starts = {e.turn_id: e for e in read_timeline(folder / "timeline.jsonl") if e.kind == EventKind.turn_start}
    for t in scenario["turns"]:
        clip, _ = sf.read(str(tiny_suite / t["audio"]), dtype="int16")
        at = starts[t["id"]].sample
        assert at is not None
        seg = clean[at : at + len(clip)].astype(np.int32)
        assert len(seg) == len(clip) and np.abs(seg - clip).max() <= 2, f"turn {t['id']}: not clean at sample {at}"
        assert not np.array_equal(sent[at : at + len(clip)], clip), f"turn {t['id']}: sent clean"
    assert np.abs(sent[: int(0.2 * sr)]).max() > 0  # the noise is on before the first turn
