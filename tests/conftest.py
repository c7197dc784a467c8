"""Shared fixtures: a real LiveKit server on 127.0.0.1 for the live tests, suite paths."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from floorbench.transports.server import LiveKitConnection, LiveKitServer

ROOT = Path(__file__).resolve().parents[1]
TINY_SUITE = ROOT / "tests" / "fixtures" / "suites" / "tiny"
EXAMPLE_SUITE = ROOT / "floorbench" / "data" / "suites" / "example"


@pytest.fixture(scope="session")
def livekit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKitServer]:
    """One real LiveKit server (the pinned binary) for the whole test session."""
    log = tmp_path_factory.mktemp("livekit") / "livekit.log"
    server = LiveKitServer(log_path=log)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def livekit(livekit_server: LiveKitServer) -> LiveKitConnection:
    return livekit_server.connection


@pytest.fixture(scope="session")
def tiny_suite() -> Path:
    return TINY_SUITE


@pytest.fixture(scope="session")
def example_suite() -> Path:
    return EXAMPLE_SUITE


@pytest.fixture(scope="session")
def oracle_tiny_run(tmp_path_factory: pytest.TempPathFactory, livekit: LiveKitConnection, tiny_suite: Path) -> Path:
    """The tiny suite's four scenarios played once by the oracle, one room at a time.

    Shared by the live tests that read an oracle run and leave it as it is (the spine's behaviour
    checks, scoring, two rooms at once against one, the oracle's senders' records): each would otherwise play the same rooms again,
    and on a 2-core CI machine those minutes add up. A test that needs a fresh try plays its own.
    """
    import asyncio

    from floorbench.pipelines.run.runner import RunOptions, run_suite

    out = tmp_path_factory.mktemp("oracle-tiny") / "oracle"
    asyncio.run(run_suite(RunOptions(suite=tiny_suite, model="oracle", out=out, connection=livekit, progress=False)))
    return out


def _tiny_run(out: Path, model: str, livekit: LiveKitConnection, tiny_suite: Path, sid: str) -> Path:
    """`model` played one tiny scenario, alone; its folder (completed, or the run's reason fails the caller)."""
    import asyncio

    from floorbench.pipelines.run.runner import RunOptions, run_suite

    asyncio.run(run_suite(RunOptions(suite=tiny_suite, model=model, out=out, connection=livekit, scenarios=[sid],
                                     progress=False)))
    return out / sid


@pytest.fixture(scope="session")
def silent_tiny_run(tmp_path_factory: pytest.TempPathFactory, livekit: LiveKitConnection, tiny_suite: Path) -> Path:
    """`silent` in tiny01-implicit, one room: the folder of the scenario. Shared, as the oracle run, by the
    live tests that only read what a silent model leaves (the spine's silent track, the senders' records)."""
    return _tiny_run(tmp_path_factory.mktemp("silent-tiny") / "silent", "silent", livekit, tiny_suite, "tiny01-implicit")


@pytest.fixture(scope="session")
def eager_tiny_run(tmp_path_factory: pytest.TempPathFactory, livekit: LiveKitConnection, tiny_suite: Path) -> Path:
    """`eager` in tiny01-explicit, one room: the folder of the scenario. Shared by the live tests that only
    read what eager leaves (the spine's intrusions, scoring's eager against the oracle)."""
    return _tiny_run(tmp_path_factory.mktemp("eager-tiny") / "eager", "eager", livekit, tiny_suite, "tiny01-explicit")


@pytest.fixture(scope="session")
def oracle_tiny_scores(tmp_path_factory: pytest.TempPathFactory, oracle_tiny_run: Path) -> tuple[dict, Path]:  # type: ignore[type-arg]
    """`floorbench score` of the shared oracle run: (scores.json, the scored folder)."""
    import json

    from typer.testing import CliRunner

    from floorbench.cli import app

    out = tmp_path_factory.mktemp("oracle-tiny-scored") / "scored"
    res = CliRunner().invoke(app, ["score", str(oracle_tiny_run), "--out", str(out), "--resamples", "1000", "--quiet"])
    assert res.exit_code == 0, res.output
    return json.loads((out / "scores.json").read_text()), out
