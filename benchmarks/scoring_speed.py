"""How fast `floorbench score` is on this machine.

    .venv/bin/python benchmarks/scoring_speed.py                  # synthetic corpus
    .venv/bin/python benchmarks/scoring_speed.py --run runs/demo/oracle

Builds a corpus of mpe-shaped dialogues (30 s of preamble silence, twelve
turns, an answered request, an N4 answer that yields, an intrusion in every
third dialogue; real speech clips from tests/fixtures/scoring/clips) unless a
run directory is given, then measures:

1. the timing stage — read + resample + batched Silero + 120/800 ms rules +
   every mpe timing rule — in × real time (audio seconds per wall second), with
   1 and with N worker processes;
2. end to end (timing + faster-whisper tiny.en + offline judge + 10 000
   bootstrap resamples) on a subset, in dialogues per minute, with the time a
   4 000-dialogue run would take at that rate;
3. the offline judge alone on the packaged calibration set (732 items, no
   verdict cache), in items per second (`--judge-only` runs just this).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "scoring"))


def build_corpus(folder: Path, n: int) -> None:
    from build import DialogueSpec, Speech, Turn, write_dialogue  # type: ignore[import-not-found]

    labels = ["N2", "N2", "N1", "T", "N3", "N2", "N4Q", "N4R", "N2", "N1", "N3", "N2"]
    for d in range(n):
        t, turns, speech = 30_500, [], []
        for i, lab in enumerate(labels, start=1):
            dur = 2500 + 300 * ((d + i) % 5)
            turns.append(Turn(i, lab, t, t + dur, f"turn {i}", "the taco place" if lab == "T" else None))
            end = t + dur
            if lab == "T":
                speech.append(Speech(end + 900, "answer_taco"))
                end += 900 + 4400 + 2000
            elif lab == "N4Q":
                speech.append(Speech(end + 700, "long_answer", cut_ms=4000))
                end += 3000 - 500
            elif lab == "N3" and d % 3 == 0:
                speech.append(Speech(t + 400, "bare_number"))
            t = end + 500
        cond = "explicit" if d % 2 == 0 else "implicit"
        spec = DialogueSpec(f"b{d:05d}", turns, speech, t + 3000, pair_id=f"p{d // 2:05d}", condition=cond)
        write_dialogue(folder / spec.scenario_id, spec)


def timing_stage(target: Path, workers: int) -> dict[str, float]:
    from floorbench.scoring.inputs import discover
    from floorbench.scoring.vad_stage import run_vad
    from floorbench.suites.mpe.timing import Dialogue, timing_items

    t0 = time.perf_counter()
    disc = discover(target)
    vad = run_vad([s.model_wav for s in disc.scorable], workers=workers)
    n_items = 0
    audio_ms = 0
    for s in disc.scorable:
        r = vad[s.model_wav]
        assert s.turns is not None and r.error is None, r.error
        audio_ms += r.duration_ms
        d = Dialogue(s.turns.scenario_id, s.turns.run_field("pair_id"), s.turns.run_field("condition"), s.turns.turns,
                     r.duration_ms)
        n_items += len(timing_items(d, r.segments()))
    wall = time.perf_counter() - t0
    return {
        "workers": workers, "dialogues": len(disc.scorable), "audio_s": audio_ms / 1000, "wall_s": wall,
        "x_realtime": audio_ms / 1000 / wall, "items": n_items,
    }


def end_to_end(target: Path, out: Path, workers: int) -> dict[str, float]:
    from floorbench.suites.mpe.score import ScoreOptions, score

    t0 = time.perf_counter()
    res = score(target, ScoreOptions(out=out, workers=workers, cache_dir=out / "cache"))
    wall = time.perf_counter() - t0
    audio_s = sum(json.loads(line)["duration_ms"] for line in (out / "vad.jsonl").read_text().splitlines()) / 1000
    n = res.scores.scenarios["scored"]
    clips = sum(1 for i in res.items if i.transcript is not None)
    return {
        "dialogues": n, "audio_s": audio_s, "wall_s": wall, "x_realtime": audio_s / wall,
        "dialogues_per_min": n / wall * 60, "transcribed_clips": clips,
        "projected_4000_min": 4000 / (n / wall) / 60, "stages_s": res.scores.stage_seconds,  # type: ignore[dict-item]
    }


def judge_stage(repeats: int = 3) -> dict[str, float]:
    """The offline judge on every calibration item, cold (no verdict cache), best of `repeats`;
    the sentence model is loaded once before timing."""
    from floorbench.scoring.agreement_labels import load_labels
    from floorbench.scoring.judges.offline import OfflineJudge

    inputs = [i.judge_input for i in load_labels("calibration")]
    judge = OfflineJudge()
    judge.judge(inputs[:1])
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        judge.judge(inputs)
        best = min(best, time.perf_counter() - t0)
    return {"items": len(inputs), "wall_s": best, "items_per_s": len(inputs) / best}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", type=Path, help="time an existing run directory / recordings folder instead")
    ap.add_argument("--dialogues", type=int, default=120, help="synthetic corpus size (timing stage)")
    ap.add_argument("--e2e-dialogues", type=int, default=30, help="dialogues for the end-to-end measure")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    ap.add_argument("--judge-only", action="store_true", help="time only the offline judge")
    args = ap.parse_args()
    if args.judge_only:
        j = judge_stage()
        print(f"offline judge: {j['items']} calibration items in {j['wall_s']:.2f} s = {j['items_per_s']:.0f} items/s")
        if args.json:
            args.json.write_text(json.dumps({"judge": j}, indent=2))
        return

    tmp = Path(tempfile.mkdtemp(prefix="fb-speed-"))
    try:
        if args.run:
            corpus = small = args.run
        else:
            corpus, small = tmp / "corpus", tmp / "small"
            t = time.perf_counter()
            build_corpus(corpus, args.dialogues)
            small.mkdir()
            for p in sorted(corpus.iterdir())[: args.e2e_dialogues]:
                # copied, not linked: `score` refuses dialogue folders that resolve outside its target
                shutil.copytree(p, small / p.name)
            print(f"built {args.dialogues} synthetic dialogues in {time.perf_counter() - t:.1f} s", flush=True)
        results: dict[str, object] = {"cpu_count": os.cpu_count()}
        for w in sorted({1, args.workers}):
            r = timing_stage(corpus, w)
            results[f"timing_workers_{w}"] = r
            print(
                f"timing stage, {w} worker(s): {r['dialogues']} dialogues, {r['audio_s'] / 3600:.2f} h audio in "
                f"{r['wall_s']:.1f} s = {r['x_realtime']:.0f}x real time ({r['items']} items)",
                flush=True,
            )
        j = judge_stage()
        results["judge"] = j
        print(f"offline judge: {j['items']} calibration items in {j['wall_s']:.2f} s = {j['items_per_s']:.0f} items/s")
        e = end_to_end(small, tmp / "scored", args.workers)
        results["end_to_end"] = e
        print(
            f"end to end (tiny.en + offline judge + bootstrap): {e['dialogues']} dialogues, "
            f"{e['transcribed_clips']} transcribed clips, {e['wall_s']:.1f} s = {e['x_realtime']:.0f}x real time, "
            f"{e['dialogues_per_min']:.0f} dialogues/min -> 4000 dialogues in {e['projected_4000_min']:.0f} min; "
            f"stages {e['stages_s']}"
        )
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
