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
    """Python 3.11 does not name OS threads: the spinner is a ``python`` thread of the runner role.

    The spinner runs until it has used 0.4 s of CPU by its own clock (``time.thread_time``), however long
    a loaded machine takes to give it that, and stays alive until the sampler's last look: the sampler
    must count at least most of it, and no more than
    the whole process used."""
    used: list[float] = []
    done, leave = threading.Event(), threading.Event()

    def spin() -> None:
        t0 = time.thread_time()
        deadline = time.monotonic() + 60.0
        while time.thread_time() - t0 < 0.4 and time.monotonic() < deadline:
            sum(range(1000))
        used.append(time.thread_time() - t0)
        done.set()
        leave.wait(60.0)  # alive at the sampler's last look: a thread's CPU is read while it exists

    sampler = ThreadCpu(every_s=0.05).start()
    p0 = time.process_time()
    busy = threading.Thread(target=spin, name="spinner_3")
    busy.start()
    done.wait(120.0)
    process_cpu = time.process_time() - p0
    roles = sampler.stop()
    leave.set()
    busy.join()
    runner = roles["runner"]
    assert used and used[0] >= 0.4, f"the spinner got {used} s of CPU in 60 s"
    # /proc counts in clock ticks (10 ms): the spinner's 0.4 s, less a tick or two, at most the whole process
    assert 0.8 * used[0] <= runner["python"] <= process_cpu + 0.5, (runner, used, process_cpu)
    assert "model" not in roles  # children of the test process (a session's LiveKit server) are other roles
    lines = breakdown_lines(roles, dialogue_s=1.0)
    assert lines[0].startswith("  runner") and "python" in lines[0]
