"""`floorbench score` for suite `av`: recordings → av_scores.json, av_report.md, vad.jsonl.

Stages: discover the scenario folders (the same format as every suite) →
place each event window on model.wav's clock (`av_inputs.place`) or say why
the clip cannot be scored → VAD on every model track (`vad_stage.run_vad`, the
shared speech rules) → ASR (faster-whisper, the shared `Transcriber` and its
cache) of the model's speech before, inside and after the window → the rules
of `av_rules` (takeover, TOR alignment, latency) → per category and overall,
with clip-bootstrap intervals → the rubric judge (`av_judge`) when an LLM
endpoint is configured, else reported as not judged → files.

Unscorable clips (no recording, the model never connected, the cue not
played, the window past the recording, degraded timing when asked to leave
it out) are listed with their reasons and never enter a rate.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.audio.sounds import SoundRules, non_speech_sounds, overlap_ms
from floorbench.audio.vad import WINDOW_MS
from floorbench.paths import outputs
from floorbench.records import write_json_atomic
from floorbench.scoring.inputs import DialogueSource, Discovery, InputError, discover, run_label
from floorbench.scoring.stats import bootstrap_ratios, percentile_interval
from floorbench.suites.av.clip_score import AvScoreOptions, ClipScore
from floorbench.suites.av.inputs import AvInput, is_av, is_av_source, place
from floorbench.suites.av.rules import EXPECTED_TAKEOVER, AvRules, Category
from floorbench.suites.av.verdicts import (
    LATENCY_DEFINITIONS,
    is_aligned,
    is_takeover,
    latency,
    percentile,
    split_speech,
)

AV_SCORES_VERSION = 1
CONTEXT_MS = 10_000
"""how much of the model's speech before and after the window is transcribed (for the judge and the report)"""


def is_av_run(disc: Discovery) -> bool:
    return is_av(disc)


def _discovery_reason(d: DialogueSource) -> str:
    """Why a folder discovery could not score is unscorable, in the suite's words."""
    if d.error:
        return ("no_recording: " if "model.wav" in d.error else "unreadable: ") + d.error
    if d.meta is not None and d.outcome == "failed":
        kind = d.meta.failure_kind.value if d.meta.failure_kind else "failed"
        tag = "model_never_connected" if kind in ("model_never_joined", "model_error") else f"failed_{kind}"
        return f"{tag}: {d.meta.failure_reason or kind}"
    return f"{d.outcome}: the scenario did not complete"


def select(disc: Discovery, exclude_degraded: bool) -> tuple[list[DialogueSource], list[dict[str, str]]]:
    """The completed av folders to score, and every other planned scenario with its reason."""
    scorable: list[DialogueSource] = []
    left: list[dict[str, str]] = []
    seen: set[str] = set()
    for d in disc.dialogues:
        sid = d.turns.scenario_id if d.turns else (d.meta.scenario_id if d.meta else d.folder.name)
        seen.add(sid)
        if d.error is not None or d.outcome != "completed":
            left.append({"scenario_id": sid, "reason": _discovery_reason(d)})
        elif exclude_degraded and d.meta and d.meta.timing and d.meta.timing.verdict != "ok":
            left.append(
                {"scenario_id": sid, "reason": "timing_degraded: " + "; ".join(d.meta.timing.reasons)}
            )
        else:
            scorable.append(d)
    for e in disc.run_info.get("scenarios") or []:
        if isinstance(e, dict) and e.get("outcome") == "not_run" and str(e.get("scenario_id")) not in seen:
            left.append(
                {"scenario_id": str(e.get("scenario_id")), "reason": "not_run: the run never started it"}
            )
    return scorable, left


def _texts(inputs: list[tuple[AvInput, Any]], opts: AvScoreOptions, cache_dir: Path) -> list[dict[str, str]]:
    """ASR of the model's speech before, inside and after each window, in one batch."""
    from floorbench.scoring.asr import Transcriber, clip_audio
    from floorbench.scoring.cache import JsonlCache
    from floorbench.scoring.inputs import read_model_track

    spans: list[tuple[Any, list[tuple[int, int]], tuple[int, int]]] = []
    for inp, (segs, dur) in inputs:
        assert inp.window is not None
        ws, we = inp.window
        sp = split_speech(segs, inp.window, dur)
        spans += [
            (inp, sp.before, (max(0, ws - CONTEXT_MS), ws)),
            (inp, sp.inside, (ws, we)),
            (inp, sp.after, (we, min(dur, we + CONTEXT_MS))),
        ]
    audios: dict[Path, np.ndarray] = {}
    clips = []
    for inp, segs, bounds in spans:
        segs = [s for s in segs if s[1] > bounds[0] and s[0] < bounds[1]]
        if not segs:
            clips.append(np.zeros(0, dtype=np.float32))
            continue
        if inp.folder not in audios:
            audios[inp.folder] = read_model_track(inp.folder / "model.wav")[0]
        clips.append(clip_audio(audios[inp.folder], segs, bounds))
    tr = Transcriber(opts.asr, allow_download=opts.asr_download, cache=JsonlCache(cache_dir / "asr.jsonl"))
    texts = tr.transcribe(clips) if any(len(c) for c in clips) else ["" for _ in clips]
    return [
        {"before": texts[i], "inside": texts[i + 1], "after": texts[i + 2]} for i in range(0, len(texts), 3)
    ]


def score_clip(
    inp: AvInput, segs: list[tuple[int, int]], dur: int, texts: dict[str, str], rules: AvRules
) -> ClipScore:
    """The rules on one clip (its window placed, its speech and transcripts known)."""
    ev, window = inp.event, inp.window
    assert ev is not None and window is not None
    sp = split_speech(segs, window, dur)
    took = is_takeover(sp.inside_ms, len(texts["inside"].split()), rules)
    return ClipScore(
        inp=inp,
        duration_ms=dur,
        segments=segs,
        before=sp.before,
        inside=sp.inside,
        after=sp.after,
        texts=texts,
        takeover=took,
        aligned=is_aligned(ev.category, took),
        latency=latency(ev.category, segs, window),
    )


def refuse_silent_alignment(clip: ClipScore, sounds: list[tuple[int, int]], rules: SoundRules = SoundRules()
                            ) -> str | None:
    """A clip aligned by the model's silence (stay silent, yield, a backchannel not taken) whose window
    loud non-speech sound covers is not aligned: the rules hear speech only, and a tone or noise there
    is a silence the model did not keep (as `floorbench.suites.mpe.sound_flags` refuses mpe's silence
    passes). Returns the warning line for a clip whose window holds such sound, else None."""
    ev, window = clip.inp.event, clip.inp.window
    assert ev is not None and window is not None
    covered = overlap_ms(sounds, window[0], window[1])
    if covered < min(rules.min_ms, max(1, window[1] - window[0])):
        return None
    clip.sound_in_window_ms = covered
    what = f"{covered} ms of loud sound that is not speech in the window {window[0]}–{window[1]} ms"
    if clip.aligned and EXPECTED_TAKEOVER[ev.category] == 0 and not clip.takeover:
        clip.aligned = False
        clip.aligned_note = f"no speech, but {what}: a silence the model did not keep"
        return f"{clip.inp.scenario_id}: {what}; its alignment ({ev.category.value}) refused"
    return f"{clip.inp.scenario_id}: {what} (the rules hear speech only)"


def _placed(
    sources: list[DialogueSource], run_info: dict[str, Any], opts: AvScoreOptions
) -> tuple[
    list[tuple[AvInput, tuple[list[tuple[int, int]], int]]], list[dict[str, str]], list[dict[str, Any]]
]:
    """VAD on every placeable folder: (input, (segments, duration)) pairs, unscorable rows, vad.jsonl rows."""
    from floorbench.scoring.vad_stage import run_vad

    left: list[dict[str, str]] = []
    inputs = [place(s, run_info) for s in sources]
    for inp in inputs:
        if inp.unscorable:
            left.append({"scenario_id": inp.scenario_id, "reason": inp.unscorable})
    todo = [i for i in inputs if i.window is not None and not i.unscorable]
    vad = run_vad([i.folder / "model.wav" for i in todo], workers=opts.workers) if todo else {}
    ready: list[tuple[AvInput, tuple[list[tuple[int, int]], int]]] = []
    rows: list[dict[str, Any]] = []
    for inp in todo:
        res = vad[inp.folder / "model.wav"]
        assert inp.window is not None
        if res.error:
            left.append({"scenario_id": inp.scenario_id, "reason": f"no_recording: {res.error}"})
            continue
        if inp.window[1] > res.duration_ms:
            left.append(
                {
                    "scenario_id": inp.scenario_id,
                    "reason": f"window_past_recording: the window ends at "
                    f"{inp.window[1]} ms, model.wav at {res.duration_ms} ms",
                }
            )
            continue
        segs = [(int(a), int(b)) for a, b in res.segments(opts.vad_rules)]
        sounds = ([] if res.probabilities is None or res.window_rms is None
                  else [(int(a), int(b)) for a, b in non_speech_sounds(res.probabilities, res.window_rms, segs)])
        ready.append((inp, (segs, res.duration_ms)))
        rows.append(
            {
                "scenario_id": inp.scenario_id,
                "folder": inp.folder.name,
                "duration_ms": res.duration_ms,
                "sample_rate": res.rate,
                "segments": segs,
                "sounds": sounds,
                **(res.curve() or {}),
            }
        )
    return ready, left, rows


def tor_summary(clips: list[ClipScore], resamples: int, seed: int) -> dict[str, Any]:
    """TOR alignment per category and overall, with percentile intervals over clips (clip bootstrap)."""
    groups: list[tuple[str, list[bool]]] = [("overall", [True] * len(clips))]
    groups += [
        (c.value, [x.inp.event is not None and x.inp.event.category is c for x in clips]) for c in Category
    ]
    aligned = np.array([float(c.aligned) for c in clips])
    k = (
        np.array([aligned * np.array(m, dtype=np.float64) for _, m in groups])
        if clips
        else np.zeros((len(groups), 0))
    )
    n = np.array([np.array(m, dtype=np.float64) for _, m in groups]) if clips else np.zeros((len(groups), 0))
    reps = bootstrap_ratios(k, n, resamples, seed) if resamples and clips else None
    out: dict[str, Any] = {}
    for r, (name, _) in enumerate(groups):
        total, hits = int(n[r].sum()), int(k[r].sum())
        out[name] = {
            "n": total,
            "aligned": hits,
            "tor_alignment": hits / total if total else None,
            "ci": list(percentile_interval(reps[r])) if reps is not None and total else [None, None],
        }
    return out


def latency_summary(clips: list[ClipScore]) -> dict[str, Any]:
    """Median and p90 latency per category (its own definition), with how many clips had none."""
    out: dict[str, Any] = {}
    for c in Category:
        mine = [x for x in clips if x.inp.event is not None and x.inp.event.category is c]
        vals = [x.latency.ms for x in mine if x.latency.ms is not None]
        notes: dict[str, int] = {}
        for x in mine:
            notes[x.latency.note] = notes.get(x.latency.note, 0) + 1
        out[c.value] = {
            "definition": LATENCY_DEFINITIONS[c],
            "n": len(vals),
            "clips": len(mine),
            "p50": percentile(vals, 50),
            "p90": percentile(vals, 90),
            "notes": notes,
        }
    return out


def takeover_by(clips: list[ClipScore], key: str) -> dict[str, dict[str, Any]]:
    """Takeover rate and alignment per dynamic (or category)."""
    out: dict[str, dict[str, Any]] = {}
    for x in clips:
        ev = x.inp.event
        assert ev is not None
        name = ev.dynamic if key == "dynamic" else ev.category.value
        row = out.setdefault(name, {"n": 0, "takeovers": 0, "aligned": 0})
        row["n"] += 1
        row["takeovers"] += int(x.takeover)
        row["aligned"] += int(x.aligned)
    return dict(sorted(out.items()))


def _settings(opts: AvScoreOptions, asr_id: str, judge: dict[str, Any]) -> dict[str, Any]:
    return {
        "rules": asdict(opts.rules),
        "vad": asdict(opts.vad_rules) | {"model": "silero_vad.onnx", "window_ms": WINDOW_MS},
        "asr": {"model": asr_id},
        "context_ms": CONTEXT_MS,
        "latency": {c.value: d for c, d in LATENCY_DEFINITIONS.items()},
        "bootstrap": {
            "resamples": opts.resamples,
            "seed": opts.seed,
            "unit": "clip",
            "interval": "percentile 95%",
        },
        "judge": judge,
    }


def score_av(target: Path, opts: AvScoreOptions | None = None) -> tuple[dict[str, Any], Path]:
    """Score an av run or recordings folder; write av_scores.json, av_report.md, vad.jsonl."""
    from floorbench.scoring.asr import resolve_model
    from floorbench.suites.av.judge import judge_clips
    from floorbench.suites.av.tables import render_av_markdown

    opts = opts or AvScoreOptions()
    out = opts.out or target
    names = ("av_scores.json", "vad.jsonl", "av_report.md")
    outputs(out, (*names, "scoring-cache"), InputError, create=False)  # refused before any work
    cache_dir = opts.cache_dir or (out / "scoring-cache")
    disc = discover(target)
    sources, left = select(disc, opts.exclude_degraded)
    ready, more, rows = _placed([s for s in sources if is_av_source(s)], disc.run_info, opts)
    left += more
    texts = _texts(ready, opts, cache_dir) if ready else []
    clips = [
        score_clip(inp, segs, dur, t, opts.rules) for (inp, (segs, dur)), t in zip(ready, texts, strict=True)
    ]
    sounds_by = {r["folder"]: r["sounds"] for r in rows}
    warnings = [w for c in clips if (w := refuse_silent_alignment(c, sounds_by.get(c.inp.folder.name, [])))]
    rubric = judge_clips(clips, opts, cache_dir)
    scores: dict[str, Any] = {
        "scores_version": AV_SCORES_VERSION,
        "suite": "av",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": str(target),
        "source_kind": disc.kind,
        "run": run_label(disc),
        "run_info": disc.run_info,
        "scenarios": {
            "found": len(disc.dialogues),
            "scored": len(clips),
            "unscorable": len(left),
            "timing_degraded": sum(
                1 for d in sources if d.meta and d.meta.timing and d.meta.timing.verdict != "ok"
            ),
        },
        "errors": disc.errors,
        "warnings": warnings,
        "settings": _settings(opts, resolve_model(opts.asr)[1], rubric.get("judge", {})),
        "tor_alignment": tor_summary(clips, opts.resamples, opts.seed),
        "latency_ms": latency_summary(clips),
        "by_dynamic": takeover_by(clips, "dynamic"),
        "rubric": rubric,
        "unscorable": sorted(left, key=lambda r: r["scenario_id"]),
        "clips": [c.row() for c in sorted(clips, key=lambda c: c.inp.scenario_id)],
    }
    scores_path, vad_path, report_path = outputs(out, names, InputError)
    write_json_atomic(scores_path, scores)
    vad_path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report_path.write_text(render_av_markdown([scores]), encoding="utf-8")
    return scores, out
