"""The report of a `floorbench test` run: OUT/report.html and OUT/report.md (docs/testing.md "The report").

Written from what `_judge` puts in results.json, every time it judges (a
`--resume` included), and again by `floorbench report OUT`. A section per
test — its verdict, k/n, the pass rate with its Wilson interval and
threshold, the pooled latency p50/p95, each assertion's rate over the trials
— then per trial: the conversation on one time axis (the caller's steps as
heard, the agent's speech segments from VAD, the windows ASR transcribed and
what it heard), every assertion with its measured value, and the trial's
recordings to listen to.

A recording is linked by a path relative to the report's folder, only once
it resolves (symbolic links followed) inside the run folder
(`floorbench.paths.inside`) and is a file; otherwise the page says why it is
not linked. Every text from a test file, a transcript or results.json is
escaped (`floorbench.escape`); the HTML has no scripts and no external
resources.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from floorbench.escape import html_text as esc
from floorbench.escape import md_cell
from floorbench.paths import PathEscapeError, inside
from floorbench.report.html import CSS
from floorbench.report.render import write_pages
from floorbench.scoring.inputs import InputError
from floorbench.suites.agent.tool_report import tool_events, tool_lane
from floorbench.suites.agent.verdicts import pass_k_text

RESULTS = "results.json"
RUN = "run"
"""the run folder inside a test run's --out (floorbench test writes OUT/run)"""
RECORDINGS = (("agent", "model.wav"), ("caller", "humans.wav"))
"""(who, file) of the recordings linked per trial: the agent's and the caller's tracks as the room's recorder
heard them"""
STATUS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}
STEP_COLORS = {"say": "#4c78a8", "barge_in": "#f58518", "backchannel": "#b279a2", "silence": "#bab0ac", "dtmf": "#54a24b"}
TEST_CSS = (
    ".PASS{color:#2a7d2a;font-weight:600}.FAIL{color:#b22;font-weight:600}.ERROR{color:#b22;font-weight:600}"
    ".trial{border:1px solid #ddd;padding:4px 10px;margin:8px 0}.words{fill:#f2cf5b;opacity:.45}"
    ".agent{fill:#e45756}audio{display:block;margin:4px 0}"
)


# -- reading ------------------------------------------------------------------------------------


def is_test_run(path: Path) -> bool:
    """A `floorbench test` folder (its results.json is suite agent's): suite agent's part `reports`."""
    from floorbench.readers import ReadError, load_json

    try:
        data = load_json(path / RESULTS) if path.is_dir() and (path / RESULTS).is_file() else None
    except ReadError:
        return True  # a results.json that cannot be read: `read_results` names the problem
    return isinstance(data, dict) and data.get("suite") == "agent" and "tests" in data


def read_results(folder: Path) -> dict[str, Any]:
    """results.json of a test run; one `InputError` line naming it otherwise."""
    from floorbench.suites.agent.results_file import read_results_file

    p = inside(folder, RESULTS, f"{folder}: results", InputError)
    return read_results_file(p, InputError, "run `floorbench test` again")


# -- shared cells -------------------------------------------------------------------------------


def status_of(t: dict[str, Any]) -> str:
    return STATUS.get(str(t.get("status")), "ERROR")


def rate_cell(x: dict[str, Any]) -> str:
    lo, hi = (x.get("ci") or [None, None])[:2]
    ci = f" [{lo:.2f}–{hi:.2f}]" if lo is not None and hi is not None else ""
    r = x.get("rate")
    return f"{x.get('k')}/{x.get('n')} = " + ("–" if r is None else f"{r:.2f}") + ci


def latency_cell(lat: dict[str, Any] | None) -> str:
    lat = lat or {}
    turns = int(lat.get("turns") or 0)
    if not turns:
        return "– (no measured turn)"

    def ms(v: Any) -> str:
        return "no response" if v is None else f"{v} ms"

    return (f"p50 {ms(lat.get('p50_ms'))} / p95 {ms(lat.get('p95_ms'))} over {turns} turns"
            f" ({lat.get('unanswered', 0)} unanswered)")


def mos_cell(q: dict[str, Any] | None) -> str:
    """The predicted MOS of the agent's turns (DNSMOS OVRL): mean, p10 and lowest, or why there is none."""
    q = q or {}
    if not q.get("n"):
        return "– (no turn of 1 s or more)"
    return f"mean {q['mean']:.2f} / p10 {q['p10']:.2f} / min {q['min']:.2f} over {q['n']} turns"


def echo_cell(t: dict[str, Any]) -> str:
    """A test's (or a trial's) runs the agent cut off while no caller spoke, and its restarts after them."""
    n, r, c = t.get("self_interruptions"), t.get("restarts"), t.get("cut_offs")
    if n is None and isinstance(t.get("own_echo"), dict):
        n, r, c = (t["own_echo"].get(k) for k in ("self_interruptions", "restarts", "cut_offs"))
    if n is None:
        return "– (not scored)"
    return (f"{n} self-interruption(s), {r or 0} restart(s) under echo; {c or 0} cut-off(s) in all "
            "(cut off while no caller spoke)")


def cut_rows(t: dict[str, Any]) -> list[list[str]]:
    at = (t.get("own_echo") or {}).get("at") or []
    return [[str(c.get("start_ms")), str(c.get("stop_ms")), f"{c.get('drop_db')} dB",
             "–" if c.get("restarted_ms") is None else str(c.get("restarted_ms"))] for c in at if isinstance(c, dict)]


CUT_HEADERS = ["run from ms", "cut at ms", "fall", "spoke again at ms"]


def quality_note(results: dict[str, Any]) -> str:
    """The run's pooled MOS and the predictor that made it (results.json ``speech_quality``)."""
    q = results.get("speech_quality")
    if not isinstance(q, dict):
        return "not scored (results from before speech quality was scored)"
    m = q.get("model")
    m = m if isinstance(m, dict) else {}
    return f"run {mos_cell(q)}; predictor {m.get('predictor', '?')} ({m.get('package', '?')})"


def mos_rows(q: dict[str, Any] | None) -> list[list[str]]:
    """One row per scored agent turn: where it is and its four scores."""
    return [[str(r.get("start_ms")), str(r.get("end_ms")), f"{r.get('ovrl', 0):.2f}", f"{r.get('sig', 0):.2f}",
             f"{r.get('bak', 0):.2f}", f"{r.get('p808', 0):.2f}"] for r in (q or {}).get("turns") or []
            if isinstance(r, dict)]


MOS_HEADERS = ["from ms", "to ms", "MOS (OVRL)", "SIG", "BAK", "P.808"]


def threshold_cell(t: dict[str, Any]) -> str:
    v = t.get("pass_threshold")
    return f"{v:.2f}" if isinstance(v, int | float) else "–"


def where(a: dict[str, Any]) -> str:
    return f"step {a['step']}" if a.get("step") is not None else "test"


def measured_cell(a: dict[str, Any]) -> str:
    """The measured value, never blank: an assertion without one says so (it is not a silent pass)."""
    m = str(a.get("measured") or "").strip()
    return m or "no measured value (evidence missing)"


def verdict_cell(a: dict[str, Any]) -> str:
    return "PASS" if a.get("passed") is True and str(a.get("measured") or "").strip() else "FAIL"


def trials_of(results: dict[str, Any], test: str) -> list[dict[str, Any]]:
    ts = [t for t in results.get("trials") or [] if isinstance(t, dict) and str(t.get("test")) == test]
    return sorted(ts, key=lambda t: int(t.get("trial") or 0))


# -- recordings ---------------------------------------------------------------------------------


def recording_src(report_dir: Path, run_dir: Path, folder: str, name: str) -> tuple[str | None, str]:
    """(the recording's URL relative to the report's folder, "") — or (None, why it is not linked).

    The file must resolve inside `run_dir`: a trial folder name that is a path, or a link leading
    out of the run, is never linked."""
    try:
        path = inside(run_dir, Path(folder) / name, f"{run_dir}: recording")
    except PathEscapeError:
        return None, f"{name} not linked: it leads outside the run folder"
    if not path.is_file():
        return None, f"no {name} recorded"
    rel = Path(os.path.relpath(path, Path(report_dir).resolve())).as_posix()
    return quote(rel), ""


# -- the conversation -----------------------------------------------------------------------------


def events(conv: dict[str, Any]) -> list[tuple[int, int | None, str, str]]:
    """(start ms, end ms, who, what) of one trial on one time axis, in time order."""
    out: list[tuple[int, int | None, str, str]] = []
    for st in conv.get("steps") or []:
        if st.get("start_ms") is not None:
            out.append((int(st["start_ms"]), st.get("end_ms"), "caller",
                        f"step {st.get('n')} {st.get('kind')}" + (f": {st['text']}" if st.get("text") else "")))
    for s, e in conv.get("agent_speech") or []:
        out.append((int(s), int(e), "agent", "speech (VAD)"))
    out += tool_events(conv)
    for w in conv.get("words") or []:
        out.append((int(w["start_ms"]), w.get("end_ms"), "ASR",
                    f"{w.get('window')} window: " + (f'"{w["text"]}"' if str(w.get("text") or "").strip()
                                                       else "heard nothing")))
    return sorted(out, key=lambda e: (e[0], e[2]))


def not_played(conv: dict[str, Any]) -> list[str]:
    return [f"step {st.get('n')} {st.get('kind')}" for st in conv.get("steps") or []
            if st.get("start_ms") is None and st.get("kind") != "hang_up"]


def timeline_svg(conv: dict[str, Any], w: int = 960) -> str:
    """The caller's steps, the agent's speech and the ASR windows on one time axis (ms, the model's clock)."""
    left, lane, top = 60, 24, 6
    lanes = ("caller", "agent", "ASR", *(("tools",) if conv.get("tools") else ()))
    h = top + lane * len(lanes) + 22
    steps = [st for st in conv.get("steps") or [] if st.get("start_ms") is not None]
    speech = [(int(s), int(e)) for s, e in conv.get("agent_speech") or []]
    t_end = max([int(conv.get("duration_ms") or 0), 1, *(int(st["end_ms"] or 0) for st in steps),
                 *(e for _, e in speech)])

    def x(t: float) -> float:
        return left + (w - left - 10) * max(0.0, t) / t_end

    def width(a: float, b: float) -> float:
        return max(1.0, x(b) - x(a))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" class="timeline" role="img" '
           'aria-label="conversation timeline">']
    for i, name in enumerate(lanes):
        out.append(f'<text x="4" y="{top + i * lane + 16}">{name}</text>')
    tick = 1000 if t_end <= 15_000 else 5000 if t_end <= 120_000 else max(30_000, -(-t_end // 40 // 30_000) * 30_000)
    for t in range(0, t_end + 1, tick):
        out.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top}" y2="{h - 18}" class="grid"/>'
                   f'<text x="{x(t):.1f}" y="{h - 5}" text-anchor="middle">{t / 1000:g}s</text>')
    for st in steps:
        s, e = int(st["start_ms"]), int(st.get("end_ms") or st["start_ms"])
        color = STEP_COLORS.get(str(st.get("kind")), "#999")
        tip = f"step {st.get('n')} {st.get('kind')} {s}–{e} ms" + (f": {st['text']}" if st.get("text") else "")
        out.append(f'<rect x="{x(s):.1f}" y="{top + 3}" width="{width(s, e):.1f}" height="{lane - 6}" '
                   f'fill="{color}" rx="2"><title>{esc(tip)}</title></rect>'
                   f'<text x="{x(s) + 2:.1f}" y="{top + 16}" class="lbl">{esc(st.get("n"))}</text>')
    y1 = top + lane + 3
    for s, e in speech:
        out.append(f'<rect x="{x(s):.1f}" y="{y1}" width="{width(s, e):.1f}" height="{lane - 6}" class="agent">'
                   f'<title>agent speech {s}–{e} ms</title></rect>')
    y2 = top + 2 * lane + 3
    for wd in conv.get("words") or []:
        s, e = int(wd["start_ms"]), int(wd["end_ms"])
        text = str(wd.get("text") or "").strip()
        tip = f"{wd.get('window')} window {s}–{e} ms: " + (f'heard "{text}"' if text else "heard nothing")
        room = int(width(s, e) / 6)  # about 6 px a character at 11 px: the words that fit, the rest on hover
        label = text or "heard nothing"
        shown = label if len(label) <= room else label[: max(0, room - 1)] + "…"
        out.append(f'<rect x="{x(s):.1f}" y="{y2}" width="{width(s, e):.1f}" height="{lane - 6}" class="words">'
                   f'<title>{esc(tip)}</title></rect>'
                   + (f'<text x="{x(s) + 2:.1f}" y="{y2 + 13}">{esc(shown)}</text>' if room > 1 else ""))
    out += tool_lane(conv, x, width, top + 3 * lane + 3, lane - 6)
    out.append("</svg>")
    return "".join(out)


# -- HTML ---------------------------------------------------------------------------------------


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], verdicts: Sequence[str] = ()) -> str:
    """A table, every cell escaped; `verdicts` (PASS/FAIL/ERROR, ours, never from a file) class the first cells."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for i, r in enumerate(rows):
        cls = verdicts[i] if i < len(verdicts) and verdicts[i] in STATUS.values() else None
        cells = [f'<td class="{cls}">' if cls and c == 0 else "<td>" for c in range(len(r))]
        body.append("<tr>" + "".join(f"{td}{esc(v)}</td>" for td, v in zip(cells, r, strict=True)) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _verdict_row(a: dict[str, Any]) -> list[str]:
    return [verdict_cell(a), where(a), str(a.get("check")), str(a.get("expected")), measured_cell(a)]


def _trial_html(t: dict[str, Any], report_dir: Path, run_dir: Path) -> str:
    status = status_of(t)
    sid = str(t.get("scenario_id") or "")
    head = f'<span class="{status}">{status}</span> trial {esc(t.get("trial"))} · {esc(sid)}'
    if t.get("timing") == "degraded":
        head += " · timing degraded"
    parts = [f'<details class="trial"{" open" if status != "PASS" else ""}><summary>{head}</summary>']
    if status == "ERROR":
        parts.append(f"<p>error: {esc(t.get('error') or 'no reason recorded')}; no assertion was judged "
                     "(an error is never a pass).</p>")
    conv = t.get("conversation")
    if isinstance(conv, dict):
        parts.append(timeline_svg(conv))
        missed = not_played(conv)
        if missed:
            parts.append(f'<p class="note">not played: {esc(", ".join(missed))}</p>')
        ev = [[f"{s}", "" if e is None else f"{e}", who, what] for s, e, who, what in events(conv)]
        parts.append("<details><summary>the conversation as a table</summary>"
                     + _table(["from ms", "to ms", "who", "what"], ev) + "</details>")
    echo = (t.get("own_echo") or {}).get("echo")
    if cut_rows(t) or echo:
        parts.append(f"<p>own echo: {esc(echo_cell(t))}"
                     + (f"; echo ERL {esc(echo.get('erl_db'))} dB, delay {esc(echo.get('delay_ms'))} ms"
                        if isinstance(echo, dict) else "") + "</p>")
    if cut_rows(t):
        parts.append(_table(CUT_HEADERS, cut_rows(t)))
    turns = mos_rows(t.get("speech_quality"))
    if turns:
        parts.append("<details><summary>speech quality of the agent's turns</summary>"
                     + _table(MOS_HEADERS, turns) + "</details>")
    assertions = [a for a in t.get("assertions") or [] if isinstance(a, dict)]
    if assertions:
        rows = [_verdict_row(a) for a in assertions]
        parts.append(_table(["", "where", "assertion", "expected", "measured"], rows, [r[0] for r in rows]))
    elif status != "ERROR":
        parts.append("<p>no assertion recorded for this trial.</p>")
    for who, name in RECORDINGS:
        src, why = recording_src(report_dir, run_dir, sid, name)
        if src is not None:
            parts.append(f'<p>{who} ({esc(name)}): <audio controls preload="none" src="{esc(src)}"></audio></p>')
        elif "outside" in why:
            parts.append(f'<p class="note">{who}: {esc(why)}</p>')
    parts.append("</details>")
    return "".join(parts)


def _test_html(i: int, t: dict[str, Any], results: dict[str, Any], report_dir: Path, run_dir: Path) -> str:
    status = status_of(t)
    flaky = " (flaky)" if t.get("flaky") else ""
    parts = [f'<section id="test-{i}"><h2><span class="{status}">{status}{flaky}</span> {esc(t.get("test"))}</h2>',
             "<table><tbody>"
             f"<tr><th>passed</th><td>{esc(rate_cell(t))} (Wilson 95 % interval)</td></tr>"
             f"<tr><th>pass^k</th><td>{esc(pass_k_text(t))} (every one of k trials passed)</td></tr>"
             f"<tr><th>threshold</th><td>{esc(threshold_cell(t))}</td></tr>"
             f"<tr><th>latency</th><td>{esc(latency_cell(t.get('latency')))}</td></tr>"
             f"<tr><th>speech quality</th><td>{esc(mos_cell(t.get('speech_quality')))}</td></tr>"
             f"<tr><th>own echo</th><td>{esc(echo_cell(t))}</td></tr>"
             f"<tr><th>file</th><td>{esc(t.get('source') or '')}</td></tr>"
             f"<tr><th>tags</th><td>{esc(', '.join(map(str, t.get('tags') or [])))}</td></tr>"
             + (f"<tr><th>timing</th><td>{esc(t['degraded'])} trial(s) timing-degraded</td></tr>"
                if t.get("degraded") else "")
             + "</tbody></table>"]
    for e in t.get("error_lines") or []:
        parts.append(f'<p class="ERROR">error: {esc(e)}</p>')
    rows = [[where(a), str(a.get("check")), str(a.get("expected")), rate_cell(a) + (" (flaky)" if a.get("flaky") else "")]
            for a in t.get("assertions") or []]
    if rows:
        parts.append("<h3>Assertions over the trials</h3>" + _table(["where", "assertion", "expected", "passed"], rows))
    parts.append("<h3>Trials</h3>")
    parts += [_trial_html(tr, report_dir, run_dir) for tr in trials_of(results, str(t.get("test")))]
    parts.append("</section>")
    return "".join(parts)


def render_html(results: dict[str, Any], report_dir: Path, run_dir: Path, title: str = "floorbench test") -> str:
    tests = [t for t in results.get("tests") or [] if isinstance(t, dict)]
    summary = [[status_of(t) + (" (flaky)" if t.get("flaky") else ""), str(t.get("test")), rate_cell(t),
                threshold_cell(t), latency_cell(t.get("latency")), mos_cell(t.get("speech_quality"))] for t in tests]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}{TEST_CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="note">Generated {esc(datetime.now(UTC).isoformat(timespec="seconds"))} from '
        f"<code>results.json</code> of <code>floorbench test</code> (judged {esc(results.get('created', ''))}, "
        f"exit code {esc(results.get('exit_code', ''))}); suite agent, assertions as defined in docs/testing.md. "
        "Pass rates: k of n judged trials with the Wilson 95 % interval; times in ms on the model's clock. "
        "Timelines: the caller's steps (blue say, orange barge-in, purple backchannel, grey silence), the agent's "
        "speech from VAD (red) and the windows ASR transcribed (yellow); hover for details. Speech quality: the "
        "predicted MOS (1–5) of each agent turn of 1 s or more, " + esc(quality_note(results)) + ".</p>",
        "<h2>Tests</h2>",
        _table(["verdict", "test", "passed", "threshold", "latency", "speech quality"], summary,
               [status_of(t) for t in tests]),
        *(_test_html(i, t, results, report_dir, run_dir) for i, t in enumerate(tests, 1)),
        "</body></html>",
    ]
    return "\n".join(parts)


# -- Markdown -----------------------------------------------------------------------------------


def _md_rows(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(md_cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|",
            *("| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows), ""]


def render_markdown(results: dict[str, Any], report_dir: Path, run_dir: Path, title: str = "floorbench test") -> str:
    tests = [t for t in results.get("tests") or [] if isinstance(t, dict)]
    lines = [f"# {md_cell(title)}", "",
             f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} from `results.json` of `floorbench test` "
             f"(exit code {md_cell(results.get('exit_code', ''))}); assertions as defined in docs/testing.md.", ""]
    lines += _md_rows(["verdict", "test", "passed", "threshold", "latency", "speech quality"],
                      [[status_of(t) + (" (flaky)" if t.get("flaky") else ""), str(t.get("test")), rate_cell(t),
                        threshold_cell(t), latency_cell(t.get("latency")), mos_cell(t.get("speech_quality"))]
                       for t in tests])
    lines += [f"Speech quality: {md_cell(quality_note(results))}.", ""]
    for t in tests:
        lines += [f"## {status_of(t)}{' (flaky)' if t.get('flaky') else ''} {md_cell(t.get('test'))}", "",
                  f"passed {md_cell(rate_cell(t))} (Wilson 95 %), threshold {threshold_cell(t)}, "
                  f"latency {md_cell(latency_cell(t.get('latency')))}", ""]
        errors = [f"- error: {md_cell(e)}" for e in t.get("error_lines") or []]
        lines += [*errors, ""] if errors else []
        for tr in trials_of(results, str(t.get("test"))):
            sid = str(tr.get("scenario_id") or "")
            lines += [f"### {status_of(tr)} trial {md_cell(tr.get('trial'))} · {md_cell(sid)}", ""]
            if status_of(tr) == "ERROR":
                lines += [f"error: {md_cell(tr.get('error') or 'no reason recorded')}", ""]
            conv = tr.get("conversation")
            if isinstance(conv, dict):
                lines += _md_rows(["from ms", "to ms", "who", "what"],
                                  [[str(s), "" if e is None else str(e), who, what] for s, e, who, what in events(conv)])
            if cut_rows(tr):
                lines += [f"own echo: {md_cell(echo_cell(tr))}", "", *_md_rows(CUT_HEADERS, cut_rows(tr))]
            if mos_rows(tr.get("speech_quality")):
                lines += _md_rows(MOS_HEADERS, mos_rows(tr.get("speech_quality")))
            rows = [_verdict_row(a) for a in tr.get("assertions") or [] if isinstance(a, dict)]
            if rows:
                lines += _md_rows(["", "where", "assertion", "expected", "measured"], rows)
            links = []
            for who, name in RECORDINGS:
                src, _ = recording_src(report_dir, run_dir, sid, name)
                if src is not None:
                    links.append(f"[{who}]({src})")
            if links:
                lines += ["listen: " + ", ".join(links), ""]
    return "\n".join(lines)


# -- writing ------------------------------------------------------------------------------------


def write_test_report(out: Path, results: dict[str, Any], run_dir: Path | None = None,
                      title: str = "floorbench test") -> tuple[Path, Path]:
    """report.md and report.html of a judged test run into `out` (its recordings under `run_dir`, default
    ``out/run``); never written through a link out of `out`."""
    run = run_dir if run_dir is not None else out / RUN
    return write_pages(out, render_markdown(results, out, run, title), render_html(results, out, run, title))


def report(paths: list[Path], out: Path, title: str, max_timelines: int = 12) -> tuple[Path, Path]:
    """Suite agent's part `report` (`floorbench report OUT` on a `floorbench test` folder): the same report
    `floorbench test` writes, from OUT/results.json; its recordings linked relative to `out`."""
    if len(paths) != 1:
        raise InputError(f"{len(paths)} test runs given; `floorbench report` renders one `floorbench test` "
                         "folder at a time (its report is OUT/report.html)")
    folder = paths[0]
    results = read_results(folder)
    return write_test_report(out, results, folder / RUN, title)
