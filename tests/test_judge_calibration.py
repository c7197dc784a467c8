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
    # set: (answer, intrusion, every family); measured 0.994 / 1.000 / 0.88 (calibration),
    # 1.000 / 0.980 / 0.75 (hold-out: families of 4-11 items; N1 3 of 4: "Okay." after "Aria is
    # listening, so keep it down, everyone.", relabelled as accepting a command, read as a statement) and 1.000 / 1.000 / 1.00 (the blind
    # set's tuning half, issue 25). The two older sets' bare-token windows were relabelled, blind to
    # the judge, under issue 25's decision (a "yeah" after a statement acknowledges; an "okay" after
    # a request accepts); the blind hold-out is not read here (measured once, docs/scoring.md).
    "calibration": (0.99, 1.00, 0.87),
    "calibration-holdout": (0.99, 0.98, 0.75),
    "calibration-blind": (1.00, 1.00, 1.00),
    # issue 34's varied set, every source (varied-a..d): 1.000 / 0.990 / 0.98 (third round; 1.000 / 0.981 before) (the kept-out source varied-b, measured
    # once at the end: 28/28 answers, 18/19 windows: "Oh, brilliant, just brilliant." read as floor-holding)
    "calibration-varied": (1.00, 0.98, 0.98),
    # the first independent sample, tuning material since its one measurement (0.903 / 0.914 then):
    # 0.989 / 0.992 / 0.67 after the second issue-34 round (3 unsure: "lin new yen", "Carter Street",
    # "Vale."; closest_place 2 of 3 with one of them unsure)
    "calibration-independent": (0.98, 1.00, 0.66),  # windows 1.000 after the sixth round ("Vale." an acknowledgement)
    # the second independent sample, tuning material since its one measurement (0.860 / 0.924 then):
    # 1.000 / 1.000 / 1.00 after the third issue-34 round
    "calibration-independent2": (1.00, 1.00, 1.00),
    # the third independent sample, tuning material since its one measurement (0.846 / 0.892 then):
    # 0.970 / 0.981 after the fourth issue-34 round
    "calibration-independent3": (0.97, 1.00, 0.80),  # windows 1.000 after the sixth round
    # the fourth, measured once after the fourth round froze (independent4/README.md): 0.886 / 0.886;
    # 0.932 / 0.886 after split and misheard numbers were read (split_numbers.py); 0.992 / 0.994 / 0.86
    # after the sixth round (tuned on it: age 6 of 7, "seventy-nine now, eighty by next year"; one "Mm.")
    "calibration-independent4": (0.99, 0.99, 0.94),  # every family 0.95 or more after the eighth round
    # the fifth, measured once on the frozen sixth-round rules v2-294db5db (independent5/README.md):
    # 0.813 / 0.911 / 0.61 (duration 8 of 13; 2 and 6 unsure); 0.888 / 0.923 / 0.76 after the seventh
    # round, tuned on it (temperature 10 of 13): a figure of fit, not of generalisation; windows 0.976
    # (2 unsure) after the eighth round's window rules; answers 0.975 (1 unsure) / family 0.80 (weight 4 of
    # 5) after its answer rules, also fit
    "calibration-independent5": (0.97, 0.97, 0.80),
    # the sixth, seventh and eighth, written while the eighth round was tuned (their READMEs): on the
    # seventh round's rules 0.777 / 0.944, 0.804 / 0.935, 0.826 / 0.889; on the eighth round's 0.781 /
    # 0.944, 0.808 / 0.935, 0.826 / 0.889 (none read by the rules' authors: generalisation). The ninth
    # round was tuned on the sixth (0.899 / 0.944, fit; name 5 of 10); the seventh and eighth are still
    # kept out of tuning: 0.817 / 0.935 (duration 9 of 15) and 0.857 / 0.890 (name 8 of 14) after it
    "calibration-independent6": (0.89, 0.94, 0.50),
    # The tenth round was tuned on the seventh and eighth (0.963 / 0.976 / 0.86, duration 13 of 15;
    # 0.961 / 0.953 / 0.75, score 6 of 8: fit), which joined calibration-tuning then
    "calibration-independent7": (0.96, 0.97, 0.86),
    "calibration-independent8": (0.96, 0.95, 0.75),
    # the ninth and tenth, written blind at the start of the tenth round and measured on the ninth round's
    # rules (0.907 / 0.964 and 0.826 / 0.924) and again on the tenth's, which did not read them (0.917 /
    # 0.964 / 0.75, dose 3 of 4; 0.826 / 0.924 / 0.66, dose 6 of 9): kept out of tuning
    "calibration-independent9": (0.91, 0.96, 0.75),
    "calibration-independent10": (0.82, 0.92, 0.66),
    # every set the rules are tuned on, joined (2,062 + 1,295 with independent5): 0.972 / 0.987 / 0.80
    # (weight 4 of 5) on v2-294db5db; 0.993 / 0.998 before independent5 joined it; 0.981 / 0.988 / 0.80
    # after the seventh round; windows 0.995 (2 unsure) after the eighth round's window rules, answers 0.991
    # (4 unsure) after its answer rules; 0.982 / 0.990 / 0.85 (2,309 + 1,456) with independent6 joined;
    # 0.980 / 0.988 / 0.90 (2,779 + 1,797; score 38 of 42) after the tenth round, independent7/8 joined
    "calibration-tuning": (0.98, 0.98, 0.90),
}
"""the offline judge's measured agreement with people, rounded down: a change that makes it
agree less fails here (the v1 judge: 0.777 / 0.945 and 0.788 / 0.922; v2 before issue 25: 0.988 /
1.000, 0.985 / 1.000 and, on the blind tuning half, 0.935 / 0.892)"""
KAPPA_FLOORS = {"calibration-blind": (1.00, 1.00)}
"""Cohen's kappa (answers, windows) where it is measured against a third window label (silent)"""


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
    if labels in KAPPA_FLOORS:
        assert (answer["kappa"], intrusion["kappa"]) >= KAPPA_FLOORS[labels]
    low = {f: r["agreement"] for t in (answer, intrusion) for f, r in t["families"].items()
           if r["agreement"] < family_floor}
    assert not low
    # every disagreement is listed, grouped by the rule that decided it, and the tables add up
    for task in (answer, intrusion):
        wrong_way = sum(c for k, c in task["confusion"].items() if k.split("|")[0] != k.split("|")[1])
        assert wrong_way == len(task["disagreements"]) and sum(task["confusion"].values()) == task["n"]
        assert sum(g["n"] for g in task["disagreements_by_rule"]) == len(task["disagreements"])
        assert [g["n"] for g in task["disagreements_by_rule"]] == sorted(
            (g["n"] for g in task["disagreements_by_rule"]), reverse=True)
        assert sum(sum(row.values()) for row in task["matrix"]["rows"].values()) == task["n"]
    assert sum(sum(row.values()) for row in answer["wrong_by_kind"].values()) == sum(
        c for k, c in answer["confusion"].items() if k.startswith("wrong|"))
    assert "disagreements of offline" in res.output and "per family:" in res.output


def test_the_blind_set_loads_with_its_third_window_label_and_relabelled_lines() -> None:
    items = load_labels("calibration-blind")
    windows = [i for i in items if i.task is Task.intrusion]
    assert {i.label for i in windows} == {"silent", "backchannel", "intrusion"}
    assert all((i.label == "silent") == (not i.judge_input.transcript) for i in windows)
    assert {i.family for i in windows} == {"N1", "N2", "N3"}
    lines = (CALIBRATION / "blind" / "tuning" / "intrusions.jsonl").read_text().splitlines()
    assert sum('"relabelled": ' in line for line in lines) >= 1  # an extra field, accepted and ignored
    answers = [i for i in items if i.task is Task.answer]
    assert {i.label for i in answers} == {"correct", "wrong"} and len(answers) >= 200


def test_a_silent_window_passes_and_counts_in_the_confusion_matrix(tmp_path: Path) -> None:
    labels = tmp_path / "windows.jsonl"
    rows = [
        {"id": "w1", "family": "N2", "turn": "Ola, the ferry is at ten past six.", "reply": "", "label": "silent"},
        {"id": "w2", "family": "N2", "turn": "Ola, the ferry is at ten past six.", "reply": "Yep.",
         "label": "backchannel"},
        {"id": "w3", "family": "N2", "turn": "Ola, will you bring the snacks?", "reply": "Yep.", "label": "intrusion"},
        {"id": "w4", "family": "N2", "turn": "Ola, will you bring the snacks?", "reply": "Oh, sure.",
         "label": "backchannel"},
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", str(labels), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    task = json.loads((tmp_path / "out" / "judge_agreement.json").read_text())["judges"]["offline"]["tasks"][
        "intrusion"]
    assert task["matrix"]["labels"] == ["silent", "backchannel", "intrusion"]
    assert task["matrix"]["rows"] == {"silent": {"silent": 1, "backchannel": 0, "intrusion": 0},
                                      "backchannel": {"silent": 0, "backchannel": 1, "intrusion": 1},
                                      "intrusion": {"silent": 0, "backchannel": 0, "intrusion": 1}}
    assert task["agreement"] == 0.75
    assert task["disagreements_by_rule"] == [{"rule": "window.assent-accepts-request", "n": 1, "ids": ["w4"]}]
    assert "window.assent-accepts-request (1):" in res.output and "human \\ judge" in res.output
    # 'silent' goes with an empty reply, and only with one
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "turn": "Ola, hi.", "reply": "Hm.", "label": "silent"}\n')
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", str(bad)])
    assert res.exit_code == 2 and "'silent' goes with an empty reply" in res.output


def test_packaged_label_names_include_both_blind_halves() -> None:
    from floorbench.scoring.agreement_labels import PACKAGED

    assert PACKAGED["calibration-blind"] == CALIBRATION / "blind" / "tuning"
    assert PACKAGED["calibration-blind-holdout"] == CALIBRATION / "blind" / "holdout"  # frozen: not read here


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

    def log_message(self, format: str, *args: object) -> None:
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
    # the intrusion prompt states the assent rule explicitly: a bare "yes" is read by the turn it follows
    assert any("were NOT asking Aria" in p and '"yes"' in p and "yes/no question" in p for p in _TableJudge.prompts)


def test_agreement_by_source_with_and_without_unsure_and_a_source_held_out(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    turn = "Ola, the boiler broke again."
    rows = [
        {"id": "s1", "family": "N2", "turn": turn, "reply": "Oh no.", "label": "backchannel", "source": "author"},
        {"id": "s2", "family": "N2", "turn": turn, "reply": "It's the valve.", "label": "intrusion", "source": "author"},
        {"id": "s3", "family": "N2", "turn": turn, "reply": "How Tuesday!", "label": "backchannel", "source": "other"},
        {"id": "s4", "family": "N2", "turn": turn, "reply": "Aw.", "label": "backchannel", "source": "other"},
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["judge-agreement", "--labels", str(labels), "--out", str(out),
                                   "--hold-out-source", "other"])
    assert res.exit_code == 0, res.output
    task = json.loads((out / "judge_agreement.json").read_text())["judges"]["offline"]["tasks"]["intrusion"]
    # the unsure item counts as a disagreement in `agreement`, and is left out of `agreement_decided`
    assert (task["agreement"], task["agreement_decided"], task["unsure"], task["unsure_rate"]) == (0.75, 1.0, 1, 0.25)
    assert task["sources"]["author"]["agreement"] == 1.0 and task["sources"]["other"]["agreement"] == 0.5
    held = task["hold_out"]
    assert (held["tuning"]["n"], held["held_out"]["n"], held["gap"]) == (2, 2, 0.5)
    assert "held out other: 50.0%" in res.output and "unsure=1 (25.0%)" in res.output
    bad = CliRunner().invoke(app, ["judge-agreement", "--labels", str(labels), "--out", str(out),
                                   "--hold-out-source", "nobody"])
    assert bad.exit_code == 2 and "error: --hold-out-source 'nobody'" in bad.output


def test_labels_can_be_joined_and_the_packaged_sets_named() -> None:
    from floorbench.scoring.agreement_labels import label_files

    both = label_files("calibration-holdout+calibration-varied")
    assert both == label_files("calibration-holdout") + label_files("calibration-varied")
    assert CALIBRATION / "blind" / "holdout" / "answers.jsonl" not in label_files("calibration-all")
    tuning = label_files("calibration-tuning")  # every tuning set, the measured independent samples included
    assert tuning == label_files("calibration-all") + [
        f for n in ("", "2", "3", "4", "5", "6", "7", "8") for f in label_files(f"calibration-independent{n}")]
    assert CALIBRATION / "blind" / "holdout" / "answers.jsonl" not in tuning
    for kept_out in ("independent9", "independent10"):  # measured, never tuned on: not in the tuning pool
        assert not [f for f in tuning if kept_out in f.parts]
    sources = {i.source for i in load_labels("calibration-varied")}
    assert {"varied-a", "varied-b"} <= sources  # the tuning source and the one kept out of tuning
