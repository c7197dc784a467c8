"""`floorbench judge-agreement`: two judges on the same sample of transcribed items.

Samples up to `sample` items per task (answer, intrusion) from a scored run's
items.jsonl (fixed seed), judges each with both judges (through the verdict
cache), and reports raw agreement, Cohen's kappa, the confusion table and the
disagreements with their transcripts; also agreement over the items neither
judge was unsure of, and each judge's unsure count.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from floorbench.records import write_json_atomic
from floorbench.scoring.agreement_labels import cohen_kappa
from floorbench.scoring.cache import JsonlCache
from floorbench.scoring.inputs import InputError, load_turns
from floorbench.scoring.judges import JudgeInput, Task, judge_cached, judge_id, make_judge
from floorbench.suites.mpe.content import turn_context
from floorbench.suites.mpe.items import Item, Metric
from floorbench.suites.mpe.scores_file import read_items, read_scores, read_vad_rows


def _decided(va: list[str], vb: list[str]) -> float | None:
    """Agreement over the items neither judge was unsure of."""
    pairs = [(x, y) for x, y in zip(va, vb, strict=True) if "unsure" not in (x, y)]
    return round(sum(x == y for x, y in pairs) / len(pairs), 4) if pairs else None


def _context(source: Path, scenario_folders: dict[str, str], item: Item) -> tuple[str, tuple[str, ...]]:
    """The turn's text and gold aliases from the dialogue's turns.json, if it is still there."""
    folder = scenario_folders.get(item.scenario_id)
    path = (source / folder / "turns.json") if folder else None
    if (source / "turns.json").is_file():  # a single scored dialogue folder
        path = source / "turns.json"
    if path is None or not path.is_file():
        return "", ()
    try:
        return turn_context(load_turns(path), item.turn_id)
    except InputError:
        return "", ()


def agreement(
    scored: Path,
    judge_a: str,
    judge_b: str,
    sample: int = 100,
    seed: int = 0,
    out: Path | None = None,
    options_a: dict[str, Any] | None = None,
    options_b: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], Path]:
    scores = read_scores(scored)
    items_path = scored / "items.jsonl"
    if not items_path.is_file():
        raise InputError(f"{scored}: no items.jsonl; run `floorbench score` first")
    items = [i for i in read_items(items_path) if (i.transcript or "").strip()]
    source = Path(scores.source)
    folders = {sid: str(row.get("folder", sid)) for sid, row in read_vad_rows(scored).items()}
    rng = random.Random(seed)
    ja = make_judge(judge_a, **(options_a or {}))
    jb = make_judge(judge_b, **(options_b or {}))
    cache = JsonlCache(scored / "scoring-cache" / "judge.jsonl")
    result: dict[str, Any] = {"judge_a": judge_id(ja), "judge_b": judge_id(jb), "seed": seed, "tasks": {}}
    for task, metric in ((Task.answer, Metric.conditional_accuracy), (Task.intrusion, Metric.silence_keeping)):
        pool = [i for i in items if i.metric is metric]
        chosen = rng.sample(pool, min(sample, len(pool)))
        inputs = []
        for it in chosen:
            ctx, aliases = _context(source, folders, it)
            inputs.append(JudgeInput(task, it.transcript or "", gold=it.gold, aliases=aliases, context=ctx))
        va = [v.verdict.value for v in judge_cached(ja, inputs, cache)]
        vb = [v.verdict.value for v in judge_cached(jb, inputs, cache)]
        kappa = cohen_kappa(va, vb)
        result["tasks"][task.value] = {
            "n": len(inputs),
            "agreement": round(sum(x == y for x, y in zip(va, vb, strict=True)) / len(va), 4) if va else None,
            "agreement_decided": _decided(va, vb),
            "unsure_a": va.count("unsure"),
            "unsure_b": vb.count("unsure"),
            "kappa": round(kappa, 4) if kappa is not None else None,
            "confusion": {f"{x}|{y}": c for (x, y), c in sorted(Counter(zip(va, vb, strict=True)).items())},
            "disagreements": [
                {
                    "scenario_id": it.scenario_id, "turn_id": it.turn_id, "transcript": it.transcript,
                    "gold": it.gold, "a": x, "b": y,
                }
                for it, x, y in zip(chosen, va, vb, strict=True)
                if x != y
            ][:50],
        }
    path = (out or scored) / "judge_agreement.json"
    write_json_atomic(path, result)
    return result, path
