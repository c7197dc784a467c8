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
2. Through Opus (`--through-opus`, a few minutes): each `contains` reply of the example spoken as the oracle
   speaks it (24 kHz), carried as the room carries it (resampled to 48 kHz, an Opus round trip at 32 kbit/s,
   back to 16 kHz) in 24 takes that differ in the Opus frame phase and in where the clip starts (up to
   200 ms of silence before it, or up to 90 ms of it cut), every other one holding only the reply's first
   sentence (as a window cut by the caller's next turn does), heard by `base`: how many takes the phrase is
   found in. One take is what the offline part measures; `base` on espeak's voices can turn on a few
   milliseconds (the German "Dienstag" came back "den Stock" in live trials whose audio matched what the
   oracle sent), so a word an example asks for should be found in every take. `--words` measures candidate
   words instead, each in the oracle's own reply ("Das Wort ist …. Dabei kann …"), or `phrase=reply`.
3. Live (`--trials N`): `floorbench test examples/languages/<language>.yaml --model oracle --trials N`
   on a LiveKit server on 127.0.0.1, the oracle answering in the test's language; per test and per
   assertion, k of n judged trials, and the seconds it took.

    .venv/bin/python benchmarks/languages.py [--languages es,de,zh] [--through-opus [--words "Telefon|Musik"]]
                                             [--trials 3 [--live-only]]
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


ORACLE_RATE = 24000
"""the rate the oracle speaks at in a room (the room's output rate), before WebRTC resamples it to 48 kHz"""
SHIFTS_MS = (-200, -150, -80, -50, -30, -10, 0, 2, 5, 7, 10, 12, 15, 17, 20, 25, 30, 35, 45, 50, 60, 70, 80, 90)
"""where each take's clip starts against the reply as spoken: negative, that much more silence before it"""


def opus_round_trip(x48: np.ndarray, phase: int) -> np.ndarray:
    """`x48` (float, 48 kHz) through libopus at 32 kbit/s in 20 ms frames and back, the frames starting `phase`
    samples earlier than the speech (each take meets the codec's frames at another point)."""
    import av

    enc = av.CodecContext.create("libopus", "w")
    enc.sample_rate, enc.layout, enc.format, enc.bit_rate = 48000, "mono", "s16", 32000  # pyright: ignore
    enc.options = {"application": "voip"}
    enc.open()
    dec = av.CodecContext.create("libopus", "r")
    dec.sample_rate, dec.layout = 48000, "mono"  # pyright: ignore
    dec.open()
    pcm = np.concatenate([np.zeros(phase), x48, np.zeros(960 * 5)])
    pcm = np.concatenate([pcm, np.zeros(-len(pcm) % 960)])
    pcm = np.clip(pcm * 32768, -32768, 32767).astype(np.int16)
    out: list[np.ndarray] = []

    def decode(packets: list) -> None:
        for packet in packets:
            for frame in dec.decode(packet):
                a = frame.to_ndarray().reshape(-1)
                out.append(a.astype(np.float32) if a.dtype.kind == "f" else a.astype(np.float32) / 32768)

    for i in range(0, len(pcm), 960):
        frame = av.AudioFrame.from_ndarray(pcm[i:i + 960].reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate, frame.pts = 48000, i
        decode(enc.encode(frame))
    decode(enc.encode(None))
    return np.concatenate(out)[phase:]


def takes(text: str, voice: str) -> list[np.ndarray]:
    """`text` as the oracle speaks it, carried through Opus as the room carries it, in len(SHIFTS_MS) takes (16 kHz):
    every other take holds only its first sentence, as a window does that the caller's next turn ends in the
    pause after it (a caller with `gap_ms: 500` takes its turn in espeak's pause between sentences)."""
    import soxr

    from floorbench.speech.tts import synthesize

    first = re.split(r"(?<=[.!?。！？])\s*", text, maxsplit=1)[0]
    spoken = [soxr.resample(synthesize(t, voice, ORACLE_RATE).astype(np.float32) / 32768, ORACLE_RATE, 48000)
              for t in (text, first)]
    out = []
    for j, shift in enumerate(SHIFTS_MS):
        y = soxr.resample(opus_round_trip(spoken[j % 2], j * 331 % 960), 48000, 16000).astype(np.float32)
        out.append(np.concatenate([np.zeros(-shift * 16, np.float32), y]) if shift < 0 else y[shift * 16:])
    return out


def through_opus(code: str, words: list[str]) -> None:
    """How many takes through Opus each `contains` phrase is found in: the example's replies, or `words`."""
    from floorbench.scoring.asr import Transcriber
    from floorbench.speech.languages import LANGUAGES
    from floorbench.suites.agent.oracle import PHRASES, said_words
    from floorbench.suites.agent.words import says

    lang = LANGUAGES[code]
    if words:
        asked = []
        for w in words:
            phrase, _, reply = w.partition("=")
            said = f"{said_words([phrase], code)} {PHRASES[code].long}"  # as oracle_reply says a `contains` word
            asked.append((reply.strip() or said, [phrase.strip()]))
    else:
        asked = [(r, ps) for r, ps in lines(code)[1] if ps]
    t0 = time.monotonic()
    clips = [(reply, ps, c) for reply, ps in asked for c in takes(reply, lang.voice)]
    heard = Transcriber("base", language=lang.whisper).transcribe([c for _, _, c in clips])
    for reply, ps in asked:
        got = [h for (r, q, _), h in zip(clips, heard, strict=True) if r == reply and q == ps]
        for p in ps:
            found = sum(says(h, p, code) for h in got)
            missed = sorted({h for h in got if not says(h, p, code)})
            print(f"{lang.name:17} {p!r:24} found in {found}/{len(got)} takes through Opus  in {reply!r}", flush=True)
            for h in missed[:3]:
                print(f"    missed: {h[:90]!r}")
    print(f"{lang.name}: {len(clips)} takes heard in {time.monotonic() - t0:.0f} s", flush=True)


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
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--languages", default="es,de,zh")
    ap.add_argument("--trials", type=int, default=0, help="live trials per test (0: offline part only)")
    ap.add_argument("--live-only", action="store_true", help="skip the offline part")
    ap.add_argument("--through-opus", action="store_true",
                    help="hear each `contains` reply in 24 takes through an Opus round trip (instead of the offline part)")
    ap.add_argument("--words", default="",
                    help="with --through-opus, one language: candidate words ('|' between them) in the oracle's "
                         "sentence, or phrase=reply, instead of the example's")
    args = ap.parse_args()
    codes = [c for c in args.languages.split(",") if c]
    for c in codes:
        if c not in FILES:
            raise SystemExit(f"error: --languages: {c!r} has no example; use some of {', '.join(FILES)}")
    words = [w for w in args.words.split("|") if w.strip()]
    if words and not (args.through_opus and len(codes) == 1):
        raise SystemExit("error: --words needs --through-opus and one language in --languages")
    for c in [] if args.live_only else codes:
        if args.through_opus:
            through_opus(c, words)
        else:
            offline(c)
    if args.trials > 0:
        from floorbench.transports.server import LiveKitServer

        with LiveKitServer() as server:
            for c in codes:
                live(c, args.trials, server.connection)


if __name__ == "__main__":
    main()
