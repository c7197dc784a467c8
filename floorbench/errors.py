"""One base class for every failure a user can cause and fix, and its exit code.

Each area raises its own subclass (a bad scenario, a model that cannot be
created, a server that cannot start, a broken input file, a voice that cannot
speak, a judge that cannot answer). Every message is one line naming the file
or item and the fix. The CLI catches `FloorbenchError` and prints
``error: <message>`` with `exit_code`; any other exception is a bug: the console
script's last resort (`crash_line`) prints one line naming the command and a
crash file holding the traceback, and exits 70.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import NoReturn


class FloorbenchError(Exception):
    """An expected failure: one line that names the file or item and the fix."""

    exit_code: int = 2


def one_line(message: object) -> str:
    """`message` as one printable line: a newline or control character (say, in a file name
    a user typed) is shown escaped, so an ``error: …`` line is always exactly one line."""
    from floorbench.escape import printable

    line = printable(str(message)[:MAX_LINE * 2].strip() or "unknown error")
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"  # a huge value never floods the terminal


MAX_LINE = 2000
"""the longest error line (a long path fits; a value pasted from a file does not)"""


class OptionError(FloorbenchError, ValueError):
    """A number typed on the command line outside what the command accepts."""


def check_range(option: str, value: int | float, lo: int | float, hi: int | float) -> None:
    """Every count and size a user can type is bounded, so a typo cannot write without end;
    the message carries the limit (``--pairs must be 1..100000, got 0``)."""
    if not lo <= value <= hi:
        raise OptionError(f"{option} must be {lo}..{hi}, got {value}")


def check_choice(option: str, value: object, allowed: tuple[object, ...]) -> None:
    if value not in allowed:
        raise OptionError(f"{option} must be one of {', '.join(map(str, allowed))}, got {value}")


PATH_ERRNOS = frozenset(
    getattr(errno, name)
    for name in ("ENOENT", "EACCES", "EPERM", "ENOTDIR", "EISDIR", "EEXIST", "EROFS", "ENOSPC", "ENAMETOOLONG",
                 "ELOOP", "EDQUOT")
    if hasattr(errno, name)
)


def path_error_line(e: OSError) -> str | None:
    """A path the operating system refused (missing, not a folder, no permission, disk full) as
    one line naming it; None for any other OSError, which stays a bug with its traceback."""
    if e.errno not in PATH_ERRNOS:
        return None
    where = f"{e.filename}: " if e.filename else ""
    return one_line(f"{where}{e.strerror}; check the path and its permissions")


def read_utf8(path: Path | str, error: type[FloorbenchError] = FloorbenchError, fix: str = "save it as UTF-8") -> str:
    """A text input file's contents; one `error` line naming the file (and the first bad byte) if it is not
    UTF-8, the one way every reader of a user's text file (JSON, JSON Lines, CSV, YAML) turns bytes into text.
    A file the system refuses stays an OSError (the CLI names its path)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text (byte {e.start}); {fix}") from None


def exit_with(message: str, code: int = 2) -> NoReturn:
    """A command's end on an expected failure: ``error: <one line>`` on stderr, then exit `code`.

    Shared by every command module (and a suite's own commands), so each prints the same way.
    """
    import typer

    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code)


def first_line(err: BaseException) -> str:
    """An error's first line (its type's name when it has no message)."""
    return (str(err).splitlines() or [type(err).__name__])[0]


def exit_with_os(e: OSError) -> NoReturn:
    """A path the system refused is the user's error (one line); any other OSError is a bug."""
    line = path_error_line(e)
    if line is None:
        raise e
    exit_with(line)


CRASH_EXIT = 70
"""EX_SOFTWARE: an unexpected exception is a bug (never 2, so a CI counts it as one)"""


def crash_line(exc: BaseException, argv: list[str]) -> str:
    """The last resort for an exception no reader expected: its traceback (secrets redacted) goes to a
    crash file in the command's ``--out`` folder when there is one (else a new temporary folder), and the
    user gets one line naming the command, its input and that file."""
    import os
    import time
    import traceback

    from floorbench.escape import excerpt
    from floorbench.redact import is_secret_name, redact_text

    secrets = [v for k, v in os.environ.items() if is_secret_name(k) and len(v) >= 4]
    words = [a for a in argv if not a.startswith("-")]
    command = " ".join(words[:2] if words[:1] == ["suite"] else words[:1]) or "floorbench"
    given = words[2 if command.startswith("suite ") else 1:][:1]
    on = f" on {excerpt(redact_text(given[0], secrets), 120)}" if given else ""
    body = redact_text("floorbench " + " ".join(argv) + "\n\n" + "".join(traceback.format_exception(exc)), secrets)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    name = f"crash-{stamp}-{os.getpid()}.txt"
    folder = _crash_folder(argv)
    try:
        path = Path(folder) / name
        with open(path, "x", encoding="utf-8") as f:
            f.write(body)
        where = f"the details are in {path}"
    except OSError:
        where = "no crash file could be written"
    kind = type(exc).__name__
    return one_line(f"floorbench {command}{on}: unexpected {kind} (a bug in floorbench, not an expected refusal "
                    f"of the input); {where}; please report it with that file")


def _crash_folder(argv: list[str]) -> str:
    """The command's ``--out`` (or ``--out-root``) folder if it is one or can be made; else a new temp folder."""
    import tempfile

    for i, a in enumerate(argv):
        name, eq, value = a.partition("=")
        if name in ("--out", "--out-root", "-o"):
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            out = Path(value)
            try:
                if value and (out.is_dir() or (not out.exists() and out.parent.is_dir())):
                    out.mkdir(exist_ok=True)
                    return str(out)
            except (OSError, ValueError):
                pass
    return tempfile.mkdtemp(prefix="floorbench-crash-")
