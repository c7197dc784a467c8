"""The delay the room itself added, carried from each meta.json into scores.json (docs/transport.md).

Every metric is measured on the room's clock (the timing clock: each track's
sender clock plus its leg's median latency), delays included; this is the
figure published beside them so a reader can tell the network from the
model. Per run: the playback → recorder latency of every human turn found
(``meta.json`` ``playback.turn_onset_error_ms[].latency_ms``), pooled, with
its p50/p95/max, and the scenarios' own p50s; the legs measured per turn
(``meta.json`` ``legs``: humans → room, humans → model, model → room) and
which clock timed each track; the impairment profiles and the humans' acoustic
conditions the scenarios ran under; and, where a `floorbench latency` calibration was saved in the run
folder (``RUN/latency/latency.json``), its model-path figures — the echo
model's round trip and its two legs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.records import RunMeta

ACOUSTICS_KEYS = ("profile", "room", "noises", "snr_db", "phone", "seed")
"""what scores.json says of the humans' acoustic condition (meta.json ``acoustics`` has the measured figures)"""
CALIBRATION = Path("latency") / "latency.json"
"""where `floorbench latency --out RUN/latency` leaves the echo calibration of a run"""


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.array(values, dtype=np.float64), q)), 2)


def transport_summary(metas: list[RunMeta], run_folder: Path | None = None) -> dict[str, Any]:
    """scores.json ``transport_latency_ms``: the room's own delay for the scored dialogues."""
    turns: list[float] = []
    scenario_p50: list[float] = []
    for m in metas:
        onsets = m.playback.get("turn_onset_error_ms") or []
        turns += [float(e["latency_ms"]) for e in onsets if isinstance(e, dict) and "latency_ms" in e]
        humans = m.transport_latency_ms.get("humans") or {}
        if humans.get("n") and humans.get("p50") is not None:
            scenario_p50.append(float(humans["p50"]))
    out: dict[str, Any] = {
        "humans": {
            "what": "playback → SFU → recorder, per human turn (cross-correlation of sent and recorded audio)",
            "n_turns": len(turns),
            "n_scenarios": len(scenario_p50),
        }
    }
    if turns:
        out["humans"].update(p50=_pct(turns, 50), p95=_pct(turns, 95), max=round(max(turns), 2))
    if scenario_p50:
        out["humans"]["scenario_p50_range"] = [round(min(scenario_p50), 2), round(max(scenario_p50), 2)]
    legs = _legs(metas)
    if legs:
        out["legs"] = legs
    clocks: dict[str, dict[str, int]] = {}
    for m in metas:
        for track, clock in (m.timing.clocks if m.timing else {}).items():
            clocks.setdefault(track, {}).setdefault(clock, 0)
            clocks[track][clock] += 1
    if clocks:
        out["clocks"] = clocks
    networks = {json.dumps(m.network, sort_keys=True) for m in metas if m.network}
    if networks:
        out["network"] = [json.loads(n) for n in sorted(networks)]
    conditions = {
        json.dumps({k: m.acoustics.get(k) for k in ACOUSTICS_KEYS}, sort_keys=True) for m in metas if m.acoustics
    }
    if conditions:
        out["acoustics"] = [json.loads(c) for c in sorted(conditions)]
    calibration = _calibration(run_folder)
    if calibration is not None:
        out["model_path"] = calibration
    return out


LEGS = {
    "humans_to_room": "playback sent → recorder heard, per turn (from its send time)",
    "humans_to_model": "playback sent → model process heard (model.heard.wav), per turn",
    "model_to_room": "model sent (model.sent.wav) → recorder heard, per reply onset after a turn",
    "model_heard_excess": "how much later than the humans → model median the model heard the audio before that "
    "reply; taken off the reply's time",
}


def _legs(metas: list[RunMeta]) -> dict[str, Any]:
    """The transport's two legs (and the room's) per turn, pooled over the scenarios (meta.json ``legs``)."""
    out: dict[str, Any] = {}
    for leg, what in LEGS.items():
        values = [float(row[f"{leg}_ms"]) for m in metas for row in m.legs if isinstance(row.get(f"{leg}_ms"), int | float)]
        if values:
            out[leg] = {"what": what, "n": len(values), "p50": _pct(values, 50), "p95": _pct(values, 95),
                        "max": round(max(values), 2)}
    return out


def _calibration(run_folder: Path | None) -> dict[str, Any] | None:
    """The model-path figures of a saved `floorbench latency` run, or None (missing or unreadable)."""
    if run_folder is None or not (run_folder / CALIBRATION).is_file():
        return None
    try:
        data = json.loads((run_folder / CALIBRATION).read_text(encoding="utf-8"))
        directions = data["directions"]
        return {
            "source": str(CALIBRATION),
            **{
                name: {k: directions[name][k] for k in ("p50", "p95", "max", "n") if k in directions[name]}
                for name in ("up", "round_trip", "model_legs")
                if name in directions
            },
        }
    except (OSError, ValueError, KeyError, TypeError):
        return None


def latency_cell(summary: dict[str, Any]) -> str:
    """One table cell: ``p50 / p95 ms (n turns)`` of the humans' track, and the model path if calibrated."""
    h = summary.get("humans") or {}
    if not h.get("n_turns"):
        return "—"
    text = f"{h['p50']:.1f} / {h['p95']:.1f} ms ({h['n_turns']} turns)"
    rt = (summary.get("model_path") or {}).get("round_trip")
    if rt and "p50" in rt:
        text += f"; echo round trip {rt['p50']:.1f} / {rt['p95']:.1f} ms"
    nets = summary.get("network") or []
    if nets:
        text += "; impaired: " + ", ".join(f"{n.get('profile')} on {'+'.join(n.get('legs', []))}" for n in nets)
    conditions = summary.get("acoustics") or []
    if conditions:
        text += "; humans' acoustics: " + ", ".join(str(c.get("profile")) for c in conditions)
    return text
