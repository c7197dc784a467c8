"""Branch steps of `floorbench test` offline: the format and its one-line errors, rule matching,
the lines rendered as clips, the oracle's path, and how a trial's branch is judged and recorded.

The live half (the caller hearing two reference agents and taking two branches) is
tests/test_agent_branch_live.py; the timing on a virtual clock is in tests/test_agent_schedule.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from floorbench.records import DialogueTurn
from floorbench.scenarios.validate import load_suite
from floorbench.suites.agent.assertions import Evidence, Placed, StepPlan, evaluate, latencies
from floorbench.suites.agent.branch import NO_MATCH, NOTHING_SAID, choose
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.oracle import oracle_path
from floorbench.suites.agent.rules import AgentRules, StepKind
from floorbench.suites.agent.schedule import AgentSchedule
from floorbench.suites.agent.schema import AgentScenario
from floorbench.suites.agent.score import score_trials
from floorbench.suites.agent.validate import AgentTestError, load_test_file
from tests.support.agent_trials import write_trial

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tests" / "branching.yaml"
BRANCH = """      - say: I want a refund.
      - branch:
          rules:
            - {name: order, contains: order number, say: It is four two seven., goto: thanks, reply: Thanks.}
            - {name: sorry, matches: "\\\\b(sorry|repeat)\\\\b", say: I said I want a refund.}
          otherwise: {say: "Can you help me?"}
        expect: {took_branch: order}
      - say: Only when not jumping.
      - say: Thank you.
        label: thanks
"""


def write(tmp_path: Path, steps: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    f = tmp_path / "calls.yaml"
    f.write_text("tests:\n  - name: t\n    steps:\n" + steps)
    return f


def load(tmp_path: Path, steps: str = BRANCH) -> AgentScenario:
    return write_test_suite(load_test_file(write(tmp_path, steps)), tmp_path / "suite", 1)[0]


def error(tmp_path: Path, steps: str) -> str:
    with pytest.raises(AgentTestError) as e:
        load_test_file(write(tmp_path, steps))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{tmp_path / 'calls.yaml'}: test t: step"), msg
    return msg


def test_the_example_loads_and_every_line_becomes_a_clip_of_its_step(tmp_path: Path) -> None:
    (t,) = load_test_file(EXAMPLE)
    assert t.steps[1].kind is StepKind.branch and [r.name for r in t.steps[1].branch.options] == [
        "order", "echoed", "otherwise"]
    s = load(tmp_path)
    b = s.steps[1].branch
    assert b is not None and s.steps[1].clip is None
    assert [(r.clip, s.clip(r.clip).label, s.clip(r.clip).step, s.clip(r.clip).text) for r in b.options] == [
        (2, "caller_branch", 2, "It is four two seven."), (3, "caller_branch", 2, "I said I want a refund."),
        (4, "caller_branch", 2, "Can you help me?")]
    assert (s.steps[3].label, s.steps[3].clip) == ("thanks", 6)
    loaded = load_suite(tmp_path / "suite", audio=False)  # the suite's own check accepts it
    assert len(loaded.scenarios) == 1


@pytest.mark.parametrize(
    ("steps", "wanted"),
    [
        ("      - branch: hello\n", "step 1 (branch): write branch: {rules:"),
        ("      - branch: {otherwise: {say: a}}\n", "step 1 (branch): no rules; give rules:"),
        ("      - branch: {rules: [{contains: a, say: b}]}\n", "no otherwise; add otherwise: {say: TEXT}"),
        ("      - branch: {after: barge_in, rules: [{contains: a, say: b}], otherwise: {say: c}}\n",
         "after 'barge_in'; a branch reacts to the agent's last turn: write after: agent_turn"),
        ("      - branch: {rules: [{say: b}], otherwise: {say: c}}\n", "rule 1: no condition; give contains: WORDS, matches: REGEX or intent: NAME"),
        ("      - branch: {rules: [{intent: maybe, say: b}], otherwise: {say: c}}\n",
         "rule 1: intent: 'maybe' is no intent; write one of yes, no, question, yes-no-question, wh-question"),
        ("      - branch: {rules: [{regex: a, say: b}], otherwise: {say: c}}\n",
         "rule 1: unknown key 'regex' of a branch rule; use name, contains, matches, intent, say"),
        ("      - branch: {rules: [{contains: a}], otherwise: {say: c}}\n", "rule 1: no line; write say: TEXT"),
        ("      - branch: {rules: [{matches: '(', say: b}], otherwise: {say: c}}\n",
         "rule 1: matches: not a regular expression"),
        ("      - branch: {rules: [{contains: a, say: b}], otherwise: {say: c, contains: d}}\n",
         "otherwise: unknown key 'contains' in otherwise (it has no condition)"),
        ("      - branch: {rules: [{name: x, contains: a, say: b}, {name: x, contains: c, say: d}], otherwise: {say: e}}\n",
         "rule 2: the name 'x' is taken"),
        ("      - branch: {rules: [{contains: a, say: b}], otherwise: {say: c}}\n        expect: {took_branch: nope}\n",
         "took_branch 'nope' is none of this branch's rules; use one of rule1, otherwise"),
        ("      - branch: {rules: [{contains: a, say: b, goto: end}], otherwise: {say: c}}\n",
         "rule rule1: goto 'end': no step has that label (labels here: none); add label: NAME"),
        ("      - say: a\n        label: top\n      - branch: {rules: [{contains: a, say: b}], otherwise: {say: c, goto: top}}\n",
         "step 2 (branch): otherwise: goto 'top' is step 1, not after this one; a goto jumps forward"),
        ("      - say: a\n        label: x\n      - say: b\n        label: x\n", "label 'x' is step 1's too"),
        ("      - say: a\n        expect: {took_branch: a}\n", "took_branch does not apply to a say step"),
    ],
)
def test_a_bad_branch_is_one_line_naming_the_step_and_the_fix(tmp_path: Path, steps: str, wanted: str) -> None:
    assert wanted in error(tmp_path, steps)


def test_rules_match_whole_words_first_match_wins_else_otherwise(tmp_path: Path) -> None:
    b = load(tmp_path).steps[1].branch
    assert b is not None
    assert choose(b, "Sure. What is your ORDER number?").rule.name == "order"
    assert choose(b, "What are your order numbers?").rule.name == "order"  # a plural ending, as contains
    assert choose(b, "I reordered the number").rule.name == "otherwise"  # whole words only
    both = choose(b, "Sorry, what is the order number?")
    assert (both.rule.name, both.index, both.why) == ("order", 0, 'contains "order number"')  # first match wins
    sorry = choose(b, "Could you repeat that?")
    assert (sorry.rule.name, sorry.why) == ("sorry", r"matches /\b(sorry|repeat)\b/")
    assert choose(b, "sorrynot").why == NO_MATCH
    assert (choose(b, None).rule.name, choose(b, None).why, choose(b, "  ").why) == ("otherwise", NOTHING_SAID, NOTHING_SAID)


INTENTS = """      - say: Can I get a refund?
      - branch:
          rules:
            - {name: refused, intent: "no", say: Then I want a manager.}
            - {name: agreed, intent: yes, say: "Great, thank you."}   # YAML's bare yes: the intent yes
            - {name: asked, intent: question, contains: order, say: It is four two seven.}
            - {name: asked-else, intent: question, say: "Sorry, what do you need?"}
          otherwise: {say: "Hello?"}
"""


def test_intent_rules_read_the_agent_turn_as_the_offline_judge_does(tmp_path: Path) -> None:
    b = load(tmp_path, INTENTS).steps[1].branch
    assert b is not None
    assert choose(b, "No, I'm afraid that order is final.").rule.name == "refused"
    assert choose(b, "No problem, what is the order number?").rule.name == "asked"  # a reaction, then a question
    assert choose(b, "Of course, it is on its way.").rule.name == "agreed"
    assert choose(b, "Could you tell me your name?").rule.name == "asked-else"  # a request: no "order"
    asked = choose(b, "What is your order number?")
    assert (asked.rule.name, asked.why) == ("asked", 'contains "order" and intent question')
    assert choose(b, "Your refund went out yesterday.").why == NO_MATCH  # a statement, no yes or no
    assert choose(b, "").why == NOTHING_SAID


def test_the_oracle_walks_the_path_the_caller_will_take_on_its_own_replies(tmp_path: Path) -> None:
    asks = BRANCH.replace("      - say: I want a refund.\n",
                          "      - say: I want a refund.\n        reply: What is your order number?\n")
    s = load(tmp_path / "a", asks)
    assert [(k + 1, clip, text) for k, clip, text in oracle_path(s)] == [
        (1, 1, "What is your order number?"), (2, 2, "Thanks."), (4, 6, "I can help with that. Let me tell you more about it.")]
    s = load(tmp_path / "b")  # its default reply matches no rule: otherwise, and no jump
    assert [clip for _, clip, _ in oracle_path(s)] == [1, 4, 5, 6]


def plan_of(s: AgentScenario) -> list[StepPlan]:
    return [StepPlan.of(d) for d in AgentSchedule(s, {}, 16000).describe()["steps"]]  # type: ignore[union-attr]


def test_a_skipped_step_is_not_judged_and_responds_within_is_from_the_chosen_line(tmp_path: Path) -> None:
    s = load(tmp_path, BRANCH.replace("      - say: Only when not jumping.\n",
                                      "      - say: Only when not jumping.\n        expect: {responds_within_ms: 1}\n")
             .replace("        expect: {took_branch: order}\n", "        expect: {took_branch: order, responds_within_ms: 900}\n"))
    plan = plan_of(s)
    ev = Evidence(placed={1: Placed(500, 1500), 2: Placed(4000, 5000), 4: Placed(8000, 9000)},
                  segments=[(2000, 3000), (5600, 7000)], fine=[(2000, 3000), (5600, 7000)], duration_ms=10000,
                  branches={2: {"rule": "order", "why": 'contains "order number"', "transcript": "your order number?"}},
                  skipped={3: 2})
    res = {r.key: r for r in evaluate(plan, {}, ev, {})}
    assert "step 3 responds_within_ms" not in res  # skipped by the goto: not on this path
    assert res["step 2 responds_within_ms"].value == 600  # from the branch line's end (5000), not the agent's turn
    took = res["step 2 took_branch"]
    assert took.passed and took.measured == 'took "order" (contains "order number"; heard "your order number?")'
    assert latencies(plan, ev, AgentRules()) == [500, 600, None]  # steps 1, 2, 4; step 3 skipped
    ev.branches[2] = {"rule": "otherwise", "why": NOTHING_SAID, "transcript": None}
    took = {r.key: r for r in evaluate(plan, {}, ev, {})}["step 2 took_branch"]
    assert not took.passed and took.measured == 'took "otherwise" (the agent said nothing; heard nothing)'


def make_trial(run: Path, s: AgentScenario, branch: dict[str, object]) -> None:
    turns = [DialogueTurn(turn_id=c, speaker="U", label="caller_say", start_ms=a, end_ms=a + 1000)
             for c, a in ((1, 500), (int(branch["clip"]), 4000), (6, 8000))]  # type: ignore[call-overload]
    lines = [{"t_ms": 3900, "kind": "branch", "source": "playback", "step": 2, "decided_ms": 3900, **branch},
             {"t_ms": 5000, "kind": "wait", "source": "playback", "step": 3, "reason": "skipped", "by_step": 2,
              "goto": "thanks"}]
    write_trial(run, s, np.zeros(10 * 16000, dtype=np.int16), turns, lines)


def test_a_trial_records_its_branch_and_a_deaf_caller_is_an_error(tmp_path: Path) -> None:
    s = load(tmp_path)
    chosen = {"reason": "chosen", "clip": 2, "rule": "order", "index": 0, "goto": "thanks",
              "why": 'contains "order number"', "transcript": "What is your order number?", "heard_from_ms": 2000,
              "heard_to_ms": 3000, "turn_over_ms": 3500, "asr_ms": 380, "decide_us": 40, "chain_ms": 380,
              "line_ms": 3900, "caller_delay_ms": 400}
    make_trial(tmp_path / "run", s, chosen)
    (trial,) = score_trials(tmp_path / "run")
    assert trial["status"] == "passed", trial
    assert trial["branches"] == [{"step": 2, **chosen}]  # what it heard, what it took, its own latency
    assert trial["skipped"] == [{"step": 3, "by_step": 2}]
    assert [a["key"] for a in trial["assertions"]] == ["step 2 took_branch"]

    s2 = s.model_copy(update={"scenario_id": "t.t2", "trial": 2})
    make_trial(tmp_path / "run", s2, chosen | {"reason": "asr_failed", "rule": "otherwise", "clip": 4, "goto": None,
                                                "why": "the caller's ASR failed: AsrError: no model"})
    deaf = {t["scenario_id"]: t for t in score_trials(tmp_path / "run")}["t.t2"]
    assert deaf["status"] == "error" and "the caller's ASR failed" in deaf["error"], deaf
