"""`floorbench` turns an expected failure into one `error:` line and its exit code; a bug keeps its traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer

from floorbench.cli import run_cli
from floorbench.errors import FloorbenchError
from floorbench.processors.registry import ModelError


def _app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.command()
    def expected() -> None:
        raise ModelError("model cascade: unknown key `vad.onset`; remove or rename it")

    @app.command()
    def custom() -> None:
        class Busy(FloorbenchError):
            exit_code = 3

        raise Busy("port 7880 is in use; pass --port")

    @app.command()
    def bug() -> None:
        raise RuntimeError("a bug")

    return app


def test_expected_failure_is_one_line_and_its_exit_code(capsys):
    with pytest.raises(SystemExit) as e:
        run_cli(_app(), ["expected"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "error: model cascade: unknown key `vad.onset`; remove or rename it\n"
    with pytest.raises(SystemExit) as e:
        run_cli(_app(), ["custom"])
    assert e.value.code == 3
    assert capsys.readouterr().err == "error: port 7880 is in use; pass --port\n"


def test_unexpected_exception_keeps_its_traceback():
    with pytest.raises(RuntimeError, match="a bug"):
        run_cli(_app(), ["bug"])


_SCRIPT = """
import sys
from floorbench import cli
from floorbench.processors.registry import ModelError

@cli.app.command("fail-expected")
def _expected() -> None:
    raise ModelError("model x: config needs `url`; set it in the model config file")

@cli.app.command("fail-bug")
def _bug() -> None:
    raise ZeroDivisionError("division by zero")

sys.argv = ["floorbench", sys.argv[1]]
cli.main()
"""


def test_the_real_entry_point():
    ok = subprocess.run([sys.executable, "-c", _SCRIPT, "fail-expected"], capture_output=True, text=True)
    assert ok.returncode == 2 and ok.stdout == ""
    assert ok.stderr.strip().splitlines() == [
        "error: model x: config needs `url`; set it in the model config file"
    ]
    bug = subprocess.run([sys.executable, "-c", _SCRIPT, "fail-bug"], capture_output=True, text=True)
    assert bug.returncode == 1
    assert "Traceback (most recent call last)" in bug.stderr and "ZeroDivisionError" in bug.stderr
