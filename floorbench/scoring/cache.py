"""Append-only JSON-lines caches keyed by content hashes (judge verdicts, transcripts).

A line is ``{"key": ..., "value": {...}}``; a torn last line (a crash while
writing) is skipped on load, and the next write starts on a fresh line so that
the torn one cannot swallow it. Later lines win, so a cache can be appended to by
several runs of the same command one after another. Each `put` is appended and
closed at once: a verdict or transcript paid for is on disk before the next is asked.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def content_key(*parts: Any) -> str:
    """sha256 of the canonical JSON of `parts`."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class JsonlCache:
    """A dict backed by a JSON-lines file (or memory only when `path` is None)."""

    def __init__(self, path: Path | None = None) -> None:
        if path is not None:  # appended to: never through a link out of its folder (floorbench.paths)
            from floorbench.paths import inside
            from floorbench.scoring.inputs import InputError

            path = inside(path.parent, path.name, f"{path.parent}: cache", InputError)
        self.path = path
        self._data: dict[str, dict[str, Any]] = {}
        self.hits = 0
        self.misses = 0
        self._torn = False
        """the file ends without a newline (a write was cut): the next put starts a new line"""
        if path is not None and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            self._torn = bool(text) and not text.endswith("\n")
            for line in text.splitlines():
                try:
                    row = json.loads(line)
                    self._data[str(row["key"])] = dict(row["value"])
                except (json.JSONDecodeError, KeyError, TypeError, ValueError, RecursionError):
                    continue  # a torn or foreign line (a RecursionError: one nested thousands deep)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> dict[str, Any] | None:
        hit = self._data.get(key)
        if hit is None:
            self.misses += 1
        else:
            self.hits += 1
        return hit

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._data[key] = value
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(("\n" if self._torn else "") + json.dumps({"key": key, "value": value}, ensure_ascii=False) + "\n")
            self._torn = False
