"""Reading a `persona:` step of a test file (docs/callers.md): one line per problem, naming the fix.

A persona step hands the caller to an LLM for up to `max_turns` lines::

    persona_endpoint: {base_url: http://127.0.0.1:8088/v1, model: standin}   # file default (optional)
    tests:
      - name: fruit
        steps:
          - persona:
              goal: learn how many pieces of fruit you bought
              persona: a shopper who counts badly
              opening: Hi Aria. I bought three apples and two pears.
              end_when: the agent has told you the total
              max_turns: 4
              seed: 7
              barge_in: {chance: 0.0, after_ms: 1500}
              backchannel: {chance: 0.3, after_ms: 800, text: mm-hm}
              endpoint: {base_url: http://127.0.0.1:8088/v1, model: standin}
            voice: piper:joe          # beside it, as on every step: voice, gap_ms, wait_ms, label, expect
            expect: {goal_reached: true}

A test file is data (docs/testing.md "In CI"): it never names a key, the
variable that holds one (``api_key_env``, any ``*_env``), a header, or a URL
with credentials; each is refused in one line. No key is ever sent to the
`base_url` a file names: the operator binds a key to an endpoint on the
command line (``--persona-url URL --persona-key-env NAME``,
`persona_llm.PersonaBinding`), and that endpoint replaces the file's.
"""

from __future__ import annotations

from typing import Any

from floorbench.redact import names_a_secret, redact_url
from floorbench.suites.agent.rules import AgentRules
from floorbench.suites.agent.schema import Persona, PersonaEndpoint, PersonaTiming

RULES = AgentRules()
PERSONA_KEYS = ("goal", "persona", "opening", "end_when", "max_turns", "seed", "barge_in", "backchannel", "endpoint")
ENDPOINT_KEYS = ("base_url", "model", "timeout_s", "temperature", "max_tokens")
OPERATOR_BINDS = ("the operator binds a key to an endpoint on the command line: floorbench test --persona-url URL "
                  "--persona-key-env NAME (docs/testing.md, In CI)")
BARGE_IN_KEYS = ("chance", "after_ms")
BACKCHANNEL_KEYS = ("chance", "after_ms", "text")
STEP_OPTIONS = ("voice", "gap_ms", "wait_ms", "label", "expect")


class PersonaFormatError(ValueError):
    """One line: where, what is wrong, what to write (`persona` and `endpoint` raise the class they are
    given instead: the test file reader's `AgentTestError`)."""


def _keys(where: str, data: dict[Any, Any], allowed: tuple[str, ...], what: str) -> None:
    for k in data:
        if k not in allowed:
            raise PersonaFormatError(f"{where}: unknown key {k!r} {what}; use {', '.join(allowed)}")


def _text(where: str, name: str, value: object, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise PersonaFormatError(f"{where}: {name} must be a sentence (text); write it" + ("" if required else " or drop it"))
    return " ".join(value.split())


def _number(where: str, name: str, value: object, lo: float, hi: float, whole: bool = False) -> Any:
    ok = not isinstance(value, bool) and (isinstance(value, int) if whole else isinstance(value, int | float))
    if not ok or not lo <= value <= hi:  # type: ignore[operator]
        kind = "a whole number" if whole else "a number"
        raise PersonaFormatError(f"{where}: {name}={value!r}; use {kind} from {lo:g} to {hi:g}")
    return value


def url_credentials(url: str) -> bool:
    """Does `url` carry anything but scheme, host, port and path (user-info, a query, a fragment)?"""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return True
    return "@" in parts.netloc or bool(parts.query) or bool(parts.fragment) or "?" in url or "#" in url


def endpoint(where: str, raw: object, error: type[Exception] = PersonaFormatError) -> PersonaEndpoint:
    """An endpoint mapping (a step's `endpoint`, or the file's `persona_endpoint`)."""
    try:
        return _endpoint(where, raw)
    except PersonaFormatError as e:
        raise error(str(e)) from None


def _endpoint(where: str, raw: object) -> PersonaEndpoint:
    if not isinstance(raw, dict):
        raise PersonaFormatError(f"{where}: write endpoint: {{base_url: http://HOST:PORT/v1, model: NAME}}")
    for k in raw:
        if names_a_secret(k):  # the name is shown (a key name), never the value (it may be the key)
            raise PersonaFormatError(f"{where}: {str(k)[:40]!r}: a test file may not name a key or the variable "
                                     f"that holds one; drop it ({OPERATOR_BINDS})")
    _keys(where, raw, ENDPOINT_KEYS, "in a persona endpoint")
    url = raw.get("base_url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        shown = redact_url(url) if isinstance(url, str) else url
        raise PersonaFormatError(f"{where}: base_url {shown!r}; give the endpoint's http(s) URL, e.g. "
                                 "http://127.0.0.1:8088/v1 (…/chat/completions is added)")
    if url_credentials(url):
        raise PersonaFormatError(f"{where}: base_url {redact_url(url)!r} carries credentials (user-info, a query "
                                 f"or a fragment); a test file holds none: give http(s)://HOST:PORT/PATH ({OPERATOR_BINDS})")
    model = raw.get("model", "persona")
    if not isinstance(model, str) or not model.strip():
        raise PersonaFormatError(f"{where}: model must be the endpoint's model name")
    return PersonaEndpoint(
        base_url=url.rstrip("/"), model=model,
        timeout_s=float(_number(where, "timeout_s", raw.get("timeout_s", 10.0), 0.5, RULES.persona_llm_s)),
        temperature=float(_number(where, "temperature", raw.get("temperature", 0.0), 0, 2)),
        max_tokens=int(_number(where, "max_tokens", raw.get("max_tokens", 120), 1, 4096, whole=True)),
    )


def _timing(where: str, raw: object, keys: tuple[str, ...]) -> PersonaTiming:
    if not isinstance(raw, dict):
        raise PersonaFormatError(f"{where}: write {{{', '.join(f'{k}: …' for k in keys)}}}")
    _keys(where, raw, keys, "here")
    out = PersonaTiming(
        chance=float(_number(where, "chance", raw.get("chance", 0.0), 0, 1)),
        after_ms=int(_number(where, "after_ms", raw.get("after_ms", RULES.after_ms), 0, RULES.max_ms, whole=True)),
    )
    if "text" in keys:
        out.text = _text(where, "text", raw.get("text"), required=out.chance > 0)
    return out


def persona(where: str, raw: object, default_endpoint: object, voice: str,
            error: type[Exception] = PersonaFormatError) -> Persona:
    """A persona step's mapping, with the file's `persona_endpoint` if it gives none."""
    try:
        return _persona(where, raw, default_endpoint, voice)
    except PersonaFormatError as e:
        raise error(str(e)) from None


def _persona(where: str, raw: object, default_endpoint: object, voice: str) -> Persona:
    if not isinstance(raw, dict):
        raise PersonaFormatError(f"{where}: write persona: {{goal: TEXT, endpoint: {{base_url: URL, model: NAME}}}}")
    _keys(where, raw, PERSONA_KEYS, "in a persona (voice, gap_ms, wait_ms, label and expect go beside it)")
    goal = _text(f"{where}: goal", "goal", raw.get("goal"), required=True)
    assert goal is not None
    ep_raw = raw.get("endpoint", default_endpoint)
    if ep_raw is None:
        raise PersonaFormatError(f"{where}: no endpoint; add endpoint: {{base_url: URL, model: NAME}} here or "
                                 "persona_endpoint: at the top of the file (a local stand-in: "
                                 "`floorbench persona-standin --script FILE`)")
    return Persona(
        goal=goal, persona=_text(where, "persona", raw.get("persona")) or "",
        opening=_text(where, "opening", raw.get("opening")),
        end_when=_text(where, "end_when", raw.get("end_when")) or "",
        max_turns=int(_number(where, "max_turns", raw.get("max_turns", 6), 1, RULES.persona_turns, whole=True)),
        seed=int(_number(where, "seed", raw.get("seed", 0), 0, 2**31, whole=True)),
        barge_in=_timing(f"{where}: barge_in", raw.get("barge_in", {}), BARGE_IN_KEYS),
        backchannel=_timing(f"{where}: backchannel", raw.get("backchannel", {}), BACKCHANNEL_KEYS),
        endpoint=_endpoint(f"{where}: endpoint" if "endpoint" in raw else f"{where}: persona_endpoint", ep_raw),
        voice=voice,
    )
