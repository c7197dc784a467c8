"""Writing scenario and suite files in one canonical, byte-stable YAML form,
and finding the suites and model configs that ship inside the package.

The generator, the renderer and `suite import` all write through here, so the
same records always give byte-identical files (the determinism tests rely on
it) and files are replaced atomically (a crash never leaves half a file).

An installed wheel has no repository around it, so the example suite and the
model configs live in ``floorbench/data/`` and `--suite example` or
`--config openai-realtime` finds them by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from floorbench.records import write_text_atomic as write_text_atomic
from floorbench.scenarios.schema import Suite
from floorbench.scenarios.validate import ScenarioError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
"""floorbench/data: packaged suites (``suites/<name>/``) and model configs (``models/<name>.yaml``)"""


class _Dumper(yaml.SafeDumper):
    """Block style, no aliases, long text folded only at sentence-friendly width."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str_rep(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_rep)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, indent=2)


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    """Drop None values and empty optional lists so hand-written and generated files look alike."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if v is None or (k in ("gold_aliases",) and v == []):
            continue
        out[k] = v
    return out


def scenario_to_dict(s: BaseModel) -> dict[str, Any]:
    d = s.model_dump(mode="json")
    d["turns"] = [_clean(t) for t in d["turns"]]
    if not d.get("meta"):
        d.pop("meta", None)
    return d


def suite_to_dict(s: Suite) -> dict[str, Any]:
    d = s.model_dump(mode="json")
    d["preamble"] = _clean(d["preamble"])
    if d.get("generator") is None:
        d.pop("generator", None)
    return d


def dump_scenario(s: BaseModel) -> str:
    return dump_yaml(scenario_to_dict(s))


def dump_suite(s: Suite) -> str:
    return dump_yaml(suite_to_dict(s))


def write_scenario(path: Path, s: BaseModel) -> None:
    write_text_atomic(path, dump_scenario(s))


def write_suite(root: Path, s: Suite) -> None:
    write_text_atomic(root / "suite.yaml", dump_suite(s))


def packaged_suites() -> list[str]:
    """Names of the suites shipped in the package (folders holding suite.yaml)."""
    root = DATA_DIR / "suites"
    return sorted(p.parent.name for p in root.glob("*/suite.yaml"))


def packaged_model_configs() -> list[str]:
    """Names of the model configs shipped in the package (``openai-realtime``, ...)."""
    return sorted(p.stem for p in (DATA_DIR / "models").glob("*.yaml"))


def _is_bare_name(value: str | Path) -> bool:
    """A name, not a path: no slash, and nothing by that name in the working folder."""
    text = str(value)
    return "/" not in text and "\\" not in text and not Path(text).exists()


def resolve_suite(value: str | Path) -> Path:
    """`--suite`: an existing path as given, else a packaged suite by name (``example``)."""
    if not _is_bare_name(value):
        return Path(value)
    if str(value) in packaged_suites():
        return DATA_DIR / "suites" / str(value)
    raise ScenarioError(
        f"--suite {value}: no such folder and no packaged suite by that name; "
        f"packaged suites: {', '.join(packaged_suites()) or 'none'}"
    )


def resolve_model_config(value: str | Path) -> Path:
    """`--config`: an existing path as given, else a packaged model config by name (``cascade``)."""
    if not _is_bare_name(value):
        return Path(value)
    name = str(value).removesuffix(".yaml")
    if name in packaged_model_configs():
        return DATA_DIR / "models" / f"{name}.yaml"
    raise ScenarioError(
        f"--config {value}: no such file and no packaged model config by that name; "
        f"packaged configs: {', '.join(packaged_model_configs()) or 'none'}"
    )
