"""`floorbench judge-agreement`, `score_async`, and the import hygiene of the scoring package."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]
from support.chat_endpoint import send_chat_reply
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.suites.mpe.agreement import cohen_kappa
from floorbench.suites.mpe.score import ScoreOptions, score_async

# scores whole recordings with the packaged ASR and MiniLM models: seconds per module
pytestmark = pytest.mark.slow


def test_cohen_kappa() -> None:
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == 0.0
    # po = 3/4, pe = (2*1 + 2*3) / 16 = 1/2: kappa = (3/4 - 1/2) / (1 - 1/2)
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "b", "b"]) == 0.5
    assert cohen_kappa([], []) is None


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    rec = tmp_path_factory.mktemp("agree") / "rec"
    for n, (answer, intr) in enumerate([("answer_taco", "backchannel"), ("answer_burger", "bare_number"),
                                        ("short_answer", "backchannel")]):
        turns = [
            build.Turn(1, "N2", 500, 2000, "Option one is the taco place."),
            build.Turn(2, "T", 4500, 6000, "Aria, which one is cheapest?", "the taco place", "D"),
            build.Turn(3, "N3", 14000, 15000, "Where are my keys?"),
        ]
        spec = build.DialogueSpec(f"a{n}", turns, [build.Speech(2100, intr), build.Speech(6600, answer)], 17000)
        build.write_dialogue(rec / spec.scenario_id, spec)
    out = rec.parent / "scored"
    result = asyncio.run(score_async(rec, ScoreOptions(out=out, resamples=200, workers=1)))
    assert result.scores.scenarios["scored"] == 3
    return out


class _StrictJudgeEndpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible judge that disagrees with the offline one in a known way:
    every answer is "correct", every speech in a silence window an "intrusion"."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        verdict = "intrusion" if "were NOT asking Aria" in prompt else "correct"
        send_chat_reply(self, json.dumps({"verdict": verdict}))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def strict_judge_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StrictJudgeEndpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_judge_agreement_counts_a_known_disagreement(scored: Path, strict_judge_url: str) -> None:
    # offline verdicts (from the clips): answers a0 taco → correct, a1 burger → wrong, a2 short → wrong;
    # silence windows a0, a2 "got it" → backchannel, a1 "twelve dollars" → intrusion
    res = CliRunner().invoke(
        app, ["judge-agreement", str(scored), "--a", "offline", "--b", "llm:strict",
              "--judge-base-url", strict_judge_url, "--judge-key-env", "FLOORBENCH_TEST_NO_KEY"],
    )
    assert res.exit_code == 0, res.output
    data = json.loads((scored / "judge_agreement.json").read_text())
    assert (data["judge_a"].split("@")[0], data["judge_b"].split("@")[0]) == ("offline", "llm:strict")
    answer, intrusion = data["tasks"]["answer"], data["tasks"]["intrusion"]
    assert answer["confusion"] == {"correct|correct": 1, "wrong|correct": 2}
    assert (answer["n"], answer["agreement"], answer["kappa"]) == (3, 0.3333, 0.0)
    assert sorted((d["scenario_id"], d["a"], d["b"]) for d in answer["disagreements"]) == [
        ("a1", "wrong", "correct"), ("a2", "wrong", "correct"),
    ]
    assert intrusion["confusion"] == {"backchannel|intrusion": 2, "intrusion|intrusion": 1}
    assert (intrusion["n"], intrusion["agreement"], intrusion["kappa"]) == (3, 0.3333, 0.0)
    # neither judge was unsure of these: agreement over the decided items is the same
    assert (intrusion["agreement_decided"], intrusion["unsure_a"], intrusion["unsure_b"]) == (0.3333, 0, 0)
    assert "decided only: 0.3333; unsure a=0 b=0" in res.output
    assert sorted((d["scenario_id"], d["a"], d["b"]) for d in intrusion["disagreements"]) == [
        ("a0", "backchannel", "intrusion"), ("a2", "backchannel", "intrusion"),
    ]


def test_judge_agreement_needs_a_scored_folder(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["judge-agreement", str(tmp_path), "--b", "offline"])
    assert res.exit_code == 2 and "run `floorbench score" in res.output


def test_importing_scoring_and_report_pulls_in_no_livekit_or_pipecat() -> None:
    code = (
        "import sys, floorbench.scoring, floorbench.suites.mpe.score, floorbench.scoring.commands, "
        "floorbench.report.render, floorbench.scoring.judges.llm, floorbench.suites.mpe.agreement;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('livekit', 'pipecat', 'torch'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_judge_agreement_help_names_every_packaged_label_set():
    """The --labels help lists the packaged and joined sets by name, so a new sample is not left out."""
    import inspect

    from floorbench.scoring import agreement_labels, commands

    default = inspect.signature(commands.judge_agreement_cmd).parameters["labels"].default
    for name in (*agreement_labels.PACKAGED, *agreement_labels.JOINED):
        assert f"'{name}'" in default.help, name
