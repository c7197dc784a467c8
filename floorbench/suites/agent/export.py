"""JUnit XML of a `floorbench test` run: one testcase per test, for CI (docs/testing.md "JUnit").

One ``<testsuite>`` per test file, one ``<testcase>`` per test (``classname``
the file's stem, ``name`` the test's). A test that does not meet its threshold
has one ``<failure>`` whose message names every failing assertion with its
pass rate and the measured value of each failing trial; a test with a trial in
error has an ``<error>`` naming each (the room's failure, the missing
evidence). ``<system-out>`` holds the pass rate, its interval, the threshold
and the latency. Built with `xml.etree`, so every text is escaped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from floorbench.escape import printable
from floorbench.suites.agent.verdicts import pass_k_text


def _failing(t: dict[str, Any]) -> list[str]:
    out = []
    for a in t["assertions"]:
        if a["k"] == a["n"]:
            continue
        where = f"step {a['step']}" if a["step"] is not None else "test"
        values = "; ".join(f"trial {m['trial']}: {m['measured']}" for m in a["measured"] if not m["passed"])
        out.append(f"{where} {a['check']} {a['expected']}: passed {a['k']}/{a['n']} ({values})")
    return out


def _summary(t: dict[str, Any]) -> list[str]:
    lo, hi = t["ci"]
    ci = f"{lo:.2f}-{hi:.2f}" if lo is not None else "-"
    lat = t["latency"]
    lines = [f"pass rate {t['k']}/{t['n']} (Wilson 95% {ci}), {pass_k_text(t)}, threshold {t['pass_threshold']:.2f}"
             + (", flaky" if t["flaky"] else ""),
             f"latency p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms over {lat['turns']} turns "
             f"({lat['unanswered']} unanswered)"]
    lines += [f"{a['key']}: {a['k']}/{a['n']}" + (" (flaky)" if a["flaky"] else "") for a in t["assertions"]]
    return lines


def _seconds(t: dict[str, Any]) -> str:
    return f"{(t.get('duration_ms') or 0) / 1000:.3f}"


def junit_xml(tests: Sequence[dict[str, Any]], name: str = "floorbench test") -> str:
    root = ET.Element("testsuites", name=name)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for t in tests:
        by_file.setdefault(str(t.get("source") or "tests"), []).append(t)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    total_ms = 0
    for source, ts in by_file.items():
        failures = sum(t["status"] == "failed" for t in ts)
        errors = sum(t["status"] == "error" for t in ts)
        ms = sum(t.get("duration_ms") or 0 for t in ts)
        suite = ET.SubElement(root, "testsuite", name=printable(source), tests=str(len(ts)), failures=str(failures),
                              errors=str(errors), skipped="0", time=f"{ms / 1000:.3f}")
        for t in ts:
            case = ET.SubElement(suite, "testcase", name=printable(t["test"]),
                                 classname=printable(Path(source).stem or "tests"), time=_seconds(t))
            if t["status"] == "error":
                lines = [printable(x) for x in t["error_lines"]]
                err = ET.SubElement(case, "error", message="; ".join(lines), type="TrialError")
                err.text = "\n".join(lines)
            elif t["status"] == "failed":
                lines = [printable(x) for x in _failing(t)] or [f"pass rate {t['k']}/{t['n']} below {t['pass_threshold']}"]
                fail = ET.SubElement(case, "failure", message="; ".join(lines), type="AssertionFailed")
                fail.text = "\n".join(lines)
            ET.SubElement(case, "system-out").text = "\n".join(printable(x) for x in _summary(t))
        totals["tests"] += len(ts)
        totals["failures"] += failures
        totals["errors"] += errors
        total_ms += ms
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", f"{total_ms / 1000:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
