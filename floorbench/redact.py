"""One place that decides what a secret looks like, for everything floorbench writes or prints.

Run cards (``run.json``, ``meta.json``), judge settings (``scores.json``), error
messages and log lines all go through here, so a secret is removed the same
way wherever it would appear. Three rules, applied together:

- **by name**: a value under a key whose name contains one of `SECRET_NAMES`
  (``api_key``, ``token``, ``authorization``, ``cookie`` …) is replaced by
  `REDACTED`, whatever its shape (text, or every leaf of a mapping or list).
  Keys ending in ``_env`` are kept: they hold the *name* of an environment
  variable (``api_key_env: OPENAI_API_KEY``), which says where a key came from.
- **header maps**: every value of a mapping under a key named ``headers`` is
  replaced, whatever the header's name (``X-Goog-Api-Key``, ``Authorization``,
  a vendor's own); the header *names* stay, so a card says which were sent.
- **URLs**, wherever they appear (a config value, a message, a log line): the
  user-info (``user:pass@``) is replaced and *every* query value and the
  fragment are replaced, whatever the parameter's name (``?token=``, ``?key=``,
  ``?sig=``, ``?X-Amz-Signature=``: a name is no proof a value is harmless);
  the parameter names, host, port and path stay.

Free text also loses the credential after ``Bearer`` / ``Basic`` (a run of 8 or more
token characters, so prose such as "basic rules" is left alone).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

REDACTED = "<redacted>"

SECRET_NAMES: tuple[str, ...] = (
    "api_key", "apikey", "key", "secret", "token", "password", "passwd",
    "authorization", "auth", "bearer", "cookie", "credential", "signature",
)
"""a key whose lower-cased name contains one of these holds a secret"""

HEADER_MAPS = ("headers", "http_headers", "extra_headers", "additional_headers")
"""mappings whose every value is redacted (header values carry keys under any name)"""

_URL = re.compile(r"""[A-Za-z][A-Za-z0-9+.\-]*://[^\s'"<>`]+""")
_AUTH_SCHEME = re.compile(r"\b(Bearer|bearer|BEARER|Basic)\s+([A-Za-z0-9._~+/=\-]{8,})")


def is_secret_name(name: str, names: Iterable[str] = SECRET_NAMES) -> bool:
    """Does a key or header name say its value is a secret? (``*_env`` names never do.)"""
    low = str(name).lower()
    return not low.endswith("_env") and any(s in low for s in names)


def redact_url(url: str) -> str:
    """`url` with its user-info, every query value and its fragment replaced by `REDACTED`."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a malformed port or bracket: say nothing of it but the scheme
        return f"{url.split(':', 1)[0]}://{REDACTED}"
    if not parts.netloc and not parts.query and not parts.fragment:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    if "@" in parts.netloc:
        host = f"{REDACTED}@{host}"
    query = "&".join(_redact_pair(p) for p in parts.query.split("&")) if parts.query else ""
    fragment = REDACTED if parts.fragment else ""
    return urlunsplit(SplitResult(parts.scheme, host, parts.path, query, fragment))


def _redact_pair(pair: str) -> str:
    name, eq, _ = pair.partition("=")
    return f"{name}={REDACTED}" if eq else REDACTED


def redact_text(text: str, values: Iterable[str] = ()) -> str:
    """Free text (an error message, a log line) with URLs redacted, ``Bearer …`` removed,
    and every one of `values` (secrets known to the caller, e.g. an API key) replaced."""
    out = _URL.sub(lambda m: redact_url(m.group(0)), text)
    out = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
    for v in values:
        if v and len(v) >= 4:
            out = out.replace(v, REDACTED)
    return out


def redact(config: Any, names: Iterable[str] = SECRET_NAMES) -> Any:
    """A copy of a config (mappings, lists, scalars) with every secret replaced by `REDACTED`."""
    names = tuple(names)
    if isinstance(config, dict):
        out: dict[Any, Any] = {}
        for k, v in config.items():
            key = str(k)
            if key.lower().endswith("_env"):
                out[k] = v
            elif is_secret_name(key, names) or (key.lower() in HEADER_MAPS and isinstance(v, dict)):
                out[k] = _everything(v)
            else:
                out[k] = redact(v, names)
        return out
    if isinstance(config, list | tuple):
        return [redact(v, names) for v in config]
    if isinstance(config, str):
        return redact_text(config)
    return config


def _everything(value: Any) -> Any:
    """Every text leaf replaced (the value sits under a secret name or in a header map)."""
    if isinstance(value, dict):
        return {k: _everything(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_everything(v) for v in value]
    if isinstance(value, str | bytes) and value:
        return REDACTED
    return value
