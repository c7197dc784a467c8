"""The report's tables as plain data (headers + rows of strings), shared by Markdown and HTML.

Cells are unescaped text; each renderer escapes for its own format.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from floorbench.scoring import stats
from floorbench.scoring.transport_summary import latency_cell
from floorbench.suites.mpe.items import CAPACITIES, DIAGNOSTICS, Metric
from floorbench.suites.mpe.metrics import SENSITIVITY_MS, MetricScore, paired_accuracy
from floorbench.suites.mpe.scored_runs import ScoredRun

METRIC_TITLES = {
    Metric.fresh_onset_rate: "Fresh-onset response rate",
    Metric.conditional_accuracy: "Conditional answer accuracy",
    Metric.silence_keeping: "Silence keeping",
    Metric.yield_rate: "Yield rate",
    Metric.response_presence: "Response presence (diagnostic)",
    Metric.window_response: "Window response (diagnostic)",
}
SPLIT_TITLES = {
    "fresh_onset": "  presence split: fresh onset",
    "already_speaking": "  presence split: already speaking at request end",
    "late_onset": "  late onset (after 5000 ms; not presence)",
}


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def fmt_rate(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def fmt_score(s: MetricScore | None, with_ci: bool = True) -> str:
    """A rate with its interval and denominator; items the recording did not cover are named beside n."""
    if s is None:
        return "— (n=0)"
    n = f"n={s.n}" + (f", unscorable {s.unscorable}" if s.unscorable else "") + (
        f", unsure {s.unsure}" if s.unsure else "")
    if s.n == 0:
        return f"— ({n})"
    if s.reportable is False:
        return f"not reportable ({n})"
    ci = f" [{fmt_rate(s.ci_low)}, {fmt_rate(s.ci_high)}]" if with_ci and s.ci_low is not None else ""
    return f"{fmt_rate(s.value)}{ci} ({n})"


def conditions(runs: list[ScoredRun]) -> list[str]:
    return sorted({c for r in runs for c in r.scores.conditions})


def runs_table(runs: list[ScoredRun]) -> Table:
    t = Table(
        "Runs",
        ["run", "source", "scored", "failed", "lost in flight", "not run", "unreadable",
         "timing ok / degraded", "left out (degraded)", "ASR", "judge", "room latency p50 / p95"],
        note="timing: each scenario's verdict in meta.json (onset error p99, drift, underruns, turns found); "
        "`score --exclude-degraded` leaves degraded ones out; room latency: playback → recorder per human turn, "
        "never subtracted from the metrics (docs/transport.md)",
    )
    for r in runs:
        s = r.scores.scenarios
        t.rows.append(
            [
                r.label, r.scores.source, str(s.get("scored", 0)), str(s.get("failed", 0)),
                str(s.get("in_progress", 0)), str(s.get("not_run", 0)), str(s.get("unreadable", 0)),
                f"{s.get('timing_ok', 0)} / {s.get('timing_degraded', 0)}", str(s.get("excluded_degraded", 0)),
                str(r.scores.settings.get("asr", {}).get("model", "")),
                str(r.scores.settings.get("judge", {}).get("id", "")),
                latency_cell(r.scores.transport_latency_ms),
            ]
        )
    return t


def metrics_table(runs: list[ScoredRun], cond: str) -> Table:
    t = Table(
        f"Metrics — {cond}",
        ["metric", *(r.label for r in runs)],
        note="value [95% scenario-bootstrap interval] (n = denominator; unscorable = items the "
        "recording did not cover, unsure = items the judge's rules did not decide, or content in a language the "
        "judge has no rules for (scores.json's warnings say which); neither is in the denominator). Four capacities, "
        "two coverage diagnostics; "
        "no overall score. Presence = fresh onset + already speaking.",
    )
    for m in (*CAPACITIES, *DIAGNOSTICS):
        row = [METRIC_TITLES[m]]
        for r in runs:
            c = r.scores.conditions.get(cond)
            row.append(fmt_score(c.metrics.get(m.value) if c else None))
        t.rows.append(row)
    for key, title in SPLIT_TITLES.items():
        row = [title]
        for r in runs:
            c = r.scores.conditions.get(cond)
            row.append(fmt_score(c.presence_split.get(key) if c else None))
        t.rows.append(row)
    return t


def mcnemar_table(runs: list[ScoredRun]) -> Table:
    t = Table(
        "Explicit vs implicit: exact McNemar on response presence",
        ["run", "pairs", "explicit only", "implicit only", "both", "neither", "p"],
    )
    for r in runs:
        m = r.scores.mcnemar
        if m is None:
            t.rows.append([r.label, "0", "—", "—", "—", "—", "—"])
        else:
            t.rows.append(
                [r.label, str(m.n_pairs), str(m.explicit_only), str(m.implicit_only), str(m.both),
                 str(m.neither), f"{m.p:.4f}"]
            )
    return t


def paired_accuracy_table(runs: list[ScoredRun]) -> Table:
    t = Table(
        "Conditional accuracy between runs (requests where both spoke; exact McNemar)",
        ["run A", "run B", "condition", "both spoke", "acc A", "acc B", "only A correct", "only B correct", "p"],
    )
    for a, b in combinations(runs, 2):
        for row in paired_accuracy(a.items, b.items):
            t.rows.append(
                [a.label, b.label, row.condition, str(row.n_both_spoke), fmt_rate(row.accuracy_a),
                 fmt_rate(row.accuracy_b), str(row.a_only_correct), str(row.b_only_correct), f"{row.p:.4f}"]
            )
    return t


def position_table(runs: list[ScoredRun], cond: str) -> Table:
    metrics = (Metric.fresh_onset_rate, Metric.response_presence, Metric.conditional_accuracy)
    t = Table(
        f"Rates by request position — {cond}",
        ["run", "metric", *(f"q{q}" for q in range(1, 6))],
        note="quintile of the request's turn index among the scenario's turns (q1 = earliest)",
    )
    for r in runs:
        c = r.scores.conditions.get(cond)
        if c is None:
            continue
        for m in metrics:
            row = [r.label, m.value]
            for q in range(1, 6):
                s = c.position.get(f"q{q}", {}).get(m.value)
                row.append(fmt_score(s, with_ci=False))
            t.rows.append(row)
    return t


def sensitivity_table(runs: list[ScoredRun], cond: str) -> Table:
    t = Table(
        f"Silence sensitivity — {cond}",
        ["VAD speech allowed", *(r.label for r in runs), "Spearman ρ vs judged"],
        note="share of N1–N3 windows with at most this much VAD speech (no backchannel exemption); "
        "ρ: rank agreement of the runs with their judged silence keeping",
    )
    judged = []
    for r in runs:
        c = r.scores.conditions.get(cond)
        s = c.metrics.get(Metric.silence_keeping.value) if c else None
        judged.append(s.value if s and s.value is not None else None)
    for th in SENSITIVITY_MS:
        row = [f"≤ {th} ms"]
        vals = []
        for r in runs:
            c = r.scores.conditions.get(cond)
            s = c.silence_sensitivity.get(str(th)) if c else None
            row.append(fmt_score(s))
            vals.append(s.value if s and s.value is not None else None)
        pairs = [(x, y) for x, y in zip(vals, judged, strict=True) if x is not None and y is not None]
        rho = stats.spearman([p[0] for p in pairs], [p[1] for p in pairs]) if len(pairs) >= 2 else None
        row.append("—" if rho is None else f"{rho:.3f} ({len(pairs)} runs)")
        t.rows.append(row)
    return t


def kinds_table(runs: list[ScoredRun]) -> Table:
    t = Table(
        "Why items passed or failed (counts of each kind)",
        ["metric", "condition", "kind", *(r.label for r in runs)],
        note="every number above is passed / counted over these items (items.jsonl)",
    )
    counts = [Counter((i.metric.value, i.condition, i.kind.value, i.counted) for i in r.items) for r in runs]
    keys = sorted({k for c in counts for k in c}, key=lambda k: ([m.value for m in Metric].index(k[0]), k[1:]))
    for k in keys:
        kind = k[2] if k[3] else f"{k[2]} (not counted)"
        t.rows.append([k[0], k[1], kind, *(str(c.get(k, 0)) for c in counts)])
    return t


def speech_quality_table(runs: list[ScoredRun]) -> Table:
    """The model's predicted MOS per run (scores.json ``speech_quality``) and its own echo's effect."""
    t = Table(
        "Speech quality",
        ["run", "turns", "MOS mean / p10 / min", "SIG", "BAK", "P.808", "self-interruptions (restarts); cut-offs", "predictor"],
        note="each model turn of 1 s or more scored by DNSMOS (OVRL, 1-5; docs/scoring.md \"Speech quality\"); "
        "per turn in vad.jsonl; cut-offs: runs cut off while no human spoke, self-interruptions: those under "
        "--acoustics …+echo (docs/acoustics.md)",
    )
    for r in runs:
        q = r.scores.speech_quality or {}
        run = q.get("run") or {}

        def num(v: object) -> str:
            return f"{v:.2f}" if isinstance(v, int | float) else "–"

        t.rows.append([
            r.label, str(run.get("n", "–")),
            f"{num(run.get('mean'))} / {num(run.get('p10'))} / {num(run.get('min'))}",
            num(run.get("sig")), num(run.get("bak")), num(run.get("p808")),
            f"{q.get('self_interruptions', '–')} ({q.get('restarts', '–')}); {q.get('cut_offs', '–')}",
            str((q.get("model") or {}).get("package", "not scored")),
        ])
    return t


def all_tables(runs: list[ScoredRun]) -> list[Table]:
    tables = [runs_table(runs), speech_quality_table(runs)]
    for cond in conditions(runs):
        tables.append(metrics_table(runs, cond))
    tables.append(mcnemar_table(runs))
    if len(runs) > 1:
        tables.append(paired_accuracy_table(runs))
    for cond in conditions(runs):
        tables.append(position_table(runs, cond))
    for cond in conditions(runs):
        tables.append(sensitivity_table(runs, cond))
    tables.append(kinds_table(runs))
    return tables


def failures_table(run: ScoredRun, limit: int = 30) -> Table:
    failed = [i for i in run.items if i.counted and i.passed is False]
    t = Table(
        f"Failed items — {run.label} ({len(failed)} in all, first {min(limit, len(failed))})",
        ["scenario", "turn", "metric", "kind", "reason", "transcript"],
    )
    for i in failed[:limit]:
        t.rows.append(
            [i.scenario_id, f"{i.turn_id} {i.label}", i.metric.value, i.kind.value, i.reason, i.transcript or ""]
        )
    return t
