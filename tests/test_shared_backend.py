"""The oracle's `shared_backend` (a deliberately slow agent under load, docs/load.md): replies due at
once are served one at a time through a lock on one file, so the k-th waits about k * `reply_ms`;
the block is read from an oracle config, and a key nobody declared is refused."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from floorbench.processors.adapter_config import ModelError
from floorbench.processors.reference import OracleSettings, SharedBackend


def test_replies_due_at_once_are_served_one_at_a_time(tmp_path: Path) -> None:
    backend = SharedBackend(lock=str(tmp_path / "backend.lock"), reply_ms=150)
    took: list[float] = []
    start = threading.Barrier(3)

    def one() -> None:
        start.wait()
        took.append(backend.serve())

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    took.sort()
    assert len(took) == 3
    # each reply holds the backend 150 ms: the first is served in 150 ms, the last after the other two
    assert took[0] >= 145 and took[1] >= 295 and took[2] >= 445, took


def test_the_block_is_read_from_an_oracle_config(tmp_path: Path) -> None:
    s = OracleSettings.load({"adapter": "oracle", "shared_backend": {"lock": "x.lock", "reply_ms": 700}}, "oracle")
    assert s.shared_backend == SharedBackend(lock="x.lock", reply_ms=700)
    assert OracleSettings.load({"adapter": "oracle"}, "oracle").shared_backend is None
    with pytest.raises(ModelError, match="shared_backend"):
        OracleSettings.load({"adapter": "oracle", "shared_backend": {"lock": "x", "reply": 5}}, "oracle")
