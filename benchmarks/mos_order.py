"""Does the agent's speech-quality score order conditions as a listener would? (docs/scoring.md, "Speech quality")

The same sentences, spoken by local voices, are scored by floorbench's MOS predictor
(`floorbench.scoring.quality`, DNSMOS from the speechmos package) clean, through a
narrowband G.711 µ-law codec (8 kHz, no band-pass), through the telephone line that
`--acoustics phone` uses (8 kHz, 300–3400 Hz band-pass, µ-law), and with white or café
babble noise added at a few SNRs (the acoustics module's noises, its SNR rule over the
active frames). It prints mean, p10 and minimum of OVRL (and the means of SIG, BAK and
P.808) per condition, and checks the order clean > phone band > noisy (10, 5 and 0 dB):
exit 1 if a mean breaks it.

    .venv/bin/python benchmarks/mos_order.py [--voices piper:joe,flite:slt] [--sentences 8]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from floorbench.scoring.quality import RATE, Dnsmos, TurnMos, summary
from floorbench.speech.acoustics import active_mask
from floorbench.speech.noises import make_noise, mu_law, phone_channel
from floorbench.speech.tts import synthesize

SENTENCES = [
    "Your table for four is booked at seven thirty tonight.",
    "The next train to Leeds leaves from platform two at ten past nine.",
    "I have moved your appointment to Thursday morning at eleven.",
    "Sure, the blue jacket comes in medium and large, and it is on sale this week.",
    "Your parcel left the depot this morning and should arrive before six.",
    "I am sorry, that flight is full, but there are seats on the one at noon.",
    "The pharmacy on Main Street is open until nine on weekdays.",
    "Your balance is one hundred and twenty pounds, due on the fifteenth.",
    "Would you like me to send the confirmation to the email on your account?",
    "The museum is free on Sundays, and the cafe closes at four.",
]


def g711(x: np.ndarray) -> np.ndarray:
    """8 kHz narrowband with µ-law companding, no band-pass (what a G.711 codec alone does)."""
    import soxr

    narrow = soxr.resample(x.astype(np.float64), RATE, 8000)
    back = soxr.resample(mu_law(narrow), 8000, RATE)
    out = np.zeros(len(x))
    out[:min(len(x), len(back))] = back[:len(x)]
    return out


def with_noise(kind: str, snr_db: float) -> Callable[[np.ndarray], np.ndarray]:
    def add(x: np.ndarray) -> np.ndarray:
        rng = np.random.default_rng(int(snr_db * 10) + len(x))
        noise = make_noise(kind, len(x), RATE, rng)
        speech_power = float(np.mean(x[active_mask(x, RATE)] ** 2))
        return x + noise * np.sqrt(speech_power / float(np.mean(noise ** 2)) / 10 ** (snr_db / 10))
    return add


CONDITIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "clean": lambda x: x,
    "g711": g711,
    "phone band": lambda x: phone_channel(x, RATE),
    "white 20 dB": with_noise("white", 20),
    "white 10 dB": with_noise("white", 10),
    "white 5 dB": with_noise("white", 5),
    "white 0 dB": with_noise("white", 0),
    "babble 10 dB": with_noise("babble", 10),
    "babble 5 dB": with_noise("babble", 5),
}
ORDER = [("clean", "g711"), ("clean", "phone band"), ("phone band", "white 10 dB"), ("phone band", "white 5 dB"),
         ("phone band", "white 0 dB"), ("phone band", "babble 5 dB"), ("white 10 dB", "white 0 dB")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--voices", default="piper:joe,flite:slt")
    ap.add_argument("--sentences", type=int, default=len(SENTENCES))
    args = ap.parse_args()
    predictor = Dnsmos()
    clips = [(v, synthesize(s, v, RATE).astype(np.float64) / 32768) for v in args.voices.split(",")
             for s in SENTENCES[:args.sentences]]
    t0 = time.perf_counter()
    rows: dict[str, list[TurnMos]] = {}
    for name, degrade in CONDITIONS.items():
        rows[name] = []
        for _, x in clips:
            y = np.clip(degrade(x), -1.0, 1.0)
            rows[name].append(TurnMos(0, len(y) * 1000 // RATE, **predictor.score(y)))
    secs = time.perf_counter() - t0
    print(f"{len(clips)} clips ({args.voices}), {predictor.identity()['package']}, {secs:.0f} s")
    print("| condition | OVRL mean | OVRL p10 | OVRL min | SIG | BAK | P.808 |")
    print("|---|---|---|---|---|---|---|")
    stats = {k: summary(v) for k, v in rows.items()}
    for k, s in stats.items():
        print(f"| {k} | {s['mean']:.2f} | {s['p10']:.2f} | {s['min']:.2f} | {s['sig']:.2f} | {s['bak']:.2f} "
              f"| {s['p808']:.2f} |")
    broken = [f"{a} ({stats[a]['mean']:.2f}) ≤ {b} ({stats[b]['mean']:.2f})" for a, b in ORDER
              if stats[a]["mean"] <= stats[b]["mean"]]
    for voice in args.voices.split(","):
        per = {k: np.mean([t.ovrl for (v, _), t in zip(clips, rows[k], strict=True) if v == voice]) for k in rows}
        print(f"{voice}: " + ", ".join(f"{k} {m:.2f}" for k, m in per.items()))
    print("order holds" if not broken else "order broken: " + "; ".join(broken))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
