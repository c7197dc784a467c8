"""One base class for every failure a user can cause and fix, and its exit code.

Each area raises its own subclass (a bad scenario, a model that cannot be
created, a server that cannot start, a broken input file, a voice that cannot
speak, a judge that cannot answer). Every message is one line naming the file
or item and the fix. The CLI catches `FloorbenchError` and prints
``error: <message>`` with `exit_code`; any other exception is a bug and keeps
its traceback.
"""

from __future__ import annotations


class FloorbenchError(Exception):
    """An expected failure: one line that names the file or item and the fix."""

    exit_code: int = 2
