"""Fuzzing every reader of a user's file through the real CLI: generated malformed inputs keep the contract.

For each reader (a test file, a suite's suite.yaml and scenario files, a model
config, a stand-in script, a `--baseline`, the results and scores files `report`
reads, a `suite import` source, judge-agreement labels, import-turns labels),
hypothesis starts from a valid file and breaks it: a value of the wrong type
anywhere (None, bools, huge integers, NaN and infinities, strings with control
and bidi characters, nested lists and mappings), or the text itself (nesting
thousands deep, a YAML alias bomb, a key given twice, a torn end, bytes that
are not UTF-8, the file replaced by a link to elsewhere). The real `floorbench`
app runs on it (`run_cli`, in this process) and the contract is checked: the
command is refused with exactly one ``error:`` line and exit 2 (or, when the
break happened to leave a valid file, it succeeds), never a traceback or
another exception, no file written outside its OUT, no secret from the
environment echoed, within a time limit.

Bounded for the unit phase: `FLOORBENCH_FUZZ_EXAMPLES` examples per reader
(default 12, `deadline=None`); run with a larger number and
``--hypothesis-show-statistics`` to search harder (docs/testing.md).
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from floorbench.cli import app, run_cli

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "fixtures" / "suites" / "tiny"
REPORTS = ROOT / "tests" / "fixtures" / "reports"
"""a turns and an av scores file as `floorbench score` wrote them (a clip and a dialogue of the suites' tests)"""
EXAMPLES = int(os.environ.get("FLOORBENCH_FUZZ_EXAMPLES", "12"))
STATS = os.environ.get("FLOORBENCH_FUZZ_STATS")
CANARY = "sk-fuzz-canary-7d3e91c4"
LIMIT_S = 30

# ------------------------------------------------------------------------------------------ values

BIDI_CONTROL = "\u202e\u202d\u2066\u2069\u200b\x1b\x00\x07\r\n\t\x85\u2028"
TEXT = st.text(alphabet=st.one_of(st.characters(codec="utf-8", exclude_categories=("Cs",)),
                                  st.sampled_from(BIDI_CONTROL)), max_size=24)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e300, -1e300, 0, -1, 2**63, "1e400", "", "false"]),
    TEXT, st.sampled_from(["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "LIVEKIT_API_SECRET", "$OPENAI_API_KEY"]),
)
"""a file may name a secret's variable; the variable's value (the canary) must never come out"""
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=8)


def _slots(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in `doc` a value can be replaced (and the new key of each mapping)."""
    out: list[tuple[Any, ...]] = []
    if isinstance(doc, dict):
        out.append((*path, "\u0000new"))
        for k, v in doc.items():
            out += [(*path, k), *_slots(v, (*path, k))]
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += [(*path, i), *_slots(v, (*path, i))]
    return out


def _put(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    if key == "\u0000new":
        parent["extra"] = value
    else:
        parent[key] = value
    return doc


def _dump(doc: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc)
    if fmt == "jsonl":
        rows = doc if isinstance(doc, list) else [doc]
        return "\n".join(json.dumps(r) for r in rows) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        rows = doc if isinstance(doc, list) else [doc]
        csv.writer(buf).writerows(r if isinstance(r, list) else [r] for r in rows)
        return buf.getvalue()
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def _deep(fmt: str, n: int) -> str:
    if fmt == "yaml":
        return "a: " + "[" * n + "]" * n + "\n"
    return "[" * n + "]" * n


BOMB = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, c in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True))


@st.composite
def broken(draw: st.DrawFn, doc: Any, fmt: str) -> bytes:
    """A valid `doc` broken one way, as the bytes of a file in format `fmt`."""
    how = draw(st.sampled_from(["value", "value", "value", "deep", "torn", "bytes", "duplicate", "alias", "links"]))
    event(f"break: {how}")
    if how == "value":  # one to three values replaced
        doc = copy.deepcopy(doc)
        for _ in range(draw(st.integers(1, 3))):
            slots = _slots(doc)
            doc = _put(doc, draw(st.sampled_from(slots)) if slots else (), draw(VALUES))
        return _dump(doc, fmt).encode("utf-8", "surrogatepass")
    text = _dump(doc, fmt)
    if how == "deep":
        return _deep(fmt, draw(st.sampled_from([65, 200, 3000, 100_000 if fmt != "yaml" else 20_000]))).encode()
    if how == "torn":
        return text[: draw(st.integers(0, max(0, len(text) - 1)))].encode()
    if how == "bytes":
        at = draw(st.integers(0, len(text)))
        return text[:at].encode() + draw(st.sampled_from([b"\xff\xfe", b"\xc3", b"\x00", b"\xed\xa0\x80"])) + \
            text[at:].encode()
    if how == "duplicate":
        if fmt == "yaml" and isinstance(doc, dict) and doc:
            first = next(iter(doc))
            return (text + _dump({first: doc[first]}, "yaml")).encode()
        return (text[:-1] + ', "suite": "agent"}' if fmt == "json" and text.endswith("}") else text + text).encode()
    if how == "alias":
        return (BOMB + "name: *g\n").encode() if fmt == "yaml" else b'{"a": ' * 70 + b"1" + b"}" * 70
    return b"links"  # replaced by a link to a file outside the workspace (see `_contract`)


# ------------------------------------------------------------------------------------------ readers


@dataclass(frozen=True)
class Reader:
    name: str
    file: str
    """the file (relative to the workspace) that is broken"""
    fmt: str
    doc: Callable[[], Any]
    """a valid file's content"""
    argv: list[str]
    """{ws}: the workspace, {out}: the command's only output folder, {port}: a closed port"""
    setup: Callable[[Path], None] = lambda ws: None


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _suite(ws: Path) -> None:
    shutil.copytree(TINY, ws / "suite")


def _verdict_run() -> dict[str, Any]:
    conv = {"duration_ms": 4000, "steps": [{"n": 1, "kind": "say", "text": "Hi.", "start_ms": 100, "end_ms": 900}],
            "agent_speech": [[1200, 2000]], "words": [{"window": "step 1", "start_ms": 1200, "end_ms": 2000,
                                                     "text": "hello"}]}
    trial = {"scenario_id": "hello.t1", "test": "hello", "trial": 1, "status": "passed", "duration_ms": 4000,
             "assertions": [{"key": "step 1 contains", "check": "contains", "step": 1, "expected": "says hi",
                             "passed": True, "measured": "hello"}], "conversation": conv}
    test = {"test": "hello", "status": "passed", "k": 1, "n": 1, "rate": 1.0, "ci": [0.2, 1.0], "flaky": False,
            "pass_threshold": 1.0, "tags": [], "error_lines": [], "source": "t.yaml",
            "latency": {"turns": 1, "unanswered": 0, "p50_ms": 300, "p95_ms": 300},
            "assertions": [{"key": "step 1 contains", "check": "contains", "step": 1, "expected": "says hi", "k": 1,
                            "n": 1, "rate": 1.0, "ci": [0.2, 1.0], "flaky": False, "measured": []}]}
    return {"results_version": 1, "suite": "agent", "created": "now", "exit_code": 0, "tests": [test],
            "trials": [trial]}


GOOD_TEST = {"voice": "flite:slt", "tests": [{"name": "hello", "timeout_s": 30, "steps": [
    {"say": "Hello there.", "expect": {"responds_within_ms": 1500, "contains": ["hi"], "matches": "h(i|ello)"}},
    "hang_up"]}]}
ANSWER = {"id": "a1", "family": "f", "question": "Which one?", "gold": "taco", "aliases": [], "reply": "The taco.",
          "label": "correct"}
LK = ["--livekit-url", "ws://127.0.0.1:{port}"]

READERS = [
    Reader("test-file", "t.yaml", "yaml", lambda: GOOD_TEST,
           ["test", "{ws}/t.yaml", "--out", "{out}", "--model", "silent", *LK]),
    Reader("suite-yaml", "suite/suite.yaml", "yaml", lambda: yaml.safe_load((TINY / "suite.yaml").read_text()),
           ["suite", "info", "{ws}/suite"], _suite),
    Reader("scenario-yaml", "suite/scenarios/tiny01-explicit.yaml", "yaml",
           lambda: yaml.safe_load((TINY / "scenarios" / "tiny01-explicit.yaml").read_text()),
           ["suite", "info", "{ws}/suite"], _suite),
    Reader("audio-manifest", "suite/audio/manifest.json", "json",
           lambda: json.loads((TINY / "audio" / "manifest.json").read_text()), ["suite", "info", "{ws}/suite"], _suite),
    Reader("model-config", "m.yaml", "yaml", lambda: {"adapter": "websocket", "url": "ws://127.0.0.1:9/", "frame_ms": 20},
           ["run", "--suite", "{ws}/suite", "--config", "{ws}/m.yaml", "--out", "{out}", *LK], _suite),
    Reader("standin-script", "s.yaml", "yaml",
           lambda: {"rules": [{"contains": ["name"], "say": "I am Sam.", "done": False}], "lines": ["Hi."],
                    "out_of_lines": "Bye."}, ["persona-standin", "--script", "{ws}/s.yaml", "--port", "0"]),
    Reader("baseline", "b.json", "json", _verdict_run,
           ["test", "{ws}/t.yaml", "--baseline", "{ws}/b.json", "--out", "{out}", "--model", "silent", *LK],
           lambda ws: (ws / "t.yaml").write_text(yaml.safe_dump(GOOD_TEST))),
    Reader("results-json", "run/results.json", "json", _verdict_run, ["report", "{ws}/run", "--out", "{out}"],
           lambda ws: (ws / "run").mkdir()),
    Reader("turns-scores", "run/turns_scores.json", "json",
           lambda: json.loads((REPORTS / "turns_scores.json").read_text()),
           ["report", "{ws}/run", "--out", "{out}"], lambda ws: (ws / "run").mkdir()),
    Reader("av-scores", "run/av_scores.json", "json",
           lambda: json.loads((REPORTS / "av_scores.json").read_text()),
           ["report", "{ws}/run", "--out", "{out}"], lambda ws: (ws / "run").mkdir()),
    Reader("suite-import", "src.json", "json",
           lambda: {"scenarios": [yaml.safe_load((TINY / "scenarios" / f"tiny01-{c}.yaml").read_text())
                                  for c in ("explicit", "implicit")]},
           ["suite", "import", "{ws}/src.json", "--out", "{out}"]),
    Reader("labels-jsonl", "labels.jsonl", "jsonl", lambda: [ANSWER, {**ANSWER, "id": "a2"}],
           ["judge-agreement", "--labels", "{ws}/labels.jsonl", "--out", "{out}"]),
    Reader("import-turns-csv", "labels.csv", "csv",
           lambda: [["label", "start_ms", "end_ms", "text"], ["eot", 100, 900, "hi"], ["eot", 1000, 1500, "so"]],
           ["suite", "import-turns", "{ws}/talk.wav", "{ws}/labels.csv", "--out", "{out}"],
           lambda ws: _talk(ws / "talk.wav")),
]


def _talk(path: Path) -> None:
    import numpy as np
    import soundfile as sf

    sf.write(str(path), np.zeros((16000 * 2, 2), np.int16), 16000)


# ------------------------------------------------------------------------------------------ the contract


class _Served(Exception):
    """persona-standin accepted its script and would now serve."""


def _hashes(root: Path, skip: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*")) if skip not in (p, *p.parents) and not p.is_symlink()}


def _contract(reader: Reader, data: bytes, capfd: pytest.CaptureFixture[str], fuzzing: bool = True) -> str:
    """Run `reader`'s command on `data`; assert the contract; the error line ('' when it was accepted)."""
    ws = Path(tempfile.mkdtemp(prefix="fuzz-"))
    outside = Path(tempfile.mkdtemp(prefix="fuzz-outside-"))
    try:
        reader.setup(ws)
        target = ws / reader.file
        target.parent.mkdir(parents=True, exist_ok=True)
        if data == b"links":
            (outside / "elsewhere").write_text(_dump(reader.doc(), reader.fmt))
            target.unlink(missing_ok=True)
            target.symlink_to(outside / "elsewhere")
        else:
            target.unlink(missing_ok=True)
            target.write_bytes(data)
        out = ws / "out"
        args = [a.replace("{ws}", str(ws)).replace("{out}", str(out)).replace("{port}", str(_closed_port()))
                for a in reader.argv]
        before, around = _hashes(ws, out), _hashes(outside, out)
        capfd.readouterr()
        code = _run(args)
        stdout, stderr = capfd.readouterr()
        lines = [x for x in stderr.splitlines() if x.strip()]
        if fuzzing:
            event(f"{reader.name}: exit {code}")
            if STATS:  # FLOORBENCH_FUZZ_STATS=FILE: one line per example, for the figures in docs/testing.md
                with open(STATS, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"reader": reader.name, "exit": code}) + "\n")
        assert code in (0, 2, "served"), (reader.name, code, stderr[-2000:])
        if code == 2:
            assert len(lines) == 1 and lines[0].startswith("error: "), (reader.name, stderr[-2000:])
        assert "Traceback" not in stdout + stderr, stderr[-2000:]
        assert CANARY not in stdout + stderr
        assert _hashes(ws, out) == before, f"{reader.name}: files outside OUT changed or added"
        assert _hashes(outside, out) == around
        return lines[-1] if code == 2 else ""
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)


def _run(args: list[str]) -> int | str:
    def too_long(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {LIMIT_S} s: {args}")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(LIMIT_S)
    try:
        run_cli(app, args)
        return 0
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except _Served:
        return "served"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def contract_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from loguru import logger

    from floorbench.suites.agent import persona_standin

    async def served(*a: object, **k: object) -> None:
        raise _Served

    monkeypatch.setattr(persona_standin, "start", served)
    for name in ("LIVEKIT_API_KEY", "LIVEKIT_API_SECRET", "LIVEKIT_URL", "FLOORBENCH_PERSONA_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", CANARY)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    logger.remove()


@pytest.mark.parametrize("reader", READERS, ids=[r.name for r in READERS])
def test_a_broken_file_is_refused_in_one_line(reader: Reader, capfd: pytest.CaptureFixture[str],
                                               contract_env: None) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])
    @given(data=broken(reader.doc(), reader.fmt))
    def check(data: bytes) -> None:
        _contract(reader, data, capfd)

    check()


def test_every_reader_starts_from_a_valid_file(capfd: pytest.CaptureFixture[str], contract_env: None) -> None:
    """The unbroken file of each reader is accepted or refused for a reason other than its content (a closed
    LiveKit port, no server key): the fuzzing breaks files that were valid, not files that never were."""
    for reader in READERS:
        line = _contract(reader, _dump(reader.doc(), reader.fmt).encode(), capfd, fuzzing=False)
        assert line == "" or "LIVEKIT_API_KEY" in line, (reader.name, line)
