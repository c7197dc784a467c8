"""The assertions of a conversation test on hand-made evidence: exact measured values, pass and fail.

Caller clips and the agent's speech segments are given in ms on the model's clock (as turns.json
and the VAD of model.wav give them); every assertion is judged by
`floorbench.suites.agent.assertions` with its measured value.
"""

from __future__ import annotations

from typing import Any

from floorbench.suites.agent.assertions import (
    Evidence,
    Placed,
    StepPlan,
    content_windows,
    evaluate,
    latencies,
    nearest_rank,
)
from floorbench.suites.agent.rules import AgentRules, StepKind
from floorbench.suites.agent.words import normalise

R = AgentRules()


def plan(*steps: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], int]) -> list[StepPlan]:
    out = []
    for n, s in enumerate(steps, 1):
        kind, expect = s[0], s[1]
        out.append(StepPlan(n, StepKind(kind), n, s[2] if len(s) > 2 else None, expect))  # type: ignore[misc]
    return out


def ev(placed: dict[int, tuple[int, int]], segs: list[tuple[int, int]], dur: int = 20000,
       fine: list[tuple[int, int]] | None = None, not_run: set[int] | None = None,
       sounds: list[tuple[int, int]] | None = None) -> Evidence:
    return Evidence({k: Placed(*v) for k, v in placed.items()}, segs, fine if fine is not None else segs, dur,
                    not_run or set(), sounds or [])


def judge(p: list[StepPlan], e: Evidence, test_expect: dict[str, Any] | None = None,
          texts: dict[str, str] | None = None) -> dict[str, tuple[bool, str, float | None]]:
    return {r.key: (r.passed, r.measured, r.value) for r in evaluate(p, test_expect or {}, e, texts or {}, R)}


def test_responds_within_measures_from_the_callers_end_of_turn() -> None:
    p = plan(("say", {"responds_within_ms": 1000}))
    assert judge(p, ev({1: (500, 2000)}, [(2700, 5000)]))["step 1 responds_within_ms"] == (True, "700 ms", 700.0)
    assert judge(p, ev({1: (500, 2000)}, [(3200, 5000)]))["step 1 responds_within_ms"] == (False, "1200 ms", 1200.0)
    # an onset up to early_ms (250) before the clip's end still counts, with its negative latency
    assert judge(p, ev({1: (500, 2000)}, [(1800, 5000)]))["step 1 responds_within_ms"][:2] == (True, "-200 ms")
    assert judge(p, ev({1: (500, 2000)}, []))["step 1 responds_within_ms"] == (False, "no response", None)
    talking = judge(p, ev({1: (500, 2000)}, [(1000, 6000)]))["step 1 responds_within_ms"]
    assert talking[:2] == (False, "no response (the agent was still speaking from before)")


def test_a_response_belongs_to_its_turn_only_until_the_callers_next_turn() -> None:
    p = plan(("say", {"responds_within_ms": 5000}), ("say", {}))
    got = judge(p, ev({1: (0, 1000), 2: (3000, 4000)}, [(4500, 6000)]))
    assert got["step 1 responds_within_ms"] == (False, "no response", None)  # the speech after step 2 is step 2's


def test_no_overlap_counts_speech_started_inside_the_callers_turn_pauses_included() -> None:
    p = plan(("say", {}), ("say", {}, 1000))
    # the agent starts in the pause (2000) and talks on over the caller's second part (2500–4500)
    got = judge(p, ev({1: (0, 1500), 2: (2500, 4500)}, [(2000, 3300)]), {"no_overlap_ms": 200})
    assert got["test no_overlap_ms"] == (False, "800 ms (the caller's turn at step 1)", 800.0)
    polite = judge(p, ev({1: (0, 1500), 2: (2500, 4500)}, [(4600, 7000)]), {"no_overlap_ms": 200})
    assert polite["test no_overlap_ms"] == (True, "0 ms", 0.0)
    # speech that began before the caller started is not the agent starting over the caller
    before = judge(plan(("say", {})), ev({1: (1000, 2000)}, [(0, 1500)]), {"no_overlap_ms": 0})
    assert before["test no_overlap_ms"][0] is True


def test_yields_within_measures_from_the_barge_ins_start_on_the_fine_segments() -> None:
    p = plan(("say", {}), ("barge_in", {"yields_within_ms": 800}))
    placed = {1: (0, 1000), 2: (2500, 3500)}
    # fine segments cut at 300 ms pauses: the agent stopped at 2900 and answered at 4000
    got = judge(p, ev(placed, [(1300, 5000)], fine=[(1300, 2900), (4000, 5000)]))
    assert got["step 2 yields_within_ms"] == (True, "400 ms", 400.0)
    slow = judge(p, ev(placed, [(1300, 3600)], fine=[(1300, 3600)]))["step 2 yields_within_ms"]
    assert slow == (False, "1100 ms", 1100.0)
    never = judge(p, ev(placed, [(1300, 20000)], dur=20000))["step 2 yields_within_ms"]
    assert never[:2] == (False, "did not stop (still speaking when the recording ended)")
    quiet = judge(p, ev(placed, [(1300, 1600)]))["step 2 yields_within_ms"]
    assert quiet[:2] == (False, "the agent was not speaking when the barge-in started (its speech ended 900 ms before)")
    # a barge-in in a pause between two sentences: the agent held the floor; it stopped at once if it
    # did not go on (its speech ended under yield_gap_ms = 300 ms before), else at the end of what it went on with
    assert judge(p, ev(placed, [(1300, 2400)]))["step 2 yields_within_ms"][:2] == (True, "0 ms")
    paused = [(1300, 2400), (2700, 4000)]
    assert judge(p, ev(placed, [(1300, 4000)], fine=paused))["step 2 yields_within_ms"][:2] == (False, "1500 ms")
    missed = judge(p, ev({1: (0, 1000)}, [], not_run={2}))["step 2 yields_within_ms"]
    assert missed[0] is False and missed[1].startswith("not played")


def test_keeps_talking_through_a_backchannel() -> None:
    p = plan(("say", {}), ("backchannel", {"keeps_talking": 500}))
    placed = {1: (0, 1000), 2: (2500, 3000)}
    assert judge(p, ev(placed, [(1300, 5000)]))["step 2 keeps_talking"] == (True, "kept talking 2000 ms past it", 2000.0)
    assert judge(p, ev(placed, [(1300, 2700)]))["step 2 keeps_talking"][:2] == (False, "stopped 200 ms into it")
    assert judge(p, ev(placed, [(1300, 3200)]))["step 2 keeps_talking"][:2] == (False, "stopped 200 ms after it")
    assert judge(p, ev(placed, [(1300, 20000)]))["step 2 keeps_talking"][0] is True  # to the end of the recording


def test_silent_in_a_silence_step_and_after_a_say() -> None:
    p = plan(("say", {"silent": {"after_ms": 0, "for_ms": None}}), ("silence", {"silent": {"after_ms": 500}}))
    placed = {1: (0, 1000), 2: (1000, 4000)}
    got = judge(p, ev(placed, []))
    assert got["step 1 silent"] == (True, "silent for 19000 ms", 0.0)  # a say's window runs to the next turn
    assert got["step 2 silent"] == (True, "silent for 2500 ms", 0.0)
    spoke = judge(p, ev(placed, [(2000, 2600)]))
    assert spoke["step 2 silent"] == (False, "spoke 600 ms (from +1000 ms)", 600.0)
    assert spoke["step 1 silent"][0] is False


def test_latency_percentiles_count_an_unanswered_turn_as_the_slowest() -> None:
    p = plan(("say", {}), ("say", {}), ("say", {}))
    placed = {1: (0, 1000), 2: (5000, 6000), 3: (10000, 11000)}
    answered = ev(placed, [(1400, 3000), (6600, 8000), (11900, 13000)])
    assert latencies(p, answered, R) == [400, 600, 900]
    got = judge(p, answered, {"latency_p50_ms": 600, "latency_p95_ms": 800})
    assert got["test latency_p50_ms"] == (True, "p50 600 ms over 3 turns", 600.0)
    assert got["test latency_p95_ms"] == (False, "p95 900 ms over 3 turns", 900.0)
    one_missing = judge(p, ev(placed, [(1400, 3000), (6600, 8000)]), {"latency_p95_ms": 5000})
    assert one_missing["test latency_p95_ms"] == (False, "no response (1 of 3 turns unanswered)", None)
    assert nearest_rank([1.0, 2.0, 3.0, 4.0], 50) == 2.0 and nearest_rank([5.0], 95) == 5.0


def test_content_reads_the_words_of_the_steps_reply_window_and_of_the_whole_call() -> None:
    p = plan(("say", {"contains": ["banana split"], "not_contains": ["sorry"], "matches": r"\bban+ana\b"}))
    e = ev({1: (0, 1000)}, [(1300, 3000)])
    assert content_windows(p, e, {"contains": ["bye"]}, R) == {"step 1": (750, 20000), "test": (0, 20000)}
    got = judge(p, e, {"contains": ["bye"]}, {"step 1": "Sure! Banana-split, coming.", "test": "Sure, banana split."})
    assert got["step 1 contains"] == (True, 'heard "Sure! Banana-split, coming."', None)
    assert got["step 1 not_contains"][0] is True and got["step 1 matches"][0] is True
    assert got["test contains"] == (False, 'heard "Sure, banana split."', None)
    assert judge(p, e, {}, {"step 1": ""})["step 1 contains"] == (False, "heard nothing", None)
    assert normalise("It's  OK, Banana-split!") == "it's ok banana split"


def test_assertions_of_a_step_that_was_not_played_fail_as_not_played() -> None:
    p = plan(("say", {}), ("barge_in", {"responds_within_ms": 900, "contains": ["ok"]}))
    got = judge(p, ev({1: (0, 1000)}, [], not_run={2}), texts={})
    assert all(not v[0] and v[1].startswith("not played") for v in got.values()), got


def test_contains_takes_whole_words_in_a_row_with_a_plural_ending_either_way() -> None:
    from floorbench.suites.agent.words import says

    assert says("Word is bananas. I can help.", "banana") and says("One banana.", "bananas")
    assert says("Two boxes, please", "box") and says("Sure, banana split!", "banana splits")
    assert not says("Bandana.", "banana") and says("a banana, split", "banana  split!")
    assert not says("split banana", "banana split") and not says("bananarama", "banana") and not says("", "banana")
    assert not says("I can help", "")


def test_loud_sound_that_is_not_speech_is_neither_silence_nor_a_yield() -> None:
    """A tone, hold music or a broken TTS's noise is not speech to VAD; a window it fills for 300 ms or
    more is not kept silent, and an agent that stops speaking but goes on sounding while the caller
    talks has not yielded. Shorter sound (a click) changes nothing."""
    p = plan(("say", {}), ("silence", {"silent": {"after_ms": 500}}))
    placed = {1: (0, 1000), 2: (1000, 4000)}
    toned = judge(p, ev(placed, [], sounds=[(2000, 3000)]))["step 2 silent"]
    assert toned == (False, "no speech, but 1000 ms of loud non-speech sound (from +1000 ms): not silence", 1000.0)
    assert judge(p, ev(placed, [], sounds=[(2000, 2200)]))["step 2 silent"][0] is True  # 200 ms: a click
    assert judge(p, ev(placed, [], sounds=[(500, 1400)]))["step 2 silent"][0] is True  # before the window

    p = plan(("say", {}), ("barge_in", {"yields_within_ms": 800}))
    placed = {1: (0, 1000), 2: (2500, 3500)}
    fine = [(1300, 2900), (4000, 5000)]
    held = judge(p, ev(placed, [(1300, 5000)], fine=fine, sounds=[(2950, 3600)]))["step 2 yields_within_ms"]
    assert held == (False, "speech stopped after 400 ms, then 550 ms of loud non-speech sound while the caller spoke",
                    400.0)
    after = judge(p, ev(placed, [(1300, 5000)], fine=fine, sounds=[(3600, 3900)]))["step 2 yields_within_ms"]
    assert after == (True, "400 ms", 400.0)  # sound once the caller has finished is not talking over them
