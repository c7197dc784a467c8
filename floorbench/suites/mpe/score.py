"""`floorbench score`: a run directory or recordings folder → scores.json, items.jsonl, vad.jsonl.

Stages: discover the dialogues (bad inputs become one-line errors and are
skipped) → VAD on every model track (batched Silero, worker processes) →
timing rules → ASR of the speech in response and intrusion windows → judges
→ per-condition metrics with scenario-bootstrap intervals, McNemar. Failed
and lost (in-progress) scenarios are counted and reported, never scored.

vad.jsonl holds one line per scored dialogue, all the report draws from:
``scenario_id``, ``folder``, ``duration_ms``, ``sample_rate``, ``segments``
([start_ms, end_ms] of the model's speech) and a drawing curve of at most
1000 steps of ``curve_step_ms`` each (`vad_stage.VadResult.curve`):
``probability_pct`` (highest Silero probability in the step, percent) and
``envelope_pct`` (the step's RMS level, percent of the track's loudest step),
a few kB per dialogue. Folders scored before the curve was stored lack the
three curve fields.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from floorbench.audio.vad import WINDOW_MS, VadRules
from floorbench.paths import outputs
from floorbench.scoring.cache import JsonlCache
from floorbench.scoring.inputs import (
    DialogueSource,
    Discovery,
    InputError,
    clock_counts,
    discover,
    read_model_track,
    run_label,
)
from floorbench.scoring.outcome import ScoreRequest
from floorbench.scoring.transport_summary import transport_summary
from floorbench.suites.mpe import metrics
from floorbench.suites.mpe.items import Item
from floorbench.suites.mpe.rules import MpeRules
from floorbench.suites.mpe.scores_file import (
    OUTPUTS,
    ScoresFile,
    write_outputs,
)
from floorbench.suites.mpe.timing import Dialogue, timing_items

if TYPE_CHECKING:
    from floorbench.scoring.judges import Judge

@dataclass(frozen=True)
class ScoreOptions(ScoreRequest):
    """`floorbench score`'s options and the suite's rules and scorer knobs."""

    asr_threads: int = 0
    vad_batch: int = 64
    vad_rules: VadRules = field(default_factory=VadRules)
    timing_rules: MpeRules = field(default_factory=MpeRules)
    """the benchmark's numbers; the live schedule plays by the same record"""


@dataclass
class ScoreResult:
    scores: ScoresFile
    items: list[Item]
    out: Path


Progress = Callable[[str, int, int], None]
"""(stage, done, total)"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _stage_counter(progress: Progress | None, stage: str, total: int) -> Callable[[int], None]:
    """A callback that adds up the work done in `stage` and reports (stage, done, total)."""
    done = 0

    def add(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(stage, done, total)

    return add


def _timing_stage(
    sources: list[DialogueSource], opts: ScoreOptions, progress: Progress | None
) -> tuple[list[tuple[DialogueSource, list[Item]]], list[dict[str, Any]], list[str]]:
    """VAD on every model track, then the timing rules on its speech: (items per dialogue, vad.jsonl rows,
    warnings).

    A silence pass over loud sound that is not speech is refused (`floorbench.suites.mpe.sound_flags`),
    with one warning per dialogue that holds such sound.

    A track that cannot be read (or holds no samples, or NaN/inf samples) marks
    its dialogue unreadable (`error`) and is left out; items whose window lies
    past the end of the recording come out `unscorable`.
    """
    from floorbench.scoring.vad_stage import heard_speech, run_vad
    from floorbench.suites.mpe.sound_flags import refuse_silent_passes, sound_warning

    vad = run_vad(
        [s.model_wav for s in sources], workers=opts.workers, batch=opts.vad_batch,
        progress=_stage_counter(progress, "vad", len(sources)),
    )
    items_by: list[tuple[DialogueSource, list[Item]]] = []
    vad_rows: list[dict[str, Any]] = []
    warnings: list[str] = []
    for heard in heard_speech(sources, vad, opts.vad_rules):
        s, res, segs = heard.source, heard.vad, heard.segments_ms
        d = Dialogue(
            scenario_id=heard.turns.scenario_id, pair_id=heard.turns.run_field("pair_id"),
            condition=heard.turns.run_field("condition"),
            turns=heard.turns.turns, duration_ms=heard.end_ms,
        )
        items = timing_items(d, segs, opts.timing_rules)
        refused = refuse_silent_passes(items, heard.sounds_ms)
        if (warning := sound_warning(d.scenario_id, heard.sounds_ms, refused)) is not None:
            warnings.append(warning)
        legs = s.legs()
        for it in items:
            it.legs = legs.get(it.turn_id)
        items_by.append((s, items))
        vad_rows.append(
            {
                "scenario_id": d.scenario_id, "folder": s.folder.name, "duration_ms": res.duration_ms,
                "sample_rate": res.rate, "segments": segs, "sounds": heard.sounds_ms, "clock": s.clock,
                "segments_wav_ms": [list(x) for x in res.segments(opts.vad_rules)],
                "runs_wav_ms": [list(x) for x in res.segments(replace(opts.vad_rules, merge_gap_ms=RUN_GAP_MS))],
                **(res.curve() or {}),
            }
        )
    return items_by, vad_rows, warnings


def run_selection(disc: Discovery, exclude_degraded: bool) -> tuple[list[DialogueSource], dict[str, int]]:
    """The dialogues to score, and the counts a run folder adds to `scenarios`.

    ``not_run``: scenarios run.json lists as never started (Ctrl-C, ``--limit``), which
    have no folder; ``timing_ok`` / ``timing_degraded``: the verdicts in meta.json of
    the scorable dialogues; ``excluded_degraded``: those left out on request.
    """
    seen = {d.folder.name for d in disc.dialogues} | {d.meta.scenario_id for d in disc.dialogues if d.meta}
    entries = disc.run_info.get("scenarios")
    never = [
        e for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict) and e.get("outcome") == "not_run" and str(e.get("scenario_id")) not in seen
    ]
    degraded = [d for d in disc.scorable if d.meta and d.meta.timing and d.meta.timing.verdict != "ok"]
    ok = sum(1 for d in disc.scorable if d.meta and d.meta.timing and d.meta.timing.verdict == "ok")
    counts = {
        "not_run": disc.counts().get("not_run", 0) + len(never),
        "timing_ok": ok,
        "timing_degraded": len(degraded),
        "excluded_degraded": len(degraded) if exclude_degraded else 0,
        **clock_counts(disc.scorable),
    }
    left_out = {id(d) for d in degraded} if exclude_degraded else set()
    sources = [d for d in disc.scorable if id(d) not in left_out]
    return sources, counts


def _content_stage(
    items_by: list[tuple[DialogueSource, list[Item]]], opts: ScoreOptions, cache_dir: Path,
    progress: Progress | None,
) -> tuple[dict[str, str], Judge, list[str]]:
    """ASR of the speech in every window that needs a transcript, then the judges; fills the items in place.
    Per language the dialogues were held in (meta.json's schedule): heard by a model that hears it, judged by
    `--judge` where it can judge it; where it cannot, the items that needed a verdict are `unsure` (out of
    the rates) and one line says so — never judged by English rules. Returns (the ASR model per language,
    the judge, those lines)."""
    from floorbench.scoring.asr import MULTILINGUAL_ASR, Transcriber, english_only, resolve_model
    from floorbench.scoring.judges import make_judge
    from floorbench.speech.languages import LANGUAGES, content_refused
    from floorbench.suites.mpe.content import PendingDialogue, fill_content, not_judged

    judge = make_judge(opts.judge, **dict(opts.judge_options))
    by_lang: dict[str, list[PendingDialogue]] = {}
    for s, its in items_by:
        if s.turns is not None and any(i.needs_transcript for i in its):
            by_lang.setdefault(_held_in(s), []).append(PendingDialogue(
                turns=s.turns, items=its, read_audio=(lambda p=s.model_wav: read_model_track(p)[0]),
                time_map=s.time_map))
    n_clips = sum(sum(i.needs_transcript for i in p.items) for ps in by_lang.values() for p in ps)
    counters = {stage: _stage_counter(progress, stage, n_clips) for stage in ("asr", "judge")}
    models, lines = {"en": resolve_model(opts.asr)[1]}, []
    for code, pending in sorted(by_lang.items()):
        lang = LANGUAGES[code]
        if (why := content_refused(lang, opts.judge)) is not None:
            lines.append(f"{why}; {not_judged(pending, why)} left unsure")
            continue
        model = MULTILINGUAL_ASR if code != "en" and english_only(opts.asr) else opts.asr
        models[code] = resolve_model(model)[1]
        transcriber = Transcriber(
            model, allow_download=opts.asr_download, cpu_threads=opts.asr_threads,
            cache=JsonlCache(cache_dir / "asr.jsonl"), language=lang.whisper,
        )
        fill_content(pending, transcriber, judge, JsonlCache(cache_dir / "judge.jsonl"),
                     progress=lambda stage, n: counters[stage](n))
    return models, judge, lines


def _held_in(s: DialogueSource) -> str:
    """The language a dialogue was held in (its meta.json's schedule; English where it records none)."""
    from floorbench.speech.languages import language

    code = s.meta.schedule.get("language", "en") if s.meta is not None else "en"
    return language(code, f"{s.folder / 'meta.json'}: language").code


RUN_GAP_MS = 300
"""the model's runs of speech for self-interruptions: pauses this long end one (the agent suite's yield gap)"""


def _quality_stage(items_by: list[tuple[DialogueSource, list[Item]]], vad_rows: list[dict[str, Any]]
                   ) -> dict[str, Any]:
    """The predicted MOS of every model turn (floorbench.scoring.quality): each dialogue's turns in its
    vad.jsonl row (``speech_quality``, on model.wav's clock), pooled per condition and over the run."""
    from floorbench.scoring.quality import Dnsmos, as_records, pooled, predictor_identity, turn_scores

    if not vad_rows:
        return {"model": predictor_identity(), "run": pooled([]), "conditions": {}}
    predictor = Dnsmos()
    by_folder = {s.folder.name: s for s, _ in items_by}
    per_cond: dict[str, list[dict[str, Any]]] = {}
    cuts: dict[str, list[dict[str, Any]]] = {}
    echoed: set[str] = set()
    for row in vad_rows:
        s = by_folder[row["folder"]]
        turns = as_records(turn_scores(read_model_track(s.model_wav)[0],
                                       [tuple(x) for x in row["segments_wav_ms"]], predictor))
        row["speech_quality"] = turns
        cond = s.turns.run_field("condition") if s.turns is not None else ""
        per_cond.setdefault(cond, []).extend(turns)
        cuts[row["scenario_id"]] = _cuts(s, [tuple(x) for x in row["runs_wav_ms"]])
        if s.meta is not None and (s.meta.acoustics or {}).get("echo"):
            echoed.add(row["scenario_id"])  # its humans' track carried the model's echo
    every = [t for ts in per_cond.values() for t in ts]
    return {"model": predictor_identity(predictor.folder, predictor.digests), "run": pooled(every),
            "conditions": {c: pooled(ts) for c, ts in sorted(per_cond.items())},
            "self_interruptions": sum(len(c) for k, c in cuts.items() if k in echoed),
            "restarts": sum(x["restarted_ms"] is not None for k, c in cuts.items() if k in echoed for x in c),
            "cut_offs": sum(len(c) for c in cuts.values()),
            "self_interruptions_at": {k: v for k, v in cuts.items() if v}}


def _cuts(s: DialogueSource, runs: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """The model's runs (model.wav ms) cut off while no human spoke (floorbench.scoring.self_interruptions);
    the humans' turns are on the turns' clock, within the room's latency of model.wav's (tens of ms, against the
    1.5 s of quiet asked for)."""
    from floorbench.scoring.self_interruptions import self_interruptions

    humans = [(t.start_ms, t.end_ms) for t in (s.turns.turns if s.turns is not None else [])]
    found = self_interruptions(read_model_track(s.model_wav)[0], 16000, runs, humans)
    return [asdict(f) for f in found]


def score(target: Path, opts: ScoreOptions | None = None, progress: Progress | None = None) -> ScoreResult:
    """Score everything under `target`; write scores.json, items.jsonl and vad.jsonl."""
    from floorbench.scoring.judges import judge_id

    opts = opts or ScoreOptions()
    out = opts.out or target
    outputs(out, (*OUTPUTS, "scoring-cache"), InputError, create=False)  # refused before any work, not after
    cache_dir = opts.cache_dir or (out / "scoring-cache")
    t0 = time.perf_counter()
    secs: dict[str, float] = {}
    disc: Discovery = discover(target)

    t = time.perf_counter()
    sources, run_counts = run_selection(disc, opts.exclude_degraded)
    items_by, vad_rows, warnings = _timing_stage(sources, opts, progress)
    secs["vad_timing"] = time.perf_counter() - t

    t = time.perf_counter()
    asr_models, judge, refused = _content_stage(items_by, opts, cache_dir, progress)
    warnings += refused
    secs["asr_judge"] = time.perf_counter() - t

    t = time.perf_counter()
    quality = _quality_stage(items_by, vad_rows)
    secs["speech_quality"] = time.perf_counter() - t

    t = time.perf_counter()
    items = [i for _, its in items_by for i in its]
    scen_cond = {s.turns.scenario_id: s.turns.run_field("condition") for s, _ in items_by if s.turns}
    conds = metrics.by_condition(items, scen_cond, opts.resamples, opts.seed)
    secs["statistics"] = time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0

    judge_settings: dict[str, Any] = {"id": judge_id(judge)}
    if hasattr(judge, "settings"):
        judge_settings.update(judge.settings())  # type: ignore[attr-defined]
    scores = ScoresFile(
        created=_now(),
        source=str(target),
        source_kind=disc.kind,
        run=run_label(disc),
        run_info=disc.run_info,
        scenarios=disc.counts() | run_counts | {"scored": len(items_by)},
        errors=disc.errors,
        warnings=warnings,
        settings={
            "vad": asdict(opts.vad_rules) | {"model": "silero_vad.onnx", "window_ms": WINDOW_MS},
            "timing": asdict(opts.timing_rules),
            "asr": {"model": asr_models.pop("en")} | ({"languages": asr_models} if asr_models else {}),
            "judge": judge_settings,
            "bootstrap": {"resamples": opts.resamples, "seed": opts.seed, "unit": "scenario",
                          "interval": "percentile 95%"},
            "yield_min_n": metrics.YIELD_MIN_N,
        },
        conditions=conds,
        speech_quality=quality,
        mcnemar=metrics.presence_mcnemar(items),
        stage_seconds={k: round(v, 3) for k, v in secs.items()},
        transport_latency_ms=transport_summary(
            [s.meta for s in sources if s.meta], target if target.is_dir() else None
        ),
    )
    write_outputs(out, scores, items, vad_rows)
    return ScoreResult(scores=scores, items=items, out=out)


async def score_async(
    target: Path, opts: ScoreOptions | None = None, progress: Progress | None = None
) -> ScoreResult:
    """`score` in a worker thread, for callers on an event loop (VAD, ASR and judges all block)."""
    import asyncio

    return await asyncio.to_thread(score, target, opts, progress)


