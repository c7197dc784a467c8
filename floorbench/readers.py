"""The one reader of everything a user hands over: YAML, JSON and JSON Lines files, numbers and regexes.

Test files, suites, model and caller configs, baselines, the results and score
files `report` reads, stand-in scripts and import sources all arrive from
people floorbench does not know (a pull request, a worker's job). Each reader
used to parse its own way and each had its own gaps: a YAML alias bomb that an
error message expanded, a JSON file nested 100 000 deep (a RecursionError), a
second ``steps:`` key that silently replaced the first, ``1e300`` driving a
loop, a regex that never finished. Here every input goes through the same
bounds before any command uses it:

- size: a file is read only if it is a regular file of at most `max_bytes`;
- shape: nesting at most `MAX_DEPTH` deep; YAML aliases may not expand to more
  than `MAX_NODES` nodes (counted on the event stream, before anything is
  built); a mapping key given twice is refused;
- numbers: NaN and infinities are refused (JSON's ``NaN`` and ``1e400`` alike);
  `number` checks a value's type and range;
- regexes: at most `MAX_PATTERN` characters, `MAX_GROUPS` groups and repeat
  counts up to `MAX_REPEAT`, matched with a time limit (`search`).

Every refusal is one `error` line naming the file (and line) and the fix; a
value is quoted only as a short escaped excerpt (`floorbench.escape.excerpt`).
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from floorbench.errors import FloorbenchError
from floorbench.escape import excerpt

MAX_YAML_BYTES = 4 * 1024 * 1024
"""a test file, suite or config is a few kB; 4 MiB is far above any real one"""
MAX_JSON_BYTES = 256 * 1024 * 1024
"""scores and results files of long runs are tens of MB"""
MAX_DEPTH = 64
"""no floorbench file nests deeper than about 8"""
MAX_NODES = 200_000
"""values a YAML file may hold once its aliases are expanded"""
MAX_PATTERN = 500
MAX_GROUPS = 30
MAX_REPEAT = 1000
MATCH_TIMEOUT_S = 0.5


class ReadError(FloorbenchError, ValueError):
    """A file or value handed over by a user that no floorbench reader accepts; one line."""


def read_bytes(path: Path | str, max_bytes: int, error: type[FloorbenchError] = ReadError) -> bytes:
    """The bytes of a regular file of at most `max_bytes` (a folder, a FIFO or a device is refused
    before it is opened, so nothing blocks or reads without end)."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise error(f"{excerpt(p, 200)}: file not found; check the path") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise error(f"{excerpt(p, 200)}: cannot read ({getattr(e, 'strerror', None) or e}); check the path") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{excerpt(p, 200)}: not a regular file; give a file")
    if st.st_size > max_bytes:
        raise error(f"{excerpt(p, 200)}: {st.st_size} bytes, more than the {max_bytes} this reader takes; "
                    "check it is the right file")
    try:
        with open(p, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise error(f"{excerpt(p, 200)}: cannot read ({e.strerror}); check the path and its permissions") from None
    if len(data) > max_bytes:
        raise error(f"{excerpt(p, 200)}: more than {max_bytes} bytes; check it is the right file")
    return data


def read_text(path: Path | str, max_bytes: int = MAX_YAML_BYTES, error: type[FloorbenchError] = ReadError,
              fix: str = "save it as UTF-8") -> str:
    """A bounded text file as UTF-8 (one line naming the file and the first bad byte otherwise)."""
    data = read_bytes(path, max_bytes, error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{excerpt(path, 200)}: not UTF-8 text (byte {e.start}); {fix}") from None


# -- YAML ---------------------------------------------------------------------------------------------


def _yaml_module() -> Any:
    import yaml

    return yaml


def _loader_class() -> Any:
    yaml = _yaml_module()
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        """yaml's safe loader refusing a mapping key given twice (the later one used to win silently)."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        dup = key in seen
                        seen.add(key)
                    except TypeError:
                        continue  # an unhashable key: the base constructor says so
                    if dup:
                        mark = key_node.start_mark
                        raise DuplicateKey(f"the key {excerpt(key)} is given twice (line {mark.line + 1}); "
                                           "keep one")
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


class DuplicateKey(ValueError):
    pass


_LOADER: Any = None


def _check_events(text: str, loader: Any) -> None:
    """Depth and expanded size of a YAML document, counted on its event stream (nothing built yet):
    an alias adds the whole size of what it names, so a bomb is refused however small its file."""
    yaml = _yaml_module()
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [size so far, anchor]
    total = 0

    def add(n: int) -> None:
        nonlocal total
        total += n
        if stack:
            stack[-1][0] += n
        if total > MAX_NODES:
            raise ValueError(f"its aliases expand to more than {MAX_NODES} values; write the values out")

    for ev in yaml.parse(text, Loader=loader):
        if isinstance(ev, yaml.CollectionStartEvent):
            add(1)
            stack.append([1, ev.anchor])
            if len(stack) > MAX_DEPTH:
                raise ValueError(f"nested more than {MAX_DEPTH} deep (line {ev.start_mark.line + 1}); flatten it")
        elif isinstance(ev, yaml.CollectionEndEvent):
            n, anchor = stack.pop()
            if stack:
                stack[-1][0] += n - 1  # the parent counted the collection's start; now its values
            if anchor:
                sizes[anchor] = n
        elif isinstance(ev, yaml.ScalarEvent):
            add(1)
            if ev.anchor:
                sizes[ev.anchor] = 1
        elif isinstance(ev, yaml.AliasEvent):
            add(sizes.get(ev.anchor, 1))


def parse_yaml(text: str, where: str, error: type[FloorbenchError] = ReadError) -> Any:
    """One YAML document from `text` within the bounds; syntax errors as one line naming `where`."""
    global _LOADER
    yaml = _yaml_module()
    if _LOADER is None:
        _LOADER = _loader_class()
    try:
        _check_events(text, _LOADER)
        data = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or type(e).__name__
        raise error(f"{where}: YAML syntax error{at}: {excerpt(problem, 120)}; fix the YAML") from None
    except (DuplicateKey, ValueError) as e:
        raise error(f"{where}: {e}") from None
    except RecursionError:
        raise error(f"{where}: nested too deep; flatten it") from None
    check_tree(data, where, error)
    return data


def load_yaml(path: Path | str, error: type[FloorbenchError] = ReadError, max_bytes: int = MAX_YAML_BYTES) -> Any:
    """A user's YAML file: bounded, UTF-8, one document, no key twice, finite numbers."""
    return parse_yaml(read_text(path, max_bytes, error), excerpt(path, 200), error)


# -- JSON ---------------------------------------------------------------------------------------------


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows; write a finite number")


def _finite_float(s: str) -> float:
    v = float(s)
    if not math.isfinite(v):
        raise ValueError(f"{excerpt(s, 40)} is too large; write a finite number")
    return v


def parse_json(text: str, where: str, error: type[FloorbenchError] = ReadError, fix: str = "fix the file") -> Any:
    """One JSON value from `text`: finite numbers only, at most `MAX_DEPTH` deep; one line naming `where`."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise error(f"{where}: not valid JSON (line {e.lineno}: {e.msg}); {fix}") from None
    except RecursionError:
        raise error(f"{where}: nested too deep; {fix}") from None
    except ValueError as e:
        raise error(f"{where}: {e}") from None
    check_tree(data, where, error)
    return data


def load_json(path: Path | str, error: type[FloorbenchError] = ReadError, fix: str = "fix or re-export the file",
              max_bytes: int = MAX_JSON_BYTES) -> Any:
    """A user's JSON file: bounded, UTF-8, finite numbers, at most `MAX_DEPTH` deep."""
    text = read_text(path, max_bytes, error, f"re-export it as UTF-8 JSON; {fix}")
    return parse_json(text, excerpt(path, 200), error, fix)


def json_lines(path: Path | str, error: type[FloorbenchError] = ReadError, fix: str = "fix or re-export the file",
               max_bytes: int = MAX_JSON_BYTES) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON Lines file, each through `parse_json`."""
    text = read_text(path, max_bytes, error, f"re-export it as UTF-8; {fix}")
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            yield n, parse_json(line, f"{excerpt(path, 200)}:{n}", error, fix)


def check_tree(data: Any, where: str, error: type[FloorbenchError] = ReadError) -> None:
    """Depth at most `MAX_DEPTH` and no NaN or infinity anywhere in `data` (walked without recursion)."""
    todo: list[tuple[Any, int]] = [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, float) and not math.isfinite(value):
            at = _path_of(data, value)
            raise error(f"{where}: {at + ': ' if at else ''}{value} is not a finite number; write a number")
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise error(f"{where}: nested more than {MAX_DEPTH} deep; flatten it")
            items = value.values() if isinstance(value, dict) else value
            todo.extend((v, depth + 1) for v in items if isinstance(v, dict | list | float))


def _path_of(data: Any, target: Any) -> str:
    """Where `target` (by identity) sits in `data`, as ``tests[0].timeout_s`` (only looked for on an error)."""
    todo: list[tuple[Any, str]] = [(data, "")]
    while todo:
        value, at = todo.pop()
        if value is target:
            return at
        if isinstance(value, dict):
            todo.extend((v, f"{at}.{excerpt(k, 30)}" if at else excerpt(k, 30)) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((v, f"{at}[{i}]") for i, v in enumerate(value))
    return ""


# -- values -------------------------------------------------------------------------------------------


def number(where: str, name: str, value: object, lo: float, hi: float, error: type[FloorbenchError] = ReadError,
           whole: bool = False) -> float:
    """`value` as a finite number in lo..hi (a whole number if `whole`); a bool or a string is refused."""
    ok = isinstance(value, int) if whole else isinstance(value, int | float)
    if isinstance(value, bool) or not ok:
        kind = "a whole number" if whole else "a number"
        raise error(f"{where}: {name} must be {kind} ({lo}..{hi}), got {excerpt(value)}")
    v = float(value)  # type: ignore[arg-type]
    if not math.isfinite(v) or not lo <= v <= hi:
        raise error(f"{where}: {name} must be {lo}..{hi}, got {excerpt(value)}")
    return value  # type: ignore[return-value]


def flag(where: str, name: str, value: object, error: type[FloorbenchError] = ReadError) -> bool:
    """A yes/no value: YAML's true/false only (the string "false" is not read as true)."""
    if not isinstance(value, bool):
        raise error(f"{where}: {name} must be true or false, got {excerpt(value)}")
    return value


# -- regexes ------------------------------------------------------------------------------------------


def _regex_module() -> Any:
    import regex

    return regex


def _repeat_counts(pattern: str) -> Iterator[int]:
    """The numbers inside ``{m}``, ``{m,n}`` of a pattern (escaped braces included: a bound, not a parse)."""
    i = 0
    while (i := pattern.find("{", i)) >= 0:
        j = i + 1
        num = ""
        while j < len(pattern) and (pattern[j].isdigit() or pattern[j] == ","):
            num += pattern[j]
            j += 1
        for part in num.split(","):
            if part:
                yield int(part) if len(part) < 12 else 10**12
        i = j


def compile_regex(where: str, pattern: object, error: type[FloorbenchError] = ReadError) -> Any:
    """A user's regular expression, case-insensitive, within the bounds; one line naming `where` otherwise."""
    if not isinstance(pattern, str) or not pattern:
        raise error(f"{where}: give a regular expression (quote it)")
    if len(pattern) > MAX_PATTERN:
        raise error(f"{where}: the regular expression is {len(pattern)} characters; keep it under {MAX_PATTERN}")
    if pattern.count("(") > MAX_GROUPS:
        raise error(f"{where}: the regular expression has more than {MAX_GROUPS} groups; simplify it")
    if any(n > MAX_REPEAT for n in _repeat_counts(pattern)):
        raise error(f"{where}: a repeat count in the regular expression is over {MAX_REPEAT}; use a smaller one")
    regex = _regex_module()
    try:
        return regex.compile(pattern, regex.IGNORECASE)
    except (regex.error, OverflowError, RecursionError, ValueError) as e:
        raise error(f"{where}: not a regular expression ({excerpt(str(e), 120)}); fix it") from None


def search(pattern: str, text: str) -> bool | None:
    """Does `pattern` (case-insensitive) occur in `text`? None if it could not tell within
    `MATCH_TIMEOUT_S` (a pattern that backtracks without end is not allowed to hang a run)."""
    regex = _regex_module()
    try:
        return regex.search(pattern, text, regex.IGNORECASE, timeout=MATCH_TIMEOUT_S) is not None
    except TimeoutError:
        return None
    except (regex.error, OverflowError, RecursionError, ValueError):
        return False


# -- recordings ---------------------------------------------------------------------------------------


def check_finite_audio(path: Path | str, where: str, error: type[FloorbenchError] = ReadError) -> None:
    """A float WAV/FLAC holds only finite samples (a NaN or an infinity would play as silence or a click, or
    break a resampler, long after the file was accepted); read in blocks, so a long file costs little memory."""
    import numpy as np
    import soundfile as sf

    try:
        for block in sf.blocks(str(path), blocksize=65536, dtype="float32", always_2d=True):
            if not np.isfinite(block).all():
                raise error(f"{where}: holds NaN or infinite samples; export it again as 16-bit PCM")
    except (RuntimeError, sf.LibsndfileError) as e:
        raise error(f"{where}: unreadable audio ({excerpt(str(e), 80)}); export it again") from None
