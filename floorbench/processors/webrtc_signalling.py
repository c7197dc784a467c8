"""How the `webrtc` bridge hands its SDP offer to a product and gets the answer: three styles.

- ``pipecat``: a pipecat bot serving ``SmallWebRTCTransport`` (its runner's
  ``POST /api/offer``). As pipecat's own clients do: POST JSON ``{sdp, type}``
  (plus ``requestData`` when configured; for a bot on loopback it also carries
  the trial's mock tools, ``tools_url`` and ``mcp_url``), read ``{sdp, type, pc_id}``; open a
  data channel, say the microphone track is on (``trackStatus``) and send a
  ``ping`` every second (the bot judges the client alive by them); answer the
  bot's ``renegotiate`` request with a new offer carrying ``pc_id``; the bot's
  ``peerLeft`` is the connection lost.
- ``whip``: RFC 9725. POST the offer as ``application/sdp`` with
  ``Authorization: Bearer <key>`` when a key is configured; the answer comes
  with ``201 Created`` and a ``Location`` (the session's resource), which is
  DELETEd when the scenario ends (with the key only if it is on the offer URL's
  origin; every redirect drops credentials across origins: floorbench.safe_http).
- ``openai``: the Realtime API's WebRTC call flow. POST ``multipart/form-data``
  (``sdp``, ``session`` = ``{type: realtime, model}``) with the key as a bearer
  token; the answer is ``application/sdp`` (201, ``Location`` names the call).
  The session's settings go as one ``session.update`` on the ``oai-events``
  data channel once it opens; the service's ``error`` events are errors.

Every failure is a `SignallingFailed` with one line that says what happened
and the fix; URLs in it are cut to scheme, host, port and path.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit

from loguru import logger

from floorbench import safe_http
from floorbench.processors.adapter_config import public_url
from floorbench.redact import redact_text
from floorbench.tools.env import MCP_URL_ENV, TOOLS_URL_ENV
from floorbench.transports.loopback import is_loopback_host

OPENAI_CALLS_URL = "https://api.openai.com/v1/realtime/calls"


class SignallingFailed(Exception):
    """The offer/answer exchange failed; `kind` is one of "unreachable", "no_answer", "http", "bad_answer"."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


Report = Callable[[str], Awaitable[None]]


class Signalling:
    """Base of the styles: one HTTP session, the offer POST and its failures, hooks for data channels."""

    style: ClassVar[str] = ""

    def __init__(
        self,
        url: str,
        *,
        key: str | None = None,
        key_env: str | None = None,
        headers: dict[str, str] | None = None,
        timeout_s: float = 10.0,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.url = url
        self.public = public_url(url)
        self.key = key
        self.key_env = key_env
        self.headers = dict(headers or {})
        self.timeout_s = timeout_s
        self.options = dict(options or {})
        self.pc: Any = None
        self.http: Any = None
        self.on_lost: Report | None = None
        """the bridge's: the product said it is gone"""
        self.on_error: Report | None = None
        """the bridge's: the product reported an error"""
        self._tasks: list[asyncio.Task] = []

    def auth(self) -> dict[str, str]:
        h = dict(self.headers)
        if self.key:
            h["Authorization"] = f"Bearer {self.key}"
        return h

    def prepare(self, pc: Any) -> None:
        """Before the offer: data channels the style needs."""
        self.pc = pc

    async def exchange(self, sdp: str) -> str:
        """The product's SDP answer to our offer `sdp`."""
        raise NotImplementedError

    async def close(self) -> None:
        for t in self._tasks:
            t.cancel()
        if self.http is not None:
            await self.http.close()

    async def post(self, data: Any, content_type: str | None, expect: tuple[int, ...]) -> tuple[str, Any]:
        """POST the offer; (body text, response headers) or SignallingFailed naming the fix."""
        import aiohttp

        if self.http is None:
            self.http = aiohttp.ClientSession()
        headers = self.auth()
        if content_type:
            headers["Content-Type"] = content_type
        try:
            async with asyncio.timeout(self.timeout_s):
                async with safe_http.request(self.http, "POST", self.url, data=data, headers=headers) as resp:
                    body = await resp.text()
                    status, resp_headers = resp.status, resp.headers
        except TimeoutError:
            raise SignallingFailed(
                "no_answer",
                f"no answer to the WebRTC offer from {self.public} within {self.timeout_s:g} s; "
                f"check that the product is running and `url` is its {self.style} offer endpoint",
            ) from None
        except safe_http.RedirectError as e:
            raise SignallingFailed("http", f"{self.public} redirected the WebRTC offer badly ({e}); fix `url`") from None
        except aiohttp.ClientError as e:
            raise SignallingFailed(
                "unreachable",
                f"cannot reach {self.public} ({type(e).__name__}: {e}); start the product or fix `url`",
            ) from None
        if status not in expect:
            raise SignallingFailed("http", self.http_error(status, body))
        return body, resp_headers

    def http_error(self, status: int, body: str) -> str:
        said = redact_text(" ".join(body.split())[:160])  # a 401 body may echo the key, masked or whole
        what = f"{self.public} refused the WebRTC offer: HTTP {status}" + (f" ({said})" if said else "")
        if status in (401, 403):
            where = f"the key in {self.key_env}" if self.key_env else "`api_key_env` (no key was sent)"
            return f"{what}; check {where}"
        if status in (404, 405):
            return f"{what}; fix `url`: it is not the product's {self.style} offer endpoint"
        return f"{what}; check the product's log"

    def spawn(self, coro: Any) -> None:
        self._tasks.append(asyncio.get_running_loop().create_task(coro))


def tools_for_bot(offer_url: str) -> dict[str, str]:
    """The trial's mock tools for a bot on this machine (``tools_url``, ``mcp_url``); none for one elsewhere.

    A bot outside loopback could not reach the mock on 127.0.0.1 anyway, and its
    URLs are no business of a remote service: such a bot gets them through
    ``--print-join`` or its own configuration.
    """
    base = os.environ.get(TOOLS_URL_ENV)
    if not base or not is_loopback_host(urlsplit(offer_url).hostname or ""):
        return {}
    return {"tools_url": base, "mcp_url": os.environ.get(MCP_URL_ENV) or base + "/mcp"}


def _answer_sdp(text: str, where: str, style: str) -> str:
    if not text.lstrip().startswith("v=0"):
        raise SignallingFailed(
            "bad_answer", f"{where} answered the offer without SDP; check that `signalling: {style}` fits the product"
        )
    return text


class PipecatSignalling(Signalling):
    """A SmallWebRTC bot's offer endpoint (module docstring)."""

    style = "pipecat"
    PING_S = 1.0

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.pc_id: str | None = None
        self.channel: Any = None

    def prepare(self, pc: Any) -> None:
        super().prepare(pc)
        channel = self.channel = pc.createDataChannel("chat", ordered=True)

        @channel.on("open")
        def _open() -> None:
            track_on = {"type": "trackStatus", "receiver_index": 0, "enabled": True}
            channel.send(json.dumps({"type": "signalling", "message": track_on}))
            self.spawn(self._ping())

        @channel.on("message")
        def _message(message: Any) -> None:
            self.spawn(self._on_message(message))

    async def _ping(self) -> None:
        import time

        while self.channel is not None and self.channel.readyState == "open":
            self.channel.send(f"ping: {int(time.time() * 1000)}")
            await asyncio.sleep(self.PING_S)

    async def _on_message(self, message: Any) -> None:
        try:
            event = json.loads(message)
        except (TypeError, ValueError):
            return
        if not isinstance(event, dict) or event.get("type") != "signalling":
            return
        kind = (event.get("message") or {}).get("type")
        if kind == "renegotiate":
            await self._renegotiate()
        elif kind == "peerLeft" and self.on_lost is not None:
            await self.on_lost(f"the bot at {self.public} left the call (peerLeft)")

    def _body(self, sdp: str) -> dict[str, Any]:
        body: dict[str, Any] = {"sdp": sdp, "type": "offer"}
        if self.pc_id:
            body.update(pc_id=self.pc_id, restart_pc=False)
        data = self.options.get("request_data")
        tools = tools_for_bot(self.url)
        if tools and (data is None or isinstance(data, dict)):
            data = {**tools, **(data or {})}  # the configured request data wins
        if data is not None:
            body["requestData"] = data
        return body

    async def exchange(self, sdp: str) -> str:
        text, _ = await self.post(json.dumps(self._body(sdp)), "application/json", (200, 201))
        try:
            answer = json.loads(text)
            sdp_answer = str(answer["sdp"])
        except (ValueError, KeyError, TypeError):
            raise SignallingFailed(
                "bad_answer",
                f"{self.public} answered without {{sdp, type}} JSON; "
                "check that it is a pipecat SmallWebRTC offer endpoint (`signalling: pipecat`)",
            ) from None
        self.pc_id = answer.get("pc_id") or self.pc_id
        return _answer_sdp(sdp_answer, self.public, self.style)

    async def _renegotiate(self) -> None:
        from aiortc import RTCSessionDescription

        try:
            await self.pc.setLocalDescription(await self.pc.createOffer())
            answer = await self.exchange(self.pc.localDescription.sdp)
            await self.pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        except SignallingFailed as e:
            if self.on_error is not None:
                await self.on_error(f"renegotiation failed: {e.reason}")
        except Exception as e:  # aiortc refusing the new description
            logger.warning(f"webrtc: renegotiation with {self.public} failed ({type(e).__name__}: {e})")


class WhipSignalling(Signalling):
    """RFC 9725 (module docstring)."""

    style = "whip"

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.resource: str | None = None

    async def exchange(self, sdp: str) -> str:
        text, headers = await self.post(sdp, "application/sdp", (201,))
        location = headers.get("Location")
        if not location:
            raise SignallingFailed(
                "bad_answer", f"{self.public} answered 201 without a Location header; it does not follow RFC 9725"
            )
        self.resource = urljoin(self.url, location)
        return _answer_sdp(text, self.public, self.style)

    async def close(self) -> None:
        if self.resource and self.http is not None:
            try:
                async with asyncio.timeout(3.0):
                    # the resource may sit on another origin: the key goes only where it was configured for
                    headers = safe_http.headers_for(self.resource, self.url, self.auth())
                    async with safe_http.request(self.http, "DELETE", self.resource, headers=headers) as resp:
                        logger.debug(f"webrtc: DELETE {public_url(self.resource)}: HTTP {resp.status}")
            except Exception as e:  # the session ends either way
                logger.debug(f"webrtc: DELETE {public_url(self.resource)} failed ({type(e).__name__})")
        await super().close()


class OpenAISignalling(Signalling):
    """The Realtime API's WebRTC call flow (module docstring)."""

    style = "openai"

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.call: str | None = None
        self.events: list[str] = []
        """event types the service sent on the data channel, in order (logged, tested)"""

    def prepare(self, pc: Any) -> None:
        super().prepare(pc)
        channel = pc.createDataChannel("oai-events", ordered=True)

        @channel.on("open")
        def _open() -> None:
            session = {"type": "realtime", **dict(self.options.get("session") or {})}
            channel.send(json.dumps({"type": "session.update", "session": session}))

        @channel.on("message")
        def _message(message: Any) -> None:
            self.spawn(self._on_message(message))

    async def _on_message(self, message: Any) -> None:
        try:
            event = json.loads(message)
        except (TypeError, ValueError):
            return
        if not isinstance(event, dict):
            return
        kind = str(event.get("type", ""))
        self.events.append(kind)
        if kind == "error" and self.on_error is not None:
            err = event.get("error") or {}
            said = err.get("message") if isinstance(err, dict) else err
            await self.on_error(f"the service reported an error: {said}; check `session` in the model config")

    async def exchange(self, sdp: str) -> str:
        import aiohttp

        session = {"type": "realtime", "model": str(self.options.get("model") or "gpt-realtime")}
        form = aiohttp.MultipartWriter("form-data")  # two plain fields, as `curl -F sdp=<offer.sdp -F session=…`
        for name, value in (("sdp", sdp), ("session", json.dumps(session))):
            form.append(value).set_content_disposition("form-data", name=name)
        text, headers = await self.post(form, None, (200, 201))
        self.call = headers.get("Location")
        return _answer_sdp(text, self.public, self.style)


STYLES: dict[str, type[Signalling]] = {
    "pipecat": PipecatSignalling,
    "whip": WhipSignalling,
    "openai": OpenAISignalling,
}
