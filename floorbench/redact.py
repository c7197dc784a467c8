"""One place that decides what a secret looks like, for everything floorbench writes or prints.

Run cards (``run.json``, ``meta.json``), judge settings (``scores.json``), error
messages and log lines all go through here, so a secret is removed the same
way wherever it would appear. Three rules, applied together:

- **by name**: a value under a key whose name contains one of `SECRET_NAMES`
  (``api_key``, ``token``, ``authorization``, ``cookie`` …) is replaced by
  `REDACTED`, whatever its shape (text, or every leaf of a mapping or list).
  Numbers count as values too (a PIN, a numeric key), except a number of
  tokens (``max_tokens: 512``). Keys ending in ``_env``
  are kept while they hold the *name* of an environment variable
  (``api_key_env: OPENAI_API_KEY``), which says where a key came from; a value
  that is no such name (a key pasted there by mistake) is replaced.
- **headers**: every value under a key named ``headers`` is replaced, whatever
  the header's name (``X-Goog-Api-Key``, ``Authorization``, a vendor's own) and
  whatever the shape (a mapping, a list of ``"Name: value"`` lines or of
  ``[name, value]`` pairs, one ``"Name: value"`` line); the header *names*
  stay, so a card says which were sent.
- **URLs**, wherever they appear (a config value, a message, a log line): the
  user-info (``user:pass@``) is replaced and *every* query value and the
  fragment are replaced, whatever the parameter's name (``?token=``, ``?key=``,
  ``?sig=``, ``?X-Amz-Signature=``: a name is no proof a value is harmless);
  the parameter names, host, port and path stay. ICE server URIs, which have
  no ``//`` (``turn:user:pass@host:3478``), lose their user-info the same way.

Free text also loses the credential after ``Bearer`` / ``Basic`` (a run of 8 or more
token characters, so prose such as "basic rules" is left alone), and every **key a
provider echoes**: a provider's 401 body names the key it was given, masked
(``sk-abc12***…wxyz``, ``sk-proj-****1234``, ``sk-abc12...wxyz``, ``AKIA••••ABCD``)
or whole. A word with a run of masking characters (``***``, ``•••``, ``xxxx``) or
an ellipsis between key characters, and a word that begins as keys do (``sk-``,
``AKIA``, ``ghp_``, ``xoxb-``, ``AIza`` …), is replaced whole: the characters a
mask leaves are still part of the key (and name which key was sent).
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
_ICE_URI = re.compile(r"""\b(turns?|stuns?):(?!//)([^\s'"<>`]+)""", re.IGNORECASE)
"""RFC 7064/7065 URIs: no authority part, so a pasted ``user:pass@`` sits in the path"""
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,127}|[a-z_][a-z_]{0,127}")
"""an environment variable's name as people write them: upper case (digits allowed) or lower case letters;
a key pasted where a name belongs (``sk-…``, mixed case, hex) is none"""
_AUTH_SCHEME = re.compile(r"\b(Bearer|bearer|BEARER|Basic)\s+([A-Za-z0-9._~+/=\-]{8,})")
_WORD = re.compile(r"""[^\s'"<>`,;()\[\]{}=]+""")
"""a word of free text, as a key is echoed: up to the next space, quote, bracket or ``=`` (``key=sk-…``)"""
_MASK_RUN = re.compile(r"[*\u2022\u25cf\u00b7#]{3,}|[xX]{4,}")
"""masking characters a provider puts where it hides the middle of a key: ***, •••, ●●●, ···, ###, xxxx"""
_ELLIPSIS = re.compile(r"[A-Za-z0-9_\-]{3,}(?:\.{2,}|\u2026)[A-Za-z0-9_\-]{3,}")
"""``sk-abc12...wxyz``, ``sk-abc12…wxyz``: key characters on both sides of an ellipsis"""
KEY_PREFIXES: tuple[str, ...] = (
    "sk-", "sk_", "pk-", "pk_", "rk_", "ak-", "key-", "AKIA", "ASIA", "ghp_", "gho_", "ghs_", "github_pat_",
    "glpat-", "xoxb-", "xoxp-", "xapp-", "AIza", "hf_", "gsk_", "pplx-", "r8_", "nvapi-", "fw_", "sess-",
)
"""how the keys of common providers begin (OpenAI, Anthropic, AWS, GitHub, GitLab, Slack, Google, Hugging Face,
Groq, Perplexity, Replicate, NVIDIA, Fireworks): a word that begins so and goes on is a key, masked or not"""


def is_secret_name(name: str, names: Iterable[str] = SECRET_NAMES) -> bool:
    """Does a key or header name say its value is a secret? (``*_env`` names never do.)"""
    low = str(name).lower()
    return not low.endswith("_env") and any(s in low for s in names)


def names_a_secret(key: object) -> bool:
    """Does a key of a *data* file (a test file, a suite, a job's settings) name a key, the variable holding
    one or a header: ``api_key``, ``token``, ``api_key_env``, any ``*_env``, ``headers``? Data may name none
    (docs/testing.md "In CI"): the operator binds keys on the command line."""
    low = str(key).lower()
    return low.endswith("_env") or low == "env" or "header" in low or is_secret_name(low)


def is_env_name(value: object) -> bool:
    """Is `value` the name of an environment variable (``OPENAI_API_KEY``, ``http_proxy``), not a key?"""
    return isinstance(value, str) and _ENV_NAME.fullmatch(value) is not None


def env_name_or_redacted(value: Any) -> Any:
    """A ``*_env`` value as recorded: names (or lists of names) kept, anything else `REDACTED`."""
    if value is None or is_env_name(value):
        return value
    if isinstance(value, list | tuple):
        return [env_name_or_redacted(v) for v in value]
    return REDACTED


def _redact_ice(m: re.Match[str]) -> str:
    rest = m.group(2)
    if "@" in rest:
        rest = f"{REDACTED}@{rest.rpartition('@')[2]}"
    head, sep, query = rest.partition("?")
    if sep:
        head += "?" + "&".join(_redact_pair(p) for p in query.split("&"))
    return f"{m.group(1)}:{head}"


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
    out = _ICE_URI.sub(_redact_ice, out)
    out = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
    out = _WORD.sub(_redact_word, out)
    for v in values:
        if v and len(v) >= 4:
            out = out.replace(v, REDACTED)
    return out


def looks_like_key(word: str) -> bool:
    """Is `word` a key as providers echo it: masked (a run of ``*``/``•``/``x``, or an ellipsis between key
    characters) or beginning as keys do (`KEY_PREFIXES`) with at least 6 more characters?"""
    if _MASK_RUN.search(word) and len(re.findall(r"[A-Za-z0-9]", _MASK_RUN.sub("", word))) >= 4:
        return True  # what the mask left of the key: a placeholder such as "xxxx" or "***" alone is no key
    if _ELLIPSIS.search(word) and (re.search(r"\d", word) or word.startswith(KEY_PREFIXES)):
        return True
    return any(word.startswith(p) and len(word) >= len(p) + 6 and re.search(r"[0-9*\u2022]", word[len(p):])
               for p in KEY_PREFIXES)


def _redact_word(m: re.Match[str]) -> str:
    word = m.group(0)
    if word == REDACTED or "://" in word:  # a URL is `redact_url`'s (already applied)
        return word
    core = word.rstrip(".:!?")  # the sentence's own stop after an echoed key ("…wxyz.")
    if core.endswith(("..", "\u2026")) and not core.rstrip(".\u2026"):
        return word
    tail = word[len(core):]
    if core.endswith("..") and _ELLIPSIS.search(core) is None:  # "Loading..." is prose, not a mask
        return word
    if looks_like_key(core):
        return REDACTED + tail
    if ":" in core:  # "api_key:sk-live-…", "key:AKIA…": each part on its own
        parts = [REDACTED if p and looks_like_key(p) else p for p in core.split(":")]
        return ":".join(parts) + tail
    return word


def redact_urls(text: str) -> str:
    """`text` with only its URLs redacted (`redact_url`, and ICE URIs' user-info): for data such as a
    caller's line, whose other words are the test's own and must stay as written."""
    return _ICE_URI.sub(_redact_ice, _URL.sub(lambda m: redact_url(m.group(0)), text))


def redact_strings(data: Any) -> Any:
    """A copy of `data` (mappings, lists, scalars) with `redact_urls` applied to every string, keys kept:
    for records written under OUT/ that hold data, not settings (a scenario, a step's text)."""
    if isinstance(data, dict):
        return {k: redact_strings(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact_strings(v) for v in data]
    return redact_urls(data) if isinstance(data, str) else data


def redact(config: Any, names: Iterable[str] = SECRET_NAMES) -> Any:
    """A copy of a config (mappings, lists, scalars) with every secret replaced by `REDACTED`."""
    names = tuple(names)
    if isinstance(config, dict):
        out: dict[Any, Any] = {}
        for k, v in config.items():
            key = str(k)
            if key.lower().endswith("_env"):
                out[k] = env_name_or_redacted(v)
            elif key.lower() in HEADER_MAPS:
                out[k] = _header_values(v)
            elif is_secret_name(key, names):
                out[k] = v if _is_count(key, v) else _everything(v)
            else:
                out[k] = redact(v, names)
        return out
    if isinstance(config, list | tuple):
        return [redact(v, names) for v in config]
    if isinstance(config, str):
        return redact_text(config)
    return config


def _everything(value: Any) -> Any:
    """Every text or number leaf replaced (the value sits under a secret name or in a header map)."""
    if isinstance(value, dict):
        return {k: _everything(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_everything(v) for v in value]
    if isinstance(value, bool) or value is None or value == "":
        return value  # says nothing of a secret
    return REDACTED  # text, bytes, a number (a PIN, a numeric key), anything else


def _is_count(name: str, value: Any) -> bool:
    """``max_tokens: 512``, ``max_output_tokens``: a number of tokens, not a token."""
    return "tokens" in name.lower() and isinstance(value, int | float) and not isinstance(value, bool)


def _header_values(value: Any) -> Any:
    """Headers in any shape, their names kept and every value replaced."""
    if isinstance(value, dict):
        return {k: _everything(v) for k, v in value.items()}
    if isinstance(value, str):
        name, colon, _ = value.partition(":")
        return f"{name}: {REDACTED}" if colon and name.strip() and " " not in name.strip() else _everything(value)
    if isinstance(value, list | tuple):
        out: list[Any] = []
        for item in value:
            if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str):
                out.append([item[0], _everything(item[1])])
            elif isinstance(item, dict) and "name" in item:  # [{name: Authorization, value: …}]
                out.append({k: v if k == "name" else _everything(v) for k, v in item.items()})
            else:
                out.append(_header_values(item))
        return out
    return _everything(value)
