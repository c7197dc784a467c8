"""The av rubric judge: strict reply parsing, a stand-in OpenAI-compatible endpoint, the cache, images.

The endpoint is a local HTTP server answering chat completions; it records
every request so the tests can see what the judge sent (the payload, images)
and that cached verdicts are never asked for again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from support.chat_endpoint import send_chat_reply
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.suites.av.judge import parse_rubric
from tests.test_av_score_run import T0, build_run

GOOD = json.dumps({"fluency": 4, "flow": 5, "grounding": 3, "reason": "answers promptly"})


@pytest.mark.parametrize("reply", [GOOD, f"```json\n{GOOD}\n```", f"  {GOOD}\n"])
def test_a_reply_in_the_asked_form_is_read(reply: str) -> None:
    v = parse_rubric(reply)
    assert v.scores == {"fluency": 4, "flow": 5, "grounding": 3} and v.reason == "answers promptly"


@pytest.mark.parametrize(
    "reply",
    [
        "Fluency 4, flow 5, grounding 3.",  # prose
        f"Here you go: {GOOD}",  # prose around the JSON
        json.dumps({"fluency": 4, "flow": 6, "grounding": 3}),  # out of range
        json.dumps({"fluency": 4, "flow": 4.5, "grounding": 3}),  # not an integer
        json.dumps({"fluency": True, "flow": 4, "grounding": 3}),  # a boolean is not a score
        json.dumps({"fluency": 4, "flow": 4}),  # a dimension missing
        json.dumps([4, 4, 4]),
        "",
    ],
)
def test_anything_else_is_unparsable_never_a_score(reply: str) -> None:
    v = parse_rubric(reply)
    assert v.scores is None and v.as_row()["verdict"] == "unparsable"


class _Endpoint(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []
    reply: ClassVar[str] = GOOD
    bad_for: ClassVar[str | None] = None
    """a text in the payload that gets a malformed reply"""
    refuse_images: ClassVar[bool] = False
    fail: ClassVar[bool] = False

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        content = body["messages"][0]["content"]
        if type(self).fail or (type(self).refuse_images and isinstance(content, list)):
            self.send_response(500 if type(self).fail else 400)
            self.end_headers()
            return
        text = content if isinstance(content, str) else content[0]["text"]
        bad = type(self).bad_for
        send_chat_reply(self, "I think it went well." if bad and bad in text else type(self).reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Endpoint.seen, _Endpoint.reply, _Endpoint.bad_for = [], GOOD, None
    _Endpoint.refuse_images, _Endpoint.fail = False, False
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def _score(run: Path, out: Path, endpoint: str) -> tuple[int, str, dict[str, Any]]:
    res = CliRunner().invoke(
        app,
        [
            "score",
            str(run),
            "--out",
            str(out),
            "--workers",
            "1",
            "--resamples",
            "0",
            "--judge",
            "llm:judge-model",
            "--judge-base-url",
            endpoint,
            "--judge-key-env",
            "FB_AV_TEST_KEY",
        ],
    )
    path = out / "av_scores.json"
    return res.exit_code, res.output, json.loads(path.read_text()) if path.is_file() else {}


def test_rubric_scores_every_clip_and_caches_its_verdicts(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FB_AV_TEST_KEY", "sk-av-secret")
    run = build_run(tmp_path)
    _Endpoint.bad_for = '"dynamic": "gaze_aversion"'  # the s2 clip gets a malformed reply
    code, output, s = _score(run, tmp_path / "out", endpoint)
    assert code == 0, output
    assert len(_Endpoint.seen) == 3  # the three scorable clips, nothing for the unscorable ones
    sent = _Endpoint.seen[0]
    assert sent["model"] == "judge-model" and sent["temperature"] == 0
    prompts = [b["messages"][0]["content"] for b in _Endpoint.seen]
    handoff = next(p for p in prompts if "handoff_gaze" in p)
    assert '"category": "smooth_handoff"' in handoff and '"window_ms": [\n   4040,\n   7040\n  ]' in handoff
    assert '"transcript_in_window"' in handoff and "none (the system sent no video)" in handoff
    clips = {c["scenario_id"]: c["rubric"] for c in s["clips"]}
    assert clips["h1"] == clips["h1"] | {"verdict": "scored", "fluency": 4, "flow": 5, "grounding": 3}
    assert clips["s2"]["verdict"] == "unparsable" and "fluency" not in clips["s2"]
    r = s["rubric"]
    assert r["judged"] and r["unparsable"] == 1 and r["by_category"]["overall"]["n"] == 2
    assert r["by_category"]["stay_silent"]["n"] == 1  # the unparsable one enters no mean
    cache = (tmp_path / "out" / "scoring-cache" / "av_rubric.jsonl").read_text()
    assert len(cache.splitlines()) == 3 and "sk-av-secret" not in cache
    assert "sk-av-secret" not in json.dumps(s)
    _Endpoint.seen = []
    code, _, again = _score(run, tmp_path / "out", endpoint)
    assert code == 0 and _Endpoint.seen == []  # every verdict from the cache
    assert all(c["rubric"]["cached"] for c in again["clips"])
    assert again["rubric"]["by_category"] == r["by_category"]


def test_an_endpoint_that_fails_leaves_the_rubric_not_judged(endpoint: str, tmp_path: Path) -> None:
    _Endpoint.fail = True
    code, output, s = _score(build_run(tmp_path), tmp_path / "out", endpoint)
    assert code == 0, output
    assert s["rubric"]["judged"] is False and "HTTP 500" in s["rubric"]["reason"]
    assert all(c["rubric"]["judged"] is False for c in s["clips"])
    assert s["tor_alignment"]["overall"]["n"] == 3  # the timing scores stand without the judge
    assert "rubric: not judged: judge endpoint" in output


def _model_video(folder: Path, n: int = 40, fps: int = 10, name: str = "model.video", skip: int = 0) -> None:
    """A video track as the recorder leaves it: NAME.mkv (frames stamped with their arrival since the first)
    + NAME.frames.jsonl (arrival order, arrival ns); frame i is grey level 6·i. The first `skip` frames
    after frame 0 are in the log but not in the file (the recorder's encoder fell behind)."""
    from fractions import Fraction

    import av

    with av.open(str(folder / f"{name}.mkv"), "w", format="matroska") as c:
        st = c.add_stream("mpeg4", rate=fps)
        st.width, st.height, st.pix_fmt = 64, 48, "yuv420p"
        st.codec_context.time_base = Fraction(1, 1000)
        for i in range(n):
            if 0 < i <= skip:
                continue
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), i * 6, dtype=np.uint8), format="rgb24")
            frame.pts, frame.time_base = i * 1000 // fps, Fraction(1, 1000)
            for pkt in st.encode(frame):
                c.mux(pkt)
        for pkt in st.encode():
            c.mux(pkt)
    lines = [json.dumps({"n": i, "arrival_ns": (T0 + 3500 + i * 1000 // fps) * 1_000_000}) for i in range(n)]
    (folder / f"{name}.frames.jsonl").write_text("\n".join(lines) + "\n")


def test_model_video_frames_are_sent_as_images(endpoint: str, tmp_path: Path) -> None:
    run = build_run(tmp_path)
    _model_video(run / "h1")
    code, output, s = _score(run, tmp_path / "out", endpoint)
    assert code == 0, output
    with_images = [b for b in _Endpoint.seen if isinstance(b["messages"][0]["content"], list)]
    assert len(with_images) == 1
    parts = with_images[0]["messages"][0]["content"]
    assert "3 frames follow" in parts[0]["text"]
    assert [p["type"] for p in parts[1:]] == ["image_url"] * 3
    assert all(p["image_url"]["url"].startswith("data:image/jpeg;base64,") for p in parts[1:])
    h1 = next(c for c in s["clips"] if c["scenario_id"] == "h1")
    assert h1["rubric"]["images"] == 3 and not h1["rubric"]["images_refused"]


def test_an_endpoint_refusing_images_is_asked_again_without_them(endpoint: str, tmp_path: Path) -> None:
    run = build_run(tmp_path)
    _model_video(run / "h1")
    _Endpoint.refuse_images = True
    code, output, s = _score(run, tmp_path / "out", endpoint)
    assert code == 0, output
    h1 = next(c for c in s["clips"] if c["scenario_id"] == "h1")
    assert (
        h1["rubric"]["verdict"] == "scored" and h1["rubric"]["images_refused"] and h1["rubric"]["images"] == 0
    )
    retry = [
        b["messages"][0]["content"] for b in _Endpoint.seen if isinstance(b["messages"][0]["content"], str)
    ]
    assert any("refused images" in t for t in retry)
