"""`phone-gateway`'s keys: each key the caller presses goes into the agent's room as LiveKit SIP sends it.

A SIP DTMF packet carries RFC 4733's event code with the key (0-9, then * 10,
# 11, A-D 12-15); a key the room refuses is an error line in the gateway's log
and the next key is still sent. A fake room stands in for LiveKit's (the live
path is tests/test_sip_live.py).
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from floorbench.phone.gateway import DTMF_CODES, _keys_to_room


class FakeParticipant:
    def __init__(self, refuse: str = "") -> None:
        self.sent: list[tuple[int, str]] = []
        self.refuse = refuse

    async def publish_dtmf(self, *, code: int, digit: str) -> None:
        if digit in self.refuse:
            raise RuntimeError("refused by the room")
        self.sent.append((code, digit))


def test_rfc4733_event_codes():
    assert [DTMF_CODES[k] for k in "0123456789*#ABCD"] == list(range(16))


@pytest.mark.parametrize("refuse", ["", "2"])
def test_each_key_goes_to_the_room_in_order_and_a_refused_one_is_logged(capsys, refuse):
    part = FakeParticipant(refuse)
    room = SimpleNamespace(local_participant=part)

    async def go() -> None:
        keys: asyncio.Queue[str] = asyncio.Queue()
        for k in "12a#":
            keys.put_nowait(k)
        task = asyncio.create_task(_keys_to_room(keys, room, "phone-1"))
        await asyncio.sleep(0.1)  # the fake room answers at once: every key is handled by then
        task.cancel()

    asyncio.run(go())
    want = [(1, "1"), (2, "2"), (12, "A"), (11, "#")]
    assert part.sent == [x for x in want if x[1] not in refuse]
    log = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [e["digit"] for e in log if e["event"] == "dtmf"] == [d for _, d in want if d not in refuse]
    assert [(e["digit"], e["room"]) for e in log if e["event"] == "error"] == [(d, "phone-1") for d in refuse]
