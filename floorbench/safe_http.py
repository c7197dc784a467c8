"""HTTP that never carries a credential to another origin, for every client floorbench runs.

A key sent in a request header (``Authorization: Bearer …``, ``api-key``,
``X-Api-Key``, a vendor's own) is meant for the server it was configured for.
A redirect (or a resource URL the server names, as WHIP's ``Location``) may
point anywhere; following it with the same headers hands the key to whoever
that is. Here a request keeps its credential headers only while the scheme,
host and port stay those of the URL it was configured with; on the first
step to another origin they are dropped (and stay dropped: a later redirect
back does not restore them).

- `opener()` / `urlopen()`: urllib with a redirect handler that does this
  (the LLM judge, the LLM scenario generator, any urllib client);
- `request()`: the same for an aiohttp session (redirects followed here, not
  by aiohttp, so headers of any name are covered);
- `same_origin`, `without_credentials`: for a client that builds the next URL
  itself (the WHIP session's DELETE).

Which headers are credentials: `CREDENTIAL_HEADERS` and any name
`floorbench.redact.is_secret_name` calls secret (``*key*``, ``*token*``, ``*auth*`` …).

Which key goes to which endpoint is the operator's word, never a file's
(docs/testing.md "In CI"): `KeyBinding` is an endpoint URL and the name of
the environment variable whose key goes with it, both from the command line
(or the operator's environment), checked before anything runs. The persona's
(`PERSONA`) is the first; a dispatch worker takes its own from its command
line, never from a job.
"""

from __future__ import annotations

import contextlib
import os
import urllib.request
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit

from floorbench.redact import is_env_name, is_secret_name, redact_url

CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "api-key", "x-api-key"})
DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}
REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10


class RedirectError(OSError):
    """More redirects than `MAX_REDIRECTS`, or one without a Location."""


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of `url`, lower-cased, the scheme's default port filled in."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1  # a malformed port matches nothing
    return scheme, (parts.hostname or "").lower(), port if port is not None else DEFAULT_PORTS.get(scheme)


def same_origin(a: str, b: str) -> bool:
    return origin(a) == origin(b)


def is_credential_header(name: str) -> bool:
    return name.lower() in CREDENTIAL_HEADERS or is_secret_name(name)


def without_credentials(headers: Mapping[str, str] | None) -> dict[str, str]:
    """`headers` without any credential header."""
    return {k: v for k, v in (headers or {}).items() if not is_credential_header(k)}


def headers_for(url: str, configured_for: str, headers: Mapping[str, str] | None) -> dict[str, str]:
    """The headers to send to `url`: all of them at `configured_for`'s origin, none of the credentials elsewhere."""
    return dict(headers or {}) if same_origin(url, configured_for) else without_credentials(headers)


class CredentialSafeRedirectHandler(urllib.request.HTTPRedirectHandler):
    """urllib's redirect handler, minus the credential headers on a step to another origin."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and not same_origin(req.full_url, new.full_url):
            for name in [h for h in new.headers if is_credential_header(h)]:
                del new.headers[name]
            for name in [h for h in new.unredirected_hdrs if is_credential_header(h)]:
                del new.unredirected_hdrs[name]
        return new


def opener() -> urllib.request.OpenerDirector:
    """A urllib opener whose redirects drop credentials across origins."""
    return urllib.request.build_opener(CredentialSafeRedirectHandler)


def urlopen(req: urllib.request.Request | str, timeout: float) -> Any:
    """`urllib.request.urlopen`, with redirects that drop credentials across origins."""
    return opener().open(req, timeout=timeout)


def next_step(method: str, status: int, url: str, location: str | None,
              headers: Mapping[str, str]) -> tuple[str, str, dict[str, str], bool] | None:
    """Where a redirect leads: (method, url, headers, keep the body), or None when `status` is no redirect.

    As browsers and urllib do: 303 (and 301/302 after a POST) become a GET without
    a body; 307/308 repeat the request. Credential headers go only to the same origin.
    """
    if status not in REDIRECTS:
        return None
    if not location:
        raise RedirectError(f"HTTP {status} without a Location header")
    target = urljoin(url, location)
    keep_body = status in (307, 308) or (status in (301, 302) and method.upper() not in ("POST",))
    new_method = method if keep_body or method.upper() == "HEAD" else "GET"
    sent = dict(headers) if same_origin(url, target) else without_credentials(headers)
    if not keep_body:
        sent = {k: v for k, v in sent.items() if k.lower() not in ("content-type", "content-length")}
    return new_method, target, sent, keep_body


@contextlib.asynccontextmanager
async def request(session: Any, method: str, url: str, *, headers: Mapping[str, str] | None = None,
                  max_redirects: int = MAX_REDIRECTS, **kwargs: Any) -> AsyncIterator[Any]:
    """``async with request(session, "POST", url, headers=…, data=…) as resp``: an aiohttp request
    whose redirects are followed here, credential headers dropped on the first step to another origin."""
    sent = dict(headers or {})
    for _ in range(max_redirects + 1):
        resp = await session.request(method, url, headers=sent, allow_redirects=False, **kwargs)
        try:
            step = next_step(method, resp.status, url, resp.headers.get("Location"), sent)
        except BaseException:
            resp.release()
            raise
        if step is None:
            try:
                yield resp
            finally:
                resp.release()
            return
        resp.release()
        method, url, sent, keep_body = step
        if not keep_body:
            kwargs.pop("data", None)
            kwargs.pop("json", None)
    raise RedirectError(f"more than {max_redirects} redirects")


def websocket_connect(url: str, headers: Mapping[str, str] | None = None, **kwargs: Any) -> Any:
    """``await websocket_connect(url, headers, …)``: websockets' client `connect`, whose redirects drop
    every credential header across origins (websockets itself drops only Authorization and Cookie)."""
    from websockets.asyncio.client import connect

    class _Connect(connect):  # type: ignore[misc]
        def process_redirect(self, exc: Exception) -> Exception | str:
            before = self.uri
            after = super().process_redirect(exc)
            if isinstance(after, str) and not same_origin(before, after) and self.additional_headers is not None:
                from websockets.datastructures import Headers

                self.additional_headers = Headers(
                    (k, v) for k, v in Headers(self.additional_headers).raw_items() if not is_credential_header(k)
                )
            return after

    return _Connect(url, additional_headers=dict(headers) if headers else None, **kwargs)


class BindingError(ValueError):
    """The operator's endpoint/key options cannot be used; one line naming the option and the fix."""


@dataclass(frozen=True)
class BindingNames:
    """The options and variables of one binding (`PERSONA`)."""

    url_option: str
    key_option: str
    url_env: str
    """the operator's environment's URL when no option gives one"""
    key_env: str
    """the fixed variable whose key goes to the bound URL when no option names one"""
    prefix: str
    """its schedule options: ``<prefix>_url``, ``<prefix>_key_env``"""


PERSONA = BindingNames("--persona-url", "--persona-key-env", "FLOORBENCH_PERSONA_URL", "FLOORBENCH_PERSONA_KEY",
                       "persona")


@dataclass(frozen=True)
class KeyBinding:
    """An endpoint and the variable whose key goes to it, bound by the operator (None: not bound)."""

    url: str | None = None
    key_env: str | None = None
    names: ClassVar[BindingNames] = PERSONA

    @classmethod
    def of(cls, url: str | None, key_env: str | None, environ: Mapping[str, str] | None = None) -> Any:
        """From the options (else the operator's environment), checked: one-line `BindingError`s. A key
        variable without a URL is refused: a key goes only to an endpoint named on the command line."""
        n, env = cls.names, os.environ if environ is None else environ
        where = n.url_option
        if not url:
            url, where = env.get(n.url_env) or None, n.url_env
        if url is not None and not _http_url(url):
            raise BindingError(f"{where} {redact_url(url)!r}: give an http(s) URL such as http://127.0.0.1:8088/v1")
        if key_env is not None:
            if not is_env_name(key_env):
                raise BindingError(f"{n.key_option} must be the NAME of an environment variable (letters, digits, "
                                   "_), not the key itself (the value is not shown)")
            if url is None:
                raise BindingError(f"{n.key_option} needs {n.url_option}: a key goes only to the endpoint you name "
                                   "on the command line, never to one a file names")
            if not env.get(key_env):
                raise BindingError(f"{n.key_option} {key_env}: that variable is not set; export {key_env}=<the "
                                   "endpoint's key>")
        elif url is not None and env.get(n.key_env):
            key_env = n.key_env
        return cls(url.rstrip("/") if url else None, key_env)

    def options(self) -> dict[str, str]:
        """As schedule options (``<prefix>_url``, ``<prefix>_key_env``)."""
        p = self.names.prefix
        return {k: v for k, v in ((f"{p}_url", self.url), (f"{p}_key_env", self.key_env)) if v}

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> Any:
        """Back from the schedule options the command line set (a variable without a URL is dropped)."""
        p = cls.names.prefix
        url, key_env = options.get(f"{p}_url"), options.get(f"{p}_key_env")
        url = url if isinstance(url, str) and _http_url(url) else None
        return cls(url, key_env if isinstance(key_env, str) and is_env_name(key_env) and url else None)


def _http_url(url: str) -> bool:
    from urllib.parse import urlsplit

    if not url.startswith(("http://", "https://")):
        return False
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        return False
    return bool(parts.hostname)
