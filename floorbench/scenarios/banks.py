"""Word banks a suite's generator ships as YAML files beside its code (`floorbench/suites/<suite>/banks/`).

A bank is data, not logic: the lines people say, their names, the things they buy, in one language. Kept
as YAML, a writer or a translator edits words without reading Python, and the generator's module keeps
only the records that say what each field means and how it is drawn. A bank is read through the one
reader (`floorbench.readers.load_yaml`: bounded, no key given twice) and handed back frozen — every list
a tuple — so the records built from it are as immutable as the tuples the banks were written as in
Python before, and a seeded draw from a bank picks the same entry.

YAML reads an unquoted yes, no, on, off or an empty entry as a bool or null, which in a list of words is
always a typo; such an entry is refused with the file and the fix, never drawn into a scenario.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from floorbench.readers import ReadError, load_yaml

R = TypeVar("R")


def frozen(value: Any, where: str = "") -> Any:
    """`value` with every list turned into a tuple (dicts keep their order); a bool or null in a list
    (an unquoted yes/no, an empty `-`) is refused."""
    if isinstance(value, list):
        for v in value:
            if v is None or isinstance(v, bool):
                raise ReadError(f"{where}: the entry {v!r} in a list is YAML's reading of an unquoted word "
                                "(yes, no, on, off) or of an empty `-`; quote the word")
        return tuple(frozen(v, where) for v in value)
    if isinstance(value, dict):
        return {k: frozen(v, where) for k, v in value.items()}
    return value


def load_bank(folder: Path, name: str) -> dict[str, Any]:
    """The bank `folder`/`name`.yaml, frozen (a mapping of its fields)."""
    path = folder / f"{name}.yaml"
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise ReadError(f"{path}: a word bank is a mapping of its fields, got {type(data).__name__}")
    return frozen(data, str(path))


def record(cls: type[R], row: Mapping[str, Any], **built: Any) -> R:
    """The record `cls` from a bank's `row` (a field it lacks or does not know fails here), with the fields
    in `built` (nested records, made by the caller) in place of the row's raw values."""
    return cls(**{**row, **built})
