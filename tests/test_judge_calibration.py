"""The judges against people: the packaged calibration set, `judge-agreement --labels`.

The offline judge is run on every hand-labelled item of the packaged set and must not
fall below the floors measured for it (docs/scoring.md, "Calibration"); the labels are
never changed to suit the judge. The LLM path is checked end to end on a local
chat-endpoint stand-in that answers from a fixed table.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from support.chat_endpoint import send_chat_reply
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scoring.agreement_labels import CALIBRATION, load_labels
from floorbench.scoring.judges import Task
from floorbench.suites.mpe.tasks import FAMILIES

FLOORS = {
    # set: (answer, intrusion, every family); measured 0.988 / 1.000 / 0.92 (calibration) and
    # 0.985 / 1.000 / 0.80 (hold-out: families of 4-11 items, one miss is 0.80-0.91)
    "calibration": (0.97, 0.98, 0.90),
    "calibration-holdout": (0.95, 0.97, 0.75),
}
"""the offline judge's measured agreement with people, rounded down: a change that makes it
agree less fails here (the v1 judge: 0.777 / 0.945 and 0.788 / 0.922)"""


def test_the_calibration_set_covers_every_family_and_failure_kind() -> None:
    items = load_labels("calibration")
    answers = [i for i in items if i.task is Task.answer]
    intrusions = [i for i in items if i.task is Task.intrusion]
    assert len(answers) >= 300 and len(intrusions) >= 150
    assert set(FAMILIES) | {"code", "yes_no"} == {i.family for i in answers}
    assert {i.family for i in intrusions} == {"N1", "N2", "N3"}
    kinds = {i.kind for i in answers}
    assert {"digits", "words", "colloquial", "time", "unit", "code", "hedge", "both", "though", "negation",
            "correction", "partial", "refusal", "pleasantry", "paraphrase", "asr", "list"} <= kinds
    for task in (answers, intrusions):
        assert {i.label for i in task} == {"correct", "wrong"} or {i.label for i in task} == {"backchannel",
                                                                                            "intrusion"}
    lines = (CALIBRATION / "answers.jsonl").read_text().splitlines()
    assert sum('"source": "tiny.en<-' in line for line in lines) >= 50


@pytest.mark.slow
@pytest.mark.parametrize("labels", list(FLOORS))
def test_offline_judge_agreement_with_people_stays_above_its_floor(tmp_path: Path, labels: str) -> None:
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", labels, "--judge", "offline",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "judge_agreement.json").read_text())
    tasks = data["judges"]["offline"]["tasks"]
    answer, intrusion = tasks["answer"], tasks["intrusion"]
    answer_floor, intrusion_floor, family_floor = FLOORS[labels]
    assert answer["agreement"] >= answer_floor, answer["disagreements"]
    assert intrusion["agreement"] >= intrusion_floor, intrusion["disagreements"]
    low = {f: r["agreement"] for t in (answer, intrusion) for f, r in t["families"].items()
           if r["agreement"] < family_floor}
    assert not low
    # every disagreement is listed, and the confusion table adds up
    wrong_way = sum(c for k, c in answer["confusion"].items() if k.split("|")[0] != k.split("|")[1])
    assert wrong_way == len(answer["disagreements"]) and sum(answer["confusion"].values()) == answer["n"]
    assert "disagreements of offline" in res.output and "per family:" in res.output


def test_labels_file_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "gold": "7", "reply": "seven", "label": "right"}\n')
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", str(bad)])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: {bad}:1: label 'right' is not one of correct, wrong"
    res = CliRunner().invoke(app, ["judge-agreement"])
    assert res.exit_code == 2 and "needs --labels FILE, or a scored run folder and --b JUDGE" in res.output


TABLE = {"Forty-two dollars.": "correct", "Forty-two or forty-four dollars.": "correct",
         "Okay.": "backchannel", "Yes.": "intrusion"}
"""the stand-in's verdict for each reply: it agrees with people except on the hedge"""


class _TableJudge(BaseHTTPRequestHandler):
    prompts: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        _TableJudge.prompts.append(prompt)
        reply = next(r for r in sorted(TABLE, key=len, reverse=True) if f"transcript: {r}" in prompt
                     or f"meanwhile: {r}" in prompt)
        send_chat_reply(self, json.dumps({"verdict": TABLE[reply]}))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def table_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TableJudge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_llm_judge_on_labels_is_reported_beside_the_offline_judge(tmp_path: Path, table_url: str) -> None:
    labels = tmp_path / "labels.jsonl"
    rows = [
        {"id": "a1", "family": "sum_cost", "gold": "42 dollars", "reply": "Forty-two dollars.", "label": "correct"},
        {"id": "a2", "family": "sum_cost", "gold": "42 dollars", "reply": "Forty-two or forty-four dollars.",
         "label": "wrong"},
        {"id": "i1", "family": "N2", "turn": "Ben, it was 18 dollars.", "reply": "Okay.", "label": "backchannel"},
        {"id": "i2", "family": "N2", "turn": "Ben, are you coming?", "reply": "Yes.", "label": "intrusion"},
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", str(labels), "--judge", "llm:table",
                                   "--judge-base-url", table_url, "--judge-key-env", "FLOORBENCH_TEST_NO_KEY",
                                   "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "out" / "judge_agreement.json").read_text())
    assert list(data["judges"]) == ["offline", "llm:table"]
    llm = data["judges"]["llm:table"]["tasks"]
    assert (llm["answer"]["agreement"], llm["answer"]["kappa"]) == (0.5, 0.0)
    assert llm["answer"]["confusion"] == {"correct|correct": 1, "wrong|correct": 1}
    assert [d["id"] for d in llm["answer"]["disagreements"]] == ["a2"]
    assert (llm["intrusion"]["agreement"], llm["intrusion"]["kappa"]) == (1.0, 1.0)
    assert any(line.startswith("  offline@") for line in res.output.splitlines())
    assert any(line.startswith("  llm:table@") for line in res.output.splitlines())
    assert "disagreements of llm:table (1):" in res.output
    # the intrusion prompt states the yes/no rule explicitly
    assert any("were NOT asking Aria" in p and '"yes"' in p and '"no"' in p for p in _TableJudge.prompts)
