"""What a DTMF request may hold: the keys, how many, how long each is held.

One place for the rules, because two readers hold a request to them: the test
format (a ``dtmf:`` caller step, `floorbench.suites.agent.dtmf_format`) refuses
a bad one before anything runs, and the phone leg (`floorbench.phone.leg`)
refuses one that reaches it in a room data message. It sits with the scenario
records, the lowest layer both may import: no SIP stack is loaded to check a
test file.
"""

from __future__ import annotations

import re

DTMF_KEYS = "0-9, *, #, A-D"
DTMF_MAX = 32
"""keys in one request (a PIN, an account number and its #)"""
DTMF_DIGITS = re.compile(rf"[0-9*#A-Da-d]{{1,{DTMF_MAX}}}")
DIGIT_MS = 160
"""how long each key is held by default (PJSIP's; RFC 4733 events, one after another)"""
DIGIT_MS_MIN, DIGIT_MS_MAX = 40, 1000
KEY_GAP_MS = 40
"""PJSIP's pause between one key's event and the next (measured on loopback: keys held 160 ms start 200 ms
apart, held 100 ms 140 ms apart, as the agent's stack reports them)"""
DTMF_REQUEST = "dtmf"
"""a room data message ``{"floorbench": "dtmf", "digits": "1234#", "duration_ms": 160}`` makes the leg send those
digits"""


def dtmf_problem(digits: object, duration_ms: object = None) -> str | None:
    """Why a request cannot be sent (None: it can), in words a fix can follow."""
    if not isinstance(digits, str) or not DTMF_DIGITS.fullmatch(digits):
        return f"DTMF {digits!r}: write the keys as a string of {DTMF_KEYS} (1 to {DTMF_MAX} of them), e.g. \"1234#\""
    if duration_ms is not None and (isinstance(duration_ms, bool) or not isinstance(duration_ms, int)
                                    or not DIGIT_MS_MIN <= duration_ms <= DIGIT_MS_MAX):
        return f"DTMF duration_ms={duration_ms!r}: use a whole number of ms from {DIGIT_MS_MIN} to {DIGIT_MS_MAX}"
    return None


def dtmf_span_ms(digits: str, duration_ms: int | None) -> int:
    """How long the keys take to send, one after another: the last key ends this long after the first starts."""
    return len(digits) * (DIGIT_MS if duration_ms is None else duration_ms) + (len(digits) - 1) * KEY_GAP_MS
