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
