"""Checks every scored run must satisfy, shared by the golden and live scoring tests."""

from __future__ import annotations

from typing import Any


def assert_presence_identity(scores: dict[str, Any]) -> None:
    """Presence = fresh onset + already speaking, exactly, in every condition of a scores.json.

    The benchmark defines response presence as a fresh onset (within the
    onset window) or speech already running at the request end, so
    presence - fresh onset is exactly the share already speaking; a late
    onset is its own diagnostic, outside presence. Checked on counts (no
    float rounding), and the split's three parts must cover every scorable T.
    """
    for cond, c in scores["conditions"].items():
        m, split = c["metrics"], c["presence_split"]
        presence, fresh = m["response_presence"], m["fresh_onset_rate"]
        parts = {k: split.get(k, {"passed": 0, "n": 0}) for k in ("fresh_onset", "already_speaking", "late_onset")}
        assert presence["n"] == fresh["n"], (cond, presence, fresh)
        assert presence["passed"] - fresh["passed"] == parts["already_speaking"]["passed"], (cond, c)
        assert parts["fresh_onset"]["passed"] == fresh["passed"], (cond, c)
        for k, part in parts.items():
            assert part["n"] in (0, fresh["n"]), (cond, k, part, fresh)
        assert m["conditional_accuracy"]["n"] == presence["passed"] - m["conditional_accuracy"]["unscorable"], (
            cond, m["conditional_accuracy"], presence,
        )
