"""The report: Markdown and self-contained HTML side by side, escaping, and a clean load in Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import escape as html_escape
from pathlib import Path

import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.report.render import write_report
from floorbench.suites.mpe.report import NO_CURVE
from floorbench.suites.mpe.score import ScoreOptions, score

# scores whole recordings with the packaged ASR and MiniLM models: seconds per module
pytestmark = pytest.mark.slow

EVIL = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def spec(sid: str, cond: str, speech: list[build.Speech]) -> build.DialogueSpec:
    turns = [
        build.Turn(1, "N2", 500, 2000, "Okay, option one: the taco place <b>on Fifth</b>."),
        build.Turn(2, "T", 2500, 4000, "Aria, which one is the cheapest?", "the taco place", "D"),
        build.Turn(3, "N3", 12000, 13000, "Where did I put my keys?"),
    ]
    return build.DialogueSpec(sid, turns, speech, 15000, pair_id=sid[:-2], condition=cond)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("report")
    good, chatty = root / "good", root / "chatty"
    for pair in ("p1", "p2"):
        for cond in ("explicit", "implicit"):
            sid = f"{pair}-{cond[:1]}"
            build.write_dialogue(good / sid, spec(sid, cond, [build.Speech(4600, "answer_taco")]))
            build.write_dialogue(
                chatty / sid,
                spec(sid, cond, [build.Speech(1000, "bare_number"), build.Speech(4600, "answer_burger")]),
            )
    for r in (good, chatty):
        score(r, ScoreOptions(out=r / "scored", resamples=500, workers=1))
    # a transcript that tries to inject markup must stay text in every output
    items = (chatty / "scored" / "items.jsonl").read_text().splitlines()
    first = json.loads(items[0])
    first["transcript"] = EVIL
    items[0] = json.dumps(first)
    (chatty / "scored" / "items.jsonl").write_text("\n".join(items) + "\n")
    return good / "scored", chatty / "scored"


def test_markdown_and_html_compare_runs_side_by_side(runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["report", str(runs[0]), str(runs[1]), "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert md.count("| Fresh-onset response rate | 1.000 [1.000, 1.000] (n=2) | 1.000 [1.000, 1.000] (n=2) |") == 2
    assert md.count("| Conditional answer accuracy | 1.000 [1.000, 1.000] (n=2) | 0.000 [0.000, 0.000] (n=2) |") == 2
    assert md.count("| Silence keeping | 1.000 [1.000, 1.000] (n=4) | 0.500 [0.500, 0.500] (n=4) |") == 2
    assert "| Yield rate | — (n=0) | — (n=0) |" in md
    assert "| good | 2 | 0 | 0 | 2 | 0 | 1.0000 |" in md  # McNemar, per run
    assert "| good | chatty | explicit | 2 | 1.000 | 0.000 | 2 | 0 | 0.5000 |" in md  # paired accuracy
    # escaping: markup in transcripts and turn texts never reaches the page as markup
    for text in (md, html):
        assert "<script" not in text and "<img" not in text and "<b>" not in text
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in html
    assert "&lt;b&gt;on Fifth&lt;/b&gt;" in html
    # self-contained: no external resources
    assert not re.search(r"""<[^>]*\s(src|href)=|url\(|@import""", html)
    assert html.count("<svg") >= 6 + 4  # six metric charts and the dialogue timelines


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_html_opens_in_headless_chromium_without_errors(runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["report", str(runs[0]), str(runs[1]), "--out", str(out)])
    assert res.exit_code == 0, res.output
    proc = subprocess.run(
        [
            str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
            "--dump-dom", (out / "report.html").as_uri(),
        ],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert "<title>floorbench report</title>" in dom  # the injected script never ran
    assert "<script" not in dom and "pwned" in dom  # present, as text
    assert dom.count("<svg") >= 10 and "Dialogue timelines" in dom
    console = [ln for ln in proc.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert console == []


def test_report_draws_the_curve_scoring_stored_without_running_vad(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import floorbench.audio.vad as vad

    def no_silero(*_a: object, **_k: object) -> None:
        raise AssertionError("the report ran Silero")

    monkeypatch.setattr(vad, "speech_probabilities_many", no_silero)
    monkeypatch.setattr(vad, "vad_session", no_silero)
    lines = (runs[0] / "vad.jsonl").read_text().splitlines()
    for line in lines:
        row = json.loads(line)
        assert len(line) < 4000  # a few kB per dialogue at most
        step = row["curve_step_ms"]
        assert step >= 96 and step % 32 == 0
        assert len(row["probability_pct"]) == len(row["envelope_pct"]) == -(-(row["duration_ms"] // 32) // (step // 32))
        assert all(0 <= v <= 100 for v in row["probability_pct"] + row["envelope_pct"])
        assert max(row["envelope_pct"]) == 100 and max(row["probability_pct"]) > 50  # the answer is speech
    _, html = write_report([runs[0]], tmp_path / "rep")
    text = html.read_text()
    assert text.count('class="prob"') == len(lines) and text.count('class="env"') == len(lines)
    assert NO_CURVE not in text


def test_a_folder_scored_before_curves_were_stored_still_reports(runs: tuple[Path, Path], tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(runs[0], old)
    rows = [json.loads(x) for x in (old / "vad.jsonl").read_text().splitlines()]
    for r in rows:
        for k in ("curve_step_ms", "probability_pct", "envelope_pct"):
            del r[k]
    (old / "vad.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = CliRunner().invoke(app, ["report", str(old), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    text = (tmp_path / "rep" / "report.html").read_text()
    assert 'class="prob"' not in text and 'class="env"' not in text
    assert text.count(html_escape(NO_CURVE)) == len(rows)
    assert text.count('class="seg"') >= len(rows)  # speech segments are still drawn


def test_a_broken_scores_json_is_one_line(runs: tuple[Path, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(runs[0], bad)
    (bad / "scores.json").write_text('{"created": 1}')
    res = CliRunner().invoke(app, ["report", str(bad), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1 and "not a scores.json of this version" in res.output


def test_unscorable_items_are_shown_beside_n_and_never_as_pass_or_fail() -> None:
    from floorbench.suites.mpe.items import Item, Kind, Metric
    from floorbench.suites.mpe.metrics import MetricScore
    from floorbench.suites.mpe.report import _summary
    from floorbench.suites.mpe.report_tables import SPLIT_TITLES, fmt_score

    assert fmt_score(MetricScore(value=0.5, n=2, passed=1, unscorable=3), with_ci=False) == "0.500 (n=2, unscorable 3)"
    assert fmt_score(MetricScore(value=None, n=0, passed=0, unscorable=1)) == "— (n=0, unscorable 1)"
    assert fmt_score(MetricScore(value=1.0, n=4, passed=4), with_ci=False) == "1.000 (n=4)"
    assert SPLIT_TITLES["late_onset"] == "  late onset (after 5000 ms; not presence)"
    common = dict(scenario_id="s", pair_id="p", condition="explicit", label="N3", window_start_ms=0,
                  window_end_ms=10)
    items = [
        Item(metric=Metric.silence_keeping, turn_id=1, counted=True, passed=True, kind=Kind.silent, reason="",
             **common),
        Item(metric=Metric.silence_keeping, turn_id=2, counted=False, passed=None, kind=Kind.unscorable,
             reason="", **common),
    ]
    assert _summary(items) == "1/1 items passed; 1 unscorable (past the end of the recording)"
