"""From trials to verdicts: Wilson intervals, thresholds, flaky tests, exit codes, JUnit XML, baseline.

The JUnit XML is read back with a real JUnit parser (`junitparser`, in the dev extra) and checked
against the JUnit schema's structure with xml.etree (testsuites > testsuite > testcase, with
failure/error children carrying a message).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from floorbench.scoring.stats import wilson_interval
from floorbench.suites.agent.baseline import BaselineError, compare, read_baseline, table
from floorbench.suites.agent.export import junit_xml
from floorbench.suites.agent.verdicts import aggregate, exit_code, summary_lines


def test_wilson_interval_matches_published_values() -> None:
    lo, hi = wilson_interval(5, 5)
    assert (round(lo, 4), hi) == (0.5655, 1.0)
    lo, hi = wilson_interval(0, 5)
    assert (lo, round(hi, 4)) == (0.0, 0.4345)
    lo, hi = wilson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    lo, hi = wilson_interval(50, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    assert wilson_interval(0, 0) == (None, None)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def assertion(key: str, passed: bool, measured: str, value: float | None = None) -> dict[str, Any]:
    step = int(key.split()[1]) if key.startswith("step") else None
    return {"key": key, "check": key.split()[-1], "step": step, "expected": "≤ 1500 ms", "passed": passed,
            "measured": measured, "value": value}


def trial(test: str, k: int, *results: dict[str, Any], status: str | None = None, lat: list[int | None] | None = None,
          threshold: float | None = None, error: str | None = None) -> dict[str, Any]:
    st = status or ("passed" if all(r["passed"] for r in results) else "failed")
    return {"scenario_id": f"{test}.t{k}", "test": test, "trial": k, "source": "tests/basic.yaml", "tags": ["smoke"],
            "pass_threshold": threshold, "status": st, "error": error, "timing": "ok", "assertions": list(results),
            "latencies_ms": lat or [], "duration_ms": 4000}


OK = assertion("step 1 responds_within_ms", True, "600 ms", 600.0)
SLOW = assertion("step 1 responds_within_ms", False, "no response")


def test_pass_rates_thresholds_flaky_and_errors() -> None:
    trials = [
        trial("greeting", 1, OK, lat=[600]), trial("greeting", 2, OK, lat=[700]), trial("greeting", 3, OK, lat=[650]),
        trial("flaky", 1, OK, lat=[600]), trial("flaky", 2, SLOW, lat=[None]), trial("flaky", 3, OK, lat=[900]),
        trial("lenient", 1, OK, threshold=0.6), trial("lenient", 2, SLOW, threshold=0.6), trial("lenient", 3, OK, threshold=0.6),
        trial("broken", 1, OK), trial("broken", 2, status="error", error="the room failed (model_crashed): exit 1"),
    ]
    v = {t["test"]: t for t in aggregate(trials)}
    g = v["greeting"]
    assert (g["status"], g["k"], g["n"], g["flaky"], g["pass_threshold"]) == ("passed", 3, 3, False, 1.0)
    assert round(g["ci"][0], 3) == 0.439 and g["ci"][1] == 1.0
    assert g["latency"] == {"turns": 3, "unanswered": 0, "p50_ms": 650, "p95_ms": 700}
    f = v["flaky"]
    assert (f["status"], f["flaky"], f["k"], f["n"]) == ("failed", True, 2, 3)
    assert f["latency"]["p95_ms"] is None and f["latency"]["unanswered"] == 1  # an unanswered turn is the slowest
    (a,) = f["assertions"]
    assert (a["k"], a["n"], a["flaky"]) == (2, 3, True) and [m["measured"] for m in a["measured"]][1] == "no response"
    assert v["lenient"]["status"] == "passed" and v["lenient"]["flaky"]  # its own threshold 0.6: 2/3 is enough
    b = v["broken"]
    assert (b["status"], b["errors"], b["k"], b["n"]) == ("error", 1, 1, 1)  # an error is never a pass
    assert exit_code([g]) == 0 and exit_code([g, f]) == 1 and exit_code([g, f, b]) == 2 and exit_code([]) == 2
    assert aggregate(trials[3:6], threshold=0.5)[0]["status"] == "passed"  # --pass-threshold
    lines = summary_lines([g, f, b])
    assert lines[0].startswith("PASS") and "3/3 passed" in lines[0] and "p95 700 ms" in lines[0]
    assert any(x.startswith("FAIL (flaky)") for x in lines)
    assert "    step 1 responds_within_ms ≤ 1500 ms: 2/3 (flaky): t2 no response" in lines
    assert "    error: trial 2: the room failed (model_crashed): exit 1" in lines


def test_junit_xml_has_one_testcase_per_test_with_measured_values(tmp_path: Path) -> None:
    junitparser = pytest.importorskip("junitparser")
    trials = [trial("greeting", 1, OK), trial("greeting", 2, OK), trial("flaky", 1, OK), trial("flaky", 2, SLOW),
              trial("broken", 1, status="error", error="evidence missing: no turns.json <&>")]
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml(aggregate(trials)), encoding="utf-8")

    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    cases = {c.name: c for s in suites for c in s}
    assert set(cases) == {"greeting", "flaky", "broken"}
    assert all(c.classname == "basic" for c in cases.values())
    assert cases["greeting"].is_passed
    (fail,) = cases["flaky"].result
    assert isinstance(fail, junitparser.Failure)
    assert "step 1 responds_within_ms ≤ 1500 ms: passed 1/2 (trial 2: no response)" in fail.message
    (err,) = cases["broken"].result
    assert isinstance(err, junitparser.Error) and "evidence missing: no turns.json <&>" in err.message
    assert float(cases["greeting"].time) == 8.0

    root = ET.parse(path).getroot()  # the schema's shape, without the parser
    assert root.tag == "testsuites" and (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    (suite,) = root
    assert suite.tag == "testsuite" and suite.get("name") == "tests/basic.yaml"
    for case in suite:
        assert case.tag == "testcase" and case.get("name") and case.get("classname") and case.get("time")
        for child in case:
            assert child.tag in ("failure", "error", "system-out")
            if child.tag != "system-out":
                assert child.get("message") and child.get("type")


def results(tests: list[dict[str, Any]]) -> dict[str, Any]:
    return {"results_version": 1, "suite": "agent", "tests": tests}


def test_baseline_flags_a_pass_rate_below_its_interval_and_a_slower_p95(tmp_path: Path) -> None:
    before = aggregate([trial("a", k, OK, lat=[600]) for k in range(1, 6)]
                       + [trial("b", k, OK, lat=[500]) for k in range(1, 6)] + [trial("gone", 1, OK)])
    same = aggregate([trial("a", k, OK if k != 3 else SLOW, lat=[620]) for k in range(1, 6)]
                     + [trial("b", k, OK, lat=[580]) for k in range(1, 6)])
    assert compare(same, before, 100) == [c for c in compare(same, before, 100) if c.change == "gone"]  # 4/5 is inside 0.57–1
    worse = aggregate([trial("a", k, OK if k < 3 else SLOW, lat=[600]) for k in range(1, 6)]
                      + [trial("b", k, OK, lat=[700]) for k in range(1, 6)] + [trial("new", 1, OK)])
    changes = compare(worse, before, 100)
    got = {(c.test, c.what, c.change) for c in changes}
    assert ("a", "pass rate", "regressed") in got  # 2/5 = 0.4 < 0.57
    assert ("a", "step 1 responds_within_ms ≤ 1500 ms", "regressed") in got
    assert ("b", "latency p95 (margin 100 ms)", "regressed") in got  # 700 > 500 + 100
    assert ("new", "test", "new") in got and ("gone", "test", "gone") in got
    assert compare(worse, before, 250) and not any(c.test == "b" for c in compare(worse, before, 250))
    lines = table(changes)
    assert lines[0].split() == ["change", "test", "what", "baseline", "now"] and len(lines) == len(changes) + 1
    assert any("regressed  b" in x and "500 ms" in x and "700 ms" in x for x in lines)
    better = compare(before, worse, 100)
    assert {(c.test, c.change) for c in better if c.what == "pass rate"} == {("a", "improved")}

    (tmp_path / "results.json").write_text(json.dumps(results(before)))
    assert read_baseline(tmp_path) == before and read_baseline(tmp_path / "results.json") == before


@pytest.mark.parametrize(
    ("content", "wanted"),
    [(None, "not found; give the results.json"), ("{", "not valid JSON"), ('{"suite": "turns", "tests": []}', "no suite: agent"),
     ('{"suite": "agent", "tests": [{"x": 1}]}', "field 'tests.0.test'"),
     ('{"suite": "agent", "tests": [{"test": "a", "ci": "wide"}]}', "field 'tests.0.ci'"),
     ('{"suite": "agent", "tests": [], "trials": [{"trial": "first"}]}', "field 'trials.0.trial'"),
     ('{"suite": "agent", "tests": [], "trials": [{"conversation": {"duration_ms": 1e300}}]}', "duration_ms"),
     ("[" * 100_000 + "]" * 100_000, "nested too deep"), ('{"suite": "agent", "tests": [], "x": NaN}', "NaN")],
)
def test_a_bad_baseline_is_one_line(tmp_path: Path, content: str | None, wanted: str) -> None:
    f = tmp_path / "results.json"
    if content is not None:
        f.write_text(content)
    with pytest.raises(BaselineError, match=wanted):
        read_baseline(f)


def test_text_from_files_and_transcripts_is_escaped_on_the_terminal_and_in_xml() -> None:
    nasty = "heard \"\x1b[31mred\u202e\nline\""
    tests = aggregate([trial("t", 1, assertion("step 1 contains", False, nasty))])
    lines = summary_lines(tests)
    assert all("\x1b" not in x and "\u202e" not in x and "\n" not in x for x in lines)
    assert any("\\x1b[31mred\\u202e\\nline" in x for x in lines)
    xml = junit_xml(tests)
    assert "\x1b" not in xml and "\u202e" not in xml
    ET.fromstring(xml.split("\n", 1)[1])  # well-formed
    changes = compare(aggregate([trial("t\x1b", 1, OK)]), aggregate([trial("t\x1b", 1, SLOW)] * 1), 100)
    assert all("\x1b" not in x for x in table(changes))
