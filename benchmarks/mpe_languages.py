"""Suite mpe beyond English, live (docs/measured.md, "Languages").

Per language: `generate --suite mpe --language L --pairs N --seed S --min-turns 4 --max-turns 6`, rendered
with the language's espeak-ng voice, run live against the `oracle` on a LiveKit server on 127.0.0.1, and
scored by `floorbench score` with its defaults (the offline judge). The timing metrics are scored; content is
not (the offline judge has rules for English only), so the answers that needed a verdict come out `unsure`
with one warning line. To say whether a judge could have read them, each request's response window is heard
again here by the packaged multilingual Whisper `base` in the language, and the gold (or one of its aliases)
is looked for in it the way a conversation test's `contains` looks for a phrase
(floorbench.suites.agent.words.says): a word match, not a judge.

    .venv/bin/python benchmarks/mpe_languages.py [--languages es,de,zh] [--pairs 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

METRICS = ("fresh_onset_rate", "response_presence", "silence_keeping", "yield_rate", "conditional_accuracy")


def heard_answers(run: Path, scored: Path, code: str) -> tuple[int, int, list[str]]:
    """(golds found, requests with speech, what was heard) in the request windows of `scored`'s items."""
    from floorbench.scoring.asr import MULTILINGUAL_ASR, Transcriber
    from floorbench.scoring.inputs import read_model_track
    from floorbench.speech.languages import LANGUAGES
    from floorbench.suites.agent.words import says
    from floorbench.suites.mpe.content import clip_for
    from floorbench.suites.mpe.items import Item

    items = [Item.model_validate_json(line) for line in (scored / "items.jsonl").read_text().splitlines()]
    asked = [i for i in items if i.metric == "conditional_accuracy" and i.speech]
    folders = {json.loads(p.read_text())["scenario_id"]: p.parent for p in run.glob("*/meta.json")}
    clips = [clip_for(i, read_model_track(folders[i.scenario_id] / "model.wav")[0]) for i in asked]
    heard = Transcriber(MULTILINGUAL_ASR, language=LANGUAGES[code].whisper).transcribe(clips) if clips else []
    found = 0
    for i, text in zip(asked, heard, strict=True):
        turns = json.loads((folders[i.scenario_id] / "turns.json").read_text())["turns"]
        aliases = next((t.get("gold_aliases") or [] for t in turns if t["turn_id"] == i.turn_id), [])
        found += any(says(text, g, code) for g in [i.gold or "", *aliases] if g)
    return found, len(asked), heard


def one_language(code: str, pairs: int, seed: int, conn: object, root: Path) -> None:
    from floorbench.pipelines.run.runner import RunOptions, run_suite
    from floorbench.scenarios.render import render_suite
    from floorbench.speech.languages import LANGUAGES
    from floorbench.suites.mpe.generate import GenConfig
    from floorbench.suites.mpe.generate_languages import write_language_suite
    from floorbench.suites.mpe.score import ScoreOptions, score
    from floorbench.transports.server import LiveKitConnection

    assert isinstance(conn, LiveKitConnection)
    suite, run, scored = root / f"mpe-{code}", root / f"run-{code}", root / f"scored-{code}"
    t0 = time.monotonic()
    write_language_suite(suite, pairs, seed, code, GenConfig(min_turns=4, max_turns=6))
    render_suite(suite, jobs=2)
    t1 = time.monotonic()
    asyncio.run(run_suite(RunOptions(suite=suite, model="oracle", out=run, connection=conn, progress=False)))
    t2 = time.monotonic()
    res = score(run, ScoreOptions(workers=1, resamples=1000, out=scored))
    t3 = time.monotonic()
    s = res.scores
    print(f"{LANGUAGES[code].name}: {s.scenarios.get('scored', 0)} scenarios scored "
          f"(render {t1 - t0:.0f} s, run {t2 - t1:.0f} s, score {t3 - t2:.0f} s)", flush=True)
    for cond, m in sorted(s.conditions.items()):
        cells = [f"{name} {r.passed}/{r.n}" + (f" ({r.unsure} unsure)" if r.unsure else "")
                 for name in METRICS if (r := m.metrics.get(name)) is not None]
        print(f"  {cond:9} " + "; ".join(cells))
    n4 = [f"{i.metric}: {i.kind}" for i in res.items if i.label == "N4Q"]
    print(f"  side questions (N4Q): {'; '.join(n4) or 'none'}")
    for w in s.warnings:
        print(f"  warning: {w}")
    found, n, heard = heard_answers(run, scored, code)
    print(f"  answers heard by base with the gold in them: {found}/{n}")
    for h in heard:
        print(f"    heard {h!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--languages", default="es,de,zh")
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from floorbench.suites.mpe.lines import LINES
    from floorbench.transports.server import LiveKitServer

    codes = [c for c in args.languages.split(",") if c]
    for c in codes:
        if c not in LINES:
            raise SystemExit(f"error: --languages: {c!r}; use some of {', '.join(LINES)}")
    with tempfile.TemporaryDirectory(prefix="fb-mpe-lang-") as d, LiveKitServer() as server:
        for c in codes:
            one_language(c, args.pairs, args.seed, server.connection, Path(d))


if __name__ == "__main__":
    main()
