"""The ``dtmf:`` caller step's format: its keys, its bounds, and the phone leg it needs (one line each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from floorbench.scenarios.dtmf import DTMF_MAX, dtmf_problem, dtmf_span_ms
from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.agent.dtmf_format import needs_phone
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.rules import StepKind
from floorbench.suites.agent.validate import AgentTestError, check_agent_scenario, load_test_file


def steps(tmp_path: Path, step: str) -> Path:
    f = tmp_path / "t.yaml"
    f.write_text("tests:\n  - name: pin\n    steps:\n      - say: hello\n"
                 + "".join(f"      {line}\n" for line in step.strip().splitlines()))
    return f


def error(tmp_path: Path, step: str) -> str:
    with pytest.raises(AgentTestError) as e:
        load_test_file(steps(tmp_path, step))
    assert "\n" not in str(e.value)
    return str(e.value)


def test_a_dtmf_step_reads_its_keys_and_how_long_each_is_held(tmp_path: Path) -> None:
    t = load_test_file(steps(tmp_path, '- dtmf: "12*#ab"\n  duration_ms: 80\n  reply: "You pressed them."\n'
                                       "  expect: {responds_within_ms: 2000, contains: [pressed]}"))[0]
    st = t.steps[1]
    assert (st.kind, st.digits, st.duration_ms, st.reply, st.clip) == (StepKind.dtmf, "12*#AB", 80, "You pressed them.", None)
    assert st.expect.responds_within_ms == 2000 and st.expect.contains == ["pressed"]
    assert load_test_file(steps(tmp_path, "- dtmf: 1234"))[0].steps[1].digits == "1234"  # a bare number: its digits
    assert dtmf_span_ms("1234#", None) == 5 * 160 + 4 * 40 and dtmf_span_ms("12", 100) == 240


@pytest.mark.parametrize(("step", "said"), [
    ('- dtmf: "12x"', "'12x': write the keys as a string of 0-9, *, #, A-D (1 to 32 of them)"),
    ('- dtmf: ""', "'': write the keys"),
    (f'- dtmf: "{"1" * (DTMF_MAX + 1)}"', "(1 to 32 of them)"),
    ('- dtmf: "1"\n  duration_ms: 5', "duration_ms=5: use a whole number of ms from 40 to 1000"),
    ('- dtmf: "1"\n  after_ms: 5', "after_ms"),
    ('- dtmf: "1"\n  expect: {keeps_talking: 500}', "keeps_talking"),
])
def test_a_bad_dtmf_step_is_one_line_naming_the_test_and_step(tmp_path: Path, step: str, said: str) -> None:
    msg = error(tmp_path, step)
    assert "pin" in msg and "step 2" in msg and said in msg, msg


def test_a_test_that_presses_keys_is_refused_without_a_phone_leg(tmp_path: Path) -> None:
    tests = load_test_file(steps(tmp_path, '- dtmf: "1#"'))
    with pytest.raises(ScenarioError) as e:
        needs_phone(((f"{t.source}: test {t.name}", t.steps) for t in tests), "oracle")
    assert str(e.value) == (f"{tmp_path / 't.yaml'}: test pin: step 2 (dtmf) presses keys, which only a phone leg "
                            "carries; run it with --via sip:URI (docs/phone.md), or drop the step")
    needs_phone(((t.name, t.steps) for t in tests), "sip")  # the phone leg carries them
    needs_phone(((t.name, t.steps) for t in load_test_file(steps(tmp_path, "- say: bye"))), "oracle")


def test_a_suite_file_holds_a_dtmf_step_to_the_same_rules(tmp_path: Path) -> None:
    s = write_test_suite(load_test_file(steps(tmp_path, '- dtmf: "1#"')), tmp_path / "suite", 1)[0]
    check_agent_scenario(s, tmp_path / "x.yaml")
    s.steps[1].digits = "1x"
    with pytest.raises(ScenarioError, match=r"step 2 \(dtmf\): DTMF '1x'.*regenerate it from its test file"):
        check_agent_scenario(s, tmp_path / "x.yaml")
    assert dtmf_problem("1", 40) is None and dtmf_problem("1", True) is not None


def test_the_report_draws_the_keys_on_the_callers_lane() -> None:
    from floorbench.suites.agent.report import events, timeline_svg

    conv = {"duration_ms": 6000, "agent_speech": [[4300, 5600]], "words": [],
            "steps": [{"n": 1, "kind": "say", "text": "hello", "start_ms": 500, "end_ms": 1500},
                      {"n": 2, "kind": "dtmf", "text": "(keys 1234#)", "start_ms": 3000, "end_ms": 3960}]}
    svg = timeline_svg(conv)
    assert "step 2 dtmf 3000–3960 ms: (keys 1234#)" in svg and 'fill="#54a24b"' in svg
    assert (3000, 3960, "caller", "step 2 dtmf: (keys 1234#)") in events(conv)


def test_floorbench_test_refuses_keys_without_a_phone_leg_before_anything_is_written(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-c", "from floorbench.cli import main; main()", "test",
                          "examples/phone/tests.yaml", "-k", "phone-keys", "--model", "oracle", "--out", str(out)],
                         cwd=root, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        "error: examples/phone/tests.yaml: test phone-keys: step 2 (dtmf) presses keys, which only a phone leg "
        "carries; run it with --via sip:URI (docs/phone.md), or drop the step"]
    assert not out.exists()
