"""The tool assertions (floorbench.suites.agent.tool_checks), judged on calls beside a recording's evidence.

Hand-built evidence on the recording's clock: a caller clip, the agent's speech, the calls.
Each assertion reports its measured value; with no call, those that need one fail with "no call".
"""

from __future__ import annotations

from typing import Any

from floorbench.suites.agent.assertions import Evidence, Placed, StepPlan
from floorbench.suites.agent.rules import StepKind
from floorbench.suites.agent.tool_checks import agent_lag_ms, dead_air, evaluate
from floorbench.tools.records import ToolCall


def call(tool: str, start: int, end: int, n: int = 1, **args: Any) -> ToolCall:
    return ToolCall(n=n, tool=tool, via="http", arguments=args, start_ms=start, end_ms=end, latency_ms=end - start)


def evidence(speech: list[tuple[int, int]]) -> Evidence:
    return Evidence({1: Placed(1000, 3000)}, speech, speech, 20000)


def judge(step_expect: dict[str, Any], calls: list[ToolCall], speech: list[tuple[int, int]],
          test_expect: dict[str, Any] | None = None, state: dict[str, Any] | None = None) -> dict[str, Any]:
    plan = [StepPlan(1, StepKind.say, 1, None, step_expect)]
    return {r.key: r for r in evaluate(plan, test_expect or {}, evidence(speech), calls, state)}


def test_calls_tool_matches_arguments_exactly_by_subset_regex_and_tolerance() -> None:
    calls = [call("refund", 3100, 3800, order_id="427", amount=24.990001, note="x")]
    spec = {"name": "refund", "arguments": {"order_id": {"regex": "^4\\d7$"}, "amount": {"approx": 24.99, "tol": 0.01}},
            "within_ms": 500}
    r = judge({"calls_tool": [spec]}, calls, [])["step 1 calls_tool 1"]
    assert r.passed and r.value == 100.0 and "100 ms after the turn" in r.measured
    exact = judge({"calls_tool": [{**spec, "match": "exact"}]}, calls, [])["step 1 calls_tool 1"]
    assert not exact.passed and "arguments do not match" in exact.measured  # `note` is one more
    late = judge({"calls_tool": [{**spec, "within_ms": 50}]}, calls, [])["step 1 calls_tool 1"]
    assert not late.passed and late.value == 100.0
    other = judge({"calls_tool": [{"name": "lookup"}]}, calls, [])["step 1 calls_tool 1"]
    assert not other.passed and other.measured == "no call of lookup (called: refund)"


def test_with_no_call_every_assertion_that_needs_one_fails_with_no_call() -> None:
    step = {"calls_tool": [{"name": "lookup"}], "dead_air_ms": 500, "filler_within_ms": 500,
            "answers_within_ms": 500}
    test = {"tool_order": ["lookup", "refund"], "final_state": {"contains": {"orders": {"1": "refunded"}}},
            "no_tool_call": ["*"], "max_calls": {"*": 1}}
    res = judge(step, [], [(3200, 4000)], test, state={"orders": {"1": "open"}})
    for key in ("step 1 calls_tool 1", "step 1 dead_air_ms", "step 1 filler_within_ms", "step 1 answers_within_ms",
                "test tool_order"):
        assert not res[key].passed and res[key].measured == "no call", key
    assert not res["test final_state"].passed and res["test final_state"].measured.startswith("no call")
    assert res["test no_tool_call"].passed and res["test max_calls *"].passed


def test_dead_air_is_the_longest_silence_inside_the_calls_run() -> None:
    c = call("lookup", 3100, 6100)  # the caller's clip is 1000–3000
    assert dead_air(evidence([]), c) == 17000  # nobody spoke again: to the end of the recording
    assert dead_air(evidence([(3200, 4300), (6400, 7000)]), c) == 2100  # after the filler, until the answer
    assert dead_air(evidence([(3200, 4300), (5000, 7000)]), c) == 700
    assert dead_air(evidence([(4000, 5000), (5200, 7000)]), c) == 1000  # the agent was slow to start
    r = judge({"dead_air_ms": 1000, "filler_within_ms": 200, "answers_within_ms": 300}, [c], [(3200, 4300), (6250, 8000)])
    assert not r["step 1 dead_air_ms"].passed and r["step 1 dead_air_ms"].value == 1950.0
    assert r["step 1 filler_within_ms"].passed and r["step 1 filler_within_ms"].value == 100.0
    assert r["step 1 answers_within_ms"].passed and r["step 1 answers_within_ms"].value == 150.0


def test_dead_air_moves_the_call_by_the_agents_path_before_it_takes_the_overlap() -> None:
    """A filler said as the call starts is heard one path later: the reply latency before it is not the call's."""
    c = call("lookup", 3700, 4800)  # the caller's clip is 1000–3000; the filler ends 4500, the answer at 4900

    def heard(filler_from: int, lag: int) -> int:
        return dead_air(evidence([(filler_from, 4500), (4900, 7000)]), c, lag)

    assert heard(3760, 0) == 400  # the 760 ms before the filler overlaps the call by 60 ms: not the call's
    assert heard(3760, 60) == 400
    assert heard(3900, 0) == 900  # the filler 200 ms into the call: the silence before it was the call's
    assert heard(3900, 60) == 900  # 140 ms into it, moved by the path
    assert heard(3900, 150) == 400  # a path of 150 ms: the filler was said 50 ms after the call began


def test_the_agents_path_is_read_from_the_trials_measures() -> None:
    class Meta:
        def __init__(self, legs: dict[str, Any]) -> None:
            self.transport_latency_ms = legs

    assert agent_lag_ms(Meta({"model_to_room": {"p50_us": 52058}, "humans_sent": {"p50_us": 78970}})) == 52
    assert agent_lag_ms(Meta({"humans_sent": {"p50_us": 78970}})) == 79  # an agent floorbench does not run
    assert agent_lag_ms(Meta({})) == 0 and agent_lag_ms(None) == 0


def test_a_call_made_before_the_callers_turn_ended() -> None:
    early = judge({"waits_for_turn_end": True}, [call("book", 1040, 1500)], [])["step 1 waits_for_turn_end"]
    assert not early.passed and early.measured == "book started 40 ms into the turn, 1960 ms before its end"
    ok = judge({"waits_for_turn_end": True}, [call("book", 2950, 3500)], [])["step 1 waits_for_turn_end"]
    assert ok.passed  # within the clip's trailing pad


def test_order_counts_and_final_state() -> None:
    calls = [call("lookup", 3100, 3500, 1), call("lookup", 3600, 3900, 2), call("refund", 4000, 4500, 3)]
    test = {"tool_order": ["lookup", "refund"], "max_calls": {"lookup": 1, "*": 3},
            "final_state": {"contains": {"orders": {"1": {"status": "refunded"}}}}, "no_tool_call": ["book"]}
    r = judge({}, calls, [], test, state={"orders": {"1": {"status": "refunded", "item": "kettle"}}})
    assert r["test tool_order"].passed and r["test tool_order"].measured == "called lookup → lookup → refund"
    assert not r["test max_calls lookup"].passed and r["test max_calls lookup"].measured == "2 calls of lookup"
    assert r["test max_calls *"].passed and r["test final_state"].passed and r["test no_tool_call"].passed
    wrong = judge({}, calls, [], {"tool_order": ["refund", "lookup"], "final_state": {"equals": {"orders": {}}}},
                  state={"orders": {"1": {}}})
    assert not wrong["test tool_order"].passed and not wrong["test final_state"].passed


def test_pass_hat_k_is_the_chance_that_k_trials_all_pass() -> None:
    from floorbench.suites.agent.verdicts import aggregate, pass_hat

    assert pass_hat(3, 3)["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert pass_hat(2, 4)["pass_hat_k"] == {"1": 0.5, "2": 1 / 6, "3": 0.0, "4": 0.0}
    trials = [{"test": "t", "trial": i, "status": s, "assertions": [], "latencies_ms": [], "source": "f.yaml"}
              for i, s in enumerate(["passed", "failed", "passed"], 1)]
    t = aggregate(trials)[0]
    assert t["pass_k"] == 3 and t["pass_hat_k"]["3"] == 0.0 and t["pass_hat_k"]["1"] == 2 / 3
