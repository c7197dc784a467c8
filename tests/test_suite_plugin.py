"""A suite from outside floorbench: installed by entry point, then generated, validated, rendered,
run live and scored — with no engine file changed.

The suite `knock` lives in a package written to a temporary folder, with a dist-info that
declares it under the entry point group ``floorbench.suites``, exactly as a third-party
distribution would after ``pip install``. Its parts are the least a suite needs: a schema and
validator, suite info, a generator, a live schedule (each knock, then a wait for the answer),
the oracle's lines, and a scorer that counts the knocks the model answered. The run's model
child process finds the suite the same way (the folder is on its PYTHONPATH), since it loads
the scenario file itself.

The live run plays the oracle (it answers every knock) and `silent` (it answers none), so the
scorer's two extremes are both seen; a run whose room failed is a test failure with its reason.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from floorbench import plugins as registry

PACKAGE = {
    "__init__.py": '''
        """Suite `knock`: the user knocks; the model should answer each knock (a minimal plug-in)."""

        from floorbench.plugins import SuitePlugin

        PLUGIN = SuitePlugin(
            name="knock",
            summary="answer the door: one knock, one answer",
            doc="(outside floorbench)",
            labels=("knock",),
            load_scenario="knock_suite.schema:load_scenario",
            suite_info="knock_suite.schema:suite_info",
            generate="knock_suite.schema:generate",
            live_schedule="knock_suite.schedule:live_schedule",
            oracle="knock_suite.oracle:oracle",
            recognises="knock_suite.score:recognises",
            score="knock_suite.score:score",
        )
    ''',
    "schema.py": '''
        from __future__ import annotations

        from pathlib import Path
        from typing import Literal

        import yaml
        from pydantic import BaseModel, ValidationError

        from floorbench.scenarios.info import SuiteInfo
        from floorbench.scenarios.schema import Speaker
        from floorbench.scenarios.validate import ScenarioError, check_audio


        class Knock(BaseModel):
            id: int
            speaker: str = "U"
            label: Literal["knock"] = "knock"
            text: str
            reply: str
            audio: str | None = None
            gold: str | None = None


        class KnockScenario(BaseModel):
            schema_version: int = 1
            suite: Literal["knock"] = "knock"
            scenario_id: str
            speakers: dict[str, Speaker]
            turns: list[Knock]

            @property
            def run_fields(self) -> dict[str, str]:
                return {"knocks": str(len(self.turns))}


        def load_scenario(path, data, root=None, audio=False, strict_vocab=False):
            try:
                s = KnockScenario.model_validate(data)
            except ValidationError as e:
                raise ScenarioError(f"{path}: not a knock scenario ({e.errors()[0]['msg']}); fix it") from None
            if audio:
                for t in s.turns:
                    check_audio(root or path.parent, t.audio, f"{path}: knock {t.id}", required=True)
            return s


        def suite_info(suite, root, check_audio):
            n = sum(len(s.turns) for s in suite.scenarios)
            return SuiteInfo(
                name=suite.suite.name, root=str(root), pairs=0, scenarios=len(suite.scenarios),
                sample_rate=suite.suite.sample_rate, generator=None, labels={"knock": n}, attributes={},
                tasks={}, humans={1: len(suite.scenarios)}, turns_mean_x100=100 * n // len(suite.scenarios),
                turns_min=n, turns_max=n, request_quintiles={}, differs={},
                rendered=all(t.audio for s in suite.scenarios for t in s.turns),
            )


        def generate(req):
            out = Path(req.out)
            (out / "scenarios").mkdir(parents=True, exist_ok=True)
            header = {"schema_version": 1, "name": out.name, "suite": "knock", "sample_rate": 16000,
                      "preamble": {"text": "", "voice": "flite:slt"}}
            (out / "suite.yaml").write_text(yaml.safe_dump(header))
            lines = ["Knock knock.", "Hello, is anyone home?", "It's the neighbour, open up."]
            for n in range(req.pairs):
                s = {"suite": "knock", "scenario_id": f"knock{n + 1:02d}",
                     "speakers": {"U": {"name": "Visitor", "voice": "flite:slt"}},
                     "turns": [{"id": i + 1, "text": lines[(n + i) % 3], "reply": "Who is there?"} for i in range(2)]}
                (out / "scenarios" / f"knock{n + 1:02d}.yaml").write_text(yaml.safe_dump(s))
            return f"wrote {req.pairs} knock scenarios to {out}"
    ''',
    "schedule.py": '''
        from __future__ import annotations

        import asyncio

        from floorbench.pipelines.room.schedule import MS, LivePlan, LiveRequest, Playback
        from floorbench.records import EventKind

        WAIT_MS = 3000


        class KnockSchedule:
            def __init__(self, scenario, audio, rate):
                self.scenario, self.audio, self.rate = scenario, audio, rate

            def describe(self):
                return {"policy": "knock", "wait_ms": WAIT_MS}

            async def run(self, pb: Playback) -> None:
                w = pb.writer
                at = w.cursor + self.rate // 2
                for t in self.scenario.turns:
                    clip = w.schedule(self.audio[t.id], at, f"knock {t.id}")
                    pb.log(EventKind.turn_start, turn_id=t.id, sample=clip.start, t_ms=w.playout_ns(clip.start) // MS,
                           label="knock", speaker=t.speaker, reason="scheduled")
                    await clip.written.wait()
                    pb.log(EventKind.turn_end, turn_id=t.id, sample=clip.end, t_ms=w.playout_ns(clip.end) // MS,
                           label="knock")
                    await asyncio.sleep(WAIT_MS / 1000)  # the model's turn to answer
                    at = w.cursor
                pb.log(EventKind.end, sample=w.cursor, t_ms=w.playout_ns(w.cursor) // MS)


        def live_schedule(req: LiveRequest) -> LivePlan:
            return LivePlan(KnockSchedule(req.scenario, req.turn_audio, req.sample_rate), req.audio_s + 60)
    ''',
    "oracle.py": '''
        from floorbench.processors.reference import OracleClip, OraclePlan


        def oracle(scenario, suite, settings):
            return OraclePlan([OracleClip("knock", t.audio, t.reply) for t in scenario.turns])
    ''',
    "score.py": '''
        from __future__ import annotations

        import json
        from pathlib import Path

        from floorbench.audio.vad import probabilities_to_segments, speech_probabilities
        from floorbench.scoring.inputs import discover, read_model_track
        from floorbench.scoring.outcome import ScoreOutcome, ScoreRequest


        def recognises(target: Path) -> bool:
            d = discover(target)
            return any(x.turns and x.turns.turns and x.turns.turns[0].label == "knock" for x in d.scorable)


        def score(target: Path, req: ScoreRequest) -> ScoreOutcome:
            disc = discover(target)
            answered = knocks = 0
            for d in disc.scorable:
                assert d.turns is not None
                audio, rate = read_model_track(d.folder / "model.wav")
                segs = probabilities_to_segments(speech_probabilities(audio))
                for t in d.turns.turns:
                    knocks += 1
                    answered += any(t.end_ms <= s < t.end_ms + 3000 for s, _ in segs)
            out = req.out or target
            out.mkdir(parents=True, exist_ok=True)
            result = {"suite": "knock", "knocks": knocks, "answered": answered, "dialogues": len(disc.scorable)}
            (out / "knock_scores.json").write_text(json.dumps(result))
            return ScoreOutcome(scored=len(disc.scorable), errors=disc.errors,
                                summary=[f"answered {answered} of {knocks} knocks"],
                                wrote=f"wrote {out / 'knock_scores.json'}", nothing_scored=f"{target}: no knock dialogue")
    ''',
}


@pytest.fixture
def knock_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The suite installed as a distribution would be: a package plus a dist-info with its entry point."""
    site = tmp_path / "site"
    pkg = site / "knock_suite"
    pkg.mkdir(parents=True)
    for name, text in PACKAGE.items():
        (pkg / name).write_text(textwrap.dedent(text).lstrip())
    info = site / "knock_suite-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: knock-suite\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[floorbench.suites]\nknock = knock_suite:PLUGIN\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    registry.reload_entry_points()
    yield site
    sys.modules.pop("knock_suite", None)
    registry.unregister_suite("knock")
    registry.reload_entry_points()


def test_an_installed_suite_is_found_by_name_and_its_parts_load_lazily(knock_installed: Path) -> None:
    assert "knock" in registry.suite_names()
    plugin = registry.get_suite("knock")
    assert plugin.labels == ("knock",) and plugin.has("score") and not plugin.has("report")
    assert "knock_suite.score" not in sys.modules  # nothing of it imported until a part is asked for
    assert callable(plugin.part("score")) and "knock_suite.score" in sys.modules
    with pytest.raises(registry.SuiteNotFound, match="has no 'report'"):
        plugin.part("report")
    with pytest.raises(registry.SuiteNotFound, match="no suite 'nope'; the suites are mpe, turns, av, agent, knock"):
        registry.get_suite("nope")


def test_register_suite_by_decorator_replaces_and_forgets() -> None:
    @registry.register_suite
    def _plugin() -> registry.SuitePlugin:
        return registry.SuitePlugin(name="decorated", summary="", doc="", load_scenario="m:a",
                                    suite_info="m:b", live_schedule="m:c", score="m:d")

    try:
        assert registry.get_suite("decorated").summary == "" and "decorated" in registry.suite_names()
    finally:
        registry.unregister_suite("decorated")
    assert "decorated" not in registry.suite_names()


def test_the_old_address_is_the_same_registry_and_names_no_default_suite() -> None:
    from floorbench.suites import registry as old

    @old.register_suite
    def _plugin() -> old.SuitePlugin:
        return old.SuitePlugin(name="via-old", summary="old", doc="", load_scenario="m:a",
                               suite_info="m:b", live_schedule="m:c", score="m:d")

    try:
        assert registry.get_suite("via-old").summary == "old"  # one registration, whichever address
    finally:
        old.unregister_suite("via-old")
    with pytest.raises(registry.SuiteNotFound, match="no suite named"):
        old.get_suite("")


@pytest.mark.live
def test_an_out_of_tree_suite_generates_validates_runs_live_and_scores(
    tmp_path: Path, knock_installed: Path, livekit
) -> None:
    from floorbench.cli import app
    from floorbench.pipelines.run.runner import RunOptions, run_suite

    suite = tmp_path / "knock-suite"
    cli = CliRunner()
    res = cli.invoke(app, ["generate", "--suite", "knock", "--out", str(suite), "--pairs", "1"])
    assert res.exit_code == 0 and "wrote 1 knock scenarios" in res.output, res.output
    res = cli.invoke(app, ["render", str(suite)])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["suite", "info", str(suite), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["labels"] == {"knock": 2}

    answered = {}
    for model in ("oracle", "silent"):
        out = tmp_path / model
        asyncio.run(run_suite(RunOptions(suite=suite, model=model, out=out, connection=livekit, progress=False,
                                         config={"response_delay_ms": 300} if model == "oracle" else {})))
        meta = json.loads((out / "knock01" / "meta.json").read_text())
        assert meta["outcome"] == "completed", meta.get("failure_reason")
        assert meta["schedule"]["policy"] == "knock"  # the plug-in's schedule played the room
        res = cli.invoke(app, ["score", str(out), "--out", str(tmp_path / f"{model}-scored")])
        assert res.exit_code == 0, res.output
        scores = json.loads((tmp_path / f"{model}-scored" / "knock_scores.json").read_text())
        assert scores["knocks"] == 2
        answered[model] = scores["answered"]
    assert answered == {"oracle": 2, "silent": 0}
