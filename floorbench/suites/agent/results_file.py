"""The one reader of a `floorbench test` results.json, for `--baseline` and for `report`.

A results.json is handed over by whoever ran the earlier run (a pull request,
a CI artefact), so it is read like any user file: through `floorbench.readers`
(size, depth, finite numbers), then every field the baseline comparison and the
report use is checked for its type and range here — a ``"ci": "wide"``, a
``"trial": "first"`` or a ``duration_ms`` of 1e300 (which would drive the
timeline's tick loop without end) is one line naming the file and the field,
before a test is run or a report drawn. Fields the readers do not use are kept
as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from floorbench.errors import FloorbenchError

RESULTS = "results.json"
MAX_MS = 7 * 24 * 3600 * 1000
"""a week: far above any test's duration, far below what would make a loop or a drawing endless"""
MAX_COUNT = 10_000_000

Ms = Annotated[StrictInt | StrictFloat, Field(ge=-MAX_MS, le=MAX_MS)]
Count = Annotated[StrictInt, Field(ge=0, le=MAX_COUNT)]
Unit = Annotated[StrictInt | StrictFloat, Field(ge=0, le=1)]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Rate(_Open):
    k: Count | None = None
    n: Count | None = None
    rate: Unit | None = None
    ci: Annotated[list[Unit | None], Field(min_length=2, max_length=2)] | None = None
    flaky: StrictBool | None = None

    @model_validator(mode="after")
    def _ci_with_rate(self) -> _Rate:
        if self.rate is not None and (self.ci is None or None in self.ci):
            raise ValueError("a rate needs its interval ci: [low, high]")
        return self


class _Assertion(_Rate):
    key: StrictStr | None = None
    check: StrictStr | None = None
    step: Count | None = None
    expected: StrictStr | None = None


class _Latency(_Open):
    turns: Count | None = None
    unanswered: Count | None = None
    p50_ms: Ms | None = None
    p95_ms: Ms | None = None


class _Verdict(_Rate):
    test: StrictStr
    status: StrictStr | None = None
    source: StrictStr | None = None
    tags: list[StrictStr] | None = None
    pass_threshold: Unit | None = None
    duration_ms: Ms | None = None
    error_lines: list[StrictStr] | None = None
    assertions: list[_Assertion] | None = None
    latency: _Latency | None = None


class _Step(_Open):
    n: Count | None = None
    kind: StrictStr | None = None
    text: StrictStr | None = None
    start_ms: Ms | None = None
    end_ms: Ms | None = None


class _Words(_Open):
    window: StrictStr | None = None
    start_ms: Ms
    end_ms: Ms
    text: StrictStr | None = None


class _Conversation(_Open):
    duration_ms: Ms | None = None
    steps: list[_Step] | None = None
    agent_speech: list[Annotated[list[Ms], Field(min_length=2, max_length=2)]] | None = None
    words: list[_Words] | None = None


class _TrialAssertion(_Open):
    step: Count | None = None
    check: StrictStr | None = None
    expected: StrictStr | None = None
    passed: StrictBool | None = None


class _Trial(_Open):
    test: StrictStr | None = None
    trial: Count | None = None
    scenario_id: StrictStr | None = None
    status: StrictStr | None = None
    duration_ms: Ms | None = None
    assertions: list[_TrialAssertion] | None = None
    conversation: _Conversation | None = None


class _Results(_Open):
    suite: StrictStr
    tests: list[_Verdict]
    trials: list[_Trial] | None = None


def check_results(data: object, where: str, error: type[FloorbenchError], fix: str) -> dict[str, Any]:
    """`data` (a parsed results.json) if every field the readers use has its type and range; else one line."""
    if not isinstance(data, dict) or data.get("suite") != "agent":
        raise error(f"{where}: not the results of floorbench test (no suite: agent); {fix}")
    try:
        _Results.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        raise error(f"{where}: field '{loc}': {first['msg']}; {fix}") from None
    return data


def read_results_file(path: Path, error: type[FloorbenchError], fix: str) -> dict[str, Any]:
    """A results.json (or the run folder holding one), read through `floorbench.readers` and checked."""
    from floorbench.readers import load_json

    file = path / RESULTS if path.is_dir() else path
    if not file.exists():
        raise error(f"{file}: not found; {fix}")
    return check_results(load_json(file, error, fix), str(file), error, fix)
