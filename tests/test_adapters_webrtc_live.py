"""The `webrtc` bridge in real rooms: a pipecat bot, a WHIP endpoint and a Realtime stand-in, end to end.

Real LiveKit server, real runner, real model process; the product is reached
over a second, real WebRTC connection (tests/support/webrtc_servers.py, in a process of its
own so that its Opus and SRTP work does not take the runner's GIL). Each
product answers a long pause with an 800 ms two-tone clip, so the recording
shows whether the room's audio reached the product and its reply came back at
the right place. Everything is read from the run folder, as scoring reads it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.records import DialogueTurns, Outcome
from floorbench.transports.server import LiveKitConnection

try:
    from tests.support.webrtc_servers import ProductProcess
    from tests.test_adapters_live import bursts, read
except ModuleNotFoundError:
    from support.webrtc_servers import ProductProcess
    from test_adapters_live import bursts, read

pytestmark = [pytest.mark.live, pytest.mark.slow]
SCENARIO = "tiny01-explicit"


def _run(tiny_suite: Path, out: Path, livekit: LiveKitConnection, config: dict[str, Any]) -> Path:
    summary = asyncio.run(
        run_suite(
            RunOptions(
                suite=tiny_suite,
                model="webrtc",
                out=out,
                connection=livekit,
                scenarios=[SCENARIO],
                progress=False,
                config=config,
            )
        )
    )
    meta = summary.metas[0]
    assert meta.outcome == Outcome.completed, (meta.failure_kind, meta.failure_reason)
    return out / SCENARIO


def _replies_started(product: ProductProcess) -> int:
    return sum(1 for e in product.report["events"] if e["event"] == "reply_start")


def _timing_ok(folder: Path) -> bool:
    """The room's own timing verdict: turn positions (turns.json) are trusted only when it is ok."""
    timing = json.loads((folder / "meta.json").read_text())["timing"]
    if timing["verdict"] != "ok":
        print(f"room timing degraded ({'; '.join(timing['reasons'])}): reply placement not judged")
    return timing["verdict"] == "ok"


def _assert_replies_in_place(folder: Path, replies_started: int) -> list[tuple[int, int]]:
    """A reply after the request (T) and after the N4 question, each the whole clip, and nothing else."""
    found = bursts(read(folder, "model"), 16000, merge_ms=200)
    assert found and replies_started >= 1, (found, replies_started)  # the product's replies reached the room
    if not _timing_ok(folder):
        return found
    turns = DialogueTurns.model_validate_json((folder / "turns.json").read_text()).turns
    # Replies are seconds apart. Two WebRTC legs on a busy 2-core machine can open a gap of tens
    # of ms inside one reply or stretch it, so gaps under 200 ms are one reply and its length may
    # grow by half; a cut, doubled or missing clip still fails. Onsets: 700 ms of quiet in the
    # product plus both legs, allowed 500-2500 ms after the turn's end.
    for t in turns:
        if t.label in ("T", "N4Q"):
            replies = [(s, e) for s, e in found if t.end_ms + 500 <= s <= t.end_ms + 2500]
            assert replies, f"no reply after turn {t.turn_id} ({t.label}, ends {t.end_ms}); bursts {found}"
            s, e = replies[0]
            assert 700 <= e - s <= 1200, (s, e, found)
    # nothing the product did not say: a reply talked over at once is a short burst, but still one start
    assert sum(1 for s, e in found if e - s >= 100) <= replies_started, (found, replies_started)
    return found


def _bridge_delay(folder: Path, style: str) -> dict[str, Any]:
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["model"]["protocol"] == f"webrtc/{style}" and meta["model"]["endpoint"].startswith("http://127.0.0.1")
    latency = meta["transport_latency_ms"]
    assert "humans" in latency  # the room's own transport latency, beside the bridge's
    bridge = latency["bridge"]
    assert bridge["style"] == style
    for way in ("room_to_model", "model_to_room"):
        # measured on every frame that crossed; only sanity bounds here (a loaded machine varies),
        # the figures themselves are printed (and measured by benchmarks/webrtc_bridge.py)
        assert bridge[way]["n"] >= 500 and 0 <= bridge[way]["p50_ms"] <= bridge[way]["p95_ms"] < 1000, bridge
    print(f"{style} bridge delay: {bridge['room_to_model']} → product, {bridge['model_to_room']} → room")
    return bridge


def test_pipecat_bot_in_a_real_room_is_scored(tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection):
    # the bot replies with a recorded sentence ("Aria is handy for this."), so scoring's VAD hears speech
    clip = tiny_suite / "audio" / "59d47a81f7d1aed78978.flac"
    with ProductProcess("pipecat", tmp_path / "bot.json", clip=clip) as bot:
        folder = _run(tiny_suite, tmp_path / "run", livekit, {"signalling": "pipecat", "url": bot.endpoint})
    assert bot.report["connected"] == 1 and bot.report["heard_samples"] > 16000 * 20  # the whole dialogue went in
    found = bursts(read(folder, "model"), 16000, merge_ms=300)
    assert found and _replies_started(bot) >= 1, found  # the bot's replies reached the room
    timing_ok = _timing_ok(folder)
    if timing_ok:
        request = next(t for t in DialogueTurns.model_validate_json((folder / "turns.json").read_text()).turns
                       if t.label == "T")
        # 700 ms of quiet in the bot plus both WebRTC legs and the room's; generous for a loaded machine
        assert any(request.end_ms + 500 <= s <= request.end_ms + 2500 for s, _ in found), (request, found)
    _bridge_delay(folder, "pipecat")
    # `score` reads it like any run: the reply to the request is a fresh onset in its window
    res = CliRunner().invoke(
        app, ["score", str(tmp_path / "run"), "--out", str(tmp_path / "scored"), "--resamples", "200", "--quiet"]
    )
    assert res.exit_code == 0, res.output
    scores = json.loads((tmp_path / "scored" / "scores.json").read_text())
    assert scores["scenarios"]["scored"] == 1
    metrics = scores["conditions"]["explicit"]["metrics"]
    assert metrics["fresh_onset_rate"]["n"] == 1 and metrics["response_presence"]["n"] == 1, metrics
    if timing_ok:
        assert metrics["fresh_onset_rate"]["value"] == 1.0 and metrics["response_presence"]["value"] == 1.0, metrics


@pytest.mark.parametrize("style", ["whip", "openai"])
def test_whip_and_realtime_stand_ins_in_a_real_room(
    style: str, tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("FB_TEST_WEBRTC_KEY", "key-for-the-stand-in")
    with ProductProcess(style, tmp_path / "product.json", key="key-for-the-stand-in") as p:
        config = {"signalling": style, "url": p.endpoint, "api_key_env": "FB_TEST_WEBRTC_KEY"}
        folder = _run(tiny_suite, tmp_path / "run", livekit, config)
    _assert_replies_in_place(folder, _replies_started(p))
    _bridge_delay(folder, style)
    assert "key-for-the-stand-in" not in (folder / "meta.json").read_text()
    if style == "whip":
        assert p.report["deleted"] == p.report["sessions"] and len(p.report["sessions"]) == 1


def test_a_refused_offer_fails_each_scenario_as_model_error_and_the_run_goes_on(
    tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("FB_TEST_WEBRTC_KEY", "the-wrong-key-123")
    with ProductProcess("whip", tmp_path / "product.json", key="the-right-key") as p:
        summary = asyncio.run(
            run_suite(
                RunOptions(
                    suite=tiny_suite,
                    model="webrtc",
                    out=tmp_path / "run",
                    connection=livekit,
                    scenarios=["tiny01-explicit", "tiny01-implicit"],
                    progress=False,
                    config={"signalling": "whip", "url": p.endpoint, "api_key_env": "FB_TEST_WEBRTC_KEY"},
                )
            )
        )
    assert [m.scenario_id for m in summary.metas] == ["tiny01-explicit", "tiny01-implicit"]  # the run went on
    for meta in summary.metas:
        assert meta.outcome == Outcome.failed and meta.failure_kind == "model_error", meta
        assert "refused the WebRTC offer: HTTP 401" in (meta.failure_reason or "")
        assert "check the key in FB_TEST_WEBRTC_KEY" in (meta.failure_reason or "")
        text = (tmp_path / "run" / meta.scenario_id / "meta.json").read_text()
        assert "the-wrong-key-123" not in text and "the-right-key" not in text
    assert p.report["sessions"] == []  # no session was ever set up
