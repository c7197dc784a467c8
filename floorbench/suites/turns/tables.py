"""The tables of suite `turns` in Markdown: both tracks, event types, conversation types.

`render_turns_markdown` takes one or more turns_scores.json records (runs side
by side, one column block per run) and is what `floorbench score` writes to
turns_report.md and prints. Numbers only; the definitions are in docs/suites/turns.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from floorbench.escape import md_cell, md_table
from floorbench.suites.turns.rules import TurnEvent

TRACK_TITLES = {"eot": "end of turn (takes)", "yield": "yield (ends of model speech)"}


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _ci(ci: Sequence[float | None]) -> str:
    lo, hi = (ci[0], ci[1]) if len(ci) == 2 else (None, None)
    return "" if lo is None or hi is None else f" [{lo:.2f}, {hi:.2f}]"


def _lat(lat: dict[str, float | None]) -> str:
    vals = [lat.get(k) for k in ("p10", "p50", "p90")]
    return "—" if any(v is None for v in vals) else "/".join(f"{v:.0f}" for v in vals if v is not None)


def track_rows(s: dict[str, Any]) -> list[list[str]]:
    rows = []
    for track, title in TRACK_TITLES.items():
        t = s["tracks"][track]
        rows.append([
            s["run"], title, _rate(t["recall"]) + _ci(t["recall_ci"]), _rate(t["fp_rate"]) + _ci(t["fp_rate_ci"]),
            _lat(t["latency_ms"]), f"{t['tp']}/{t['fn']}/{t['fp']}/{t['tn']}", "yes" if t["qualifies"] else "no",
        ])
    return rows


def event_rows(s: dict[str, Any]) -> list[list[str]]:
    rows = []
    fp = {**s["tracks"]["yield"]["fp_by_type"], **{k: v for k, v in s["tracks"]["eot"]["fp_by_type"].items()}}
    for label in TurnEvent:
        tor = s["takeover_rate"].get(label.value, {})
        f = fp.get(label.value)
        fp_cell = "—" if f is None else f"{f['fp']}/{f['n']}"
        if label is TurnEvent.noise:
            e, y = s["tracks"]["eot"]["fp_by_type"].get("noise"), s["tracks"]["yield"]["fp_by_type"].get("noise")
            fp_cell = f"take {e['fp'] if e else 0}/{e['n'] if e else 0}, yield {y['fp'] if y else 0}/{y['n'] if y else 0}"
        rows.append([s["run"], label.value, str(tor.get("n", 0)), str(s["not_run"].get(label.value, 0)),
                     fp_cell, _rate(tor.get("rate")) if tor.get("n") else "—"])
    return rows


def type_rows(s: dict[str, Any]) -> list[list[str]]:
    agg: dict[str, dict[str, int]] = {}
    for d in s["dialogues"]:
        a = agg.setdefault(d["conversation_type"], {"n": 0, "etp": 0, "epos": 0, "efp": 0, "eneg": 0})
        a["n"] += 1
        a["etp"] += d["eot"]["tp"]
        a["epos"] += d["eot"]["tp"] + d["eot"]["fn"]
        a["efp"] += d["eot"]["fp"]
        a["eneg"] += d["eot"]["fp"] + d["eot"]["tn"]
    return [[s["run"], k, str(a["n"]), _rate(a["etp"] / a["epos"] if a["epos"] else None),
             _rate(a["efp"] / a["eneg"] if a["eneg"] else None)] for k, a in sorted(agg.items())]


def tables(runs: Sequence[dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The suite's tables, runs side by side, as (title, headers, rows): Markdown and HTML show the same ones."""
    return [
        ("Tracks", ["run", "track", "recall", "FP rate", "latency p10/p50/p90", "tp/fn/fp/tn", "qualifies"],
         [r for s in runs for r in track_rows(s)]),
        ("Per event type", ["run", "event", "played", "not run", "false positives", "takeover rate"],
         [r for s in runs for r in event_rows(s)]),
        ("End of turn by conversation type", ["run", "conversation type", "dialogues", "recall", "FP rate"],
         [r for s in runs for r in type_rows(s)]),
    ]


def render_turns_markdown(runs: Sequence[dict[str, Any]]) -> str:
    parts = [
        "## Suite turns", "",
        "Event-anchored scoring (docs/suites/turns.md); recall and false-positive rate with 95% "
        "dialogue-bootstrap intervals; latency = decision − event, ms. Qualifies: FP rate ≤ 0.10.", "",
        # every cell escaped: names and reasons come from files
        *(md_table(*t) for t in tables(runs)),
    ]
    warned = [(r.get("run", ""), w) for r in runs for w in r.get("warnings", [])]
    if warned:  # silence the rules credited where the model made sound: said here, not left to pass unsaid
        parts += ["", "**Loud sound that is not speech on the model track** (the rules hear speech only):", "",
                  *(f"- {md_cell(run)}: {md_cell(w)}" for run, w in warned)]
    return "\n".join(parts)


def summary_lines(s: dict[str, Any]) -> list[str]:
    """A few lines for the terminal after scoring."""
    lines = [f"{s['run']}: scored {s['scenarios'].get('scored', 0)} turns dialogues"]
    for track, title in TRACK_TITLES.items():
        t = s["tracks"][track]
        lines.append(f"  {title:30s} recall {_rate(t['recall'])}  fp {_rate(t['fp_rate'])}  "
                     f"latency p10/p50/p90 {_lat(t['latency_ms'])} ms")
    return lines
