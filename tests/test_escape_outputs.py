"""Every field that comes from a file is escaped in every output (floorbench.escape).

A run name, a scenario id, a transcript, a reason: text anybody may have
written. Planted here with markup (``<script>``), a table break (``|``), a
newline, a terminal escape (``\\x1b[31m``) and a right-to-left override
(U+202E), it must reach no report, table or terminal line as anything but
visible, inert text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.escape import html_text, md_cell, md_table, printable

NASTY = "x<script>alert(1)</script>|col\nnext\x1b[31mred\u202eevil"
RAW = ("<script", "\x1b", "\u202e", "\nnext")


def _clean(text: str, where: str, terminal: bool = False) -> None:
    """No raw markup (in a file), no raw newline, terminal escape or bidi override (anywhere)."""
    for raw in RAW[1:] if terminal else RAW:
        assert raw not in text, f"{raw!r} raw in {where}"


def _table_lines_whole(md: str) -> None:
    """Each Markdown table row is one line with as many cells as its table's header."""
    cols = None
    for line in md.splitlines():
        if not line.startswith("|"):
            cols = None
            continue
        n = len(re.split(r"(?<!\\)\|", line)) - 2
        cols = n if cols is None else cols
        assert n == cols, line


def test_the_escapes() -> None:
    assert printable(NASTY) == "x<script>alert(1)</script>|col\\nnext\\x1b[31mred\\u202eevil"
    assert md_cell(NASTY) == "x&lt;script&gt;alert(1)&lt;/script&gt;\\|col\\nnext\\x1b[31mred\\u202eevil"
    assert html_text(NASTY) == (
        "x&lt;script&gt;alert(1)&lt;/script&gt;|col\\nnext\\x1b[31mred\\u202eevil"
    )
    table = md_table(NASTY, ["a", NASTY], [["1", NASTY]])
    _clean(table, "md_table")
    _table_lines_whole(table)
    assert printable("plain: naïve café — 12 ms") == "plain: naïve café — 12 ms"


def test_the_av_report_escapes_every_field(tmp_path: Path) -> None:
    from tests.test_av_score_run import build_run

    run = build_run(tmp_path / "a")
    res = CliRunner().invoke(app, ["score", str(run), "--out", str(tmp_path / "sa"), "--workers", "1",
                                   "--resamples", "100"])
    assert res.exit_code == 0, res.output
    path = tmp_path / "sa" / "av_scores.json"
    scores = json.loads(path.read_text())
    scores["run"] = NASTY
    for c in scores["clips"]:
        c.update(scenario_id=NASTY, dynamic=NASTY, category=NASTY, takeover=NASTY, expected_takeover=NASTY,
                 speech_in_window_ms=NASTY, words_in_window=NASTY, latency_ms=NASTY, latency_note=NASTY,
                 description=NASTY, transcript={"before": NASTY, "inside": NASTY, "after": NASTY})
    for u in scores["unscorable"] if isinstance(scores.get("unscorable"), list) else []:
        if isinstance(u, dict):
            u.update({k: NASTY for k in u if isinstance(u[k], str)})
    path.write_text(json.dumps(scores))
    res = CliRunner().invoke(app, ["report", str(tmp_path / "sa"), "--out", str(tmp_path / "rep"),
                                   "--title", NASTY])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    _clean(md, "report.md")
    _clean(html, "report.html")
    _table_lines_whole(md)
    assert md.count("x&lt;script&gt;alert(1)&lt;/script&gt;\\|col\\nnext\\x1b[31mred\\u202eevil") >= 3
    assert "takeover x&lt;script&gt;" in html and "expected x&lt;script&gt;" in html


def test_the_turns_report_escapes_every_field(tmp_path: Path) -> None:
    import numpy as np
    import soundfile as sf

    from tests.test_turns_scoring import clip

    d = tmp_path / "rec" / "dlg"
    d.mkdir(parents=True)
    model = np.zeros(8 * 16000, dtype=np.int16)
    sf.write(str(d / "model.wav"), model, 16000)
    turns = {"scenario_id": "dlg", "pair_id": "dlg", "condition": "casual", "model_wav_end_ms": 8000,
             "turns": [c.model_dump() for c in (clip(1, "pause", 500, 1500), clip(2, "eot", 2400, 4000))]}
    (d / "turns.json").write_text(json.dumps(turns))
    res = CliRunner().invoke(app, ["score", str(tmp_path / "rec"), "--out", str(tmp_path / "out"),
                                   "--resamples", "100", "--workers", "1"])
    assert res.exit_code == 0, res.output
    path = tmp_path / "out" / "turns_scores.json"
    scores = json.loads(path.read_text())
    scores["run"] = NASTY
    for dlg in scores["dialogues"]:
        dlg["conversation_type"] = NASTY
    path.write_text(json.dumps(scores))
    res = CliRunner().invoke(app, ["report", str(tmp_path / "out"), "--out", str(tmp_path / "rep"),
                                   "--title", NASTY])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    _clean(md, "report.md")
    _clean(html, "report.html")
    _table_lines_whole(md)
    assert "x&lt;script&gt;alert(1)&lt;/script&gt;\\|col\\nnext\\x1b[31mred\\u202eevil" in md


def test_the_run_lines_show_ids_and_reasons_escaped() -> None:
    from floorbench.pipelines.run.progress import describe_outcome
    from floorbench.records import ClockAnchor, FailureKind, Outcome, RunMeta

    meta = RunMeta(floorbench_version="0", scenario_id=NASTY, pair_id="p", condition="explicit", suite="s",
                   room="r", created_wall_ns=0, anchor=ClockAnchor(wall_ns=0, monotonic_ns=0), model={},
                   outcome=Outcome.failed, failure_kind=FailureKind.model_error, failure_reason=NASTY)
    line = describe_outcome(meta)
    _clean(line, "the progress line", terminal=True)
    assert line.startswith("x<script>alert(1)</script>|col\\nnext\\x1b[31mred\\u202eevil: failed")


def test_an_error_line_of_run_shows_a_typed_id_escaped(tmp_path: Path) -> None:
    from tests.conftest import TINY_SUITE

    res = CliRunner().invoke(app, ["run", "--model", "silent", "--suite", str(TINY_SUITE), "--out",
                                   str(tmp_path / "o"), "--scenario", NASTY])
    assert res.exit_code == 2, res.output
    _clean(res.output, "run", terminal=True)
    assert len(res.output.strip().splitlines()) == 1, res.output
