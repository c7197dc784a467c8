"""Model settings as typed records: one pydantic model per adapter, read once from its config mapping.

Every adapter declares its settings here or next to it as an `AdapterSettings`
subclass: each key, its type, its bounds and its default live in one place,
and a key nobody declared (``vad.onset`` for ``vad.onset_ms``) is refused
with one line that names the key, the model and the keys that exist, instead
of being silently ignored.

Secrets are read from the environment only, at the moment a model is built,
and never stored on the settings (so `Model.card()` cannot leak them).
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Self, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from floorbench.errors import FloorbenchError
from floorbench.redact import HEADER_MAPS, is_env_name, is_secret_name, redact, redact_url


class ModelError(FloorbenchError, ValueError):
    """A model cannot be created: unknown name, missing extra, missing key, bad config."""


Ms = Annotated[int, Field(ge=0, strict=True)]
"""a whole number of milliseconds (an int, not a bool or a float)"""
Seconds = Annotated[float, Field(ge=0.0)]

NOT_A_NAME = (
    "must name an environment variable (OPENAI_API_KEY: letters, digits, _), not hold a key; "
    "the value is not shown, as it may be one"
)
HIDDEN = "(not shown: it may hold a secret)"
"""what an error line says instead of a rejected value under a secret-like key"""

LITERAL_SECRET_KEYS = ("api_key", "key", "token")
"""keys that would hold a secret in the config itself; refused, the environment holds secrets"""


class Settings(BaseModel):
    """A block of settings: every key declared, frozen once read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def load(cls, config: dict[str, Any], model: str, where: str = "") -> Self:
        """The settings in `config`, or one ModelError line naming the key and the model (and `where`)."""
        try:
            return cls.model_validate(config)
        except ValidationError as err:
            prefix = f"{where}: " if where else ""
            raise ModelError(f"{prefix}model {model}: {_error_line(cls, err)}") from None


class AdapterSettings(Settings):
    """The keys every model config may carry, whatever its adapter."""

    adapter: str | None = None
    """the adapter's name, as a config file names it (``adapter: cascade``)"""
    class_: str | None = Field(default=None, alias="class")
    """``package.module:ClassName`` of a model outside floorbench"""
    identity: str | None = None
    """the model's participant identity in the room (default ``model``)"""
    pass_env: list[str] = Field(default_factory=list)
    """more environment variables the model's child process gets (names only; see docs/systems-under-test.md)"""

    @field_validator("pass_env")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        if not all(is_env_name(n) for n in names):
            raise ValueError(NOT_A_NAME)
        return names


class OpenSettings(AdapterSettings):
    """For a user's own model that declares no settings: any key is kept for it in `Model.config`."""

    model_config = ConfigDict(extra="allow", frozen=True)


class KeyFromEnv(Settings):
    """Settings that may need a key: they name the environment variable that holds it."""

    api_key_env: str | None = None
    """the environment variable holding the key (its *name*, recorded; never the key)"""

    @field_validator("api_key_env")
    @classmethod
    def _a_name(cls, name: str | None) -> str | None:
        if name is not None and not is_env_name(name):
            raise ValueError(NOT_A_NAME)
        return name

    @model_validator(mode="before")
    @classmethod
    def _no_literal_key(cls, data: Any) -> Any:
        # configs get shared and recorded; keys belong in the environment
        if isinstance(data, dict):
            for literal in LITERAL_SECRET_KEYS:
                if data.get(literal):
                    raise ValueError(
                        f"do not put `{literal}` in the config; "
                        "name the environment variable that holds it with `api_key_env`"
                    )
        return data

    def api_key(self, model: str, required: bool = True) -> str | None:
        """The key from the environment variable `api_key_env` names; None when optional and absent."""
        var = self.api_key_env
        if not var:
            if required:
                raise ModelError(
                    f"model {model}: config needs `api_key_env` (the environment variable holding the key)"
                )
            return None
        value = os.environ.get(var, "")
        if not value and required:
            raise ModelError(f"model {model}: environment variable {var} is not set; export {var}=<your key>")
        return value or None


class WebSocketEndpoint(Settings):
    """A server reached over one WebSocket."""

    url: str = Field(default="", validate_default=True)
    connect_timeout_s: Seconds = 10.0

    @field_validator("url")
    @classmethod
    def _ws_url(cls, url: str) -> str:
        if not url.strip():
            raise ValueError("is needed; set it in the model config file (ws://HOST:PORT/PATH)")
        if not url.startswith(("ws://", "wss://")):
            raise ValueError(f"must start with ws:// or wss://, got {redact_url(url)!r}")
        return url


def public_url(url: str) -> str:
    """A URL fit for a model card: no user-info, no query string (either may carry a key)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


# --- one line per validation error -------------------------------------------------

_MEANING = {
    "dict_type": "must be a mapping",
    "model_type": "must be a mapping",
    "model_attributes_type": "must be a mapping",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "too_short": "must not be empty",
    "string_pattern_mismatch": "must not be blank",  # every pattern here is r"\S"
}


def _error_line(cls: type[BaseModel], err: ValidationError) -> str:
    """The first pydantic error as ``key: what is wrong; the fix``."""
    e = err.errors()[0]
    loc = [str(x) for x in e["loc"]]
    key = ".".join(loc)
    kind, ctx = e["type"], e.get("ctx") or {}
    if kind == "extra_forbidden":
        known = ", ".join(_keys_at(cls, loc[:-1])) or "none"
        return f"unknown key `{key}`; remove or rename it (known here: {known})"
    if kind == "missing":
        return f"config needs `{key}`; set it in the model config file"
    if kind == "value_error":
        reason = str(ctx.get("error", e["msg"].removeprefix("Value error, ")))
        return f"`{key}` {reason}" if key else reason
    got = _got(loc, e.get("input"))
    if kind == "literal_error":
        return f"`{key}` must be one of {ctx.get('expected', '?').replace(' or ', ', ')}, got {got}"
    for bound, word in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
        if bound in ctx:
            return f"`{key}` must be {word} {ctx[bound]}, got {got}"
    meaning = _MEANING.get(kind, e["msg"].lower().removeprefix("input "))
    return f"`{key}` {meaning}, got {got}"


def secret_like_key(loc: list[str]) -> bool:
    """Does a config key path lead through a key whose value may be a secret (or name one)?"""
    return any(is_secret_name(p) or p.lower() in HEADER_MAPS or p.lower().endswith("_env") for p in loc)


def _got(loc: list[str], value: Any) -> str:
    """The rejected value as an error line may quote it: never under a secret-like key, else redacted and short."""
    if secret_like_key(loc):
        return HIDDEN
    shown = repr(redact(value))
    return shown if len(shown) <= 120 else shown[:117] + "..."


def _keys_at(cls: type[BaseModel], loc: list[str]) -> list[str]:
    """The keys a settings block declares, `loc` levels down from `cls`."""
    for part in loc:
        field = cls.model_fields.get(part)
        inner = _settings_class(field.annotation) if field is not None else None
        if inner is None:
            return []
        cls = inner
    return [f.alias or name for name, f in cls.model_fields.items()]


def _settings_class(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):  # Block | None
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None
