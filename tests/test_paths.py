"""Every path a file or a user names stays under its root: ids, audio paths, globs, run and recordings folders.

Scenario and pair ids become file and folder names (``scenarios/ID.yaml``,
``RUN/ID/``), so the schema allows only `ID_RULE`; every resolved input or
output path is checked against its root as well, so a `..`, an absolute path
or a symlink to elsewhere is refused with one line and nothing is written
outside.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from floorbench.scenarios.schema import ID_RULE, PathEscapeError, check_id, inside
from floorbench.scenarios.validate import ScenarioError, load_suite
from floorbench.scoring.inputs import discover
from floorbench.suites.mpe.importer import import_scenarios
from floorbench.suites.mpe.schema import Scenario
from floorbench.suites.mpe.validate import parse_scenario
from tests.test_scenarios_import import _user_pair


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


# -- the id rule ------------------------------------------------------------------------


@pytest.mark.parametrize("good", ["a", "mpe-0001-explicit", "Tiny01.v2_b", "9", "x" * 128])
def test_ids_that_follow_the_rule_are_kept(good: str) -> None:
    assert check_id(good) == good


@pytest.mark.parametrize(
    "bad",
    ["", "../../x-explicit", "/tmp/abs-explicit", "a/b", "a\\b", "..", "a..b", ".hidden", "-dash",
     "x" * 129, "caf\u00e9", "with space", "nul\x00", "C:evil"],
)
def test_ids_that_break_the_rule_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="breaks the id rule"):
        check_id(bad)


def test_a_bad_id_in_a_file_is_one_line_naming_the_file_and_the_rule(tmp_path: Path) -> None:
    rec = _user_pair("p1")[0]
    rec["scenario_id"] = "../../x-explicit"
    rec["turns"] = [{"id": i + 1, **t} for i, t in enumerate(rec["turns"])]
    rec["speakers"] = {k: {"name": v, "voice": "flite:rms"} for k, v in rec["speakers"].items()}
    path = tmp_path / "s.yaml"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(path, rec)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: scenario ../../x-explicit: field 'scenario_id': ")
    assert ID_RULE in msg
    rec["scenario_id"], rec["pair_id"] = "p1-explicit", "/abs"
    with pytest.raises(ScenarioError, match="field 'pair_id': '/abs' breaks the id rule"):
        parse_scenario(path, rec)


# -- import ---------------------------------------------------------------------------------


@pytest.mark.parametrize("escape", ["../../x", "ABS"])
def test_import_refuses_ids_that_leave_the_output_folder(tmp_path: Path, escape: str) -> None:
    work = tmp_path / "a" / "b"
    src, out = work / "src", work / "out"
    src.mkdir(parents=True)
    pid = str(tmp_path / "abs") if escape == "ABS" else escape
    (src / "pair.yaml").write_text(yaml.safe_dump(_user_pair(pid), sort_keys=False))
    before = _files(tmp_path)
    res = import_scenarios(src, out)
    assert res.written == []
    assert len(res.rejected) == 2 and all("breaks the id rule" in r for r in res.rejected)
    assert _files(tmp_path) == before  # nothing written anywhere, inside or outside


def test_import_checks_every_target_before_writing(tmp_path: Path) -> None:
    """Even a record that somehow bypassed the schema is stopped where the file would be written."""
    with pytest.raises(PathEscapeError, match="leads outside"):
        inside(tmp_path / "out" / "scenarios", "../../x-explicit.yaml", "scenario x")
    with pytest.raises(PathEscapeError, match="leads outside"):
        inside(tmp_path / "out", str(tmp_path / "elsewhere"), "scenario y")
    assert inside(tmp_path, "a/b.yaml", "z") == (tmp_path / "a" / "b.yaml").resolve()


# -- suites: audio paths and the scenario glob --------------------------------------------------


def _suite_copy(tiny_suite: Path, tmp_path: Path) -> Path:
    root = tmp_path / "suites" / "tiny"
    shutil.copytree(tiny_suite, root)
    return root


def _set_audio(root: Path, rel: str) -> Path:
    path = sorted((root / "scenarios").glob("*.yaml"))[0]
    data = yaml.safe_load(path.read_text())
    data["turns"][0]["audio"] = rel
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_an_audio_path_with_dotdot_is_refused(tiny_suite: Path, tmp_path: Path) -> None:
    root = _suite_copy(tiny_suite, tmp_path)
    outside = tmp_path / "passwd.flac"
    shutil.copy(next((root / "audio").rglob("*.flac")), outside)  # a readable file is there
    path = _set_audio(root, "../../passwd.flac")
    with pytest.raises(ScenarioError) as err:
        load_suite(root)
    assert str(err.value).startswith(f"{path}: scenario ")
    assert "turn 1: audio file: ../../passwd.flac leads outside" in str(err.value)
    _set_audio(root, "../../etc/passwd")
    with pytest.raises(ScenarioError, match=r"audio file: \.\./\.\./etc/passwd leads outside"):
        load_suite(root)


def test_an_absolute_audio_path_is_refused(tiny_suite: Path, tmp_path: Path) -> None:
    root = _suite_copy(tiny_suite, tmp_path)
    outside = tmp_path / "abs.flac"
    shutil.copy(next((root / "audio").rglob("*.flac")), outside)
    _set_audio(root, str(outside))
    with pytest.raises(ScenarioError, match="leads outside"):
        load_suite(root)


def test_a_symlink_out_of_the_suite_is_refused(tiny_suite: Path, tmp_path: Path) -> None:
    root = _suite_copy(tiny_suite, tmp_path)
    outside = tmp_path / "secret.flac"
    wav = next((root / "audio").rglob("*.flac"))
    shutil.copy(wav, outside)
    wav.unlink()
    wav.symlink_to(outside)
    with pytest.raises(ScenarioError, match="leads outside"):
        load_suite(root)
    loaded = load_suite(_suite_copy(tiny_suite, tmp_path / "clean"))
    with pytest.raises(ScenarioError, match="leads outside"):
        loaded.audio_path("../x.wav")


@pytest.mark.parametrize("glob", ["../*.yaml", "scenarios/../../*.yaml", "/etc/*.yaml"])
def test_a_scenario_glob_leaving_the_suite_is_refused(tiny_suite: Path, tmp_path: Path, glob: str) -> None:
    root = _suite_copy(tiny_suite, tmp_path)
    data = yaml.safe_load((root / "suite.yaml").read_text())
    data["scenario_glob"] = glob
    (root / "suite.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ScenarioError, match=r"field 'scenario_glob': .* must be relative to the suite folder"):
        load_suite(root, audio=False)


def test_a_scenario_file_symlinked_from_elsewhere_is_refused(tiny_suite: Path, tmp_path: Path) -> None:
    root = _suite_copy(tiny_suite, tmp_path)
    first = sorted((root / "scenarios").glob("*.yaml"))[0]
    moved = tmp_path / first.name
    first.rename(moved)
    first.symlink_to(moved)
    with pytest.raises(ScenarioError, match=r"scenario_glob 'scenarios/\*\.yaml' matches: .* leads outside"):
        load_suite(root, audio=False)


# -- the run folder -----------------------------------------------------------------------------


def test_the_run_folder_of_a_scenario_stays_under_the_output(tiny_suite: Path, tmp_path: Path) -> None:
    from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings
    from floorbench.processors.registry import ModelContext, create_model
    from floorbench.transports.server import LiveKitConnection

    suite = load_suite(tiny_suite)
    good = suite.scenarios[0]
    model = create_model(ModelContext(name="silent", scenario=good, suite=suite.suite, suite_root=suite.root))
    conn = LiveKitConnection("ws://127.0.0.1:9", "key", "secret-for-tests-only-0123456789abcdef")
    out = tmp_path / "run"
    run = ScenarioRun("r1", suite, good, model, conn, out, ScenarioSettings())
    assert run.dir == (out / good.scenario_id).resolve()
    for bad_id in ("../../escaped", str(tmp_path / "abs")):
        bad: Scenario = good.model_copy(update={"scenario_id": bad_id})  # no validation: as if it slipped through
        with pytest.raises(ScenarioError, match=r"run folder: .* leads outside"):
            ScenarioRun("r1", suite, bad, model, conn, out, ScenarioSettings())
    assert not out.exists() and not (tmp_path / "escaped").exists()


# -- recordings given to `score` ---------------------------------------------------------------


def _dialogue(folder: Path) -> None:
    folder.mkdir(parents=True)
    turns = {
        "scenario_id": folder.name, "pair_id": "p", "condition": "explicit",
        "turns": [{"turn_id": 1, "speaker": "A", "label": "N3", "text": "hm", "start_ms": 0, "end_ms": 500}],
    }
    (folder / "turns.json").write_text(json.dumps(turns))
    (folder / "model.wav").write_bytes(b"RIFF")


def test_score_refuses_dialogue_folders_and_files_linked_from_elsewhere(tmp_path: Path) -> None:
    """A linked dialogue folder or file that leads out of the folder given is refused, in one line naming it:
    the whole command stops (nothing is scored), as every command refuses such a link (floorbench.paths)."""
    from floorbench.scoring.inputs import RefusedInput

    recs = tmp_path / "recs"
    _dialogue(recs / "d1")
    _dialogue(tmp_path / "elsewhere" / "d2")
    assert discover(recs).dialogues[0].error is None
    os.symlink(tmp_path / "elsewhere" / "d2", recs / "d2")
    with pytest.raises(RefusedInput, match=r"d2: d2 leads outside .*; keep it inside that folder"):
        discover(recs)
    (recs / "d2").unlink()
    _dialogue(recs / "d3")
    (recs / "d3" / "model.wav").unlink()
    os.symlink(tmp_path / "elsewhere" / "d2" / "model.wav", recs / "d3" / "model.wav")
    with pytest.raises(RefusedInput, match=r"model\.wav leads outside"):
        discover(recs)
    (recs / "d3" / "model.wav").unlink()
    (recs / "d3" / "takes").mkdir()
    (recs / "d3" / "takes" / "model.wav").write_bytes(b"RIFF")
    os.symlink("takes/model.wav", recs / "d3" / "model.wav")  # a link that stays inside is followed
    assert [d.error for d in discover(recs).dialogues] == [None, None]
