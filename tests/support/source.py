"""Parse a source file for tests that read code (layers, declared imports)."""

from __future__ import annotations

import ast
import gc
from pathlib import Path


def parse_source(path: Path) -> ast.Module:
    """`ast.parse` of a file with the garbage collector paused.

    On CPython 3.11 a finalizer that runs Python code in the middle of `compile()` (a coroutine an earlier
    test left pending, collected just then) corrupts the parser's recursion counter, and `ast.parse` raises
    "SystemError: AST constructor recursion depth mismatch" for a file that is fine. Seen once in the unit
    phase on two workers; pausing collection for the parse keeps finalizers out of it.
    """
    text = path.read_text(encoding="utf-8")
    enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(text, filename=str(path))
    finally:
        if enabled:
            gc.enable()
