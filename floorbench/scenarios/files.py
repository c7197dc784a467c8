"""Writing scenario and suite files in one canonical, byte-stable YAML form.

The generator, the renderer and `suite import` all write through here, so the
same records always give byte-identical files (the determinism tests rely on
it) and files are replaced atomically (a crash never leaves half a file).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from floorbench.scenarios.schema import Scenario, Suite


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


def scenario_to_dict(s: Scenario) -> dict[str, Any]:
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


def dump_scenario(s: Scenario) -> str:
    return dump_yaml(scenario_to_dict(s))


def dump_suite(s: Suite) -> str:
    return dump_yaml(suite_to_dict(s))


def write_text_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder and rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_scenario(path: Path, s: Scenario) -> None:
    write_text_atomic(path, dump_scenario(s))


def write_suite(root: Path, s: Suite) -> None:
    write_text_atomic(root / "suite.yaml", dump_suite(s))
