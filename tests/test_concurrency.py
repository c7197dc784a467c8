"""`run --concurrency 4`: the tiny suite's four scenarios at once, in their own rooms on one server,
give what a one-at-a-time run gives — the same outcomes, the same folders, the same scores — and every
scenario judges its own timing.

On this project's 2-core machine four rooms hold their timing since rooms set up one at a time and the
SDK's frames go to their own streams only (benchmarks/concurrency.py: four `silent` rooms, every verdict
`ok`). Scores are compared only where the rooms' timing was `ok`: a room that comes back `degraded`
says why, and then the four rooms are played once more at once and must match
(tests/support/live_checks.py's rule: a degraded room excuses a failed check once, an `ok` one never)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from floorbench.pipelines.run import resume
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.transports.server import LiveKitConnection
from tests.test_scoring_live import assert_oracle_answers_heard, score_cli

pytestmark = [pytest.mark.live, pytest.mark.slow]
ROOMS = 4

TIMING_CAPACITIES = ("fresh_onset_rate", "silence_keeping", "yield_rate")
"""decided by the oracle's timing alone: equal to the item between the two runs"""


def _run(suite: Path, out: Path, conn: LiveKitConnection, n: int) -> float:
    t0 = time.monotonic()
    asyncio.run(run_suite(RunOptions(suite=suite, model="oracle", out=out, connection=conn, progress=False,
                                     concurrency=n)))
    return time.monotonic() - t0


def _entries(out: Path) -> list[tuple[str, str, str | None, int]]:
    run_json = json.loads((out / "run.json").read_text())
    return [(e["scenario_id"], e["outcome"], e["failure_kind"], e["attempts"]) for e in run_json["scenarios"]]


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _same_run(one: Path, many: Path) -> None:
    """`many` left what `one` left: entries, files, meta.json fields, a verdict with figures in each."""
    ids = [e[0] for e in _entries(one)]
    assert len(ids) == 4
    assert _entries(many) == _entries(one) == [(i, "completed", None, 1) for i in ids]
    for sid in ids:  # the same files in every folder, the same meta.json fields
        assert _files(many / sid) == _files(one / sid)
        a, b = resume.read_meta(one / sid), resume.read_meta(many / sid)
        assert a is not None and b is not None
        raw = [json.loads((run / sid / "meta.json").read_text()) for run in (one, many)]
        assert set(raw[0]) == set(raw[1]) and set(raw[0]["playback"]) == set(raw[1]["playback"])
        assert a.model == b.model and a.schedule == b.schedule and a.attempt == b.attempt == 1
        for m in (a, b):  # every scenario judged its own timing, with its figures
            assert m.timing is not None and m.timing.verdict in ("ok", "degraded") and m.timing.figures is not None
        print(sid, "timing 1:", a.timing.verdict if a.timing else None, a.timing.reasons if a.timing else None,
              f"| {ROOMS}:", b.timing.verdict if b.timing else None, b.timing.reasons if b.timing else None)
    for run in (one, many):
        counts = json.loads((run / "run.json").read_text())["counts"]
        assert counts["completed"] == 4 and counts["timing_ok"] + counts["timing_degraded"] == 4


def _same_scores(s1: dict, s2: dict, scored: list[Path]) -> None:  # type: ignore[type-arg]
    for cond in ("explicit", "implicit"):
        m1, m2 = s1["conditions"][cond]["metrics"], s2["conditions"][cond]["metrics"]
        for key in TIMING_CAPACITIES:
            assert (m2[key]["value"], m2[key]["n"]) == (m1[key]["value"], m1[key]["n"]), (cond, key)
        # conditional accuracy also passes through the ASR, which can mishear a gold over WebRTC:
        # the same items are counted, and every answer is heard as the oracle's (or an excused mishearing)
        assert m2["conditional_accuracy"]["n"] == m1["conditional_accuracy"]["n"] == 2  # one T per scenario
    for folder in scored:
        items = [json.loads(x) for x in (folder / "items.jsonl").read_text().splitlines()]
        assert_oracle_answers_heard(items)


def peak_rooms(run: Path) -> int:
    """The most scenarios whose rooms were open at one moment, from each meta.json's session anchor and
    duration: concurrency is shown by the rooms' own lives, not by a wall-time ratio a loaded machine
    would break."""
    spans = []
    for m in run.glob("*/meta.json"):
        meta = json.loads(m.read_text())
        spans.append((meta["created_wall_ns"], meta["created_wall_ns"] + meta["duration_ms"] * 1_000_000))
    return max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)


def _degraded(run: Path) -> list[str]:
    return [f"{m.parent.name}: {'; '.join(json.loads(m.read_text())['timing']['reasons'])}"
            for m in sorted(run.glob("*/meta.json")) if (json.loads(m.read_text()).get("timing") or {}).get("verdict") == "degraded"]


def test_four_rooms_at_once_equal_one_at_a_time(tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection) -> None:
    one = _run(tiny_suite, tmp_path / "one", livekit, 1)
    many = _run(tiny_suite, tmp_path / "many", livekit, ROOMS)
    print(f"wall: concurrency 1 {one:.1f} s, concurrency {ROOMS} {many:.1f} s")
    _same_run(tmp_path / "one", tmp_path / "many")
    assert peak_rooms(tmp_path / "one") == 1  # one after another
    assert peak_rooms(tmp_path / "many") == ROOMS  # four at once

    s1 = score_cli(tmp_path / "one", tmp_path / "scored-one")
    s2 = score_cli(tmp_path / "many", tmp_path / "scored-many")
    try:
        _same_scores(s1, s2, [tmp_path / "scored-one", tmp_path / "scored-many"])
    except AssertionError as e:
        degraded = _degraded(tmp_path / "one") + _degraded(tmp_path / "many")
        if not degraded:
            raise AssertionError(f"scores differ although every room's timing was ok: {e}") from e
        print("scores differ with degraded rooms, playing again:", degraded)
        base = tmp_path / "one"
        if _degraded(base):  # the one-at-a-time run's own rooms were degraded: it is played again too
            base = tmp_path / "one-again"
            _run(tiny_suite, base, livekit, 1)
            s1 = score_cli(base, tmp_path / "scored-one-again")
        _run(tiny_suite, tmp_path / "again", livekit, ROOMS)
        _same_run(base, tmp_path / "again")
        s3 = score_cli(tmp_path / "again", tmp_path / "scored-again")
        try:
            _same_scores(s1, s3, [tmp_path / "scored-again"])
        except AssertionError as e2:
            still = _degraded(base) + _degraded(tmp_path / "again")
            if not still:
                raise
            # a machine that cannot hold the bounds at four rooms even on the second try: the scores are
            # not comparable there (the equality is "with timing figures within bounds"); say so
            pytest.skip(f"timing degraded on both tries, scores not comparable on this machine: {e2}; {still}")
