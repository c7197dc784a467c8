"""Golden tests, one per timing rule: real speech placed at exact times, real Silero,
real faster-whisper tiny.en, the offline judge with the real MiniLM.

VAD onsets fall on a 32 ms grid and Silero's edges move a few tens of ms with
the audio, so every fixture keeps ≥ 100 ms between the placed speech and the
rule's boundary, and each test also checks the VAD time that decided it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.scoring import build  # type: ignore[import-not-found]
from support.scoring_checks import assert_presence_identity

from floorbench.suites.mpe.items import Item, Kind, Metric
from floorbench.suites.mpe.score import ScoreOptions, score

# scores whole recordings with the packaged ASR and MiniLM models: seconds per module
pytestmark = pytest.mark.slow

DialogueSpec, Speech, Turn = build.DialogueSpec, build.Speech, build.Turn


def T(i: int, s: int, e: int, gold: str = "the taco place") -> object:
    return Turn(i, "T", s, e, "Aria, out of those three, which one is the cheapest per person?", gold, "D")


def N(i: int, label: str, s: int, e: int) -> object:
    return Turn(i, label, s, e, "Hey Siri, how long is the bus from campus?", None, "B")


def request_spec(sid: str, answer_at: int) -> object:
    # request ends at 6000 ms; next turn at 17000 ms
    return DialogueSpec(
        sid, [N(1, "N2", 1000, 3000), T(2, 3500, 6000), N(3, "N3", 17000, 19000)],
        [Speech(answer_at, "answer_taco")], 22000,
    )


def n4_spec(sid: str, speech: list[object], n4r_end: int = 18500, nxt: int = 19000, dur: int = 24000) -> object:
    # question 10500-13000, resolution starts at 16000 (3000 ms after the question, as scheduled)
    return DialogueSpec(
        sid,
        [
            N(1, "N2", 1000, 3000), T(2, 3500, 5000),
            Turn(3, "N4Q", 10500, 13000, "Hold on, Aria, does the taco place take card?", None, "A"),
            Turn(4, "N4R", 16000, n4r_end, "Never mind, I paid card there Tuesday.", None, "A"),
            N(5, "N3", nxt, nxt + 1500),
        ],
        speech, dur,
    )


def golden_specs() -> list[object]:
    return [
        request_spec("fresh_4900", 6000 + 4900),
        request_spec("fresh_5100", 6000 + 5100),
        DialogueSpec(
            "already_speaking", [N(1, "N2", 1000, 3000), T(2, 3500, 6000, gold="cards and cash"),
                                 N(3, "N3", 19000, 21000)],
            [Speech(4000, "long_answer")], 24000,
        ),
        DialogueSpec(
            "silence_backchannel", [N(1, "N2", 1000, 3000), T(2, 6000, 8000), N(3, "N3", 14000, 15000)],
            [Speech(3300, "backchannel")], 17000, rate=48000,
        ),
        DialogueSpec(
            "silence_number", [N(1, "N2", 1000, 3000), T(2, 6000, 8000), N(3, "N3", 14000, 15000)],
            [Speech(3300, "bare_number")], 17000, rate=24000,
        ),
        n4_spec("n4_early_onset", [Speech(12000, "short_answer")]),
        # answer from 14000 (1 s after the question), audio ends 1800 ms after the resolution starts
        n4_spec("n4_yields", [Speech(14000, "long_answer", cut_ms=3800)]),
        n4_spec("n4_restarts", [Speech(14000, "long_answer", cut_ms=3800), Speech(18900, "backchannel")], nxt=19500),
        n4_spec("n4_never_stops", [Speech(14000, "long_answer")], dur=30000),
        DialogueSpec(
            "empty_transcript", [N(1, "N2", 1000, 3000), T(2, 3500, 6000), N(3, "N3", 16000, 18000)],
            [Speech(7000, "muffled")], 20000,
        ),
    ]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[tuple[str, int, str], Item]]:
    root = tmp_path_factory.mktemp("golden")
    rec = root / "recordings"
    for spec in golden_specs():
        build.write_dialogue(rec / spec.scenario_id, spec)
    out = root / "scored"
    result = score(rec, ScoreOptions(out=out, resamples=2000, workers=1))
    items = {(i.scenario_id, i.turn_id, i.metric.value): i for i in result.items}
    return out, items


def test_onset_at_4900_ms_is_fresh(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    fresh = items[("fresh_4900", 2, "fresh_onset_rate")]
    assert fresh.passed is True and fresh.kind is Kind.fresh_onset
    assert 10800 <= fresh.onset_ms <= 11000  # VAD onset near the placed 10 900 ms, before 11 000
    acc = items[("fresh_4900", 2, "conditional_accuracy")]
    assert acc.passed is True and acc.kind is Kind.correct and "taco" in acc.transcript.lower()


def test_onset_at_5100_ms_is_late(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    fresh = items[("fresh_5100", 2, "fresh_onset_rate")]
    assert fresh.passed is False and fresh.kind is Kind.late_onset
    assert 11000 < fresh.onset_ms <= 11200
    # a late onset is neither presence nor judged for accuracy (its own diagnostic)
    presence = items[("fresh_5100", 2, "response_presence")]
    assert (presence.counted, presence.passed, presence.kind) == (True, False, Kind.late_onset)
    acc = items[("fresh_5100", 2, "conditional_accuracy")]
    assert (acc.counted, acc.kind, acc.transcript) == (False, Kind.late_onset, None)


def test_already_speaking_at_request_end(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    fresh = items[("already_speaking", 2, "fresh_onset_rate")]
    presence = items[("already_speaking", 2, "response_presence")]
    assert (fresh.passed, fresh.kind) == (False, Kind.already_speaking)
    assert (presence.passed, presence.kind) == (True, Kind.continued)
    acc = items[("already_speaking", 2, "conditional_accuracy")]
    assert acc.counted and "cards" in acc.transcript.lower()


def test_backchannel_in_a_silence_window_passes(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    it = items[("silence_backchannel", 1, "silence_keeping")]
    assert it.passed is True and it.kind is Kind.backchannel
    assert it.speech_ms > 0 and "got it" in it.transcript.lower()


def test_bare_number_in_a_silence_window_is_an_intrusion(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    it = items[("silence_number", 1, "silence_keeping")]
    assert it.passed is False and it.kind is Kind.intrusion
    assert it.speech_ms < 1500  # short, and still an intrusion: duration never decides
    assert "12" in it.transcript


def test_n4_onset_during_the_question_is_not_qualified(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    y = items[("n4_early_onset", 3, "yield_rate")]
    assert y.counted is False and y.kind is Kind.speaking_during_question
    assert items[("n4_early_onset", 3, "window_response")].passed is True


def test_n4_stopping_by_1900_ms_yields(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    y = items[("n4_yields", 3, "yield_rate")]
    assert y.counted and y.passed is True and y.kind is Kind.yielded
    assert 13900 <= y.onset_ms <= 14100
    assert 17700 <= y.stop_ms <= 17950  # ≈ 1.8–1.9 s after the resolution starts (16 000 ms)


def test_n4_stop_then_restart_before_next_turn_fails(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    y = items[("n4_restarts", 3, "yield_rate")]
    assert y.counted and y.passed is False and y.kind is Kind.restarted
    assert y.stop_ms <= 18000


def test_n4_never_stopping_fails(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    y = items[("n4_never_stops", 3, "yield_rate")]
    assert y.counted and y.passed is False and y.kind is Kind.not_stopped and y.stop_ms > 25000
    spill = items[("n4_never_stops", 5, "silence_keeping")]
    assert spill.passed is False and spill.kind is Kind.intrusion


def test_empty_transcript_is_wrong_without_exemption(scored) -> None:  # type: ignore[no-untyped-def]
    _, items = scored
    acc = items[("empty_transcript", 2, "conditional_accuracy")]
    assert acc.counted and acc.speech_ms > 3000
    assert acc.transcript == "" and acc.passed is False and acc.kind is Kind.empty_transcript


def test_scores_json_traces_to_items_and_marks_small_yield_unreportable(scored) -> None:  # type: ignore[no-untyped-def]
    out, _ = scored
    scores = json.loads((out / "scores.json").read_text())
    cond = scores["conditions"]["explicit"]["metrics"]
    lines = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    for m in Metric:
        counted = [x for x in lines if x["metric"] == m.value and x["counted"]]
        entry = cond[m.value]
        assert entry["n"] == len(counted)
        assert entry["value"] == pytest.approx(sum(x["passed"] for x in counted) / len(counted))
        assert entry["ci_low"] <= entry["value"] <= entry["ci_high"]
    assert cond["yield_rate"]["n"] == 3 and cond["yield_rate"]["reportable"] is False
    assert cond["yield_rate"]["value"] == pytest.approx(1 / 3)
    assert scores["scenarios"]["scored"] == 10 and scores["errors"] == []
    split = scores["conditions"]["explicit"]["presence_split"]
    assert split["already_speaking"]["passed"] == 1 and split["late_onset"]["passed"] == 1
    assert_presence_identity(scores)
    assert all(isinstance(x["window_start_ms"], int) for x in lines)
    vad_rows = [json.loads(x) for x in (out / "vad.jsonl").read_text().splitlines()]
    assert {r["sample_rate"] for r in vad_rows} == {16000, 24000, 48000}
