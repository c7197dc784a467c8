"""Conversations beyond English, measured (docs/measured.md, "Languages").

A content check in another language is only as good as the voices and the ASR: the caller's
lines and the agent's replies are spoken by local espeak-ng voices and heard by the packaged
multilingual Whisper `base`. Two parts:

1. Offline (about a minute): every line of `examples/languages/<language>.yaml` — the caller's
   `say`s and the oracle's replies as it says them (floorbench.suites.agent.oracle) — spoken by the
   language's voice with floorbench's espeak-ng settings and with espeak-ng's own defaults, heard by
   `base` in that language. Per language and setting: word error (character error for Mandarin,
   which is written without spaces; Whisper's traditional characters read as simplified; a line's
   errors capped at its length, so one line that Whisper heard as a loop of "Sie, Sie, …" counts as
   wholly wrong rather than as a hundred errors), the lines heard exactly, and how many `contains`
   phrases are found in the replies as heard, the way the assertion finds them.
2. Live (`--trials N`): `floorbench test examples/languages/<language>.yaml --model oracle --trials N`
   on a LiveKit server on 127.0.0.1, the oracle answering in the test's language; per test and per
   assertion, k of n judged trials, and the seconds it took.

    .venv/bin/python benchmarks/languages.py [--languages es,de,zh] [--trials 3 [--live-only]]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FILES = {"es": "spanish.yaml", "de": "german.yaml", "zh": "mandarin.yaml"}


def tokens(text: str, code: str) -> list[str]:
    """The units word error is counted in: words (numbers as digits), or Mandarin's characters."""
    from floorbench.speech.languages import comparable

    return re.sub(r"[^\w]+", " ", comparable(text.lower(), code)).split()


def errors(ref: list[str], hyp: list[str]) -> int:
    """Levenshtein distance between two token lists (substitutions, insertions, deletions)."""
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    return d[len(hyp)]


def lines(code: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(the caller's lines, the oracle's replies with the phrases `contains` asks of them) of the example."""
    from floorbench.suites.agent.oracle import oracle_reply
    from floorbench.suites.agent.validate import load_test_file

    said, replies = [], []
    for t in load_test_file(ROOT / "examples" / "languages" / FILES[code]):
        said += [ln.text for ln in t.lines.values() if ln.text]
        for i, st in enumerate(t.steps):
            reply = oracle_reply(t.steps, i, None, code)
            if reply:
                replies.append((reply, list(st.expect.contains)))
    return said, replies


def espeak_default(text: str, name: str) -> np.ndarray:
    """espeak-ng's own voice and speed, for comparison (floorbench's `cmn` maps to its pinyin voice)."""
    import soundfile as sf
    import soxr

    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["espeak-ng", "-v", name, "-w", f"{d}/o.wav", "--", text], check=True, capture_output=True)
        x, rate = sf.read(f"{d}/o.wav", dtype="float32")
    return soxr.resample(x, rate, 16000).astype(np.float32)


def offline(code: str) -> None:
    from floorbench.scoring.asr import Transcriber
    from floorbench.speech.languages import LANGUAGES
    from floorbench.speech.tts import synthesize
    from floorbench.suites.agent.words import says

    lang = LANGUAGES[code]
    said, replies = lines(code)
    texts = said + [r for r, _ in replies]
    tr = Transcriber("base", language=lang.whisper)
    name = lang.voice.partition(":")[2]
    for setting, speak in (("floorbench", lambda t: synthesize(t, lang.voice, 16000).astype(np.float32) / 32768),
                           ("espeak-ng default", lambda t: espeak_default(t, name))):
        t0 = time.monotonic()
        heard = tr.transcribe([speak(t) for t in texts])
        per = [(errors(tokens(t, code), tokens(h, code)), len(tokens(t, code))) for t, h in zip(texts, heard, strict=True)]
        errs, n = sum(min(e, k) for e, k in per), sum(k for _, k in per)  # a line's errors capped at its length
        asked = [(p, h) for (_, ps), h in zip(replies, heard[len(said):], strict=True) for p in ps]
        found = sum(says(h, p, code) for p, h in asked)
        unit = "character" if code == "zh" else "word"
        print(f"{lang.name:17} {setting:18} {len(texts):2} lines  {unit} error {errs / max(1, n):.2f}  "
              f"heard exactly {sum(e == 0 for e, _ in per)}/{len(per)}  contains found {found}/{len(asked)}  "
              f"({time.monotonic() - t0:.0f} s)", flush=True)
        if setting == "floorbench":
            for (_, ps), h in zip(replies, heard[len(said):], strict=True):
                if ps:
                    print(f"    {' / '.join(ps)!r:28} heard {h!r}")


def live(code: str, trials: int, conn: object) -> None:
    from floorbench.transports.server import LiveKitConnection

    assert isinstance(conn, LiveKitConnection)
    with tempfile.TemporaryDirectory(prefix="fb-lang-") as d:
        out, config = Path(d) / "out", Path(d) / "oracle.yaml"
        config.write_text("adapter: oracle\n")
        env = {**os.environ, "LIVEKIT_API_KEY": conn.api_key, "LIVEKIT_API_SECRET": conn.api_secret}
        cmd = [sys.executable, "-c", "from floorbench.cli import main; main()", "test", str(ROOT / "examples" / "languages" / FILES[code]),
               "--config", str(config), "--out", str(out), "--livekit-url", conn.url, "--trials", str(trials),
               "--quiet"]
        t0 = time.monotonic()
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
        took = time.monotonic() - t0
        if not (out / "results.json").is_file():
            print(f"{code}: no results (exit {p.returncode}): {(p.stdout + p.stderr)[-400:]}")
            return
        res = json.loads((out / "results.json").read_text())
    print(f"{code}: exit {p.returncode}, {took:.0f} s", flush=True)
    for t in res["tests"]:
        print(f"  {t['test']:28} {t['k']}/{t['n']} passed")
        for a in t["assertions"]:
            k = sum(m["passed"] for m in a["measured"])
            print(f"      {a['key']:34} {k}/{len(a['measured'])}  {a['measured'][0]['measured'][:60]!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--languages", default="es,de,zh")
    ap.add_argument("--trials", type=int, default=0, help="live trials per test (0: offline part only)")
    ap.add_argument("--live-only", action="store_true", help="skip the offline part")
    args = ap.parse_args()
    codes = [c for c in args.languages.split(",") if c]
    for c in codes:
        if c not in FILES:
            raise SystemExit(f"error: --languages: {c!r} has no example; use some of {', '.join(FILES)}")
    for c in [] if args.live_only else codes:
        offline(c)
    if args.trials > 0:
        from floorbench.transports.server import LiveKitServer

        with LiveKitServer() as server:
            for c in codes:
                live(c, args.trials, server.connection)


if __name__ == "__main__":
    main()
