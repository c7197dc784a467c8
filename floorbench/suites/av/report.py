"""`floorbench report` for suite av: the tables side by side and a per-clip view with speech and frames.

A scored av run is a folder holding av_scores.json (`floorbench score`
detects the suite). report.md holds `av_tables.render_av_markdown` and one
line per clip; report.html the same tables, then per clip: an SVG strip of
the window with both speakers' speech (the user's clips and words, the
model's VAD segments), the model's transcript around the window, and frames
sampled at the window's start, middle and end from the recorded video tracks
(the user's and, when the system sent one, the model's) — or "no video
recorded" when the run has none. Frames are inline JPEGs; no scripts, no
external resources; every text from the runs is escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floorbench.escape import md_cell, md_table
from floorbench.paths import inside
from floorbench.report.html import suite_page_head, titled_table
from floorbench.report.load import holds_scores, load_scores_json
from floorbench.report.render import write_pages
from floorbench.report.svg import esc
from floorbench.scoring.inputs import InputError
from floorbench.suites.av.tables import (
    dynamic_rows,
    latency_rows,
    render_av_markdown,
    rubric_rows,
    tor_rows,
    unscorable_rows,
)

SCORES = "av_scores.json"
STRIP_PAD_MS = 4000
"""the strip shows this much before and after the window"""
NO_VIDEO = "no video recorded"
AV_CSS = (
    ".avclip{border:1px solid #ddd;padding:6px 10px;margin:10px 0}.ok{color:#2a7d2a}.bad{color:#b22}"
    ".frames{display:flex;gap:8px;flex-wrap:wrap}.frames figure{margin:0;font-size:11px;color:#555}"
    ".win{fill:#f2cf5b;opacity:.35}.usr{fill:#4c78a8;opacity:.35}.wrd{fill:#4c78a8;opacity:.75}"
    ".mdl{fill:#e45756;opacity:.8}"
)


def is_av_run(path: Path) -> bool:
    return holds_scores(path, SCORES)


def load_av_scores(path: Path) -> dict[str, Any]:
    return load_scores_json(path, SCORES, "av", "tor_alignment")


def strip(clip: dict[str, Any], w: int = 880) -> str:
    """Both speakers around the window: user clips (light) and words (dark) above, model speech below."""
    ws, we = clip["window_ms"]
    lo, hi = (
        max(0, ws - STRIP_PAD_MS),
        min(int(clip.get("duration_ms") or we + STRIP_PAD_MS), we + STRIP_PAD_MS),
    )
    hi = max(hi, we)
    left, right, span = 52, 8, max(1, hi - lo)

    def x(t: float) -> float:
        return left + (min(max(t, lo), hi) - lo) * (w - left - right) / span

    out = [
        f'<svg class="timeline" width="{w}" height="78" viewBox="0 0 {w} 78" xmlns="http://www.w3.org/2000/svg">',
        f'<rect class="win" x="{x(ws):.1f}" y="4" width="{x(we) - x(ws):.1f}" height="56"/>',
        '<text x="2" y="22">user</text><text x="2" y="50">model</text>',
    ]
    for u in clip.get("user", []):
        if u["end_ms"] >= lo and u["start_ms"] <= hi:
            out.append(
                f'<rect class="usr" x="{x(u["start_ms"]):.1f}" y="10" width="{x(u["end_ms"]) - x(u["start_ms"]):.1f}"'
                f' height="18"><title>{esc(u.get("text", ""))}</title></rect>'
            )
    for wd in clip.get("user_words", []):
        if wd["end_ms"] >= lo and wd["start_ms"] <= hi:
            out.append(
                f'<rect class="wrd" x="{x(wd["start_ms"]):.1f}" y="14" '
                f'width="{max(1.0, x(wd["end_ms"]) - x(wd["start_ms"])):.1f}" height="10">'
                f"<title>{esc(wd['word'])}</title></rect>"
            )
    for key in ("segments_before", "segments_in", "segments_after"):
        for s, e in clip.get(key, []):
            if e >= lo and s <= hi:
                out.append(
                    f'<rect class="mdl" x="{x(s):.1f}" y="38" width="{max(1.0, x(e) - x(s)):.1f}" height="18"/>'
                )
    step = 1000 if span <= 20_000 else 5000
    for t in range(lo - lo % step + step, hi + 1, step):
        out.append(
            f'<line class="grid" x1="{x(t):.1f}" y1="60" x2="{x(t):.1f}" y2="64"/>'
            f'<text x="{x(t) - 8:.1f}" y="75">{t / 1000:.0f}s</text>'
        )
    out.append("</svg>")
    return "".join(out)


def frames_html(source: Path, clip: dict[str, Any]) -> str:
    """Frames of every recorded video track at the window's start, middle and end; NO_VIDEO without any."""
    from floorbench.suites.av.frames import data_url, sample_times, sampled, video_tracks

    folder = clip_folder(source, clip)
    t0 = clip.get("model_start_session_ms")
    tracks = video_tracks(folder, int(t0)) if folder is not None and isinstance(t0, int) else []
    if not tracks:
        return f'<p class="note">{NO_VIDEO}</p>'
    times = sample_times((clip["window_ms"][0], clip["window_ms"][1]), 3)
    figs = []
    for tr in tracks:
        got = sampled(tr, times)
        if not got:
            figs.append(f"<figure>{esc(tr.name)}: no frame had arrived by the window</figure>")
        for t, jpeg in got:
            figs.append(
                f'<figure><img src="{data_url(jpeg)}" alt="{esc(tr.name)} at {t} ms"/>'
                f"<figcaption>{esc(tr.name)} · {t / 1000:.2f} s</figcaption></figure>"
            )
    return '<div class="frames">' + "".join(figs) + "</div>"


def clip_block(run: dict[str, Any], clip: dict[str, Any]) -> str:
    ok = "ok" if clip["aligned"] is True else "bad"
    lat = "—" if clip.get("latency_ms") is None else f"{clip['latency_ms']} ms"
    ws, we = clip["window_ms"]
    tr = clip.get("transcript", {})
    rubric = clip.get("rubric") or {}
    rub = (
        f"rubric {rubric.get('fluency')}/{rubric.get('flow')}/{rubric.get('grounding')}"
        if rubric.get("verdict") == "scored"
        else ("rubric unparsable" if rubric.get("judged") else "rubric not judged")
    )
    return (
        f'<div class="avclip"><b>{esc(run["run"])} · {esc(clip["scenario_id"])}</b> — {esc(clip["dynamic"])} '
        f"({esc(clip['category'])}), window {esc(ws)}–{esc(we)} ms: "
        f'<span class="{ok}">takeover {esc(clip["takeover"])} (expected {esc(clip["expected_takeover"])}), '
        f"{'aligned' if clip['aligned'] is True else 'not aligned'}</span>; "
        f"speech in window {esc(clip['speech_in_window_ms'])} ms, "
        f"{esc(clip['words_in_window'])} words; latency {esc(lat)} ({esc(clip.get('latency_note', ''))}); {esc(rub)}"
        f'<p class="note">{esc(clip.get("description", ""))}</p>{strip(clip)}'
        f'<p class="note">model before: “{esc(tr.get("before", ""))}” · in window: “{esc(tr.get("inside", ""))}” · '
        f"after: “{esc(tr.get('after', ''))}”</p>{frames_html(Path(run['source']), clip)}</div>"
    )


def render_av_html(runs: list[dict[str, Any]], title: str, max_clips: int) -> str:
    names = [r["run"] for r in runs]
    parts = [
        *suite_page_head(title, "suite av, definitions in docs/suites/av.md (Scoring)", AV_CSS),
        titled_table(
            "TOR alignment (95% clip-bootstrap interval, aligned/scored)",
            ["category", "expected takeover", *names],
            tor_rows(runs),
        ),
        titled_table("Latency p50 / p90, ms", ["category", *names], latency_rows(runs)),
        titled_table("Rubric judge: fluency / flow / grounding, 0–5", ["category", *names], rubric_rows(runs)),
        titled_table("Per dynamic", ["dynamic", *names], dynamic_rows(runs)),
        titled_table("Unscorable clips", ["run", "scenario", "reason"], unscorable_rows(runs)),
        "<h2>Clips</h2><p class='note'>Yellow: the event window; blue: the user's clips (words darker); "
        "red: the model's speech (VAD). Clips not aligned first.</p>",
    ]
    for r in runs:
        clips = sorted(r["clips"], key=lambda c: (c["aligned"], c["scenario_id"]))[:max_clips]
        parts += [clip_block(r, c) for c in clips]
    parts.append("</body></html>")
    return "\n".join(parts)


def clip_lines(runs: list[dict[str, Any]]) -> str:
    """One Markdown line per clip; every field comes from a file, so every one is escaped."""
    rows = [
        [str(r["run"]), str(c["scenario_id"]), str(c["dynamic"]), f"{c['window_ms'][0]}–{c['window_ms'][1]}",
         str(c["takeover"]), "yes" if c["aligned"] is True else "no",
         "—" if c.get("latency_ms") is None else str(c["latency_ms"]), str(c.get("transcript", {}).get("inside", ""))]
        for r in runs for c in r["clips"]
    ]
    return md_table("Clips", ["run", "scenario", "dynamic", "window ms", "takeover", "aligned", "latency ms",
                              "model in window"], rows)


def clip_folder(source: Path, clip: dict[str, Any]) -> Path | None:
    """The scenario folder a clip was scored from, inside its run (a link out of it is refused); None if gone."""
    name = clip.get("folder")
    if not isinstance(name, str) or not name:
        return None
    folder = inside(source, name, f"{source}: scenario folder of clip {clip.get('scenario_id')}", InputError)
    return folder if folder.is_dir() else None


def check_clip_folders(runs: list[dict[str, Any]]) -> None:
    """Every scenario folder the report reads frames from must agree with its meta.json (refused otherwise)."""
    from floorbench.scoring.inputs import read_checked_dialogue

    for r in runs:
        source = Path(str(r.get("source", "")))
        for clip in r.get("clips", []):
            if (folder := clip_folder(source, clip)) is not None:
                read_checked_dialogue(folder)


def write_av_report(paths: list[Path], out: Path, title: str, max_clips: int = 12) -> tuple[Path, Path]:
    runs = [load_av_scores(p) for p in paths]
    check_clip_folders(runs)
    markdown = f"# {md_cell(title)}\n\n" + render_av_markdown(runs) + "\n" + clip_lines(runs)
    # the html reads the frames: any refusal comes before a page is written
    return write_pages(out, markdown, render_av_html(runs, title, max_clips))


def report(paths: list[Path], out: Path, title: str, max_timelines: int = 12) -> tuple[Path, Path]:
    """Suite av's part `report`: tables, and a strip and frames for up to `max_timelines` clips per run."""
    return write_av_report(paths, out, title, max_clips=max_timelines)
