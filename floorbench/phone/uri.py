"""What a user types about the phone leg, checked before any SIP stack starts: the URI, the codecs, credentials.

Kept apart from the stack (`stack`) so that a malformed ``--via`` is one
``error:`` line even where pjsua2 is not installed, and so that these checks
are unit tests without a network.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass

from floorbench.errors import FloorbenchError

CODECS: dict[str, str] = {"PCMU": "PCMU/8000/1", "PCMA": "PCMA/8000/1", "G722": "G722/16000/1"}
"""the codecs the leg offers, by their SDP names: G.711 µ-law, G.711 A-law, G.722 (wideband)"""
CODEC_ALIASES = {"ulaw": "PCMU", "mulaw": "PCMU", "g711u": "PCMU", "pcmu": "PCMU", "alaw": "PCMA",
                 "g711a": "PCMA", "pcma": "PCMA", "g722": "G722"}
USER_ENV = "FLOORBENCH_SIP_USER"
PASSWORD_ENV = "FLOORBENCH_SIP_PASSWORD"
"""digest credentials for an agent that asks for them: from the environment only, never a file"""

_URI = re.compile(
    r"sips?:(?:(?P<user>[A-Za-z0-9\-_.!~*'()&=+$,;?/%]+)@)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+)"
    r"(?::(?P<port>\d{1,5}))?(?P<params>(?:;[A-Za-z0-9\-_.!~*'%]+(?:=[A-Za-z0-9\-_.!~*'%]+)?)*)"
)


class PhoneError(FloorbenchError):
    """A phone-leg input or setup a user can fix (one line naming it and the fix)."""


@dataclass(frozen=True)
class SipTarget:
    """A checked SIP URI: where the call goes."""

    uri: str
    user: str | None
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """On this machine (127.0.0.0/8, ::1, localhost): floorbench's own agent end may be told the scenario."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host.strip("[]")).is_loopback
        except ValueError:
            return False


def shown(text: str) -> str:
    """A URI as an error line may show it: a password in its user part (``sip:user:secret@host``) removed."""
    head, at, tail = text.partition("@")
    if at and ":" in head.split(":", 1)[-1]:
        return head.split(":", 2)[0] + ":" + head.split(":", 2)[1] + ":<redacted>@" + tail
    return text


def parse_target(text: str, *, allow_remote: bool = False) -> SipTarget:
    """``sip:[user@]host[:port][;params]`` → a `SipTarget`; one-line `PhoneError` naming the fix.

    Loopback only unless the operator allows an address (``allow_remote``):
    a typo must not ring a stranger's phone.
    """
    m = _URI.fullmatch(text.strip())
    if m is None:
        raise PhoneError(f"--via {shown(text)!r}: not a SIP URI; write sip:[user@]host[:port], "
                         "e.g. sip:agent@127.0.0.1:5070")
    if text.startswith("sips:"):
        raise PhoneError(f"--via {text!r}: sips: (SIP over TLS) is not supported yet; use sip:")
    port = int(m["port"] or 5060)
    if not 1 <= port <= 65535:
        raise PhoneError(f"--via {text!r}: port {port} is outside 1..65535")
    target = SipTarget(uri=text.strip(), user=m["user"], host=m["host"], port=port)
    if not target.loopback and not allow_remote:
        raise PhoneError(f"--via {text!r}: {target.host} is not on this machine; the phone leg calls loopback "
                         "addresses unless the model config sets `allow_remote: true`")
    return target


def codec_names(names: list[str]) -> list[str]:
    """The config's codec list as SDP names, in preference order (PCMU, PCMA, G722; aliases accepted)."""
    out: list[str] = []
    for n in names:
        key = CODEC_ALIASES.get(n.strip().lower(), n.strip().upper())
        if key not in CODECS:
            raise PhoneError(f"codec {n!r}: the phone leg offers {', '.join(CODECS)} (G.711 µ-law, A-law, G.722)")
        if key not in out:
            out.append(key)
    if not out:
        raise PhoneError("codecs: name at least one of " + ", ".join(CODECS))
    return out


def credentials() -> tuple[str, str] | None:
    """(user, password) from FLOORBENCH_SIP_USER / FLOORBENCH_SIP_PASSWORD, or None; one without the other is an error."""
    user, password = os.environ.get(USER_ENV), os.environ.get(PASSWORD_ENV)
    if not user and not password:
        return None
    if not (user and password):
        missing = PASSWORD_ENV if user else USER_ENV
        raise PhoneError(f"SIP credentials: {missing} is not set; set both {USER_ENV} and {PASSWORD_ENV}, or neither")
    return user, password
