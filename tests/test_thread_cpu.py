"""The concurrency benchmark's CPU sampler: /proc parsing and grouping, on this test process's own threads."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from thread_cpu import ThreadCpu, breakdown_lines, thread_group


def test_thread_names_lose_their_numbers_only() -> None:
    assert thread_group("worker_thread 0") == "worker_thread"
    assert thread_group("tokio-rt-worker") == "tokio-rt-worker"
    assert thread_group("asyncio_12") == "asyncio"
    assert thread_group("python") == "python"
    assert thread_group("7") == "7"


def test_a_busy_thread_is_counted_for_its_process() -> None:
    """Python 3.11 does not name OS threads: the spinner is a ``python`` thread of the runner role."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))

    sampler = ThreadCpu(every_s=0.05).start()
    busy = threading.Thread(target=spin, name="spinner_3")
    busy.start()
    time.sleep(0.6)
    stop.set()
    busy.join()
    roles = sampler.stop()
    runner = roles["runner"]
    assert 0.3 < runner["python"] < 1.5  # the spinner ran most of 0.6 s; the rest of the test slept
    assert "model" not in roles  # children of the test process (a session's LiveKit server) are other roles
    lines = breakdown_lines(roles, dialogue_s=1.0)
    assert lines[0].startswith("  runner") and "python" in lines[0]
