"""The malformed-input corpus, continued: one case per class of issue 33 (the reader layer and the options).

Each case runs as the corpus of tests/test_malformed_inputs.py runs (same workspace, same check: one
``error:`` line, exit 2, no traceback, no input changed, nothing written): YAML nested thousands deep, an
alias bomb as a test's name, a key given twice, regexes that never finish compiling or matching, NaN
samples, baselines and results files of the wrong shape or nested 100 000 deep, scores files of the
wrong shape, stand-in scripts with the wrong types, a short CSV row, options that used to be accepted
and fail only after the run (--junit, --asr, the seeds without their condition, --sessions, --pairs for
suite av, a worker's --suite), hand-edited suites of tests (a clip out of the suite, a negative gap, an
unclosed regex) and times that drew a timeline without end.
"""

# ruff: noqa: F811 - the corpus's fixture `ws` is imported by name; the cases' lambdas take a `ws` of their own
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

import tests.test_malformed_inputs as corpus
from tests.test_malformed_inputs import (  # noqa: F401 - the corpus's fixtures, used by name
    GOOD_TEST,
    IMPORT_TURNS,
    RUN,
    TEST,
    URL,
    R,
    S,
    _append,
    _labels_csv,
    _nothing,
    _scenario_yaml,
    _write,
    av_media,
    cli_logs,
    scored,
    ws,
)

ROOT = Path(__file__).resolve().parents[1]

BOMB = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, c in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True))
"""a 400-byte YAML alias bomb: 9**7 values once expanded"""


def _results(**change: object) -> dict[str, object]:
    """A results.json of `floorbench test` (one test, one trial) with `change` applied to the test or trial."""
    conv = {"duration_ms": 4000, "steps": [{"n": 1, "kind": "say", "start_ms": 100, "end_ms": 900}],
            "agent_speech": [[1200, 2000]], "words": []}
    trial = {"test": "hello", "trial": 1, "scenario_id": "hello.t1", "status": "passed", "conversation": conv}
    test = {"test": "hello", "status": "passed", "k": 1, "n": 1, "rate": 1.0, "ci": [0.2, 1.0]}
    for k, v in change.items():
        if k.startswith("trial_"):
            trial[k[6:]] = v
        elif k.startswith("conv_"):
            conv[k[5:]] = v
        else:
            test[k] = v
    return {"suite": "agent", "tests": [test], "trials": [trial]}


def _float_wav(rel: str, value: float) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        x = np.zeros(16000, np.float32)
        x[100] = value
        sf.write(str(ws / rel), x, 16000, subtype="FLOAT")
    return edit


def _suite_scores(name: str, data: object) -> Callable[[Path], None]:
    def edit(ws: Path) -> None:
        (ws / "sc").mkdir()
        (ws / "sc" / name).write_text(json.dumps(data))
    return edit


def _agent_suite(clip_line: str, old: str = "", new: str = "") -> Callable[[Path], None]:
    """A suite written from a test file (suite agent), then edited by hand: `clip_line` added to its first clip,
    `old` replaced by `new` in its scenario file."""
    def edit(ws: Path) -> None:
        from floorbench.suites.agent.importer import write_test_suite
        from floorbench.suites.agent.validate import load_test_file

        (ws / "src.yaml").write_text("tests:\n  - name: hello\n    steps:\n      - say: Hello there.\n"
                                     "        gap_ms: 100\n        expect: {matches: h(i|ello)}\n      - hang_up\n")
        write_test_suite(load_test_file(ws / "src.yaml"), ws / "asuite", 1)
        f = ws / "asuite" / "scenarios" / "hello.t1.yaml"
        text = f.read_text()
        text = text.replace("  text: Hello there.\n", "  text: Hello there.\n" + clip_line, 1)
        f.write_text(text.replace(old, new) if old else text)
    return edit


def _test_and(extra: Callable[[Path], None]) -> Callable[[Path], None]:
    return lambda ws: (_write("t.yaml", GOOD_TEST)(ws), extra(ws))


def _step(expect: str) -> str:
    return GOOD_TEST.replace("- say: Hello there.", f"- say: Hello there.\n        expect: {expect}")


TURNS_SCORES = json.loads((ROOT / "tests" / "fixtures" / "reports" / "turns_scores.json").read_text())
AV_SCORES = json.loads((ROOT / "tests" / "fixtures" / "reports" / "av_scores.json").read_text())
BASELINE = [*TEST, "--baseline", "{ws}/b.json"]
STANDIN = ["persona-standin", "--script", "{ws}/s.yaml", "--port", "0"]

READER_CASES: list[tuple[str, Callable[[Path], None], list[str], str]] = [
    # one case per class of issue 33: the reader layer (floorbench/readers.py) and the options checked first
    ("test-yaml-nested-deep", _write("t.yaml", "tests: " + "[" * 5000 + "]" * 5000 + "\n"), TEST, "t.yaml"),
    ("test-alias-bomb-as-name", _write("t.yaml", BOMB + "tests: [{name: *g, steps: [hang_up]}]\n"), TEST,
     "aliases expand"),
    ("test-steps-twice", _write("t.yaml", GOOD_TEST + "    steps:\n      - hang_up\n"), TEST, "given twice"),
    ("test-matches-repeat-huge", _write("t.yaml", _step('{matches: "\\\\d{99999999999}"}')), TEST, "repeat count"),
    ("test-matches-groups-nested", _write("t.yaml", _step("{matches: '" + "(" * 3000 + "a" + ")" * 3000 + "'}")), TEST,
     "regular expression"),
    ("test-matches-unclosed", _write("t.yaml", _step("{matches: '(abc'}")), TEST, "not a regular expression"),
    ("test-audio-nan-samples", lambda ws: (_float_wav("nan.wav", float("nan"))(ws), _write("t.yaml", (
        "tests:\n  - name: hello\n    steps:\n      - say: hi\n        audio: nan.wav\n"))(ws)), TEST, "NaN"),
    ("test-baseline-nested-deep", _test_and(_write("b.json", "[" * 100_000 + "]" * 100_000)), BASELINE,
     "nested too deep"),
    ("test-baseline-ci-wide", _test_and(_write("b.json", json.dumps(_results(ci="wide")))), BASELINE, "tests.0.ci"),
    ("test-baseline-trial-first", _test_and(_write("b.json", json.dumps(_results(trial_trial="first")))), BASELINE,
     "trials.0.trial"),
    ("test-baseline-duration-huge", _test_and(_write("b.json", json.dumps(_results(conv_duration_ms=1e300)))),
     BASELINE, "duration_ms"),
    ("test-baseline-nan", _test_and(_write("b.json", json.dumps(_results(rate=float("nan"))))), BASELINE, "NaN"),
    ("test-junit-a-folder", _write("t.yaml", GOOD_TEST), [*TEST, "--junit", S], "is a folder"),
    ("test-junit-the-results", _write("t.yaml", GOOD_TEST), [*TEST, "--junit", "{ws}/tout/results.json"],
     "writes"),
    ("test-asr-no-folder", _write("t.yaml", GOOD_TEST), [*TEST, "--asr", "{ws}/models/nowhere"], "no model folder"),
    ("test-acoustics-seed-alone", _write("t.yaml", GOOD_TEST), [*TEST, "--acoustics-seed", "3"],
     "--acoustics-seed 3 without --acoustics"),
    ("run-impair-seed-alone", _nothing, [*RUN, "--impair-seed", "-1"], "--impair-seed -1 without --impair"),
    ("run-retries-negative", _nothing, [*RUN, "--retries", "-1"], "--retries must be 0..10, got -1"),
    ("run-processes-zero", _nothing, [*RUN, "--processes", "0"], "--processes must be 1..64, got 0"),
    ("test-trials-huge", _write("t.yaml", GOOD_TEST), [*TEST, "--trials", "99999999"], "--trials must be 1..100"),
    ("run-acoustics-on-workers", _nothing, [*RUN, "--acoustics", "office", "--play-on", "workers"], "--play-on workers"),
    ("load-sessions-empty-item", _write("t.yaml", GOOD_TEST),
     ["load", "{ws}/t.yaml", "--out", "{ws}/lout", "--model", "silent", "--livekit-url", URL, "--sessions", "1,,2"],
     "--sessions"),
    ("generate-av-pairs-zero", _nothing, ["generate", "--suite", "av", "--pairs", "0", "--out", "{ws}/gen"], "--pairs"),
    ("worker-suite-missing", lambda ws: (ws / "wout").mkdir(),
     ["worker", "--suite", "{ws}/nope", "--out-root", "{ws}/wout", "--model", "silent", "--livekit-url", URL], "nope"),
    ("report-results-ci-wide", lambda ws: (ws / "trun").mkdir() or _write("trun/results.json",
                                                                         json.dumps(_results(ci="wide")))(ws),
     ["report", "{ws}/trun", "--out", "{ws}/rep"], "ci"),
    ("report-results-duration-huge", lambda ws: (ws / "trun").mkdir() or _write(
        "trun/results.json", json.dumps(_results(conv_duration_ms=1e300)))(ws),
     ["report", "{ws}/trun", "--out", "{ws}/rep"], "duration_ms"),
    ("report-turns-scores-garbage", _suite_scores("turns_scores.json", {**TURNS_SCORES, "tracks": {"eot": 5}}),
     ["report", "{ws}/sc", "--out", "{ws}/rep"], "turns_scores.json"),
    ("report-av-scores-garbage", _suite_scores("av_scores.json", {**AV_SCORES, "clips": [{"dynamic": None}]}),
     ["report", "{ws}/sc", "--out", "{ws}/rep"], "av_scores.json"),
    ("standin-rules-not-a-list", _write("s.yaml", "rules: 5\nlines: [Hi.]\n"), STANDIN, "rules must be a list"),
    ("standin-done-a-string", _write("s.yaml", "rules:\n  - {contains: [name], say: Sam., done: 'false'}\n"), STANDIN,
     "done must be true or false"),
    ("import-turns-short-row", _labels_csv("label,start_ms,end_ms,text\neot,100\n"), IMPORT_TURNS, "labels.csv:2"),
    ("info-clip-escapes", _scenario_yaml(lambda t: t.replace("audio: audio/", "audio: ../../private/", 1)),
     ["suite", "info", S], "leads outside"),
    ("report-vad-duration-huge", _append("scored/vad.jsonl", json.dumps({"scenario_id": "p1-e", "duration_ms": 10**15})
                                         + "\n"), ["report", R, "--out", "{ws}/rep"], "duration_ms"),
    ("report-vad-segment-huge", _append("scored/vad.jsonl", json.dumps({"scenario_id": "p1-e", "duration_ms": 5000,
                                                                        "segments": [[0, 10**15]]}) + "\n"),
     ["report", R, "--out", "{ws}/rep"], "segments"),
    ("info-agent-clip-escapes", _agent_suite("  audio: ../../private/voice.flac\n"), ["suite", "info", "{ws}/asuite"],
     "leads outside"),
    ("info-agent-gap-negative", _agent_suite("", "gap_ms: 100", "gap_ms: -100000"), ["suite", "info", "{ws}/asuite"],
     "gap_ms"),
    ("info-agent-regex-unclosed", _agent_suite("", "matches: h(i|ello)", "matches: h(i|ello"),
     ["suite", "info", "{ws}/asuite"], "regular expression"),
]


@pytest.mark.parametrize(("case", "edit", "argv", "want"), READER_CASES, ids=[c[0] for c in READER_CASES])
def test_a_malformed_input_of_each_class_is_one_error_line(
    case: str, edit: Callable[[Path], None], argv: list[str], want: str, ws: Path,
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cli_logs: None,
) -> None:
    corpus.test_malformed_input_is_one_error_line(case, edit, argv, want, ws, capfd, monkeypatch, cli_logs)


def test_the_classes_cover_every_reader_and_option() -> None:
    commands = {c[2][0] if c[2][0] != "suite" else f"suite {c[2][1]}" for c in READER_CASES}
    assert {"test", "run", "report", "suite info", "suite import-turns", "load", "persona-standin", "generate",
            "worker"} <= commands
    assert len({c[0] for c in READER_CASES}) == len(READER_CASES) and not {c[0] for c in READER_CASES} & {
        c[0] for c in corpus.CASES}
