"""Loading and validating scenario suites: one clear line per broken constraint.

Every error names the file, the scenario and (where there is one) the turn,
and says what to fix, so that a user with a hand-written or LLM-written file
never sees a stack trace. `load_suite` collects all problems of a suite before
raising, so one run of `floorbench suite info` lists them all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from floorbench.errors import FloorbenchError
from floorbench.plugins import SuiteNotFound, suite_of
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.schema import Suite, inside

SUPPORTED_RATES = (16000, 24000, 48000)

M = TypeVar("M", bound=BaseModel)


class ScenarioError(FloorbenchError, ValueError):
    """A scenario or suite file breaks a constraint; the message is one line."""


@dataclass
class LoadedSuite:
    """A validated suite: its folder, its `suite.yaml` and its scenarios in order."""

    root: Path
    suite: Suite
    scenarios: list[ScenarioRecord]
    files: dict[str, Path] = field(default_factory=dict)
    """scenario_id -> the YAML file it came from"""

    def audio_path(self, rel: str) -> Path:
        """The audio file `rel` names, resolved; a ScenarioError if it leads outside the suite folder."""
        return inside(self.root, rel, f"{self.root}: audio path", ScenarioError)


def where(path: Path, scenario: str | None = None, turn: int | None = None) -> str:
    parts = [str(path)]
    if scenario:
        parts.append(f"scenario {scenario}")
    if turn is not None:
        parts.append(f"turn {turn}")
    return ": ".join(parts)


def read_yaml(path: Path) -> object:
    """Parse one YAML file through the one reader (`floorbench.readers.load_yaml`: bounded size, depth
    and alias expansion, no key twice, finite numbers); any problem is a one-line ScenarioError."""
    from floorbench.readers import load_yaml

    return load_yaml(path, ScenarioError)


def pydantic_line(path: Path, scenario: str | None, data: object, err: ValidationError) -> str:
    """Turn the first pydantic error into one line that names the turn if it can."""
    e = err.errors()[0]
    loc = list(e["loc"])
    turn_id: int | None = None
    if len(loc) >= 2 and loc[0] == "turns" and isinstance(loc[1], int):
        turns = data.get("turns") if isinstance(data, dict) else None
        if isinstance(turns, list) and loc[1] < len(turns) and isinstance(turns[loc[1]], dict):
            tid = turns[loc[1]].get("id")
            turn_id = tid if isinstance(tid, int) else loc[1] + 1
        else:
            turn_id = loc[1] + 1
        loc = loc[2:]
    field_name = ".".join(str(x) for x in loc) or "(record)"
    msg = e["msg"]
    if e["type"] == "enum" and field_name == "label":
        msg = f"unknown label {e.get('input')!r}; use one of {_expected(e)}"
    elif e["type"] == "missing":
        msg = f"missing field '{field_name}'; add it"
    elif e["type"] == "extra_forbidden":
        msg = f"unknown field '{field_name}'; remove or rename it"
    elif e["type"] == "value_error":
        msg = f"field '{field_name}': {msg.removeprefix('Value error, ')}"
    else:
        msg = f"field '{field_name}': {msg}"
    return f"{where(path, scenario, turn_id)}: {msg}"


def _expected(e: Any) -> str:
    """An enum error's allowed values as pydantic lists them (``'T', 'N1' or 'N2'``), unquoted."""
    return str((e.get("ctx") or {}).get("expected", "")).replace("'", "").replace(" or ", ", ")


def parse_record(model: type[M], path: Path, data: object) -> M:
    """A suite's scenario record from one parsed file; the first pydantic error as a one-line ScenarioError."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        sid = data.get("scenario_id") if isinstance(data, dict) else None
        raise ScenarioError(pydantic_line(path, str(sid) if sid else None, data, err)) from None






def check_audio(root: Path, rel: str | None, where: str, required: bool) -> None:
    """The audio file exists, is readable, and is at a supported sample rate."""
    if rel is None:
        if required:
            raise ScenarioError(f"{where}: no audio file; run `floorbench render` on the suite")
        return
    import soundfile as sf  # local: keeps `floorbench --help` fast

    p = inside(root, rel, f"{where}: audio file", ScenarioError)
    if not p.is_file():
        raise ScenarioError(f"{where}: audio file {rel} is missing; run `floorbench render` on the suite")
    try:
        info = sf.info(str(p))
    except Exception as e:  # soundfile raises RuntimeError/LibsndfileError on broken files
        raise ScenarioError(f"{where}: audio file {rel} is unreadable ({e}); re-render it") from None
    if info.samplerate not in SUPPORTED_RATES:
        raise ScenarioError(
            f"{where}: audio file {rel} is {info.samplerate} Hz; use 16000, 24000 or 48000 Hz"
        )
    if info.frames == 0:
        raise ScenarioError(f"{where}: audio file {rel} is empty; re-render it")
    if info.subtype in ("FLOAT", "DOUBLE"):  # only float samples can be NaN or infinite
        from floorbench.readers import check_finite_audio

        check_finite_audio(p, f"{where}: audio file {rel}", ScenarioError)


def check_clips_audio(root: Path | None, path: Path, clips: Iterable[tuple[str, str | None]]) -> None:
    """`load_scenario(audio=True)`: every clip of one scenario file has its rendered audio (`check_audio`).

    Clip audio is relative to the suite folder (`root`), or to the scenario file's own folder
    when the file is checked alone; each clip comes as (where errors name it, its audio).
    """
    base = root or path.parent
    for at, rel in clips:
        check_audio(base, rel, at, required=True)


def load_scenario_file(
    path: Path, root: Path | None = None, audio: bool = False, strict_vocab: bool = False
) -> ScenarioRecord:
    """Parse and check one scenario file (and, with `audio`, its audio files).

    The file's ``suite`` (which it must record: no suite is a default) names the rules that
    check it: that suite's part `load_scenario` (floorbench.plugins).
    """
    data = read_yaml(path)
    try:
        plugin = suite_of(data, str(path))
    except SuiteNotFound as e:
        raise ScenarioError(str(e) if str(e).startswith(str(path)) else f"{path}: {e}; fix its 'suite'") from None
    return plugin.part("load_scenario")(path, data, root=root, audio=audio, strict_vocab=strict_vocab)


def load_suite(
    root: Path | str, audio: bool = True, pairs: bool = True, strict_vocab: bool = False
) -> LoadedSuite:
    """Load a suite folder; raise a ScenarioError listing every problem found.

    `audio=False` skips the audio checks (for suites not rendered yet);
    `strict_vocab=True` also requires the five attributes to come from the
    generator's vocabularies.
    """
    root = Path(root)
    suite_file = root / "suite.yaml"
    if not root.is_dir():
        raise ScenarioError(f"{root}: not a folder; pass a suite folder holding suite.yaml")
    inside(root, "suite.yaml", f"{root}: suite file", ScenarioError)
    data = read_yaml(suite_file)
    if not isinstance(data, dict):
        raise ScenarioError(f"{suite_file}: expected a mapping with suite fields")
    try:
        suite_of(data, str(suite_file))  # no suite is a default: the file records its own
    except SuiteNotFound as e:
        raise ScenarioError(str(e)) from None
    try:
        suite = Suite.model_validate(data)
    except ValidationError as err:
        raise ScenarioError(pydantic_line(suite_file, None, data, err)) from None
    problems: list[str] = []
    if audio:
        try:
            # a suite with no preamble text plays none (and has no audio for it)
            check_audio(root, suite.preamble.audio, f"{suite_file}: preamble", required=bool(suite.preamble.text.strip()))
        except ScenarioError as e:
            problems.append(str(e))
    scenarios: list[ScenarioRecord] = []
    files: dict[str, Path] = {}
    paths = sorted(root.glob(suite.scenario_glob))
    if not paths:
        raise ScenarioError(f"{root}: no scenario files match {suite.scenario_glob!r}")
    for p in paths:
        try:
            inside(root, p.relative_to(root), f"{suite_file}: scenario_glob {suite.scenario_glob!r} matches", ScenarioError)
            s = load_scenario_file(p, root=root, audio=audio, strict_vocab=strict_vocab)
        except ScenarioError as e:
            problems.append(str(e))
            continue
        if s.scenario_id in files:
            problems.append(f"{p}: scenario {s.scenario_id}: id already used by {files[s.scenario_id]}; ids must be unique")
            continue
        files[s.scenario_id] = p
        scenarios.append(s)
    plugin = suite_of(suite, str(suite_file))
    if pairs and plugin.has("check_suite"):  # rules across a suite's scenarios (mpe: explicit/implicit twins)
        problems += plugin.part("check_suite")(scenarios, files, suite)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        err = ScenarioError(problems[0] + more)
        err.problems = problems  # type: ignore[attr-defined]
        raise err
    return LoadedSuite(root=root, suite=suite, scenarios=scenarios, files=files)
