"""The one-error-line contract of a command, checked through the real app and `run_cli` (exit 2, one line)."""

from __future__ import annotations

import pytest

from floorbench.cli import run_cli


def one_error_line(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    """Run `floorbench ARGS`; assert exit 2 with exactly one ``error:`` line on stderr, and return it."""
    from floorbench.cli import app

    with pytest.raises(SystemExit) as e:
        run_cli(app, args)
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]
