"""The test file format of `floorbench test` (docs/testing.md): what it accepts, and one line per mistake.

Every bad input gives one `AgentTestError` line that names the file, the test and the step, and
says what to write; the example file loads; a test file becomes a suite folder (one scenario per
test and trial) that validates and renders, with audio-file lines and silences copied in as
recorded clips that the renderer keeps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from floorbench.scenarios.validate import load_suite
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.oracle import oracle
from floorbench.suites.agent.rules import StepKind
from floorbench.suites.agent.validate import AgentTestError, load_test_file

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tests" / "basic.yaml"


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def one_test(steps: str, extra: str = "") -> str:
    body = "".join(f"      {line}\n" for line in steps.strip().splitlines())
    return f"tests:\n  - name: t\n    steps:\n{body}{extra}"


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(AgentTestError) as e:
        load_test_file(write(tmp_path, text))
    msg = str(e.value)
    assert "\n" not in msg, msg
    return msg


def test_the_example_file_loads_with_every_step_kind_it_shows() -> None:
    tests = load_test_file(EXAMPLE)
    assert [t.name for t in tests] == ["greeting", "no-talking-over", "stops-when-interrupted", "ignores-backchannel"]
    g = tests[0]
    assert g.tags == ["latency", "smoke"] and g.voice == "flite:slt"
    assert g.steps[0].expect.responds_within_ms == 1500 and g.steps[0].expect.contains == ["banana"]
    assert g.expect.no_overlap_ms == 200
    assert tests[1].steps[1].pause_ms == 1200
    assert tests[2].steps[1].kind is StepKind.barge_in and tests[2].steps[1].after_ms == 1200
    assert tests[3].steps[1].expect.keeps_talking == 500 and tests[3].steps[2].kind is StepKind.hang_up


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("tests: []\n", "'tests' must be a non-empty list"),
        ("voice: flite:slt\n", "expected a mapping with 'tests:'"),
        ("tests:\n  - name: a b\n    steps: [hang_up]\n", "test 1: name 'a b'"),
        ("tets: []\ntests: [{name: a, steps: [hang_up]}]\n", "unknown key 'tets' at the top of a test file"),
        ("tests:\n  - name: t\n", "test t: no steps; add a list under 'steps:'"),
        ("tests:\n  - {name: t, steps: [hang_up]}\n  - {name: t, steps: [hang_up]}\n", "test t: the name is used twice"),
        (one_test("- shout: hi"), "test t: step 1: a step has exactly one of say, barge_in"),
        (one_test("- say: hi\n  barge_in: no"), "step 1: a step has exactly one of"),
        (one_test("- dance"), "step 1: 'dance' is not a step; write say: TEXT"),
        (one_test("- say: hi\n  afer_ms: 3"), "step 1 (say): unknown key 'afer_ms' on a say step; use voice, audio"),
        (one_test("- say: ''"), "step 1 (say): empty line; write what the caller says"),
        (one_test("- say: hi\n  voice: espeak"), "step 1 (say): voice 'espeak': not a voice id"),
        (one_test("- say: hi\n  gap_ms: -5"), "step 1 (say): gap_ms=-5; use 0–120000"),
        (one_test("- say: hi\n  gap_ms: fast"), "step 1 (say): gap_ms must be a whole number of ms"),
        (one_test("- silence: 0"), "step 1 (silence): silence=0; use 1–120000"),
        (one_test("- hang_up\n- say: hi"), "step 1 (hang_up): hang_up ends the call; make it the last step"),
        (one_test("- say: hi\n  pause_ms: 500"), "step 1 (say): pause_ms goes on with the caller's turn"),
        (one_test("- say: hi\n  expect: {responds_within_ms: 900}\n- say: there\n  pause_ms: 400"),
         "step 1 (say): the caller goes on after a pause (step 2 has pause_ms)"),
        (one_test("- say: hi\n  expect: {respond_within_ms: 9}"), "step 1 (say): expect: unknown assertion 'respond_within_ms'"),
        (one_test("- say: hi\n  expect: {yields_within_ms: 9}"), "expect: yields_within_ms does not apply to a say step"),
        (one_test("- backchannel: mm\n  expect: {keeps_talking: false}"), "keeps_talking: false is not an assertion"),
        (one_test("- say: hi\n  expect: {matches: '('}"), "expect: matches: not a regular expression"),
        (one_test("- say: hi\n  expect: {contains: []}"), "expect: contains: give a word or phrase"),
        (one_test("- say: hi\n  expect: {silent: true, contains: hi}"), "contradicts itself"),
        (one_test("- say: hi", "    expect: {keeps_talking: true}\n"), "test t: expect: keeps_talking does not apply to a test"),
        (one_test("- say: hi", "    pass_threshold: 0\n"), "test t: pass_threshold=0; use a pass rate above 0"),
        (one_test("- say: hi", "    timeout_s: 0\n"), "test t: timeout_s=0; use a number of seconds"),
        (one_test("- say: hi", "    tags: [a b]\n"), "test t: tags must be a list of words"),
        (one_test("- say: hi\n  audio: nope.wav"), "step 1 (say): audio file nope.wav is missing; check the path"),
        ("tests: [\n", "YAML syntax error at line 2"),
    ],
)
def test_every_bad_input_is_one_line_naming_file_test_step_and_fix(tmp_path: Path, text: str, wanted: str) -> None:
    msg = error(tmp_path, text)
    assert msg.startswith(str(tmp_path / "t.yaml")), msg
    assert wanted in msg, msg


def test_file_defaults_apply_and_a_test_or_step_overrides_them(tmp_path: Path) -> None:
    f = write(tmp_path, "voice: flite:rms\ngap_ms: 300\ntimeout_s: 40\npass_threshold: 0.8\ntags: [all]\n"
                        + one_test("- say: hi\n- say: there\n  gap_ms: 900\n  voice: flite:slt", "    tags: [mine]\n"))
    (t,) = load_test_file(f)
    assert (t.voice, t.timeout_s, t.pass_threshold, t.tags) == ("flite:rms", 40.0, 0.8, ["all", "mine"])
    assert [s.gap_ms for s in t.steps] == [300, 900]
    assert [t.lines[n].voice for n in (1, 2)] == ["flite:rms", "flite:slt"]


def test_a_test_file_becomes_one_scenario_per_trial_that_validates_and_renders(tmp_path: Path) -> None:
    from floorbench.scenarios.render import render_suite

    sf.write(str(tmp_path / "knock.wav"), (np.sin(np.arange(4800) / 5) * 8000).astype(np.int16), 48000)
    f = write(tmp_path, one_test("- say: hello there\n- silence: 700\n- barge_in:\n  audio: knock.wav\n"
                                 "- say: are you there\n  voice: flite:rms"))
    suite = tmp_path / "suite"
    scen = write_test_suite(load_test_file(f), suite, 3)
    assert [s.scenario_id for s in scen] == ["t.t1", "t.t2", "t.t3"]
    s = scen[0]
    assert [(c.id, c.label, c.recorded, c.step) for c in s.turns] == [
        (1, "caller_say", False, 1), (2, "caller_silence", True, 2), (3, "caller_barge_in", True, 3),
        (4, "caller_say", False, 4)]
    assert set(s.speakers) == {"U", "U2"} and s.turns[3].speaker == "U2"
    recorded = {c.id: c.audio for c in s.turns if c.recorded}
    stats = render_suite(suite, jobs=1)
    assert not stats.failed and stats.clips == 2  # the two spoken lines; recorded clips are kept as they are
    loaded = load_suite(suite)  # every clip has its audio now
    again = next(x for x in loaded.scenarios if x.scenario_id == "t.t2")
    assert {c.id: c.audio for c in again.turns if getattr(c, "recorded", False)} == recorded
    info, rate = sf.info(str(suite / str(recorded[2]))), 16000
    assert info.samplerate == rate and info.frames == 700 * rate // 1000
    assert sf.info(str(suite / str(recorded[3]))).frames == 1600  # 0.1 s at 48 kHz, resampled to the suite's rate


def test_a_scenario_file_that_breaks_the_suites_rules_is_one_line(tmp_path: Path) -> None:
    from floorbench.scenarios.validate import ScenarioError, load_scenario_file

    suite = tmp_path / "suite"
    write_test_suite(load_test_file(write(tmp_path, one_test("- say: hi\n- hang_up"))), suite, 1)
    path = suite / "scenarios" / "t.t1.yaml"
    path.write_text(path.read_text().replace("clip: 1", "clip: 7"))
    with pytest.raises(ScenarioError, match=r"scenario t\.t1: step 1 \(say\): names clip 7, which is not its caller_say clip"):
        load_scenario_file(path)


def test_the_oracle_answers_turns_yields_to_barge_ins_and_keeps_quiet_where_asked(tmp_path: Path) -> None:
    f = write(tmp_path, one_test("- say: say banana\n  expect: {contains: banana}\n- backchannel: mm\n"
                                 "- barge_in: stop\n- say: part one\n  expect: {silent: true}\n- say: two\n  pause_ms: 500\n"
                                 "- silence: 400\n- say: bye\n  reply: Goodbye."))
    (s,) = write_test_suite(load_test_file(f), tmp_path / "suite", 1)
    plan = oracle(s, None, None)  # type: ignore[arg-type]
    got = [(c.label, c.text) for c in plan.clips]
    assert got[0][0] == "say" and got[0][1] is not None and got[0][1].startswith("The word is banana.")
    assert got[1:] == [("backchannel", None), ("interrupt", "Sure, go ahead."), ("say", None),
                       ("say", got[4][1]), ("say", "Goodbye.")]
    assert got[4][1] and len(plan.clips) == 6  # the silence is not in its plan


def test_the_oracle_talks_through_what_a_test_times_against_its_reply(tmp_path: Path) -> None:
    """A reply a backchannel is timed against lasts past `after_ms`, the backchannel's clip and
    `keeps_talking` (and a margin for the room's view of its onset); one a barge-in is timed against
    lasts past `after_ms`: the reference passes whatever a test's offsets (basic.yaml's reply was
    2.7 s against a backchannel ending 2.1 s in and 500 ms wanted past it)."""
    from floorbench.processors.reference import OracleSettings
    from floorbench.suites.agent.oracle import (
        BARGE_IN_MS,
        HOLD_MARGIN_MS,
        holds,
        oracle_path,
        talking_through,
    )

    f = write(tmp_path, one_test("- say: how does it work\n- backchannel: uh-huh\n  after_ms: 2000\n"
                                 "  expect: {keeps_talking: 700}\n- say: and then\n- barge_in: stop\n  after_ms: 3000\n"
                                 "- say: bye\n  reply: Goodbye."))
    (s,) = write_test_suite(load_test_file(f), tmp_path / "suite", 1)
    path = oracle_path(s)
    needs = holds(s, path)
    assert {i: [(h.clip, h.ms, h.through_clip) for h in hs] for i, hs in needs.items()} == {
        0: [(1, 2700, True)], 2: [(3, 3000 + BARGE_IN_MS, False)]}  # "Goodbye." has nothing timed against it
    rate = 16000
    segs = [{"label": lb, "length": 8000, "speech": None if t is None else np.ones(rate, dtype=np.int16)}
            for lb, t in ((c.label, c.text) for c in oracle(s, None, OracleSettings()).clips)]
    more = np.full(rate // 2, 2, dtype=np.int16)  # half a second of "there is more"
    talking_through(segs, OracleSettings(), rate, needs, more=lambda voice, r: more)
    lengths = [None if x["speech"] is None else len(x["speech"]) * 1000 // rate for x in segs]
    need0, need2 = 2700 + 500 + HOLD_MARGIN_MS, 3000 + BARGE_IN_MS + HOLD_MARGIN_MS
    assert need0 <= lengths[0] < need0 + 500 and need2 <= lengths[2] < need2 + 500
    assert lengths[4] == 1000 and int(segs[0]["speech"][-1]) == 2  # untouched; the reply ends with the more


def test_the_oracle_says_the_asked_for_words_inside_a_sentence() -> None:
    from floorbench.suites.agent.oracle import said_words

    assert said_words(["banana"]) == "The word is banana."
    assert said_words(["order 42", "Friday."]) == "The words are order 42 and Friday."
    assert said_words([]) == ""


def test_the_tool_oracle_lengthens_its_replies_as_the_stock_oracle_does(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A test with tools gets the tool oracle, its replies made as long as the stock oracle's plan makes
    them (the lengthening is handed to the tool oracle's factory by the plan)."""
    from floorbench.processors.reference import OracleSettings
    from floorbench.speech import tts
    from floorbench.suites.agent.oracle import holds, lengthen_replies, oracle_path
    from floorbench.suites.agent.tool_oracle import ToolOracleProcessor

    tools = ("tools:\n  - name: lookup_order\n    description: Look up an order.\n"
             "    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}\n"
             "    respond: [{reads: \"orders.{order_id}\"}]\n"
             'tool_state: {orders: {"427": {status: shipped}}}\n')
    f = write(tmp_path, tools + one_test(
        "- say: where is my order\n  expect: {calls_tool: {name: lookup_order, arguments: {order_id: \"427\"}}}\n"
        "- backchannel: uh-huh\n  after_ms: 2000\n- say: bye\n  reply: Goodbye."))
    (s,) = write_test_suite(load_test_file(f), tmp_path / "suite", 1)
    rate = 16000
    monkeypatch.setattr(tts, "synthesize", lambda text, voice, r: np.full(rate // 2, 2, dtype=np.int16))

    def segments() -> list[dict[str, object]]:
        return [{"label": c.label, "length": 8000, "speech": None if c.text is None else np.ones(rate, dtype=np.int16)}
                for c in plan.clips]

    plan = oracle(s, None, OracleSettings())
    assert plan.processor is not None
    got, want = segments(), segments()
    proc = plan.processor(got, OracleSettings(), rate)  # type: ignore[arg-type]
    lengthen_replies(want, OracleSettings(), rate, holds(s, oracle_path(s)), more=lambda voice, r: tts.synthesize("", voice, r))
    assert isinstance(proc, ToolOracleProcessor) and proc.calls == {0: [
        {"name": "lookup_order", "arguments": {"order_id": "427"}}]}
    lengths = [None if x["speech"] is None else len(x["speech"]) for x in got]  # type: ignore[arg-type]
    assert lengths == [None if x["speech"] is None else len(x["speech"]) for x in want]  # type: ignore[arg-type]
    assert lengths[0] is not None and lengths[0] * 1000 // rate >= 2000 + 500  # past the backchannel's after_ms
