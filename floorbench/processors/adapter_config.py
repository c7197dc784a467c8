"""Small config readers shared by the model adapters: one-line errors that name the item and the fix.

Secrets are read from the environment only, at the moment a model is built,
and never stored on the model's config (so `Model.card()` cannot leak them).
"""

from __future__ import annotations

import os
from typing import Any

from floorbench.processors.registry import ModelError


def get_str(config: dict[str, Any], key: str, model: str, default: str | None = None) -> str:
    value = config.get(key, default)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ModelError(f"model {model}: config needs `{key}`; set it in the model config file")
    if not isinstance(value, str):
        raise ModelError(f"model {model}: `{key}` must be a string, got {type(value).__name__}")
    return value


def get_int(
    config: dict[str, Any], key: str, model: str, default: int, choices: tuple[int, ...] | None = None
) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(f"model {model}: `{key}` must be an integer, got {value!r}")
    if choices and value not in choices:
        raise ModelError(f"model {model}: `{key}` must be one of {', '.join(map(str, choices))}, got {value}")
    return value


def get_float(config: dict[str, Any], key: str, model: str, default: float, minimum: float = 0.0) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise ModelError(f"model {model}: `{key}` must be a number ≥ {minimum}, got {value!r}")
    return float(value)


def secret_from_env(
    config: dict[str, Any], model: str, key: str = "api_key_env", required: bool = True
) -> str | None:
    """The secret named by ``config[key]`` (an env-var *name*), read from the environment.

    A literal key in the config (``api_key: sk-…``) is refused: configs get
    shared and recorded; keys belong in the environment.
    """
    for literal in ("api_key", "key", "token"):
        if config.get(literal):
            raise ModelError(
                f"model {model}: do not put `{literal}` in the config; "
                f"name the environment variable that holds it with `{key}`"
            )
    var = config.get(key)
    if not var:
        if required:
            raise ModelError(
                f"model {model}: config needs `{key}` (the environment variable holding the key)"
            )
        return None
    value = os.environ.get(str(var), "")
    if not value:
        if required:
            raise ModelError(f"model {model}: environment variable {var} is not set; export {var}=<your key>")
        return None
    return value


def ws_url(config: dict[str, Any], model: str, default: str | None = None) -> str:
    url = get_str(config, "url", model, default)
    if not url.startswith(("ws://", "wss://")):
        raise ModelError(f"model {model}: `url` must start with ws:// or wss://, got {url!r}")
    return url


def public_url(url: str) -> str:
    """A URL fit for a model card: no user-info, no query string (either may carry a key)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
