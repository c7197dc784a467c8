"""`floorbench load`: one agent deployment against N simultaneous callers, N stepped up (docs/load.md).

How many calls an agent holds, and how its latency grows with them, can only be
read from the audio of calls made at the same time. A *step* plays every
selected conversation test N times at once (N rooms, each one caller, `-j N`)
against the same system under test — an external agent by `--dispatch` (one
dispatch per room, the agent's own worker pool serving them), a hosted product,
or a reference agent — and judges every trial as `floorbench test` does. Per
step: the response latency p50/p95/p99 pooled over every caller turn (a turn
left unanswered counts as the slowest, so a p95 can read "no response"), the
barge-in stop time, the failed and errored trials by kind, and each room's
timing verdict. The steps go up until a step's failure rate or latency p95
passes its limit, or the list ends.

The harness must not be what is measured: a step in which a room's timing
verdict is not ``ok`` (a sender slipped, a track stretched, evidence is
missing) is the *harness's* limit on this machine, reported as such, and ends
the steps — its latencies are not the agent's. Spread rooms over more boxes
(`floorbench run --play-on workers`) to go further.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from floorbench.suites.agent.assertions import nearest_rank

LOAD_VERSION = 1
DEFAULT_SESSIONS = (1, 2, 4, 8)
MAX_SESSIONS = 64


def parse_sessions(text: str) -> list[int]:
    """``1,2,4,8`` → [1, 2, 4, 8]: increasing, each 1..64; `OptionError` otherwise."""
    from floorbench.errors import OptionError
    from floorbench.options import check_number_list

    check_number_list("--sessions", text)
    try:
        ns = [int(x) for x in text.split(",")]
    except ValueError:
        raise OptionError(f"--sessions {text!r}: give whole numbers separated by commas, e.g. 1,2,4,8") from None
    if not ns or any(not 1 <= n <= MAX_SESSIONS for n in ns) or any(b <= a for a, b in itertools.pairwise(ns)):
        raise OptionError(f"--sessions {text!r}: give increasing numbers of callers from 1 to {MAX_SESSIONS}, e.g. 1,2,4,8")
    return ns


def _percentiles(values: Sequence[float], pcts: Sequence[int]) -> dict[str, int | None]:
    """``p50_ms`` … by nearest rank; None where there are no values or the rank falls on an unanswered turn."""
    out: dict[str, int | None] = {}
    for p in pcts:
        v = nearest_rank(values, p) if values else math.inf
        out[f"p{p}_ms"] = None if math.isinf(v) else int(v)
    return out


def failure_kind(trial: dict[str, Any]) -> str:
    """A trial's failure in a word: the room's failure kind, ``evidence_missing``, ``not_run``, or the
    checks that failed (``responds_within_ms``, …)."""
    if trial["status"] == "error":
        why = str(trial.get("error") or "")
        if why.startswith("the room failed (") and ")" in why:
            return why[len("the room failed ("):why.index(")")]
        return "evidence_missing" if why.startswith("evidence missing") else "not_run" if why.startswith("not run") \
            else "error"
    return "+".join(sorted({a["check"] for a in trial["assertions"] if not a["passed"]})) or "failed"


def step_summary(sessions: int, trials: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One step's figures from its judged trials (`floorbench.suites.agent.score.score_trials`)."""
    judged = [t for t in trials if t["status"] != "error"]
    lat = [math.inf if x is None else float(x) for t in judged for x in t.get("latencies_ms") or []]
    stops = [float(a["value"]) for t in judged for a in t["assertions"]
             if a["check"] == "yields_within_ms" and a.get("value") is not None]
    failed = [t for t in trials if t["status"] != "passed"]
    timing = Counter(str(t.get("timing") or "none") for t in judged)
    not_ok = [t["scenario_id"] for t in judged if t.get("timing") != "ok"]
    return {
        "sessions": sessions, "trials": len(trials), "passed": len(trials) - len(failed),
        "failed": sum(t["status"] == "failed" for t in trials), "errors": sum(t["status"] == "error" for t in trials),
        "failure_rate": len(failed) / len(trials) if trials else None,
        "failures_by_kind": dict(sorted(Counter(failure_kind(t) for t in failed).items())),
        "latency": {"turns": len(lat), "unanswered": sum(math.isinf(x) for x in lat), **_percentiles(lat, (50, 95, 99))},
        "barge_in_stop": {"n": len(stops), **_percentiles(stops, (50, 95))},
        "timing": dict(sorted(timing.items())),
        "harness_limited": bool(not_ok),
        "harness_reason": (f"{len(not_ok)} of {len(judged)} rooms' timing not ok ({', '.join(not_ok[:3])}"
                           + (", …" if len(not_ok) > 3 else "") + "): the harness's limit on this machine, "
                           "not the agent's") if not_ok else None,
    }


def stop_reason(step: dict[str, Any], max_failure_rate: float, max_p95_ms: int) -> str | None:
    """Why the steps end after this one (None: go on)."""
    if step["harness_limited"]:
        return step["harness_reason"]
    if step["failure_rate"] is not None and step["failure_rate"] > max_failure_rate:
        return f"failure rate {step['failure_rate']:.2f} above --max-failure-rate {max_failure_rate:.2f}"
    lat = step["latency"]
    if lat["turns"] and lat["p95_ms"] is None:
        return "latency p95: no response (unanswered turns)"
    if lat["p95_ms"] is not None and lat["p95_ms"] > max_p95_ms:
        return f"latency p95 {lat['p95_ms']} ms above --max-p95-ms {max_p95_ms}"
    return None


def _ms(v: int | None, turns: int = 1) -> str:
    return "–" if not turns else "no response" if v is None else f"{v}"


def table_lines(steps: Sequence[dict[str, Any]]) -> list[str]:
    """The table `floorbench load` prints and load.md holds (Markdown)."""
    lines = ["| callers | trials | passed | failures by kind | latency p50 / p95 / p99 ms (turns, unanswered) "
             "| barge-in stop p50 / p95 ms | timing | note |", "|---|---|---|---|---|---|---|---|"]
    for s in steps:
        lat, st = s["latency"], s["barge_in_stop"]
        kinds = ", ".join(f"{k} {v}" for k, v in s["failures_by_kind"].items()) or "–"
        timing = ", ".join(f"{k} {v}" for k, v in s["timing"].items()) or "–"
        lines.append(
            f"| {s['sessions']} | {s['trials']} | {s['passed']} | {kinds} | "
            f"{_ms(lat['p50_ms'], lat['turns'])} / {_ms(lat['p95_ms'], lat['turns'])} / "
            f"{_ms(lat['p99_ms'], lat['turns'])} ({lat['turns']}, {lat['unanswered']}) | "
            f"{_ms(st['p50_ms'], st['n'])} / {_ms(st['p95_ms'], st['n'])} | {timing} | "
            f"{'harness limit' if s['harness_limited'] else ''} |")
    return lines


def latency_svg(steps: Sequence[dict[str, Any]]) -> str:
    """Response latency p50/p95/p99 against the number of callers: one line each, a cross where a
    percentile is "no response", a grey band over steps the harness limited."""
    w, h, left, right, top, bottom = 520, 260, 56, 96, 28, 40
    pw, ph = w - left - right, h - top - bottom
    vals = [s["latency"][k] for s in steps for k in ("p50_ms", "p95_ms", "p99_ms") if s["latency"][k] is not None]
    ymax = max([*vals, 100]) * 1.15
    n = len(steps)

    def x(i: int) -> float:
        return left + (pw * i / (n - 1) if n > 1 else pw / 2)

    def y(v: float) -> float:
        return top + ph * (1 - v / ymax)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
           'aria-label="response latency against simultaneous callers" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16" font-size="13">response latency vs simultaneous callers</text>']
    for i, s in enumerate(steps):
        if s["harness_limited"]:
            half = pw / max(1, n - 1) / 2 if n > 1 else pw / 2
            out.append(f'<rect x="{x(i) - half:.1f}" y="{top}" width="{2 * half:.1f}" height="{ph}" fill="#ddd">'
                       '<title>harness limit: timing not ok</title></rect>')
        out.append(f'<text x="{x(i):.1f}" y="{h - bottom + 16}" text-anchor="middle">{int(s["sessions"])}</text>')
    for k in range(5):
        v = ymax / 1.15 * k / 4
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{h - 6}" text-anchor="middle">callers at once</text>')
    out.append(f'<text x="12" y="{top + ph / 2}" transform="rotate(-90 12 {top + ph / 2})" '
               'text-anchor="middle">ms</text>')
    for j, (key, color) in enumerate((("p50_ms", "#4c78a8"), ("p95_ms", "#f58518"), ("p99_ms", "#e45756"))):
        pts = [(x(i), y(s["latency"][key])) for i, s in enumerate(steps) if s["latency"][key] is not None]
        if len(pts) > 1:
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                       + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
        out += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{color}"/>' for a, b in pts]
        for i, s in enumerate(steps):
            if s["latency"][key] is None and s["latency"]["turns"]:
                out.append(f'<text x="{x(i):.1f}" y="{top + 10 + 12 * j}" fill="{color}" text-anchor="middle">'
                           '×<title>no response</title></text>')
        out.append(f'<text x="{left + pw + 10}" y="{top + 14 + 16 * j}" fill="{color}">{key[:3]}</text>')
    out.append("</svg>")
    return "\n".join(out)


def write_outputs(out: Path, steps: Sequence[dict[str, Any]], stopped: str | None, header: dict[str, Any]) -> None:
    """load.json (every step's figures), load.md (the table and the plot), load.svg."""
    from floorbench.escape import html_text
    from floorbench.records import write_json_atomic

    write_json_atomic(out / "load.json", {"load_version": LOAD_VERSION, **header, "steps": list(steps),
                                          "stopped": stopped})
    svg = latency_svg(steps) if steps else ""
    (out / "load.svg").write_text(svg, encoding="utf-8")
    md = ["# Load", "", f"System under test: {html_text(header.get('system', ''))}; tests: "
          f"{html_text(', '.join(header.get('tests', [])))}.", "", *table_lines(steps), "",
          f"Stopped: {html_text(stopped)}." if stopped else "Every step ran.", "", "![latency](load.svg)", ""]
    (out / "load.md").write_text("\n".join(md), encoding="utf-8")
