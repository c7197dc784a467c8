"""No secret reaches a file floorbench writes or a line it prints.

The live test plants a distinct secret in every place one can come from — the
environment (the LiveKit secret, the judge's key, a key the model config
names), a header map, a URL's user-info and query, a secret-named config key,
the judge's URL — runs a scenario with the `websocket` adapter against the
reference server, scores it (offline judge, then the LLM judge against a local
stand-in endpoint), reports it, and greps every written file and all captured
output for each secret. The unit tests pin the model child's environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from floorbench.pipelines.run.model_process import child_environment
from floorbench.scoring.judges.llm import LLMJudge
from floorbench.transports.server import LiveKitConnection

try:
    from tests.support.duplex_servers import Behaviour, ReferenceServer
except ModuleNotFoundError:
    from support.duplex_servers import Behaviour, ReferenceServer

ROOT = Path(__file__).resolve().parents[1]


# -- the model child's environment -------------------------------------------------------------


def test_the_child_gets_the_allow_list_and_what_its_config_names() -> None:
    environ = {
        "PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "LC_ALL": "C", "VIRTUAL_ENV": "/v",
        "PYTHONPATH": "/p", "HF_HOME": "/hf", "HF_TOKEN": "hf-1", "https_proxy": "http://proxy:3128",
        "NO_PROXY": "localhost", "FLOORBENCH_MODEL_LOG": "DEBUG", "XDG_CACHE_HOME": "/c",
        "LIVEKIT_API_SECRET": "lk-secret", "LIVEKIT_API_KEY": "lk-key", "LIVEKIT_URL": "ws://x",
        "OPENAI_API_KEY": "sk-open", "GOOGLE_API_KEY": "g-key", "MY_SERVER_KEY": "srv-key",
        "FLOORBENCH_JUDGE_BASE_URL": "http://j/v1?key=jq", "AWS_SECRET_ACCESS_KEY": "aws", "EXTRA_VAR": "e",
        "HUGGING_FACE_HUB_TOKEN": "hf-2", "HF_API_KEY": "hf-3", "FLOORBENCH_SOME_TOKEN": "fb-1",
        "TORCH_HOME": "/t", "GOOGLE_APPLICATION_CREDENTIALS": "/creds.json", "XDG_SECRET_THING": "x",
    }
    config = {"adapter": "cascade", "llm": {"api_key_env": "MY_SERVER_KEY"}, "pass_env": ["EXTRA_VAR"]}
    assert child_environment(config, environ) == {
        "PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "LC_ALL": "C", "VIRTUAL_ENV": "/v",
        "PYTHONPATH": "/p", "HF_HOME": "/hf", "https_proxy": "http://proxy:3128",
        "NO_PROXY": "localhost", "FLOORBENCH_MODEL_LOG": "DEBUG", "XDG_CACHE_HOME": "/c", "TORCH_HOME": "/t",
        "MY_SERVER_KEY": "srv-key", "EXTRA_VAR": "e",
    }  # no HF_TOKEN & co: a prefix lets caches through, never a key
    named = child_environment({"adapter": "x", "pass_env": ["HF_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS"]}, environ)
    assert named["HF_TOKEN"] == "hf-1" and named["GOOGLE_APPLICATION_CREDENTIALS"] == "/creds.json"
    openai = child_environment({"adapter": "pipecat-service", "api_key_env": "OPENAI_API_KEY"}, environ)
    assert openai["OPENAI_API_KEY"] == "sk-open" and "GOOGLE_API_KEY" not in openai
    assert "LIVEKIT_API_SECRET" not in openai and "LIVEKIT_API_KEY" not in openai


async def test_the_real_child_process_never_sees_the_livekit_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from floorbench.pipelines.room.model_messages import ModelSpec
    from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed

    seen = tmp_path / "env.json"
    code = (
        "import json, os, sys; sys.stdin.readline()\n"
        f"open({str(seen)!r}, 'w').write(json.dumps({{'env': dict(os.environ), 'cwd': os.getcwd()}}))\n"
        "sys.exit(3)\n"
    )
    monkeypatch.setattr(ModelProcess, "argv", (sys.executable, "-c", code))
    monkeypatch.setenv("HF_TOKEN", "hf-planted-token")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("LIVEKIT_API_SECRET", "lk-planted-secret")
    monkeypatch.setenv("LIVEKIT_API_KEY", "lk-planted-key")
    monkeypatch.setenv("MY_SERVER_KEY", "srv-planted-key")
    spec = ModelSpec(
        url="ws://127.0.0.1:9", token="t", room="r", identity="model", model="websocket",
        config={"adapter": "websocket", "api_key_env": "MY_SERVER_KEY"}, in_sample_rate=16000,
        out_sample_rate=24000, out_queue_ms=120, parent_pid=os.getpid(), max_lifetime_s=30.0,
    )
    scenario_dir = tmp_path / "run" / "s1"
    scenario_dir.mkdir(parents=True)
    with pytest.raises(ScenarioFailed):
        await ModelProcess(spec, scenario_dir / "model.log").start(20.0)
    got = json.loads(seen.read_text())
    env = got["env"]
    assert "LIVEKIT_API_SECRET" not in env and "LIVEKIT_API_KEY" not in env and "HF_TOKEN" not in env
    assert env["MY_SERVER_KEY"] == "srv-planted-key" and env["PATH"] == os.environ["PATH"]
    assert env["HF_HOME"] == str(tmp_path / "hf")
    assert Path(got["cwd"]) == scenario_dir  # a fixed folder, not the one the run started from


async def test_the_model_process_imports_nothing_from_the_folder_it_is_run_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A stray loguru.py where the user runs floorbench is never executed by the model process."""
    from floorbench.pipelines.room.model_messages import ModelSpec
    from floorbench.pipelines.run.scenario_run import ModelProcess, ScenarioFailed

    here = tmp_path / "where-the-user-is"
    here.mkdir()
    planted = tmp_path / "stray-ran"
    (here / "loguru.py").write_text(f"open({str(planted)!r}, 'w').write('ran')\nraise SystemExit(9)\n")
    monkeypatch.chdir(here)
    folder = tmp_path / "run" / "s1"
    folder.mkdir(parents=True)
    spec = ModelSpec(
        url="ws://127.0.0.1:9", token="t", room="r", identity="model", model="silent", config={},
        in_sample_rate=16000, out_sample_rate=24000, out_queue_ms=120, parent_pid=os.getpid(), max_lifetime_s=30.0,
    )
    proc = ModelProcess(spec, folder / "model.log")
    assert "-P" in proc.argv
    try:
        await proc.start(60.0)
    except ScenarioFailed:
        pass  # nothing listens on port 9: the child fails to join; it must not have run the stray module first
    finally:
        await proc.stop()
    assert not planted.exists(), (folder / "model.log").read_text()[-2000:]


def test_relative_paths_in_a_model_config_still_name_the_same_files(tmp_path: Path) -> None:
    from floorbench.child_env import absolute_paths

    (tmp_path / "voices").mkdir()
    (tmp_path / "voices" / "joe.onnx").write_text("")
    (tmp_path / "whisper").mkdir()
    (tmp_path / "cascade").mkdir()
    config = {"adapter": "cascade", "tts": {"voice": "voices/joe.onnx"}, "asr": {"model": "./whisper"},
              "voice": "alloy", "url": "ws://h/voices/joe.onnx", "list": ["voices/joe.onnx", "missing/x.onnx"],
              "api_key_env": "voices/joe.onnx"}
    assert absolute_paths(config, tmp_path) == {
        "adapter": "cascade", "tts": {"voice": str(tmp_path / "voices" / "joe.onnx")},
        "asr": {"model": str(tmp_path / "whisper")}, "voice": "alloy", "url": "ws://h/voices/joe.onnx",
        "list": [str(tmp_path / "voices" / "joe.onnx"), "missing/x.onnx"], "api_key_env": "voices/joe.onnx",
    }


def test_server_binaries_get_no_keys_and_nothing_that_reconfigures_them() -> None:
    from floorbench.child_env import minimal_environment

    environ = {"PATH": "/usr/bin", "HOME": "/h", "LANG": "C.UTF-8", "LC_ALL": "C", "TMPDIR": "/tmp",
               "LIVEKIT_KEYS": "k: s", "NODE_IP": "10.0.0.5", "UDP_PORT": "7882", "LIVEKIT_CONFIG": "port: 1",
               "OPENAI_API_KEY": "sk", "HF_TOKEN": "hf", "REDIS_PASSWORD": "r"}
    assert minimal_environment(environ) == {"PATH": "/usr/bin", "HOME": "/h", "LANG": "C.UTF-8", "LC_ALL": "C",
                                            "TMPDIR": "/tmp"}


def test_the_llm_judge_records_and_reports_its_url_redacted() -> None:
    judge = LLMJudge(model="m", base_url="http://jude:pw-judge-1@127.0.0.1:1/v1?key=q-judge-2", retries=0, timeout_s=1)
    assert judge.settings()["base_url"] == "http://<redacted>@127.0.0.1:1/v1?key=<redacted>"
    with pytest.raises(Exception) as err:  # nothing listens on port 1
        judge._post("hello")
    assert "pw-judge-1" not in str(err.value) and "q-judge-2" not in str(err.value)
    assert "http://<redacted>@127.0.0.1:1/v1?key=<redacted>" in str(err.value)


# -- files a managed server needs: a private folder, removed after a kill -----------------------

FAKE_SERVER = """\
import re, socket, sys, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
args = sys.argv[1:]
if "--config" in args:  # a stand-in LiveKit server: the port from the config, 200 on GET /
    port = int(re.search(r"^port: (\\d+)", open(args[args.index("--config") + 1]).read(), re.M).group(1))
    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
        def log_message(self, *a):
            pass
    HTTPServer(("127.0.0.1", port), H).serve_forever()
else:  # a stand-in redis-server: +PONG to anything
    port = int(args[args.index("--port") + 1])
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", port)); s.listen()
    while True:
        c, _ = s.accept(); c.recv(64); c.sendall(b"+PONG\\r\\n"); c.close()
"""


@pytest.fixture
def fake_server(tmp_path: Path) -> Path:
    exe = tmp_path / "bin" / "fake-server"
    exe.parent.mkdir()
    exe.write_text(f"#!{sys.executable}\n{FAKE_SERVER}")
    exe.chmod(0o755)
    return exe


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mode & 0o777 for p in [root, *root.rglob("*")] if p.is_dir()}


def test_the_servers_secret_file_is_private_and_a_killed_runs_folder_goes_at_the_next_start(
    tmp_path: Path, fake_server: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    secret = "lk-planted-config-secret-61c2"
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from floorbench.transports.server import LiveKitServer\n"
        f"srv = LiveKitServer(binary=Path({str(fake_server)!r}), api_secret={secret!r})\n"
        "srv.start()\n"
        "print(srv._dir, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"  # no clean-up: as a run killed mid-scenario
    )
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr[-2000:]
    left = Path(proc.stdout.strip())
    root = runtime / "floorbench"
    assert left.parent == root and left.name.startswith("livekit-") and left.is_dir()
    assert set(_modes(root).values()) == {0o700}, _modes(root)
    assert not (left / "livekit.yaml").exists()  # read once at start, then removed
    assert not any(secret.encode() in p.read_bytes() for p in root.rglob("*") if p.is_file())
    # nothing of this server in the old shared place (other processes' leftovers may be there)
    old = Path(tempfile.gettempdir()).glob("floorbench-livekit-*/livekit.yaml")
    assert not any(secret.encode() in p.read_bytes() for p in old if p.is_file())

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    from floorbench.transports.private_dir import private_dir

    fresh = private_dir("livekit")
    assert not left.exists() and fresh.parent == root and fresh.stat().st_mode & 0o777 == 0o700


def test_the_private_root_refuses_a_link_and_tightens_its_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from floorbench.transports.private_dir import private_root

    runtime = tmp_path / "runtime"
    runtime.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (runtime / "floorbench").symlink_to(elsewhere)  # planted: would send the secret where the link points
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    (tmp_path / "tmp" / f"floorbench-{os.getuid()}").mkdir(mode=0o755)
    root = private_root()
    assert root == tmp_path / "tmp" / f"floorbench-{os.getuid()}" and root is not None
    assert root.stat().st_mode & 0o777 == 0o700


def test_redis_logs_into_a_private_folder_not_a_predictable_path(
    tmp_path: Path, fake_server: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from floorbench.transports.server import RedisServer

    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: str(fake_server) if name == "redis-server"
                        else real_which(name, *a, **k))
    redis = RedisServer()
    redis.start()
    try:
        assert redis.port is not None
        assert not (Path(tempfile.gettempdir()) / f"floorbench-redis-{redis.port}.log").exists()
        logs = list((runtime / "floorbench").glob("redis-*/redis.log"))
        assert len(logs) == 1 and logs[0].parent.stat().st_mode & 0o777 == 0o700
    finally:
        redis.stop()
    assert not logs[0].parent.exists()


# -- the live test -------------------------------------------------------------------------


class _Judge(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that calls every answer correct (any path, any query)."""

    calls: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).calls.append(self.path)
        data = json.dumps({"choices": [{"message": {"content": '{"verdict": "correct"}'}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def judge_endpoint() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "floorbench.cli", *args], env=env, cwd=cwd, capture_output=True, text=True,
        timeout=600,
    )


@pytest.mark.live
@pytest.mark.slow
def test_no_planted_secret_reaches_any_file_or_output(
    tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection, judge_endpoint: int
) -> None:
    secrets = {
        "livekit secret (env)": livekit.api_secret,
        "judge key (env)": "sk-planted-openai-7f3a91",
        "model key (env, named by the config)": "env-planted-server-c41d02",
        "header": "hdr-planted-value-9b27e4",
        "url user-info": "urlpass-planted-5e8a13",
        "url query": "query-planted-token-2d6f70",
        "config key": "cfgkey-planted-a0c9b5",
        "judge url query": "judgeq-planted-83e1c4",
    }
    env = {
        **os.environ,
        "LIVEKIT_API_KEY": livekit.api_key,
        "LIVEKIT_API_SECRET": livekit.api_secret,
        "OPENAI_API_KEY": secrets["judge key (env)"],
        "FB_PLANTED_SERVER_KEY": secrets["model key (env, named by the config)"],
        "FLOORBENCH_LOG": "INFO",
        "FLOORBENCH_MODEL_LOG": "DEBUG",
    }
    work = tmp_path / "work"
    work.mkdir()
    with ReferenceServer("pcm", Behaviour("reply", gap_ms=700, clip_ms=800)) as server:
        port = server.url.split(":")[2].split("/")[0]
        config = {
            "adapter": "websocket",
            "url": f"ws://urluser:{secrets['url user-info']}@127.0.0.1:{port}/?token={secrets['url query']}",
            "headers": {"X-Api-Token": secrets["header"]},
            "api_key_env": "FB_PLANTED_SERVER_KEY",
            "hello": {"type": "session", "auth_token": secrets["config key"]},
        }
        cfg = tmp_path / "model.yaml"  # outside `work`: it holds the secrets on purpose
        cfg.write_text(yaml.safe_dump(config))
        runs = [_cli(["run", "--suite", str(tiny_suite), "--config", str(cfg), "--out", "run",
                      "--livekit-url", livekit.url, "--scenario", "tiny01-explicit", "--quiet"], env, work)]
    assert runs[0].returncode == 0, runs[0].stderr[-2000:]
    meta = json.loads((work / "run" / "tiny01-explicit" / "meta.json").read_text())
    assert meta["outcome"] == "completed", meta.get("failure_reason")
    judge_url = f"http://127.0.0.1:{judge_endpoint}/v1?key={secrets['judge url query']}"
    runs.append(_cli(["score", "run", "--out", "scored", "--resamples", "100", "--quiet"], env, work))
    runs.append(_cli(["score", "run", "--out", "scored-llm", "--resamples", "100", "--quiet",
                      "--judge", "llm:stand-in", "--judge-base-url", judge_url], env, work))
    runs.append(_cli(["report", "scored", "scored-llm", "--out", "report"], env, work))
    assert [r.returncode for r in runs] == [0, 0, 0, 0], [r.stderr[-1500:] for r in runs]
    card = json.loads((work / "run" / "run.json").read_text())["model"]["config"]
    assert card["headers"] == {"X-Api-Token": "<redacted>"} and card["hello"]["auth_token"] == "<redacted>"
    assert card["url"] == f"ws://<redacted>@127.0.0.1:{port}/?token=<redacted>"
    scores = json.loads((work / "scored-llm" / "scores.json").read_text())
    assert f"127.0.0.1:{judge_endpoint}/v1?key=<redacted>" in json.dumps(scores)

    written = sorted(p for p in work.rglob("*") if p.is_file())
    assert {"run/run.json", "run/tiny01-explicit/meta.json", "run/tiny01-explicit/model.log",
            "scored/scores.json", "scored-llm/scores.json", "report/report.html"} <= {
        str(p.relative_to(work)) for p in written}
    leaks = [
        f"{what} in {p.relative_to(work)}"
        for p in written for what, value in secrets.items() if value.encode() in p.read_bytes()
    ]
    leaks += [
        f"{what} in the output of `{' '.join(r.args[3:5])}`"
        for r in runs for what, value in secrets.items() if value in r.stdout + r.stderr
    ]
    assert not leaks, leaks
