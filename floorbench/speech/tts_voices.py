"""Service voices: a closed registry of named cloud voices, written by the operator, never by a file.

A voice id in a test file, a suite or a voice map is data (docs/testing.md "In
CI"): it names a local voice (``piper:``, ``flite:``, ``festival:``) or a
service voice by name, ``service:NAME``. It never names a module to import, a
URL or the variable that holds a key. What NAME means — the pipecat TTS
service, its parameters (an endpoint among them) and the environment variable
whose key it gets — is the operator's, in a voices file given on the command
line (``floorbench test|load --voices FILE``) or in FLOORBENCH_VOICES::

    # voices.yaml
    alloy:
      service: pipecat.services.openai.tts:OpenAITTSService   # a class under pipecat.services
      params: {settings.voice: alloy, settings.model: gpt-4o-mini-tts}
      api_key_env: OPENAI_API_KEY                               # optional; the key stays in the environment
    joe-pipecat:
      service: pipecat.services.piper.tts:PiperTTSService
      params: {settings.voice: en_US-joe-medium, download_dir: /opt/voices}

A file then says ``voice: service:alloy``. The key is read when the service
is built and goes only where the operator's entry points; it is never part
of a voice id, so it never lands in a suite, a cache key or a record. The
registry is read from the file FLOORBENCH_VOICES names (``--voices`` sets it,
so the render's worker processes read the same file).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from floorbench.errors import FloorbenchError
from floorbench.redact import is_env_name, names_a_secret

VOICES_ENV = "FLOORBENCH_VOICES"
"""the operator's voices file (``--voices`` sets it for the process and its workers)"""
NAME_RE = re.compile(r"[a-z0-9][a-z0-9_.\-]{0,63}")
"""a service voice's name: what a file may write after ``service:``"""
SERVICE_RE = re.compile(r"pipecat\.services(\.[A-Za-z_][A-Za-z0-9_]*)+:[A-Z][A-Za-z0-9_]*")
"""``pipecat.services.<module>:<Class>``: only pipecat's own TTS services are built"""
ENTRY_KEYS = ("service", "params", "api_key_env", "api_key_arg")
MAX_ENTRIES = 256


class VoicesError(FloorbenchError, ValueError):
    """The voices file, or a service voice's name, cannot be used; one line naming the fix."""


@dataclass(frozen=True)
class ServiceVoice:
    """One named entry of the operator's voices file."""

    name: str
    module: str
    cls: str
    params: dict[str, object] = field(default_factory=dict)
    api_key_env: str | None = None
    api_key_arg: str = "api_key"

    def fingerprint(self) -> str:
        """What the rendered audio depends on (service, parameters), for cache keys; no key in it."""
        text = json.dumps([self.module, self.cls, self.params], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def check_name(name: str) -> str:
    """`name` if it is a service voice's name (``alloy``, ``joe-pipecat``); else one `VoicesError` line."""
    if not NAME_RE.fullmatch(name):
        raise VoicesError("a service voice is named service:NAME (lower-case letters, digits, '.', '_', '-'); a "
                          "file never names a module, a URL or a key variable (the voice id is not shown)")
    return name


def read_voices(path: Path) -> dict[str, ServiceVoice]:
    """The operator's voices file, checked entry by entry (one-line `VoicesError`, naming the file and entry)."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise VoicesError(f"{path}: cannot read the voices file ({e.strerror}); check --voices / {VOICES_ENV}") from None
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        raise VoicesError(f"{path}: not a YAML voices file; write NAME: {{service: pipecat.services.…:Class, "
                          "params: {…}, api_key_env: VAR}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or len(data) > MAX_ENTRIES:
        raise VoicesError(f"{path}: write a mapping of at most {MAX_ENTRIES} voices, NAME: {{service: …}}")
    return {check_entry_name(path, k): _entry(path, str(k), v) for k, v in data.items()}


def check_entry_name(path: Path, name: object) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise VoicesError(f"{path}: voice name {str(name)[:40]!r}; use lower-case letters, digits, '.', '_', '-'")
    return name


def _entry(path: Path, name: str, raw: object) -> ServiceVoice:
    where = f"{path}: voice {name}"
    if not isinstance(raw, dict):
        raise VoicesError(f"{where}: write {{service: pipecat.services.MODULE:Class, params: {{…}}}}")
    for k in raw:
        if k not in ENTRY_KEYS:
            raise VoicesError(f"{where}: unknown key {str(k)[:40]!r}; use {', '.join(ENTRY_KEYS)}")
    service = raw.get("service")
    if not isinstance(service, str) or not SERVICE_RE.fullmatch(service):
        raise VoicesError(f"{where}: service must be a pipecat TTS service, pipecat.services.MODULE:Class (e.g. "
                          "pipecat.services.openai.tts:OpenAITTSService)")
    params = raw.get("params") or {}
    if not isinstance(params, dict):
        raise VoicesError(f"{where}: params must be a mapping of constructor arguments")
    for k, v in params.items():
        if not isinstance(k, str) or names_a_secret(k.removeprefix("settings.")):
            raise VoicesError(f"{where}: params {str(k)[:40]!r}: no key in the voices file; put it in an "
                              "environment variable and name that with api_key_env")
        if not isinstance(v, str | int | float | bool):
            raise VoicesError(f"{where}: params {k}: a text, number or true/false")
    env = raw.get("api_key_env")
    if env is not None and not is_env_name(env):
        raise VoicesError(f"{where}: api_key_env must be the NAME of an environment variable, not the key")
    arg = raw.get("api_key_arg", "api_key")
    if not isinstance(arg, str) or not arg.isidentifier():
        raise VoicesError(f"{where}: api_key_arg must be the constructor argument's name (default api_key)")
    module, _, cls = service.partition(":")
    return ServiceVoice(name, module, cls, dict(params), env, arg)


_cache: dict[tuple[str, int], dict[str, ServiceVoice]] = {}


def use_voices(path: Path | None) -> None:
    """``--voices FILE``: check it now (before anything is rendered) and make it this process's registry and
    its workers' (through FLOORBENCH_VOICES)."""
    if path is None:
        return
    resolved = Path(path).resolve()
    read_voices(resolved)
    os.environ[VOICES_ENV] = str(resolved)


def registry() -> dict[str, ServiceVoice]:
    """The operator's service voices ({} when no voices file is given)."""
    where = os.environ.get(VOICES_ENV)
    if not where:
        return {}
    path = Path(where)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        raise VoicesError(f"{VOICES_ENV}={where}: no such voices file; give the operator's voices file") from None
    key = (str(path), stamp)
    if key not in _cache:
        _cache[key] = read_voices(path)
    return _cache[key]


def service_voice(name: str) -> ServiceVoice:
    """The entry `name` names; one `VoicesError` line when there is none."""
    voices = registry()
    found = voices.get(check_name(name))
    if found is None:
        have = ", ".join(sorted(voices)[:10]) or "none: no voices file given"
        raise VoicesError(f"voice service:{name}: no such service voice (the operator's voices file has: {have}); "
                          f"give it with --voices FILE or {VOICES_ENV}, or use a local voice")
    return found
