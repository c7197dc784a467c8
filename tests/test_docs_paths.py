"""The docs and docstrings name modules that exist.

A page or a docstring that points at a moved module sends a reader to nothing. Checked here:
every ``floorbench/...py`` path (and ``floorbench/.../`` folder) and every dotted
``floorbench.x.y`` name in docs/, README.md and every module, class and function docstring of
the package resolves to a file, a package, or a name defined in a module; and each package
map (the ``name   what it holds`` rows of an ``__init__`` docstring) lists modules and
sub-packages that are there.

Not checked: the suite `echo` that docs/contributing.md builds step by step (it is the
reader's to create), and the entry point groups (``floorbench.suites``, ``floorbench.models``),
which are names of groups, not modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from floorbench.plugins import ENTRY_POINT_GROUP, MODEL_ENTRY_POINT_GROUP
from tests.support.source import parse_source

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "floorbench"

PATH = re.compile(r"(?<![\w./-])floorbench/(?:[\w-]+/)*[\w-]+(?:\.py|/)")
DOTTED = re.compile(r"(?<![\w./-])floorbench(?:\.[A-Za-z_]\w*)+")
MAP_ROW = re.compile(r"^    ([a-z_][\w*]*/?(?:, [a-z_][\w*]*/?)*)\s{2,}\S")
EXAMPLES = ("floorbench/suites/echo/", "floorbench.suites.echo")
"""the suite docs/contributing.md walks a reader through writing"""
GROUPS = frozenset({ENTRY_POINT_GROUP, MODEL_ENTRY_POINT_GROUP})
KNOWN_STALE_MAPS: frozenset[tuple[str, str]] = frozenset()
"""package-map rows in files another change owns (suite mpe's scoring modules, moved to suites/mpe/); each
must still be stale (a fixed one is taken off this list)"""


def texts() -> list[tuple[str, str]]:
    """(where, text) of every doc page, the README, and every docstring in the package."""
    out = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted(ROOT.glob("docs/**/*.md"))]
    out.append(("README.md", (ROOT / "README.md").read_text(encoding="utf-8")))
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(parse_source(path)):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    out.append((f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}", doc))
    return out


def defines(module_file: Path, name: str) -> bool:
    """`name` is defined or imported at the top of `module_file` (a class, function, constant or import)."""
    for node in parse_source(module_file).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


def dotted_resolves(name: str, root: Path = ROOT) -> bool:
    """``floorbench.a.b[.attr]``: a module or package, or one name defined in the longest such prefix."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:i])
        file = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if file.is_file():
            rest = parts[i:]
            return not rest or defines(file, rest[0])
    return False


def stale_names() -> list[str]:
    bad: list[str] = []
    for where, text in texts():
        for path in PATH.findall(text):
            if not path.startswith(EXAMPLES) and not (ROOT / path).exists():
                bad.append(f"{where}: {path} does not exist")
        for name in DOTTED.findall(text):
            name = name.rstrip(".")
            if name not in GROUPS and not name.startswith(EXAMPLES) and not dotted_resolves(name):
                bad.append(f"{where}: {name} is no module or name of one")
    return bad


def map_rows(init: Path) -> list[str]:
    """The names a package map lists (``cascade*`` a pattern, ``judges/`` a sub-package)."""
    doc = ast.get_docstring(parse_source(init), clean=False) or ""
    return [n for line in doc.splitlines() if (m := MAP_ROW.match(line)) for n in m.group(1).split(", ")]


def listed_and_missing(init: Path) -> list[str]:
    pkg = init.parent
    missing = []
    for name in map_rows(init):
        if name.endswith("/"):
            ok = (pkg / name.rstrip("/") / "__init__.py").is_file()
        elif "*" in name:
            ok = any(pkg.glob(f"{name}.py"))
        else:
            ok = (pkg / f"{name}.py").is_file() or (pkg / name / "__init__.py").is_file()
        if not ok:
            missing.append(name)
    return missing


def test_docs_and_docstrings_name_modules_that_exist() -> None:
    bad = stale_names()
    assert not bad, "stale module names:\n" + "\n".join(bad)


def test_package_maps_list_modules_that_exist() -> None:
    found = {(str(i.relative_to(ROOT)), n) for i in sorted(PACKAGE.rglob("__init__.py")) for n in listed_and_missing(i)}
    assert not found - KNOWN_STALE_MAPS, "package maps list modules that are not there:\n" + "\n".join(
        f"{i}: {n}" for i, n in sorted(found - KNOWN_STALE_MAPS))
    assert not KNOWN_STALE_MAPS - found, f"fixed since: take {sorted(KNOWN_STALE_MAPS - found)} off KNOWN_STALE_MAPS"


def test_the_checks_see_a_moved_module(tmp_path: Path) -> None:
    """The checker itself: a dotted name, an attribute, and a package map row."""
    pkg = tmp_path / "floorbench"
    (pkg / "run").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "run" / "__init__.py").write_text('"""Runs.\n\n    runner     the loop\n    gone       moved away\n"""\n')
    (pkg / "run" / "runner.py").write_text("LIMIT = 3\n\ndef run_suite():\n    pass\n")
    assert dotted_resolves("floorbench.run.runner", tmp_path)
    assert dotted_resolves("floorbench.run.runner.run_suite", tmp_path)
    assert dotted_resolves("floorbench.run.runner.LIMIT", tmp_path)
    assert not dotted_resolves("floorbench.run.scenario_run", tmp_path)
    assert not dotted_resolves("floorbench.run.runner.ScenarioRun", tmp_path)
    assert map_rows(pkg / "run" / "__init__.py") == ["runner", "gone"]
    assert listed_and_missing(pkg / "run" / "__init__.py") == ["gone"]
    assert PATH.findall("see floorbench/run/runner.py and floorbench/run/ or xfloorbench/a.py") == [
        "floorbench/run/runner.py", "floorbench/run/"]
