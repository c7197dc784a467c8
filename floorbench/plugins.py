"""The plug-in contract: what a suite provides, found by name; where installed models are found.

Engine-owned, in the base layer, so that every engine module that asks a suite
for a part (scenarios, pipelines, scoring, report, processors) depends on this
module and never on `floorbench.suites`. A suite is a plug-in: a `SuitePlugin`
record names each part as a lazy ``"module:attr"`` import path, so that asking a
suite for its scorer never imports LiveKit, and asking for its live schedule
never imports the scorer. At each point where suites differ the engine makes one
call through this registry and never compares a suite's name or tests a
scenario's class.

Built-in suites are listed below by import path. A third-party suite registers
with `register_suite` (a decorator on a function that returns the record, or a
plain call) or through the Python entry point group ``floorbench.suites``
(``name = "package.module:PLUGIN"``), read the first time a suite is asked for.
No suite is a default: a lookup names its suite, or reads it from a scenario
or suite file's ``suite`` field (a file without one is an error naming the
fix). Scoring and reporting ask each suite whether a folder is its own
(`recognises`, `reports`); the one suite that declares neither part (mpe, whose
scorer also gives the engine's own errors for a folder that holds no
dialogue) takes what no other suite claims — a declared part of its record,
not a name written here.

Models (systems under test) are registered the same way in
`floorbench.processors.registry`; their entry point group is ``floorbench.models``
(`MODEL_ENTRY_POINT_GROUP`, ``name = "package.module:ClassName"``).

Base layer: this module imports nothing else of floorbench but its error
type, and the parts it loads are imported only when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from floorbench.errors import FloorbenchError

ENTRY_POINT_GROUP = "floorbench.suites"
"""the entry point group of installed suites (``name = "package.module:PLUGIN"``)"""
MODEL_ENTRY_POINT_GROUP = "floorbench.models"
"""the entry point group of installed models (``name = "package.module:ClassName"``)"""

BUILTIN: dict[str, str] = {name: f"floorbench.suites.{name}:PLUGIN" for name in ("mpe", "turns", "av", "agent")}
"""built-in suites by import path of their `SuitePlugin`, the ``PLUGIN`` of their folder's ``__init__``
(imported when first asked for)"""


class SuiteNotFound(FloorbenchError, LookupError):
    """A suite name that no built-in, registered or installed suite has, or a file that names none."""


@dataclass(frozen=True)
class GenerateOption:
    """One extra option of `floorbench generate` that a suite declares (``--per-dynamic``)."""

    flag: str
    """the long option, e.g. ``--per-dynamic``"""
    kind: type
    """int, str or float"""
    default: Any
    help: str


@dataclass(frozen=True)
class GenerateRequest:
    """What `floorbench generate` hands a suite's part `generate`."""

    out: Any
    """the suite folder to write (a `Path`)"""
    pairs: int
    """how many (scenario pairs, dialogues: the suite says what it counts)"""
    seed: int
    force: bool
    options: dict[str, Any] = field(default_factory=dict)
    """the suite's own options by name (``per_dynamic``), from `SuitePlugin.generate_options`"""
    console: Any = None
    """a `rich.console.Console` for progress, or None"""


def option_name(flag: str) -> str:
    """``--per-dynamic`` → ``per_dynamic`` (the keyword a suite's generator reads)."""
    return flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class SuitePlugin:
    """What a suite provides, each part a lazy ``"module:attr"`` path (None: the suite has none).

    The call each part must answer (the engine's side of the contract):

    - ``load_scenario(path, data, *, root, audio, strict_vocab) -> scenario`` — check one
      parsed scenario file by the suite's rules; one-line ``ScenarioError`` naming the file
      and the fix (`floorbench.scenarios.validate.load_scenario_file` calls it);
    - ``suite_info(loaded_suite, root, check_audio) -> SuiteInfo`` — `floorbench suite info`;
    - ``generate(request) -> str`` — `floorbench generate --suite NAME`; returns the line to
      print; `request` is a `GenerateRequest` (below);
    - ``live_schedule(request) -> LivePlan`` — the schedule the playback plays and the
      room's time limit (`floorbench.pipelines.room.schedule`);
    - ``oracle(scenario, suite, settings) -> OraclePlan`` — what the ``oracle`` reference
      agent says and when it stops (`floorbench.processors.reference`);
    - ``recognises(target) -> bool`` and ``score(target, request) -> ScoreOutcome`` —
      `floorbench score` on a run or recordings folder of this suite (`request` is a
      `floorbench.scoring.outcome.ScoreRequest`, its progress callback inside);
    - ``reports(path) -> bool`` and ``report(paths, out, title, max_timelines)`` —
      `floorbench report` when every run given is of this suite;
    - ``commands(app) -> None`` — adds the suite's own commands (its importers) to
      `floorbench suite`;
    - ``cli_commands(app) -> None`` — adds the suite's own top-level commands to
      `floorbench` itself (suite agent's `floorbench test`);
    - ``own_labels(path) -> bool`` and ``label_agreement(path, judge, out, options)`` —
      `floorbench judge-agreement --labels` on a label file of the suite's own judge;
    - ``run_agreement(scored, a, b, sample=, seed=, out=, options_a=, options_b=) -> (result, written)`` —
      `floorbench judge-agreement SCORED --b JUDGE`: two judges on a scored run's items;
    - ``check_turns(turns) -> str | None`` — the suite's own rules on a dialogue's turns.json (in time
      order) beyond the shared ones, the first broken one as "turn N: …" (`floorbench.scoring.inputs`).
    """

    name: str
    summary: str
    """one line: what the suite measures"""
    doc: str
    """the docs page that defines it, relative to the project's docs/"""
    load_scenario: str
    suite_info: str
    live_schedule: str
    score: str
    recognises: str | None = None
    """None: the suite that scores what no other suite recognises (one suite only: mpe)"""
    generate: str | None = None
    generate_options: tuple[GenerateOption, ...] = ()
    oracle: str | None = None
    check_suite: str | None = None
    """``(scenarios, files, suite) -> [problem lines]``: rules across a suite's scenarios, run by
    `floorbench.scenarios.validate.load_suite` (mpe: every pair has its explicit and implicit twin)"""
    report: str | None = None
    reports: str | None = None
    commands: str | None = None
    cli_commands: str | None = None
    """``(app) -> None``: top-level commands of the suite's own, added to `floorbench` (floorbench/cli.py)"""
    own_labels: str | None = None
    """``(path) -> bool``: a human-label file of this suite's own judge (not the answer/intrusion labels)"""
    label_agreement: str | None = None
    """``(path, judge, out, options) -> (lines, written)``: `judge-agreement --labels` on such a file"""
    run_agreement: str | None = None
    """two judges on the same sample of a scored run's items (mpe: answers and intrusions)"""
    check_turns: str | None = None
    labels: tuple[str, ...] = ()
    """the turn labels its scenarios and recordings carry (`turns.json` is checked against them)"""
    turns_fields: tuple[str, ...] = ()
    """the fields of its own that its scorer reads from turns.json (its scenarios' ``run_fields`` wrote them
    there); a turns.json without one is refused in one line (`floorbench.scoring.inputs`)"""
    paired: bool = False
    """True: every scenario has its explicit/implicit twin (said in `floorbench suite info`; the suite's
    own `check_suite` enforces it)"""
    rendered_by_generator: bool = False
    """True: the generator writes the audio itself and `floorbench render` refuses the suite"""
    extra: dict[str, str] = field(default_factory=dict)
    """further named parts a suite's own modules look up (not used by the engine)"""

    def part(self, name: str) -> Any:
        """Import and return one part; a suite without it is a one-line `SuiteNotFound`."""
        path = getattr(self, name, None) if name in PART_NAMES else self.extra.get(name)
        if not path:
            raise SuiteNotFound(f"suite {self.name!r} has no {name!r} (docs/{self.doc})")
        return load_path(path, f"suite {self.name!r} part {name!r}")

    def has(self, name: str) -> bool:
        return bool(getattr(self, name, None) if name in PART_NAMES else self.extra.get(name))


PART_NAMES = frozenset({
    "load_scenario", "suite_info", "live_schedule", "score", "recognises", "generate", "oracle", "check_suite",
    "report", "reports", "commands", "cli_commands", "own_labels", "label_agreement",
    "run_agreement", "check_turns",
})


def load_path(path: str, what: str) -> Any:
    """``"package.module:attr"`` → the attribute, imported now."""
    module, sep, attr = path.partition(":")
    if not sep or not module or not attr:
        raise SuiteNotFound(f"{what}: {path!r} is not 'package.module:attr'")
    obj: Any = importlib.import_module(module)
    for name in attr.split("."):
        obj = getattr(obj, name)
    return obj


_registered: dict[str, SuitePlugin] = {}
_loaded: dict[str, SuitePlugin] = {}
_entry_points_read = False
_from_entry_points: set[str] = set()

F = TypeVar("F", bound=Callable[[], SuitePlugin])


def register_suite(plugin: SuitePlugin | F) -> SuitePlugin | F:
    """Register a suite: ``register_suite(PLUGIN)``, or ``@register_suite`` on a function
    returning one. A registered name replaces a built-in of the same name."""
    record = plugin() if callable(plugin) else plugin
    if not isinstance(record, SuitePlugin):
        raise TypeError(f"register_suite: {record!r} is not a SuitePlugin")
    _registered[record.name] = record
    _loaded.pop(record.name, None)
    return plugin


def unregister_suite(name: str) -> None:
    """Forget a registered suite (tests that register one of their own)."""
    _registered.pop(name, None)
    _loaded.pop(name, None)


class Installed:
    """The plug-ins installed distributions declare in one entry point group: name → ``"module:attr"``,
    read once when first asked for (`reload`: read again). Suites and models are found this way."""

    def __init__(self, group: str) -> None:
        self.group = group
        self._paths: dict[str, str] | None = None

    def paths(self) -> dict[str, str]:
        if self._paths is None:
            from importlib.metadata import entry_points

            self._paths = {ep.name: ep.value for ep in entry_points(group=self.group)}
        return self._paths

    def reload(self) -> None:
        self._paths = None


INSTALLED_SUITES = Installed(ENTRY_POINT_GROUP)


def reload_entry_points() -> None:
    """Read the ``floorbench.suites`` entry points again (a distribution installed while running)."""
    global _entry_points_read
    for name in [n for n in _registered if n in _from_entry_points]:
        _registered.pop(name, None)
        _loaded.pop(name, None)
    _from_entry_points.clear()
    INSTALLED_SUITES.reload()
    _entry_points_read = False


def _read_entry_points() -> None:
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    for name, path in INSTALLED_SUITES.paths().items():
        if name not in _registered:
            what = f"entry point {name!r} ({path})"
            _registered[name] = _checked(load_path(path, what), what)
            _from_entry_points.add(name)


def _checked(obj: Any, what: str) -> SuitePlugin:
    record = obj() if callable(obj) and not isinstance(obj, SuitePlugin) else obj
    if not isinstance(record, SuitePlugin):
        raise SuiteNotFound(f"{what} is not a SuitePlugin")
    return record


def suite_names() -> list[str]:
    """Every suite that can be asked for: the built-ins first, then registered and installed ones."""
    _read_entry_points()
    return list(BUILTIN) + [n for n in _registered if n not in BUILTIN]


def get_suite(name: str) -> SuitePlugin:
    """The suite called `name`; an empty name is a one-line error (no suite is a default)."""
    if not name:
        raise SuiteNotFound(f"no suite named; name one (--suite NAME); the suites are {', '.join(suite_names())}")
    if name in _loaded:
        return _loaded[name]
    _read_entry_points()
    if name in _registered:
        record = _registered[name]
    elif name in BUILTIN:
        record = _checked(load_path(BUILTIN[name], f"suite {name!r}"), f"suite {name!r}")
    else:
        raise SuiteNotFound(f"no suite {name!r}; the suites are {', '.join(suite_names())}")
    _loaded[name] = record
    return record


def all_suites() -> Iterator[SuitePlugin]:
    for name in suite_names():
        yield get_suite(name)


def suite_of(obj: object, where: str = "") -> SuitePlugin:
    """The suite of a scenario record or a parsed file: its recorded ``suite`` field, which it must have."""
    name = obj.get("suite") if isinstance(obj, dict) else getattr(obj, "suite", None)
    if not isinstance(name, str) or not name:
        raise SuiteNotFound(f"{where or 'the file'}: no 'suite' recorded; add one (suite: mpe for the files "
                            f"of the first benchmark, written before suites were named)")
    return get_suite(name)


def catch_all(part: str) -> SuitePlugin:
    """The suite that declares no `part` (``recognises``, ``reports``): it takes what no other claims."""
    for s in all_suites():
        if not s.has(part):
            return s
    raise SuiteNotFound(f"no suite takes a folder that no suite's {part!r} claims")


def suite_recognising(target: Any) -> SuitePlugin:
    """The first suite whose `recognises(target)` is true; else the suite that declares no `recognises`."""
    for s in all_suites():
        if s.recognises and s.part("recognises")(target):
            return s
    return catch_all("recognises")


def suite_reporting(paths: list[Any]) -> SuitePlugin:
    """The suite every run in `paths` belongs to (by its `reports`); else the suite that declares none."""
    for s in all_suites():
        if paths and s.reports and all(s.part("reports")(p) for p in paths):
            return s
    return catch_all("reports")


def suite_owning_labels(path: Any) -> SuitePlugin | None:
    """The suite whose own judge's label file `path` is (its `own_labels`); None: the shared judges'."""
    for s in all_suites():
        if s.own_labels and s.part("own_labels")(path):
            return s
    return None
