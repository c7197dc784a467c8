"""One confinement rule for every command (floorbench.paths): a link inside a suite or run folder that
leads elsewhere is refused the same way by `run`, `suite info`, `score`, `report`, `render`, the importers
and the generators, video tracks included — one `error:` line naming the path and the fix, exit 2,
nothing written, nothing outside the folder given deleted or rewritten. A link that stays inside is followed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from floorbench.cli import app

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "fixtures" / "suites" / "tiny"


def _snapshot(*roots: Path) -> dict[str, tuple[bool, str]]:
    """Every entry under the roots: (is a link, SHA-256 of a file / the link's target)."""
    out: dict[str, tuple[bool, str]] = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.is_symlink():
                out[str(p)] = (True, os.readlink(p))
            elif p.is_file():
                out[str(p)] = (False, hashlib.sha256(p.read_bytes()).hexdigest())
            else:
                out[str(p)] = (False, "dir")
    return out


def _refused(args: list[str], *watched: Path, says: str) -> str:
    """Run the command: exit 2, one `error:` line holding `says`, and nothing under `watched` changed."""
    before = _snapshot(*watched)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    # pipecat's import banner (loguru INFO; `floorbench`'s main() sets WARNING, the test runner does not)
    err = "".join(line + "\n" for line in res.stderr.splitlines() if " | INFO " not in line)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert says in err, err
    assert _snapshot(*watched) == before
    return err


def _suite(tmp_path: Path, name: str = "suite") -> Path:
    dest = tmp_path / name
    shutil.copytree(TINY, dest)
    return dest


def _link_first_clip_to(suite: Path, target_dir: Path) -> Path:
    clip = sorted((suite / "audio").glob("*.flac"))[0]
    target_dir.mkdir(parents=True, exist_ok=True)
    moved = target_dir / clip.name
    clip.rename(moved)
    clip.symlink_to(moved)
    return clip


# -- suites: run, suite info, render ----------------------------------------------------------


def test_suite_info_refuses_a_clip_linked_out_of_the_suite_as_run_does(tmp_path: Path) -> None:
    from floorbench.scenarios.validate import ScenarioError, load_suite

    suite = _suite(tmp_path)
    clip = _link_first_clip_to(suite, tmp_path / "elsewhere")
    _refused(["suite", "info", str(suite)], suite, tmp_path / "elsewhere", says=f"{clip.name} leads outside")
    with pytest.raises(ScenarioError, match=f"{clip.name} leads outside"):
        load_suite(suite)  # what `run` loads


def test_a_clip_linked_inside_the_suite_is_followed_by_info_and_run(tmp_path: Path) -> None:
    from floorbench.scenarios.validate import load_suite

    suite = _suite(tmp_path)
    _link_first_clip_to(suite, suite / "store")
    res = CliRunner().invoke(app, ["suite", "info", str(suite)])
    assert res.exit_code == 0, res.output
    load_suite(suite)


def test_run_refuses_a_linked_clip_and_a_linked_scenario_folder_before_any_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LIVEKIT_API_KEY", "key")
    monkeypatch.setenv("LIVEKIT_API_SECRET", "secret-for-tests-only-0123456789abcdef")
    suite = _suite(tmp_path)
    clip = _link_first_clip_to(suite, tmp_path / "elsewhere")
    out = tmp_path / "run"
    args = ["run", "--suite", str(suite), "--model", "silent", "--out", str(out), "--livekit-url", "ws://127.0.0.1:9",
            "--quiet"]
    _refused(args, suite, tmp_path / "elsewhere", says=f"{clip.name} leads outside")
    assert not out.exists()
    # a run folder whose scenario folder is a link to another run's
    good = _suite(tmp_path, "good")
    sid = sorted(p.stem for p in (good / "scenarios").glob("*.yaml"))[0]
    other = tmp_path / "other-run" / sid
    other.mkdir(parents=True)
    (other / "meta.json").write_text("{}")
    out.mkdir()
    (out / sid).symlink_to(other)
    args[2] = str(good)
    _refused(args, out, tmp_path / "other-run", says=f"scenario folder {sid}")
    (out / sid).unlink()  # the log the managed server appends to
    (out / "livekit.log").symlink_to(tmp_path / "other-run" / sid / "meta.json")
    _refused(args, out, tmp_path / "other-run", says="livekit.log leads outside")


def test_render_through_an_audio_link_out_of_the_suite_deletes_and_rewrites_nothing(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    target = tmp_path / "shared-audio"
    (suite / "audio").rename(target)
    (target / "0123456789abcdef0123.flac").write_bytes(b"not this suite's clip, named like one")
    (suite / "audio").symlink_to(target)
    _refused(["render", str(suite), "--jobs", "1"], suite, target, says="audio leads outside")


def test_render_follows_an_audio_link_that_stays_in_the_suite(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    (suite / "audio").rename(suite / "rendered")
    (suite / "audio").symlink_to("rendered")
    stale = suite / "rendered" / "0123456789abcdef0123.flac"
    stale.write_bytes(b"a clip no scenario uses")
    res = CliRunner().invoke(app, ["render", str(suite), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert "0 rendered, 15 cached" in res.stdout and not stale.exists()  # pruned inside the suite


def test_render_refuses_a_cached_clip_linked_out_of_the_suite(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    clip = _link_first_clip_to(suite, tmp_path / "elsewhere")
    _refused(["render", str(suite), "--jobs", "1"], suite, tmp_path / "elsewhere", says=f"{clip.name} leads outside")


# -- writers: generate, import, import-turns, import-av ----------------------------------------


@pytest.mark.parametrize("kind", ["mpe", "turns"])
def test_generate_force_over_a_linked_folder_is_one_line_not_a_traceback(tmp_path: Path, kind: str) -> None:
    out = tmp_path / "gen"
    res = CliRunner().invoke(app, ["generate", "--suite", kind, "--out", str(out), "--pairs", "1"])
    assert res.exit_code == 0, res.output
    elsewhere = tmp_path / "elsewhere"
    (out / "scenarios").rename(elsewhere)
    (out / "scenarios").symlink_to(elsewhere)
    args = ["generate", "--suite", kind, "--out", str(out), "--pairs", "1", "--force"]
    _refused(args, out, elsewhere, says="scenarios leads outside")
    (out / "scenarios").unlink()  # a link that stays inside the --out is followed, and what it holds replaced
    (out / "kept").mkdir()
    (out / "kept" / "old.yaml").write_text("old: true\n")
    (out / "scenarios").symlink_to("kept")
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert not (out / "kept" / "old.yaml").exists() and list((out / "kept").glob("*.yaml"))
    assert sorted(p.name for p in elsewhere.iterdir())  # untouched


def test_a_writer_empties_a_folder_without_following_a_link_in_it(tmp_path: Path) -> None:
    from floorbench.paths import prepare_out

    out = tmp_path / "out"
    (out / "scenarios").mkdir(parents=True)
    keep = tmp_path / "precious"
    keep.mkdir()
    (keep / "a.yaml").write_text("x")
    (out / "scenarios" / "linked").symlink_to(keep)
    (out / "scenarios" / "file.yaml").symlink_to(keep / "a.yaml")
    prepare_out(out, ("scenarios",), force=True)
    assert list((out / "scenarios").iterdir()) == [] and (keep / "a.yaml").read_text() == "x"


def _conversation(tmp_path: Path) -> tuple[Path, Path]:
    fixture = ROOT / "tests" / "fixtures" / "suites" / "turns-tiny" / "audio"
    x, _ = sf.read(str(sorted(fixture.glob("*.flac"))[0]), dtype="int16")
    rec = np.zeros((16000 * 4, 2), dtype=np.int16)
    rec[8000 : 8000 + len(x), 0] = x[: 16000 * 3]
    sf.write(str(tmp_path / "talk.wav"), rec, 16000)
    end = 500 + min(len(x), 16000 * 3) * 1000 // 16000
    (tmp_path / "labels.csv").write_text(f"label,start_ms,end_ms,text\neot,500,{end},hello there\n")
    return tmp_path / "talk.wav", tmp_path / "labels.csv"


def test_import_turns_refuses_an_existing_suite_without_force(tmp_path: Path) -> None:
    wav, labels = _conversation(tmp_path)
    out = tmp_path / "suite"
    first = CliRunner().invoke(app, ["suite", "import-turns", str(wav), str(labels), "--out", str(out)])
    assert first.exit_code == 0, first.output
    _refused(["suite", "import-turns", str(wav), str(labels), "--out", str(out), "--scenario-id", "other"], out,
             says="pass --force to replace it")
    again = CliRunner().invoke(app, ["suite", "import-turns", str(wav), str(labels), "--out", str(out),
                                     "--scenario-id", "other", "--force"])
    assert again.exit_code == 0, again.output
    assert sorted(p.stem for p in (out / "scenarios").glob("*.yaml")) == ["other"]
    manifest = json.loads((out / "audio" / "manifest.json").read_text())
    assert sorted(manifest["clips"]) == sorted(f"audio/{p.name}" for p in (out / "audio").glob("*.flac"))
    copy = _suite(tmp_path, "tiny")  # a rendered mpe suite is not overwritten either
    _refused(["suite", "import-turns", str(wav), str(labels), "--out", str(copy)], copy, says="pass --force")


def test_import_turns_refuses_an_audio_folder_linked_elsewhere(tmp_path: Path) -> None:
    wav, labels = _conversation(tmp_path)
    out, elsewhere = tmp_path / "suite", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "audio").symlink_to(elsewhere)
    _refused(["suite", "import-turns", str(wav), str(labels), "--out", str(out), "--force"], out, elsewhere,
             says="audio leads outside")


def test_import_av_refuses_media_paths_out_of_the_clip_folder(tmp_path: Path) -> None:
    clips, media = tmp_path / "clips", tmp_path / "media"
    clips.mkdir()
    media.mkdir()
    (media / "rec.mp4").write_bytes(b"not read")
    (clips / "c.json").write_text(json.dumps({
        "video": "../media/rec.mp4", "dynamic": "raised_hand", "window": {"start_ms": 0, "end_ms": 1000},
    }))
    out = tmp_path / "out"
    _refused(["suite", "import-av", str(clips), "--out", str(out)], clips, media, says="../media/rec.mp4 leads outside")
    assert not out.exists()
    (clips / "c.json").write_text(json.dumps({
        "video": "rec.mp4", "dynamic": "raised_hand", "window": {"start_ms": 0, "end_ms": 1000},
    }))
    (clips / "rec.mp4").symlink_to(media / "rec.mp4")
    _refused(["suite", "import-av", str(clips), "--out", str(out)], clips, media, says="rec.mp4 leads outside")
    assert not out.exists()


def test_suite_import_refuses_a_scenario_file_linked_from_elsewhere(tmp_path: Path) -> None:
    src, elsewhere = tmp_path / "src", tmp_path / "elsewhere"
    src.mkdir()
    elsewhere.mkdir()
    first = sorted((TINY / "scenarios").glob("*.yaml"))[0]
    shutil.copy(first, elsewhere / first.name)
    (src / first.name).symlink_to(elsewhere / first.name)
    out = tmp_path / "out"
    _refused(["suite", "import", str(src), "--out", str(out)], src, elsewhere, says=f"{first.name} leads outside")
    assert not out.exists()


# -- runs: score, report, video tracks -----------------------------------------------------------


def test_score_refuses_a_linked_timeline_in_one_line(tmp_path: Path) -> None:
    from tests.test_attempt_files import _completed

    run = tmp_path / "run"
    _completed(run / "a")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "timeline.jsonl").write_text("{}\n")
    (run / "a" / "timeline.jsonl").symlink_to(tmp_path / "elsewhere" / "timeline.jsonl")
    _refused(["score", str(run), "--workers", "1", "--resamples", "0", "--quiet"], run, tmp_path / "elsewhere",
             says="timeline.jsonl leads outside")


def test_report_refuses_a_dialogue_file_linked_out_of_the_run(tmp_path: Path) -> None:
    from tests.test_attempt_files import _completed

    run = tmp_path / "run"
    _completed(run / "a")
    res = CliRunner().invoke(app, ["score", str(run), "--workers", "1", "--resamples", "0", "--quiet"])
    assert res.exit_code == 0, res.output
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run / "a" / "turns.json").rename(elsewhere / "turns.json")
    (run / "a" / "turns.json").symlink_to(elsewhere / "turns.json")
    _refused(["report", str(run), "--out", str(tmp_path / "rep")], run, elsewhere, says="turns.json leads outside")
    assert not (tmp_path / "rep").exists()


def test_report_refuses_a_video_linked_out_of_the_run(tmp_path: Path) -> None:
    from tests.test_av_judge import _model_video
    from tests.test_av_score_run import build_run

    run = build_run(tmp_path / "run")
    _model_video(run / "h1")
    res = CliRunner().invoke(app, ["score", str(run), "--out", str(tmp_path / "scored"), "--workers", "1",
                                   "--resamples", "0"])
    assert res.exit_code == 0, res.output
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run / "h1" / "model.video.mkv").rename(elsewhere / "secret.mkv")
    (run / "h1" / "model.video.mkv").symlink_to(elsewhere / "secret.mkv")
    _refused(["report", str(tmp_path / "scored"), "--out", str(tmp_path / "rep")], run, elsewhere,
             says="model.video.mkv leads outside")
    assert not (tmp_path / "rep").exists()


def test_video_tracks_follow_a_link_inside_the_folder_and_refuse_one_out(tmp_path: Path) -> None:
    from floorbench.scoring.inputs import InputError
    from floorbench.suites.av.frames import video_tracks
    from tests.test_av_judge import T0, _model_video

    d = tmp_path / "s"
    d.mkdir()
    _model_video(d)
    (d / "takes").mkdir()
    (d / "model.video.mkv").rename(d / "takes" / "model.video.mkv")
    (d / "model.video.mkv").symlink_to("takes/model.video.mkv")
    assert [t.name for t in video_tracks(d, T0)] == ["model.video"]
    (d / "model.video.mkv").unlink()
    (tmp_path / "out.mkv").write_bytes((d / "takes" / "model.video.mkv").read_bytes())
    (d / "model.video.mkv").symlink_to(tmp_path / "out.mkv")
    with pytest.raises(InputError, match=r"model\.video\.mkv leads outside"):
        video_tracks(d, T0)


def test_score_and_report_never_write_through_an_output_linked_out_of_their_folder(tmp_path: Path) -> None:
    from tests.test_attempt_files import _completed

    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    _completed(run / "a")
    elsewhere.mkdir()
    (elsewhere / "notes.json").write_text("mine\n")
    (run / "scores.json").symlink_to(elsewhere / "notes.json")
    _refused(["score", str(run), "--workers", "1", "--resamples", "0", "--quiet"], run, elsewhere,
             says="scores.json leads outside")
    (run / "scores.json").unlink()
    res = CliRunner().invoke(app, ["score", str(run), "--workers", "1", "--resamples", "0", "--quiet"])
    assert res.exit_code == 0, res.output
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "report.html").symlink_to(elsewhere / "notes.json")
    _refused(["report", str(run), "--out", str(rep)], run, rep, elsewhere, says="report.html leads outside")
    assert (elsewhere / "notes.json").read_text() == "mine\n"
