"""Layers run one way: a lower layer never imports a higher one.

Every module in floorbench/ is parsed with `ast` (imports inside functions
and under TYPE_CHECKING count too: a lazy import is still a dependency), and
each `floorbench.*` import is checked against the allowed directions below.
The scoring core, for instance, must stay importable without LiveKit, pipecat
or a room, which holds only while it never reaches into transports or
pipelines.

    base        errors, records, clock, redact, paths, safe_http, escape, readers, options, child_env, plugins, suites,
                audio, speech, tools (a conversation test's mock tools: pure records and their own server)
                (audio never imports speech)
    scenarios   base (but the offline judge's lexicon and turn reader: a branch reads the agent's intent as the
                scorer reads a backchannel)
    transports  base
    processors  base, scenarios, transports
    phone       base, scenarios, transports, processors (the phone leg is a model; its agent end runs reference ones)
    pipelines   anything except scoring and report (but scoring.asr: a live caller hears with the scorer's ASR)
    scoring     base, scenarios.schema
    report      base, scoring
    top         floorbench/__init__.py, __main__.py, cli.py, */commands.py: anything

A suite's folder (floorbench/suites/<name>/) holds modules of every layer; each belongs to
the layer of its role, by its name (`SUITE_ROLES`): its rules and its plug-in record are
base, its schedule is pipelines, its scorer is scoring, and so on. Two more rules hold the
plug-in shape: no engine module imports a suite's module (the engine asks `floorbench.plugins`,
the base layer's registry, which loads a suite's parts by name), and no suite imports another suite.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source import parse_source

PACKAGE = Path(__file__).resolve().parents[1] / "floorbench"

BASE = frozenset({"errors", "records", "clock", "redact", "paths", "safe_http", "escape", "readers", "options", "child_env",
                  "plugins", "suites", "audio", "speech", "tools"})
ALL = BASE | {"scenarios", "transports", "processors", "phone", "pipelines", "scoring", "report", "top"}

LEXICON = frozenset({"scoring.judges", "scoring.judges.offline", "scoring.judges.turn_acts", "scoring.judges.normalize"})
"""the offline judge's lexicon and turn reader, pure Python (its sentence model loads only when judging answers)"""

ALLOWED: dict[str, frozenset[str]] = {
    **{layer: BASE for layer in BASE},
    "audio": BASE - {"speech"},
    "scenarios": BASE | {"scenarios"} | LEXICON,
    "transports": BASE | {"transports"},
    "processors": BASE | {"scenarios", "transports", "processors"},
    "phone": BASE | {"scenarios", "transports", "processors", "phone"},
    "pipelines": (ALL - {"scoring", "report", "top"}) | {"scoring.asr"},
    "scoring": BASE | {"scenarios.schema", "scoring"},
    "report": BASE | {"scoring", "report"},
    "top": ALL | {"scenarios.schema"},
}
"""layer → the layers its modules may import ("scenarios.schema", "scoring.asr": that one module only)"""

SUITE_ROLES: dict[str, str] = {
    "__init__": "suites", "rules": "suites", "words": "suites",
    **dict.fromkeys(("schema", "validate", "generate", "generate_languages", "lines", "importer", "tasks", "vocab",
                     "phrases", "llm", "draw",
                     "files", "branch", "intents", "persona_format", "tool_format", "dtmf_format", "format_error",
                     "scenario_file"), "scenarios"),
    **dict.fromkeys(("schedule", "ear", "persona_caller", "caller_floor", "persona_llm", "persona_standin", "tool_live"),
                    "pipelines"),
    "oracle": "processors", "tool_oracle": "processors",
    **dict.fromkeys(("score", "events", "export", "match", "tables", "agreement", "expected", "frames", "inputs",
                     "judge", "verdicts", "timing", "assertions", "baseline", "load", "persona_judge",
                     "results_file", "clip_score", "tool_checks", "evidence"), "scoring"),
    **dict.fromkeys(("items", "metrics", "content", "scores_file", "sound_flags"), "scoring"),
    "report": "report", "report_tables": "report", "timeline": "report", "scored_runs": "report", "tool_report": "report",
    "commands": "top", "load_command": "top", "cli": "top",
}
"""a suite module's layer by its name (floorbench/suites/<suite>/<name>.py)"""

SPEC_NAMES = ("../shared", "/work/shared", "benchmarks.md", "livekit-pipecat-notes.md")
"""background notes outside the project (docs/ has the project's own): a shipped file must not point at them"""


def module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def suite_of_module(module: str) -> str:
    """The suite a module belongs to (``floorbench.suites.<suite>.…``); "" for the engine and the registry."""
    parts = module.split(".")
    return parts[2] if len(parts) >= 3 and parts[1] == "suites" and parts[2] != "registry" else ""


def layer_of(module: str) -> str:
    """The layer of a floorbench module; "" for a module that belongs to no layer."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("cli", "__main__") or parts[-1] == "commands":
        return "top"
    if suite_of_module(module):
        return SUITE_ROLES.get(parts[3] if len(parts) > 3 else "__init__", "")
    return parts[1] if parts[1] in ALL else ""


def imported_modules(path: Path, root: Path = PACKAGE.parent) -> list[tuple[int, str]]:
    """(line, module) for every floorbench import in the file, relative ones resolved."""
    tree = parse_source(path)
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.append((node.lineno, sub if _is_module(sub, root) else base))
    return [(line, m) for line, m in found if m == "floorbench" or m.startswith("floorbench.")]


def _is_module(name: str, root: Path) -> bool:
    rel = root / Path(*name.split("."))
    return rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()


def allowed(src_layer: str, target: str) -> bool:
    if target == "floorbench":  # the root package (__version__) is loaded before any submodule anyway
        return True
    if target.removeprefix("floorbench.") in ALLOWED[src_layer] - ALL:  # one module, named
        return True
    return layer_of(target) in ALLOWED[src_layer]


def violations() -> list[str]:
    out: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        me = module_name(path)
        src = layer_of(me)
        if not src:
            out.append(f"{me} is in no layer (add its package, or a suite module's role, to tests/test_layers.py)")
            continue
        for line, target in imported_modules(path):
            dst = layer_of(target) or "?"
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            if not allowed(src, target):
                out.append(f"{me} imports {target} (layer {src} may not import layer {dst}) [{where}]")
            mine, theirs = suite_of_module(me), suite_of_module(target)
            if theirs and not mine:
                out.append(f"{me} imports suite {theirs}'s {target} (the engine reaches a suite only through "
                           f"floorbench.plugins) [{where}]")
            elif theirs and mine and theirs != mine:
                out.append(f"{me} imports {target} (suite {mine} may not import suite {theirs}) [{where}]")
    return out


def test_layers_import_one_way() -> None:
    found = violations()
    assert not found, "layer violations:\n" + "\n".join(found)


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    """The checker itself: imports inside functions, relative and `from pkg import module` forms."""
    pkg = tmp_path / "floorbench"
    for rel in ("__init__.py", "report/__init__.py", "scenarios/__init__.py", "scenarios/schema.py"):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("")
    (pkg / "report" / "x.py").write_text(
        "from . import y\n"
        "from ..scenarios import schema\n"
        "def f():\n"
        "    import floorbench.pipelines.run.runner\n"
        "    from floorbench.audio.vad import detect\n"
    )
    got = [m for _, m in imported_modules(pkg / "report" / "x.py", tmp_path)]
    assert got == [
        "floorbench.report",
        "floorbench.scenarios.schema",
        "floorbench.pipelines.run.runner",
        "floorbench.audio.vad",
    ]
    assert layer_of("floorbench.scoring.commands") == "top"
    assert layer_of("floorbench.audio.vad") == "audio"
    assert not allowed("audio", "floorbench.speech.tts")
    assert allowed("speech", "floorbench.audio.files")
    assert allowed("scoring", "floorbench.scenarios.schema")
    assert not allowed("scoring", "floorbench.scenarios.validate")
    assert not allowed("pipelines", "floorbench.scoring.stats") and allowed("pipelines", "floorbench.scoring.asr")
    assert not allowed("pipelines", "floorbench.cli")
    assert allowed("audio", "floorbench")


def test_no_shipped_file_points_outside_the_project() -> None:
    """Package files ship in the wheel; background notes outside the repository do not."""
    bad: list[str] = []
    for path in sorted(PACKAGE.rglob("*")):
        if not path.is_file() or path.suffix in (".flac", ".wav", ".pyc", ".onnx"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            bad += [f"{path.relative_to(PACKAGE.parent)}:{n} mentions {s}" for s in SPEC_NAMES if s in line]
    assert not bad, "\n".join(bad)


def private_imports(root: Path = PACKAGE) -> list[str]:
    """``from floorbench.x import _name`` anywhere in the package: a helper two modules use is a
    public name of the module that owns it."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(parse_source(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("floorbench"):
                found += [f"{path.relative_to(root.parent)}:{node.lineno} imports {node.module}.{a.name}"
                          for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_private_name_is_imported_across_modules(tmp_path: Path) -> None:
    assert not private_imports(), "\n".join(private_imports())
    pkg = tmp_path / "floorbench"
    pkg.mkdir()
    (pkg / "a.py").write_text("from floorbench.b import _helper, public\n")
    assert private_imports(pkg) == ["floorbench/a.py:1 imports floorbench.b._helper"]
