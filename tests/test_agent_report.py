"""The report of a `floorbench test` run (docs/testing.md "The report"), from a real judged run folder.

The run is made as tests/test_agent_scoring.py makes one (real synthesized speech in model.wav, the
real VAD and ASR), judged by `_judge` as `floorbench test` judges it; the HTML is read back with
html.parser: a section per test with its verdict and rate, every trial's assertions with their
measured values, recordings linked by relative paths inside the run, every text from a file escaped.
"""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from typer.testing import CliRunner

from floorbench.records import Outcome
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.validate import load_test_file
from tests.test_agent_scoring import TESTS, make_trial

pytestmark = pytest.mark.slow  # Silero, flite and tiny.en on a few seconds of audio
HOSTILE = "<script>alert(1)</script>"
HOSTILE_WORDS = '<img src=x onerror="alert(2)"> & </table>'
VOID = {"meta", "br", "img", "input", "link", "hr", "source", "wbr"}


class Page(HTMLParser):
    """Tags checked for balance; text, <audio> sources, and each section's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []
        self.audio: list[str] = []
        self.tags: list[str] = []
        self.sections: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "audio":
            self.audio.append(dict(attrs).get("src") or "")
        if tag == "section":
            self.sections.append([])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.sections and "section" in self.stack:
            self.sections[-1].append(data)


def parse(html: str) -> Page:
    p = Page()
    p.feed(html)
    p.close()
    assert not p.errors and not p.stack, (p.errors, p.stack)
    return p


TWO_TESTS = TESTS + TESTS.split("tests:\n", 1)[1].replace("name: greet", "name: other").replace(
    "say: hello", 'say: hello <b>there</b> & "you"')


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A judged test run: greet ×2 (a reply; a silent agent), other ×2 (a reply; a failed room), and greet's
    second trial renamed in its meta.json to a hostile test name; a caller recording linked out of the run."""
    from floorbench.suites.agent.commands import _judge

    tmp = tmp_path_factory.mktemp("report")
    (tmp / "t.yaml").write_text(TWO_TESTS)
    tests = load_test_file(tmp / "t.yaml")
    scen = {s.scenario_id: s for s in write_test_suite(tests, tmp / "suite", 2)}
    out = tmp / "out"
    run = out / "run"
    make_trial(run, scen["greet.t1"], 2600)
    make_trial(run, scen["greet.t2"], 0)
    make_trial(run, scen["other.t1"], 2600)
    make_trial(run, scen["other.t2"], 2600, Outcome.failed)
    meta = run / "greet.t2" / "meta.json"
    data = json.loads(meta.read_text())
    data["schedule"]["test"] = HOSTILE
    meta.write_text(json.dumps(data))
    (tmp / "secret.wav").write_bytes((run / "greet.t1" / "model.wav").read_bytes())
    os.symlink(tmp / "secret.wav", run / "greet.t1" / "humans.wav")  # a link out of the run: never embedded
    _judge(tests, out, run, 2, "tiny.en", None, None, None, 100)
    return out, json.loads((out / "results.json").read_text())


def test_judging_writes_both_pages_that_parse_with_balanced_tags(judged: tuple[Path, dict[str, Any]]) -> None:
    out, _ = judged
    page = parse((out / "report.html").read_text(encoding="utf-8"))
    assert "script" not in page.tags and "img" not in page.tags  # no markup from a file became a tag
    assert (out / "report.md").is_file()


def test_a_section_per_test_with_its_verdict_rate_threshold_and_latency(judged: tuple[Path, dict[str, Any]]) -> None:
    out, results = judged
    page = parse((out / "report.html").read_text(encoding="utf-8"))
    sections = ["".join(s) for s in page.sections]
    assert len(sections) == len(results["tests"]) == 3
    for t, text in zip(results["tests"], sections, strict=True):
        status = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}[t["status"]]
        lo, hi = t["ci"]
        assert text.startswith(status) and t["test"] in text.split("\n")[0]
        if t["n"]:
            assert f"{t['k']}/{t['n']} = {t['rate']:.2f} [{lo:.2f}–{hi:.2f}]" in text
        assert f"{t['pass_threshold']:.2f}" in text and "Wilson" in text
        lat = t["latency"]
        if lat["p95_ms"] is not None:
            assert f"p95 {lat['p95_ms']} ms over {lat['turns']} turns" in text
    other = sections[[t["test"] for t in results["tests"]].index("other")]
    assert other.startswith("ERROR") and "the room failed (model_crashed)" in other  # an error shows its reason


def test_every_trial_shows_its_assertions_measured_values_and_its_conversation(
    judged: tuple[Path, dict[str, Any]],
) -> None:
    out, results = judged
    page = parse((out / "report.html").read_text(encoding="utf-8"))
    text = "".join(page.text)
    for t in results["trials"]:
        assert t["scenario_id"] in text
        for a in t["assertions"]:
            assert a["measured"] and a["measured"] in text, a
            assert f"{a['check']}{a['expected']}{a['measured']}" in text, a  # one row: its cells in order
    conv = next(t for t in results["trials"] if t["scenario_id"] == "greet.t1")["conversation"]
    assert conv["agent_speech"] and conv["steps"][0]["start_ms"] == 1000
    assert any("banana" in w["text"].lower() for w in conv["words"])
    assert "agent speech" in text and "step 1 say 1000–2000 ms" in text  # the timeline's own labels
    assert page.tags.count("svg") == sum(t["conversation"] is not None for t in results["trials"])
    assert 'hello <b>there</b> & "you"' in text  # the caller's line from the test file, shown as text


def test_recordings_are_linked_relative_inside_the_run_and_a_link_out_is_not(
    judged: tuple[Path, dict[str, Any]],
) -> None:
    out, _ = judged
    html = (out / "report.html").read_text(encoding="utf-8")
    page = parse(html)
    assert page.audio, "no recording linked"
    run = (out / "run").resolve()
    for src in page.audio:
        parts = urlsplit(src)
        assert not parts.scheme and not parts.netloc and not src.startswith("/"), src
        target = (out / unquote(src)).resolve()
        assert target.is_file() and target.is_relative_to(run), src
    assert "run/greet.t1/model.wav" in page.audio
    assert not any("humans.wav" in s for s in page.audio) and "secret" not in html
    assert "humans.wav not linked: it leads outside the run folder" in "".join(page.text)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "[agent](run/greet.t1/model.wav)" in md and "secret" not in md


def test_a_hostile_test_name_and_transcript_are_text(judged: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    from floorbench.suites.agent.report import write_test_report

    out, results = judged
    assert HOSTILE in [t["test"] for t in results["tests"]]
    trial = next(t for t in results["trials"] if t["scenario_id"] == "greet.t1")
    trial["conversation"]["words"][0]["text"] = HOSTILE_WORDS
    trial["assertions"][0]["measured"] = HOSTILE_WORDS
    trial["assertions"][1]["measured"] = ""  # a value lost: shown as missing, never as a pass
    md, html_path = write_test_report(tmp_path, results, out / "run")
    html = html_path.read_text(encoding="utf-8")
    page = parse(html)
    text = "".join(page.text)
    assert HOSTILE in text and HOSTILE_WORDS in text
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md.read_text(encoding="utf-8")
    lost = trial["assertions"][1]
    assert f"FAILstep {lost['step']}{lost['check']}{lost['expected']}no measured value (evidence missing)" in text
    for src in page.audio:  # written elsewhere, the links still lead into the run, relative to the page
        target = (tmp_path / unquote(src)).resolve()
        assert not src.startswith("/") and target.is_file() and target.is_relative_to((out / "run").resolve())


def test_floorbench_report_renders_a_test_run(judged: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    from floorbench.cli import app

    out, _ = judged
    res = CliRunner().invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    page = parse((tmp_path / "rep" / "report.html").read_text(encoding="utf-8"))
    assert len(page.sections) == 3 and page.audio and all(s.startswith("../") for s in page.audio)
    res = CliRunner().invoke(app, ["report", str(out), str(out), "--out", str(tmp_path / "two")])
    assert res.exit_code == 2 and "one `floorbench test` folder at a time" in res.output


def test_a_recording_is_linked_only_when_it_resolves_inside_the_run(tmp_path: Path) -> None:
    from floorbench.suites.agent.report import recording_src

    run = tmp_path / "out" / "run"
    (run / "a.t1").mkdir(parents=True)
    (run / "a.t1" / "model.wav").write_bytes(b"RIFF")
    (tmp_path / "elsewhere.wav").write_bytes(b"RIFF")
    (run / "a.t2").mkdir()
    os.symlink(tmp_path / "elsewhere.wav", run / "a.t2" / "model.wav")
    os.symlink(run / "a.t1" / "model.wav", run / "a.t2" / "humans.wav")  # a link that stays inside: followed
    out = tmp_path / "out"
    assert recording_src(out, run, "a.t1", "model.wav") == ("run/a.t1/model.wav", "")
    assert recording_src(out, run, "a.t2", "model.wav")[0] is None
    assert recording_src(out, run, "a.t2", "humans.wav") == ("run/a.t1/model.wav", "")
    for hostile in ("../..", "/etc", "a.t1/../../.."):
        src, why = recording_src(out, run, hostile, "model.wav")
        assert src is None and "outside the run folder" in why
    assert recording_src(out, run, "a.t3", "model.wav") == (None, "no model.wav recorded")
