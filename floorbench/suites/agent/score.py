"""Scoring suite `agent`: every trial's assertions, from its run folder alone.

Per scenario folder (one trial of one test): meta.json (the outcome, and in
``schedule`` the test's steps and expectations as played), turns.json (each
caller clip on the model's clock), timeline.jsonl (timed steps not played,
each branch's decision, the steps a branch's goto jumped over),
model.wav (VAD: the agent's speech; ASR of it in each content window, the
packaged ``tiny.en`` by default, cached as `floorbench score` caches it).

A trial is ``passed`` when every assertion holds, ``failed`` when one does not,
and ``error`` — never a pass — when its room failed (any outcome but
completed, with the failure's kind and reason), when it was planned but never
ran, or when its evidence is missing or unreadable (no turns.json or
model.wav, a played clip not found in turns.json, a branch whose caller could
not hear the agent: its ASR failed). Every trial lists its branches (the
rule taken, the transcript it reacted to, the caller's latencies) and the
steps it skipped, so a run can be audited. A judged trial also keeps its
``conversation`` (each step as heard, the agent's speech segments, the words
heard in each content window): what the report draws
(`floorbench.suites.agent.report`). The aggregation over trials is
`floorbench.suites.agent.verdicts`.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.audio.sounds import non_speech_sounds
from floorbench.audio.vad import VadRules
from floorbench.records import EventKind, read_timeline
from floorbench.scoring.inputs import DialogueSource, InputError, discover, read_model_track, run_label
from floorbench.scoring.quality import Dnsmos, TurnMos, as_records, summary, turn_scores
from floorbench.speech.languages import LANGUAGES, language
from floorbench.suites.agent.assertions import (
    Evidence,
    Placed,
    Result,
    StepPlan,
    asserted,
    content_windows,
    evaluate,
    latencies,
    speech_in,
)
from floorbench.suites.agent.rules import AgentRules, StepKind
from floorbench.suites.agent.timing import refined_stops, speech_fields, speech_offsets

AGENT_SCORES_VERSION = 1


def is_agent_run(target: Path) -> bool:
    """A run folder of suite agent: a scenario's meta.json says its schedule's policy is ``agent``."""
    try:
        disc = discover(target)
    except InputError:
        return False
    return any(d.meta is not None and d.meta.schedule.get("policy") == "agent" for d in disc.dialogues)


def split_trial_id(scenario_id: str) -> tuple[str, int]:
    """``greeting.t3`` → (``greeting``, 3): a trial whose meta.json has no schedule is still placed."""
    name, _, k = scenario_id.rpartition(".t")
    return (name, int(k)) if name and k.isdigit() else (scenario_id, 1)


def planned_ids(target: Path) -> list[str]:
    """The scenarios run.json planned (a trial that never ran is an error, not a pass)."""
    from floorbench.readers import ReadError, load_json

    try:
        info = load_json(target / "run.json")
    except ReadError:
        return []
    scen = info.get("scenarios") if isinstance(info, dict) else None
    if isinstance(scen, dict):
        return [str(k) for k in scen]
    if isinstance(scen, list):
        return [str(s.get("scenario_id")) for s in scen if isinstance(s, dict) and s.get("scenario_id")]
    return []


def _error(sid: str, why: str, schedule: dict[str, Any] | None = None) -> dict[str, Any]:
    test, trial = split_trial_id(sid)
    sched = schedule or {}
    return {"scenario_id": sid, "test": sched.get("test", test), "trial": sched.get("trial", trial),
            "source": sched.get("source", ""), "tags": sched.get("tags", []),
            "pass_threshold": sched.get("pass_threshold"), "status": "error", "error": why,
            "timing": None, "assertions": [], "latencies_ms": [], "duration_ms": None, "conversation": None,
            "branches": [], "skipped": [], "personas": []}


def _evidence(d: DialogueSource, plan: list[StepPlan], rules: AgentRules, vad: Any) -> Evidence:
    """The trial's evidence; `InputError` when a played clip is missing from turns.json."""
    assert d.turns is not None
    events = [(e, e.model_extra or {}) for e in read_timeline(d.folder / "timeline.jsonl")]
    stepped = [(e, x, int(x["step"])) for e, x in events if isinstance(x.get("step"), int)]
    not_run = {n for e, _, n in stepped if e.reason == "not_run"}
    skipped = {n: int(x.get("by_step") or 0) for e, x, n in stepped if e.kind is EventKind.wait and e.reason == "skipped"}
    branches = {n: {"step": n, "reason": e.reason, **{k: v for k, v in x.items() if k not in ("step", "decided_ms")}}
                for e, x, n in stepped if e.kind is EventKind.branch}
    by_clip = {st.clip: st.n for st in plan if st.clip is not None}
    by_clip |= {int(b["clip"]): n for n, b in branches.items() if isinstance(b.get("clip"), int)}
    offsets = speech_offsets(d.folder, [e for e, _ in events])  # each clip's speech as sent, past its pad
    clips = {t.turn_id: Placed(t.start_ms, t.end_ms, **speech_fields(offsets, t.turn_id, t.start_ms, t.end_ms))
             for t in d.turns.turns}
    placed = {by_clip[tid]: p for tid, p in clips.items() if tid in by_clip}
    t0 = d.meta.tracks["model"].start_ms if d.meta is not None and "model" in d.meta.tracks else 0  # model.wav's 0
    placed |= {n: Placed(e.t_ms - t0, int(x["end_ms"]) - t0) for e, x, n in stepped  # keys: asked, the last one's end
               if e.kind is EventKind.marker and e.reason == "dtmf" and isinstance(x.get("end_ms"), int)}
    missing = [st.n for st in plan if (st.clip is not None or st.kind is StepKind.branch)
               and st.n not in placed and st.n not in not_run and st.n not in skipped]
    personas, lines = _personas(stepped, clips)
    for n, heard in lines.items():
        if heard:
            placed[n] = Placed(heard[0].start_ms, heard[-1].end_ms)
    missing += [n for n, rec in personas.items() if len(lines.get(n, [])) != len(rec["lines"])]
    if missing:
        raise InputError(f"{d.folder}: step {missing[0]}'s clip was played but is not in turns.json; "
                         "the evidence is incomplete, run the test again")
    failed = next((b for b in branches.values() if b["reason"] == "asr_failed"), None)
    if failed is not None:
        raise InputError(f"step {failed['step']} (branch): {failed.get('why')}; the caller could not hear the agent, "
                         "so the branch it took means nothing (check the ASR model, or the machine's load)")
    dur = vad.duration_ms if d.turns.model_wav_end_ms is None else min(vad.duration_ms, d.turns.model_wav_end_ms)
    fine = VadRules(merge_gap_ms=rules.yield_gap_ms)
    segments = list(vad.segments(VadRules()))
    sounds = ([] if vad.probabilities is None or vad.window_rms is None
              else non_speech_sounds(vad.probabilities, vad.window_rms, segments))
    audio = read_model_track(d.model_wav)[0]  # the agent's stops, from VAD's windows to the energy edge
    return Evidence(placed=placed, segments=refined_stops(segments, audio, dur),
                    fine=refined_stops(list(vad.segments(fine)), audio, dur),
                    duration_ms=dur, not_run=not_run, sounds=sounds, branches=branches, skipped=skipped,
                    lines=lines, personas=personas)


def _personas(stepped: list[tuple[Any, dict[str, Any], int]],
              heard: dict[int, Placed]) -> tuple[dict[int, dict[str, Any]], dict[int, list[Placed]]]:
    """Each persona step's timeline records (lines, backchannels, end) and its lines as heard, in order."""
    recs: dict[int, dict[str, Any]] = {}
    for e, x, n in stepped:
        if e.kind is not EventKind.persona:
            continue
        rec = recs.setdefault(n, {"lines": [], "backchannels": [], "end": None})
        body = {k: v for k, v in x.items() if k != "step"}
        if e.reason == "end":
            rec["end"] = body
        else:
            rec["lines" if e.reason == "line" else "backchannels"].append(body)
    lines = {n: [heard[int(r["clip"])] for r in rec["lines"] if int(r["clip"]) in heard] for n, rec in recs.items()}
    return recs, lines


def _transcripts(pending: list[tuple[int, DialogueSource, Evidence, dict[str, tuple[int, int]]]],
                 asr: str, asr_download: bool, cache_dir: Path) -> dict[int, dict[str, str]]:
    """ASR of the agent's speech in every content window, by trial index and window key."""
    from floorbench.scoring.asr import Transcriber, clip_audio
    from floorbench.scoring.cache import JsonlCache

    out: dict[int, dict[str, str]] = {}
    for lang in sorted({ev.language for _, _, ev, _ in pending}):  # one model per language the calls were held in
        clips: list[np.ndarray] = []
        where: list[tuple[int, str]] = []
        for i, d, ev, windows in pending:
            if ev.language != lang:
                continue
            audio = read_model_track(d.model_wav)[0]
            for key, (lo, hi) in windows.items():
                clips.append(clip_audio(audio, speech_in(ev.segments, lo, hi), (lo, hi)))
                where.append((i, key))
        if any(len(c) for c in clips):
            tr = Transcriber(asr_for(asr, lang), allow_download=asr_download, language=LANGUAGES[lang].whisper,
                             cache=JsonlCache(cache_dir / "asr.jsonl"))
            texts = tr.transcribe(clips)
        else:
            texts = ["" for _ in clips]
        for (i, key), text in zip(where, texts, strict=True):
            out.setdefault(i, {})[key] = text
    return out


def asr_for(asr: str, lang: str) -> str:
    """The ASR model a call in `lang` is heard with: the one asked for, or the packaged multilingual `base`
    when that one hears English only (the default `tiny.en`)."""
    from floorbench.scoring.asr import MULTILINGUAL_ASR, english_only

    return MULTILINGUAL_ASR if lang != "en" and english_only(asr) else asr


def _speech_quality(judged: list[tuple[int, DialogueSource, Evidence, dict[str, tuple[int, int]]]]
                    ) -> dict[int, tuple[list[TurnMos], dict[str, Any]]]:
    """The predicted MOS of every agent turn (speech segments of at least 1 s) of each trial, and the runs it cut
    off while no caller spoke (`floorbench.scoring.self_interruptions`: what its own echo does), by trial index;
    a missing MOS model is one `QualityError` line."""
    from floorbench.scoring.self_interruptions import self_interruptions
    from floorbench.scoring.self_interruptions import summary as cut_summary

    if not judged:
        return {}
    from concurrent.futures import ThreadPoolExecutor

    predictor = Dnsmos()

    def one(d: DialogueSource, ev: Evidence) -> tuple[list[TurnMos], dict[str, Any]]:
        audio = read_model_track(d.model_wav)[0]
        caller = [(p.start_ms, p.end_ms) for p in ev.placed.values()]
        caller += [(p.start_ms, p.end_ms) for heard in ev.lines.values() for p in heard]
        echo = (d.meta.acoustics or {}).get("echo") if d.meta is not None else None
        return (turn_scores(audio, ev.segments, predictor),
                {**cut_summary(self_interruptions(audio, 16000, ev.fine, sorted(caller)), echo is not None),
                 "echo": echo})

    with ThreadPoolExecutor(2) as pool:  # onnxruntime runs outside the GIL: two trials at once on two cores
        done = {i: pool.submit(one, d, ev) for i, d, ev, _ in judged}
        return {i: f.result() for i, f in done.items()}


def score_trials(target: Path, *, asr: str = "tiny.en", asr_download: bool = False, workers: int = 1,
                 cache_dir: Path | None = None, rules: AgentRules = AgentRules(),
                 expected: list[str] | None = None) -> list[dict[str, Any]]:
    """Every trial under `target` (a run folder), judged; `expected`: the scenario ids that should be there."""
    from floorbench.scoring.vad_stage import run_vad

    disc = discover(target)
    trials: dict[str, dict[str, Any]] = {}
    ready: list[tuple[DialogueSource, list[StepPlan], dict[str, Any]]] = []
    for d in disc.dialogues:
        sid = d.folder.name
        sched = dict(d.meta.schedule) if d.meta is not None else {}
        if d.meta is not None and d.outcome != "completed":
            kind = d.meta.failure_kind.value if d.meta.failure_kind else d.outcome
            trials[sid] = _error(sid, f"the room failed ({kind}): {d.meta.failure_reason or d.outcome}", sched)
        elif d.error is not None or d.turns is None:
            trials[sid] = _error(sid, f"evidence missing: {d.error or 'no turns.json'}", sched)
        elif sched.get("policy") != "agent":
            trials[sid] = _error(sid, f"{d.folder / 'meta.json'}: not a conversation test's trial (no agent schedule)")
        else:
            ready.append((d, [StepPlan.of(s) for s in sched.get("steps", [])], sched))
    vad = run_vad([d.model_wav for d, _, _ in ready], workers=workers) if ready else {}
    from floorbench.suites.agent import tool_checks  # a test's tool calls, judged beside the recording
    judged: list[tuple[int, DialogueSource, Evidence, dict[str, tuple[int, int]]]] = []
    for i, (d, plan, sched) in enumerate(ready):
        res = vad[d.model_wav]
        try:
            if res.error:
                raise InputError(res.error)
            ev = _evidence(d, plan, rules, res)
        except InputError as e:
            trials[d.folder.name] = _error(d.folder.name, f"evidence missing: {e}", sched)
            continue
        ev.language = language(sched.get("language", "en"), f"{d.folder / 'meta.json'}: language").code
        judged.append((i, d, ev, content_windows(plan, ev, asserted(sched.get("expect")), rules)))
    texts = _transcripts([j for j in judged if j[3]], asr, asr_download, cache_dir or target / "scoring-cache")
    quality = _speech_quality(judged)
    for i, d, ev, windows in judged:
        _, plan, sched = ready[i]
        mos, cuts = quality[i]
        ev.mos = [t.ovrl for t in mos]
        results = evaluate(plan, asserted(sched.get("expect")), ev, texts.get(i, {}), rules)
        tool_results, tool_calls = tool_checks.judge_trial(d.folder, d.meta, plan, asserted(sched.get("expect")), ev,
                                                           rules.yield_gap_ms)
        results += tool_results
        trials[d.folder.name] = _trial(d, sched, results, [x for x in latencies(plan, ev, rules)], ev,
                                       conversation(sched, ev, windows, texts.get(i, {})))
        if tool_calls is not None:
            trials[d.folder.name]["tools"] = tool_calls
            (trials[d.folder.name]["conversation"] or {})["tools"] = tool_calls["calls"]  # the report's tool lane
        trials[d.folder.name]["speech_quality"] = {**summary(mos), "turns": as_records(mos)}
        trials[d.folder.name]["own_echo"] = cuts
        trials[d.folder.name]["language"] = ev.language
    for sid in expected or planned_ids(target):
        if sid not in trials:
            trials[sid] = _error(sid, "not run (no scenario folder); run the test again")
    return [trials[k] for k in sorted(trials, key=lambda s: (split_trial_id(s)[0], split_trial_id(s)[1]))]


def conversation(sched: dict[str, Any], ev: Evidence, windows: dict[str, tuple[int, int]],
                 texts: dict[str, str]) -> dict[str, Any]:
    """What the report draws of one trial, on the model's clock: each step as heard (or not played), the
    agent's speech segments (the shared VAD rules) and the words ASR heard in each content window."""
    steps = []
    for st in sched.get("steps", []):
        n = int(st["n"])
        if n in ev.lines:  # a persona: each line it said, with its words
            said = (ev.personas.get(n) or {}).get("lines") or []
            steps += [{"n": n, "kind": st["kind"], "text": str(r.get("text") or ""), "start_ms": q.start_ms,
                       "end_ms": q.end_ms, "not_played": False} for r, q in zip(said, ev.lines[n], strict=False)]
            continue
        p = ev.placed.get(n)
        steps.append({"n": n, "kind": st["kind"], "text": st.get("text"),
                      "start_ms": p.start_ms if p else None, "end_ms": p.end_ms if p else None,
                      "not_played": n in ev.not_run or n in ev.skipped})
    return {"duration_ms": ev.duration_ms, "steps": steps, "agent_speech": [list(s) for s in ev.segments],
            "words": [{"window": k, "start_ms": lo, "end_ms": hi, "text": texts.get(k, "")}
                      for k, (lo, hi) in windows.items()]}


def _trial(d: DialogueSource, sched: dict[str, Any], results: list[Result], lat: list[int | None],
           ev: Evidence, timeline: dict[str, Any] | None = None) -> dict[str, Any]:
    from floorbench.suites.agent.persona_judge import chain_error, records

    verdict = d.meta.timing.verdict if d.meta is not None and d.meta.timing is not None else None
    failed = chain_error(ev)  # the caller's own chain failed: judged and kept, but never a pass
    status = "error" if failed else "passed" if all(r.passed for r in results) else "failed"
    return {
        "scenario_id": d.folder.name, "test": sched.get("test"), "trial": sched.get("trial"),
        "source": sched.get("source", ""), "tags": sched.get("tags", []), "pass_threshold": sched.get("pass_threshold"),
        "status": status, "error": failed, "timing": verdict,
        "assertions": [asdict(r) for r in results], "latencies_ms": lat,
        "duration_ms": d.meta.duration_ms if d.meta is not None else None, "conversation": timeline,
        "branches": [dict(ev.branches[n]) for n in sorted(ev.branches)],
        "skipped": [{"step": n, "by_step": by} for n, by in sorted(ev.skipped.items())],
        "personas": records(ev),
    }


def score_agent(target: Path, out: Path | None = None, **kw: Any) -> tuple[dict[str, Any], Path]:
    """`floorbench score` of an agent run: agent_scores.json (trials and tests); returns (scores, folder)."""
    from floorbench.records import write_json_atomic
    from floorbench.suites.agent.verdicts import aggregate

    threshold = kw.pop("pass_threshold", None)
    trials = score_trials(target, **kw)
    disc = discover(target)
    scores = {
        "scores_version": AGENT_SCORES_VERSION, "suite": "agent",
        "created": datetime.now(UTC).isoformat(timespec="seconds"), "source": str(target), "run": run_label(disc),
        "rules": asdict(kw.get("rules", AgentRules())), "trials": trials,
        "tests": aggregate(trials, threshold),
    }
    out = out or target
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "agent_scores.json", scores)
    return scores, out
