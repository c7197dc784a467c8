"""`floorbench score` for suite `turns`: recordings → turns_scores.json, a TurnBench submission, tables.

Stages: discover the dialogues (the same folder format as every suite:
model.wav + turns.json, whose clips carry turns labels) → VAD on every model
track (`vad_stage.run_vad`, the shared speech rules) → both tracks of every
dialogue (`turns_events.score_dialogue`, the pure matcher) → totals with
dialogue-bootstrap intervals → files:

- ``turns_scores.json``: per track tp/fn/fp/tn, recall and false-positive rate
  with 95% percentile intervals over dialogues, signed latency p10/p50/p90,
  false positives per negative event type, takeover rate per event type,
  clips not run, and every dialogue's counts;
- ``turnbench_submission.json`` (`turns_export`): the model's decisions in
  TurnBench's submission format;
- ``turns_report.md``: the tables (`turns_tables`);
- ``vad.jsonl``: the model's speech segments per dialogue.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.audio.sounds import SoundRules, overlap_ms
from floorbench.audio.vad import WINDOW_MS, VadRules
from floorbench.paths import outputs
from floorbench.records import DialogueTurn, read_timeline_lines, write_json_atomic
from floorbench.scoring.inputs import DialogueSource, Discovery, InputError, clock_counts, discover, run_label
from floorbench.scoring.stats import bootstrap_ratios, percentile_interval
from floorbench.scoring.transport_summary import transport_summary
from floorbench.suites.turns.events import DialogueOutcome, eot_events, score_dialogue, yield_events
from floorbench.suites.turns.match import TaskCounts
from floorbench.suites.turns.rules import TurnEvent, TurnsRules

TURNS_SCORES_VERSION = 1
TRACKS = ("eot", "yield")


TURNS_LABELS = tuple(e.value for e in TurnEvent)
"""suite turns' clip labels (a dialogue holds one suite's labels only)"""


def is_turns(disc: Discovery) -> bool:
    """A folder of suite turns: its scorable dialogues' clips carry turns labels."""
    return any(d.turns and d.turns.turns and d.turns.turns[0].label in TURNS_LABELS for d in disc.scorable)


def not_run_clips(folder: Path) -> dict[str, int]:
    """Clips the schedule did not play (the model never spoke), by label, from timeline.jsonl."""
    out: dict[str, int] = {}
    for e in read_timeline_lines(folder / "timeline.jsonl"):
        if e.get("kind") == "wait" and e.get("reason") == "not_run":
            label = str(e.get("label"))
            out[label] = out.get(label, 0) + 1
    return out


def _counts(c: TaskCounts) -> dict[str, Any]:
    return {"tp": c.tp, "fn": c.fn, "fp": c.fp, "tn": c.tn}


def track_summary(outcomes: list[DialogueOutcome], track: str, resamples: int, seed: int, rules: TurnsRules) -> dict[str, Any]:
    """Totals of one track with dialogue-bootstrap intervals of recall and false-positive rate."""
    per = [o.eot if track == "eot" else o.yield_ for o in outcomes]
    total = TaskCounts()
    for c in per:
        total.merge(c)
    k = np.array([[c.tp for c in per], [c.fp for c in per]], dtype=np.float64)
    n = np.array([[c.tp + c.fn for c in per], [c.fp + c.tn for c in per]], dtype=np.float64)
    reps = bootstrap_ratios(k, n, resamples, seed) if resamples else None
    by_type: dict[str, dict[str, int]] = {}
    for o in outcomes:
        c, labels = (o.eot, o.eot_negative_labels) if track == "eot" else (o.yield_, o.yield_negative_labels)
        for label, fired in zip(labels, c.fired, strict=True):
            row = by_type.setdefault(label, {"fp": 0, "n": 0})
            row["fp"] += int(fired)
            row["n"] += 1
    fp_rate = total.fp_rate
    return {
        **_counts(total),
        "recall": total.recall,
        "recall_ci": list(percentile_interval(reps[0])) if reps is not None else [None, None],
        "fp_rate": fp_rate,
        "fp_rate_ci": list(percentile_interval(reps[1])) if reps is not None else [None, None],
        "latency_ms": total.latency_percentiles(),
        "fp_by_type": by_type,
        "qualifies": fp_rate is not None and fp_rate <= rules.fp_budget,
    }


def takeover_summary(outcomes: list[DialogueOutcome]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for label in TurnEvent:
        flags = [f for o in outcomes for f in o.takeovers.get(label.value, [])]
        out[label.value] = {"k": sum(flags), "n": len(flags), "rate": (sum(flags) / len(flags)) if flags else None}
    return out


def _score_all(sources: list[DialogueSource], workers: int, rules: TurnsRules, vad_rules: VadRules
               ) -> tuple[list[DialogueOutcome], list[dict[str, Any]]]:
    from floorbench.scoring.vad_stage import heard_speech, run_vad

    vad = run_vad([s.model_wav for s in sources], workers=workers)
    outcomes: list[DialogueOutcome] = []
    rows: list[dict[str, Any]] = []
    for heard in heard_speech(sources, vad, vad_rules):
        t, segs = heard.turns, [list(seg) for seg in heard.segments_ms]
        outcome = score_dialogue(t.scenario_id, t.run_field("condition"), t.turns, segs, heard.end_ms, rules)
        outcomes.append(outcome)
        rows.append({"scenario_id": t.scenario_id, "folder": heard.source.folder.name,
                     "duration_ms": heard.vad.duration_ms, "sample_rate": heard.vad.rate, "segments": segs,
                     "clock": heard.source.clock, "sounds": [list(x) for x in heard.sounds_ms],
                     "silence_over_sound": silence_over_sound(t.turns, outcome, heard.sounds_ms)})
    return outcomes, rows


def silence_over_sound(clips: Sequence[DialogueTurn], outcome: DialogueOutcome, sounds: Sequence[tuple[int, int]],
                       rules: SoundRules = SoundRules()) -> dict[str, int]:
    """Per track, the negatives counted as kept (tn) over which the model made loud sound that is not speech.

    The counts stay TurnBench's (they read speech decisions only, and so does its scorer); a true negative
    a tone or noise covers is earned by silence the model did not keep, so it is counted here and
    warned about, never left to pass unsaid (`floorbench.suites.mpe.sound_flags` does the same for mpe)."""
    out: dict[str, int] = {}
    for track, events, counts in (("eot", eot_events(clips), outcome.eot), ("yield", yield_events(clips), outcome.yield_)):
        n = 0
        for span, fired in zip(events.negatives, counts.fired, strict=False):
            width = span.end_ms - span.start_ms
            if not fired and overlap_ms(sounds, span.start_ms, span.end_ms + 1) >= min(rules.min_ms, max(1, width)):
                n += 1
        if n:
            out[track] = n
    return out


def sound_warnings(rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per dialogue whose model track holds loud sound that is not speech."""
    lines = []
    for r in rows:
        sounds = r.get("sounds") or []
        if not sounds:
            continue
        total = sum(e - s for s, e in sounds)
        kept = r.get("silence_over_sound") or {}
        over = ", ".join(f"{k} {v}" for k, v in sorted(kept.items())) or "none"
        lines.append(f"{r['scenario_id']}: {total / 1000:.1f} s of loud sound that is not speech on the model track "
                     f"(first at {sounds[0][0] / 1000:.1f} s); true negatives it covers (counted as kept, since the "
                     f"rules hear speech only): {over} — see turns_scores.json non_speech_sound")
    return lines


def score_turns(
    target: Path, out: Path | None = None, workers: int = 2, resamples: int = 10_000, seed: int = 0,
    rules: TurnsRules = TurnsRules(), vad_rules: VadRules = VadRules(), exclude_degraded: bool = False,
) -> tuple[dict[str, Any], Path]:
    """Score a turns run or recordings folder; write the files; return (turns_scores, out folder).

    `exclude_degraded` leaves out dialogues whose meta.json timing verdict is not ok (counted).
    """
    from floorbench.suites.turns.export import write_submission
    from floorbench.suites.turns.tables import render_turns_markdown

    out = out or target
    names = ("turns_scores.json", "turnbench_submission.json", "vad.jsonl", "turns_report.md")
    outputs(out, names, InputError, create=False)  # refused before any work
    disc = discover(target)
    sources = disc.scorable
    degraded = [d for d in sources if d.meta and d.meta.timing and d.meta.timing.verdict != "ok"]
    if exclude_degraded:
        sources = [d for d in sources if d not in degraded]
    outcomes, rows = _score_all(sources, workers, rules, vad_rules)
    legs = {s.turns.scenario_id: s.legs() for s in sources if s.turns is not None}
    not_run: dict[str, int] = {}
    for s in sources:
        for label, n in not_run_clips(s.folder).items():
            not_run[label] = not_run.get(label, 0) + n
    scores: dict[str, Any] = {
        "scores_version": TURNS_SCORES_VERSION, "suite": "turns",
        "created": datetime.now(UTC).isoformat(timespec="seconds"), "source": str(target),
        "source_kind": disc.kind, "run": run_label(disc), "run_info": disc.run_info,
        "scenarios": disc.counts() | {"scored": len(outcomes), "timing_degraded": len(degraded),
                                      "excluded_degraded": len(degraded) if exclude_degraded else 0,
                                      **clock_counts(sources)},
        "errors": disc.errors,
        "settings": {
            "rules": asdict(rules), "vad": asdict(vad_rules) | {"model": "silero_vad.onnx", "window_ms": WINDOW_MS},
            "decisions": {"eot": "model speech onsets", "yield": "ends of model speech"},
            "bootstrap": {"resamples": resamples, "seed": seed, "unit": "dialogue", "interval": "percentile 95%"},
        },
        "tracks": {t: track_summary(outcomes, t, resamples, seed, rules) for t in TRACKS},
        "takeover_rate": takeover_summary(outcomes),
        "not_run": not_run,
        "dialogues": [
            {"scenario_id": o.scenario_id, "conversation_type": o.conversation_type,
             "eot": _counts(o.eot) | {"latencies_ms": o.eot.latencies_ms},
             "yield": _counts(o.yield_) | {"latencies_ms": o.yield_.latencies_ms},
             **({"legs": {str(k): v for k, v in legs[o.scenario_id].items()}} if legs.get(o.scenario_id) else {})}
            for o in outcomes
        ],
        "non_speech_sound": {
            "dialogues": [{"scenario_id": r["scenario_id"], "sounds_ms": r["sounds"],
                           "true_negatives_over_sound": r["silence_over_sound"]} for r in rows if r["sounds"]],
            "true_negatives_over_sound": {t: sum(r["silence_over_sound"].get(t, 0) for r in rows) for t in TRACKS},
        },
        "warnings": sound_warnings(rows),
        "transport_latency_ms": transport_summary([s.meta for s in sources if s.meta], target if target.is_dir() else None),
    }
    scores_path, submission_path, vad_path, report_path = outputs(out, names, InputError)
    write_json_atomic(scores_path, scores)
    write_submission(submission_path, outcomes)
    vad_path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "silence_over_sound"}) + "\n" for r in rows), encoding="utf-8")
    report_path.write_text(render_turns_markdown([scores]), encoding="utf-8")
    return scores, out
