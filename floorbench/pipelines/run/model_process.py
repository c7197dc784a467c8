"""The pipeline model's child process: started, watched and stopped by the room it plays in.

A model that floorbench joins to the room (``joins = "pipeline"``) runs in a child process of
its own (`floorbench.pipelines.room.model_participant`), so that a crashing model loses one
scenario and never the runner. `ModelProcess` starts it with only the environment it needs
(`child_environment`), hands it its spec on stdin, waits for its answer, relays its reports
and stops it; every failure is a `ScenarioFailed` with its kind, for the run's records.
Used by the scenario room, the microphone demo and `floorbench latency`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from pathlib import Path
from typing import Any

from floorbench.child_env import MINIMAL_NAMES, python_argv, python_environment
from floorbench.pipelines.room.model_messages import (
    ModelChainError,
    ModelConnected,
    ModelDisconnected,
    ModelFailed,
    ModelMeasured,
    ModelSpec,
    read_answer,
    read_event,
)
from floorbench.pipelines.run.model_fork import ForkedChild, fork_server
from floorbench.records import FailureKind
from floorbench.redact import is_secret_name
from floorbench.transports.loopback import child_variables

log = logging.getLogger(__name__)


class ScenarioFailed(Exception):
    """A scenario that cannot go on, with the kind of failure the run book records."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


CHILD_ENV_NAMES = MINIMAL_NAMES | frozenset({
    "VIRTUAL_ENV", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
    "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
})
"""variables every model child gets, besides the prefixes below and those its config names"""
CHILD_ENV_PREFIXES = ("LC_", "PYTHON", "FLOORBENCH_", "HF_", "HUGGINGFACE_", "XDG_", "CUDA_", "TORCH", "ORT_")
CHILD_ENV_PROXY = ("http_proxy", "https_proxy", "no_proxy", "all_proxy")


def child_environment(config: dict[str, Any], environ: dict[str, str] | None = None) -> dict[str, str]:
    """The model child's environment: an allow-list, plus every variable the model config names.

    The child learns its room and join token on stdin, so it never needs the
    LiveKit key or secret (nor the judge's key, nor anything else a shell
    holds); it does need its interpreter, caches and proxies, and the keys its
    config names with ``*_env`` (``api_key_env: OPENAI_API_KEY``, or a list:
    ``pass_env: [MY_VAR]``), at any depth. The judge's settings (FLOORBENCH_JUDGE_*) stay behind,
    and so does every secret-like name (``HF_TOKEN``, ``GOOGLE_APPLICATION_CREDENTIALS``) the
    config does not name: a prefix lets caches and settings through, never a key.
    """
    environ = dict(os.environ) if environ is None else environ
    named = set(_env_names(config))

    def passes(k: str) -> bool:
        if k in named or k.lower() in CHILD_ENV_PROXY:
            return True
        if is_secret_name(k):
            return False
        if k in CHILD_ENV_NAMES:
            return True
        return k.startswith(CHILD_ENV_PREFIXES) and not k.startswith("FLOORBENCH_JUDGE")

    # the loopback interposer this process runs with goes on to the child (floorbench.transports.loopback)
    return {**{k: v for k, v in environ.items() if passes(k)}, **child_variables(environ)}


def _env_names(config: Any) -> list[str]:
    """Values of every ``*_env`` key in a config (names of environment variables)."""
    if isinstance(config, dict):
        out: list[str] = []
        for k, v in config.items():
            if str(k).endswith("_env"):
                out += [v] if isinstance(v, str) else [n for n in v if isinstance(n, str)] if isinstance(v, list) else []
            else:
                out += _env_names(v)
        return out
    if isinstance(config, list):
        return [n for v in config for n in _env_names(v)]
    return []


MODEL_ARGV = python_argv("floorbench.pipelines.room.model_participant")


class ModelProcess:
    """The pipeline model's child process (floorbench.pipelines.room.model_participant)."""

    argv: tuple[str, ...] = MODEL_ARGV
    """the child's command line (``-P``: nothing is imported from its folder); the spec goes to its stdin.
    Only this default is forked from the fork server (which runs the same module); another command
    line (a stand-in child in tests) is started as given"""

    def __init__(self, spec: ModelSpec, log_path: Path, env: dict[str, str] | None = None) -> None:
        self.spec = spec
        self.log_path = log_path
        self.env = dict(env or {})
        """variables the scenario adds to the child's environment (a test's mock tools' URLs)"""
        self.proc: asyncio.subprocess.Process | ForkedChild | None = None
        self.links = 0
        """model-server connections the child's chain opens (its `ModelReady` says)"""
        self.connected = asyncio.Event()
        self.failure: str | None = None
        """the first error or lost connection the child reported; the scenario fails with it"""
        self.measured: dict[str, Any] = {}
        """the chain's latest report on itself (a bridge's own delay); meta.json transport_latency_ms.bridge"""
        self._failed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, timeout_s: float) -> None:
        """Start the child and wait for its answer; if it is not ready, it is stopped before this raises.

        Inside a run the child is forked from the run's warm fork server (`floorbench.pipelines.run.model_fork`:
        no import burst while other rooms play); elsewhere it starts as a fresh interpreter.
        """
        env = python_environment({**child_environment(self.spec.config), **self.env})
        logf = self.log_path.open("ab")
        try:
            self.proc = await self._forked(env, logf.fileno())
            if self.proc is None:
                self.proc = await asyncio.create_subprocess_exec(
                    *self.argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=logf,
                    env=env,
                    cwd=self.log_path.parent,  # the scenario's folder, never the one the user ran from
                    start_new_session=True,
                )
        finally:
            logf.close()
        try:
            await self._handshake(self.proc, timeout_s)
        except BaseException:
            await self.stop()
            raise
        (self.log_path.parent / "model.pid").write_text(str(self.proc.pid))

    async def _forked(self, env: dict[str, str], stderr_fd: int) -> ForkedChild | None:
        if self.argv != MODEL_ARGV:
            return None
        server = await fork_server()
        if server is None:
            return None
        try:
            return await server.spawn(env, str(self.log_path.parent), stderr_fd)
        except (OSError, RuntimeError, TimeoutError) as e:
            log.warning("model fork server: %s; starting the model process the slow way", e)
            return None

    async def _handshake(self, proc: asyncio.subprocess.Process | ForkedChild, timeout_s: float) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(self.spec.line())
        await proc.stdin.drain()
        proc.stdin.close()
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), timeout_s)
        except TimeoutError:
            raise ScenarioFailed(
                FailureKind.model_never_joined, f"model process not ready after {timeout_s:.0f} s"
            ) from None
        if not line:
            code = await proc.wait()
            raise ScenarioFailed(
                FailureKind.model_crashed,
                f"model process exited with code {code} before it was ready; see {self.log_path.name}",
            )
        try:
            answer = read_answer(line)
        except ValueError as e:
            raise ScenarioFailed(FailureKind.internal, f"model process: {e}; see {self.log_path.name}") from None
        if isinstance(answer, ModelFailed):
            raise ScenarioFailed(FailureKind.bad_input, f"model: {answer.error}")
        self.links = answer.links
        self._reader = asyncio.create_task(self._read_events(proc.stdout), name="model-events")

    async def _read_events(self, stdout: asyncio.StreamReader) -> None:
        """The child's reports while the scenario runs: connected, disconnected, chain errors."""
        while line := await stdout.readline():
            try:
                event = read_event(line)
            except ValueError as e:  # a library printing to stdout: not ours, keep reading
                log.debug("model process: %s", e)
                continue
            if isinstance(event, ModelConnected):
                self.connected.set()
            elif isinstance(event, ModelDisconnected):
                self._fail(f"model lost its server connection: {event.disconnected}")
            elif isinstance(event, ModelChainError):
                self._fail(f"model error: {event.chain_error}")
            elif isinstance(event, ModelMeasured):
                self.measured = event.measured

    def _fail(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason
            self._failed.set()

    def failed(self) -> ScenarioFailed | None:
        """The child's first reported failure as the scenario's outcome, if any."""
        return None if self.failure is None else ScenarioFailed(FailureKind.model_error, self.failure)

    async def wait_failed(self) -> None:
        await self._failed.wait()

    async def drain(self, timeout_s: float = 2.0) -> None:
        """Read what an exited child wrote last (its error comes before its exit)."""
        if self._reader is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._reader), timeout_s)

    async def wait_connected(self, timeout_s: float) -> None:
        """For a chain that talks to a model server: wait until it is connected, or fail with model_error."""
        if self.links == 0:
            return
        tasks = {asyncio.create_task(e.wait()) for e in (self.connected, self._failed)}
        try:
            await asyncio.wait(tasks, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
        if (failure := self.failed()) is not None:
            raise failure
        if not self.connected.is_set():
            raise ScenarioFailed(
                FailureKind.model_error,
                f"model never connected to its server within {timeout_s:.0f} s; "
                f"start the model server or fix the model config (see {self.log_path.name})",
            )

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    async def wait_exit(self) -> int:
        assert self.proc is not None
        return await self.proc.wait()

    async def exited_within(self, seconds: float) -> bool:
        """Whether the process has ended or ends within `seconds` (a departure from the room may come first)."""
        if self.proc is None:
            return True
        try:
            await asyncio.wait_for(self.proc.wait(), seconds)
            return True
        except TimeoutError:
            return False

    async def stop(self, timeout_s: float = 5.0) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self.proc is None or self.proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()
