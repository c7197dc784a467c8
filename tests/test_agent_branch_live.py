"""A branching caller live: the same test, two reference agents, two branches taken.

`examples/tests/branching.yaml` runs once against `oracle` and once against `echo` (two
`floorbench test` processes side by side, one trial each, on the session's LiveKit server: two
rooms at once, what a 2-core machine holds):

- `oracle` answers the caller's first line with "Sure. What is your order number?": the caller
  hears it (live ASR of the agent's turn), takes rule `order` and says "It is four two seven.";
  the test passes (`took_branch: order`, and a response within 2000 ms of *that* line's end);
- `echo` plays the caller's own words back: the caller hears "Hello, I would like a refund…",
  takes rule `echoed` and says the other line; `took_branch: order` fails with what it heard.

Each trial's results.json records the branch taken, the transcript it reacted to and the caller's
own latency; turns.json shows that the clip played at the branch step is that rule's line.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_agent_live import ROOT, finish, start  # type: ignore[import-not-found]

from floorbench.transports.server import LiveKitConnection

pytestmark = pytest.mark.live
EXAMPLE = ROOT / "examples" / "tests" / "branching.yaml"


def test_the_caller_takes_a_different_branch_for_each_agent(tmp_path: Path, livekit: LiveKitConnection) -> None:
    t0 = time.monotonic()
    both = {m: start(tmp_path / m, livekit, m, tests=EXAMPLE) for m in ("oracle", "echo")}  # two rooms at once
    done = {m: finish(p, tmp_path / m) for m, p in both.items()}
    print(f"two branching runs: {time.monotonic() - t0:.0f} s")  # shown with -s
    branch: dict[str, dict] = {}  # type: ignore[type-arg]
    for model, (code, text, res) in done.items():
        assert code == (0 if model == "oracle" else 1), f"{model}: exit {code}\n{text}"
        (trial,) = res["trials"]
        (branch[model],) = trial["branches"]
        b = branch[model]
        assert b["step"] == 2 and b["reason"] == "chosen" and b["asr_ms"] > 0, b
        assert b["caller_delay_ms"] >= b["chain_ms"] >= b["asr_ms"], b  # the caller's own chain, recorded
        assert b["heard_from_ms"] < b["heard_to_ms"] <= b["turn_over_ms"], b
        turns = json.loads(next((tmp_path / model / "run").rglob("turns.json")).read_text())
        played = {t["turn_id"] for t in turns["turns"]}
        assert b["clip"] in played and not ({2, 3, 4} - {b["clip"]}) & played, (b, played)  # only the chosen line

    assert branch["oracle"]["rule"] == "order" and "order number" in branch["oracle"]["transcript"].lower()
    assert branch["echo"]["rule"] == "echoed" and "hello" in branch["echo"]["transcript"].lower()

    (oracle,) = done["oracle"][2]["tests"]
    measured = {a["key"]: a["measured"][0] for a in oracle["assertions"]}
    assert measured["step 2 took_branch"]["passed"]
    # measured from the end of the line the caller chose, not from the agent's earlier turn
    assert 0 < measured["step 2 responds_within_ms"]["value"] <= 2000

    (echo,) = done["echo"][2]["tests"]
    took = next(a for a in echo["assertions"] if a["key"] == "step 2 took_branch")
    assert took["k"] == 0 and took["measured"][0]["measured"].startswith('took "echoed"'), took
