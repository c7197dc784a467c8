"""`pipecat-service`: any pipecat speech-to-speech (realtime) service as the system under test.

The service is chosen and configured by YAML; nothing is special-cased per
provider beyond the alias table below (import path, extra, key parameter, and
whether the service needs a context to start listening):

    adapter: pipecat-service
    service: openai-realtime            # an alias below, or "package.module:ClassName"
    api_key_env: OPENAI_API_KEY         # the env var holding the key (never the key)
    settings:                           # → ServiceClass.Settings.from_mapping(...)
      model: gpt-realtime
    params: {}                          # other constructor keyword arguments
    system_prompt: null                 # optional text prompt, recorded in meta.json

Like every model, the service hears the spoken duty preamble as room audio: it
gets no scenario text. `system_prompt` is an optional *extra* text prompt (off
by default); when set it is passed as the service's system instruction and
written to the model card, so a run says exactly what the model was told.

Two small processors sit around the service:
- ``_ContextPrimer`` (before it, only when ``prime_context`` is true) pushes one
  empty ``LLMContext`` after the StartFrame: Gemini Live ignores audio until it
  has a context; OpenAI Realtime would instead start a response at once, so it
  is off there.
- ``_ServerTurnInterrupter`` (after it, ``interrupt_on_user_speech``, default on)
  turns the service's own "user started speaking" proposal into an
  ``InterruptionFrame`` downstream, which is what pipecat's user-turn strategy
  does in a deployed app: the audio already queued for playout is dropped when
  the provider's VAD hears the user. Without it, audio a provider streamed
  faster than real time would keep playing after the provider itself stopped.
- ``_ServiceLink`` (right after it) watches the service's connection, for the
  runner's "was the model listening?" check: pipecat services report a failed
  connect or a provider error as an ``ErrorFrame`` (which fails the scenario),
  but have no common "connected" event, so it looks at the connection object
  the service holds (``_websocket``: OpenAI, Azure, Grok, Inworld; ``_socket``:
  Ultravox; ``_session``: Gemini Live) and reports when it is up and when it
  goes away. A service class holding none of these is not watched: only its
  errors count.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from typing import Any

from pipecat.frames.frames import (
    Frame,
    InterruptionFrame,
    ProposedUserStartedSpeakingFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from floorbench.processors.adapter_config import AdapterSettings, KeyFromEnv, public_url
from floorbench.processors.registry import Model, ModelContext, ModelError


@dataclass(frozen=True)
class ServiceSpec:
    path: str
    """``module:Class`` of the pipecat service"""
    extra: str
    """floorbench extra that installs what the service imports"""
    api_key_param: str | None = "api_key"
    """constructor argument that takes the key (dotted: inside a params dict)"""
    prime_context: bool = False
    params_types: tuple[tuple[str, str], ...] = ()
    """constructor arguments that must be pydantic objects: (argument, ``module:Class``)"""


SERVICES: dict[str, ServiceSpec] = {
    "openai-realtime": ServiceSpec("pipecat.services.openai.realtime.llm:OpenAIRealtimeLLMService", "openai"),
    "openai-live": ServiceSpec("pipecat.services.openai.live.llm:OpenAILiveLLMService", "openai"),
    "azure-realtime": ServiceSpec("pipecat.services.azure.realtime.llm:AzureRealtimeLLMService", "openai"),
    "azure-voice-live": ServiceSpec(
        "pipecat.services.azure.voice_live.llm:AzureVoiceLiveLLMService", "openai"
    ),
    "gemini-live": ServiceSpec(
        "pipecat.services.google.gemini_live.llm:GeminiLiveLLMService", "google", prime_context=True
    ),
    "gemini-live-vertex": ServiceSpec(
        "pipecat.services.google.gemini_live.vertex.llm:GeminiLiveVertexLLMService",
        "google",
        api_key_param=None,
        prime_context=True,
    ),
    "grok-realtime": ServiceSpec("pipecat.services.xai.realtime.llm:GrokRealtimeLLMService", "openai"),
    "inworld-realtime": ServiceSpec(
        "pipecat.services.inworld.realtime.llm:InworldRealtimeLLMService", "openai"
    ),
    "ultravox": ServiceSpec(
        "pipecat.services.ultravox.llm:UltravoxRealtimeLLMService",
        "openai",
        api_key_param="params.api_key",
        params_types=(("params", "pipecat.services.ultravox.llm:OneShotInputParams"),),
    ),
}


def _import(path: str, extra: str, what: str) -> Any:
    mod_name, _, attr = path.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except Exception as e:  # pipecat services raise plain Exception for a missing SDK
        missing = getattr(e, "name", None) or str(e).removeprefix("Missing module: ")
        raise ModelError(
            f"model pipecat-service: {what} needs the '{extra}' extra ({missing}); "
            f"pip install 'floorbench[{extra}]'"
        ) from None
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise ModelError(f"model pipecat-service: {mod_name} has no {attr!r}; check `service`") from None


class _ContextPrimer(FrameProcessor):
    """Pushes one empty LLMContext after the StartFrame (see the module docstring)."""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            from pipecat.frames.frames import LLMContextFrame
            from pipecat.processors.aggregators.llm_context import LLMContext

            await self.push_frame(LLMContextFrame(context=LLMContext()))


class _ServerTurnInterrupter(FrameProcessor):
    """The provider heard the user start speaking → drop the model audio queued for playout."""

    def __init__(self) -> None:
        super().__init__()
        self.interruptions = 0

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, ProposedUserStartedSpeakingFrame) and direction == FrameDirection.DOWNSTREAM:
            self.interruptions += 1
            await self.push_frame(InterruptionFrame())


ERROR_HINT = "floorbench_error_hint"
"""attribute a processor may carry: the fix the model process adds to the processor's error reasons"""

LINK_ATTRIBUTES = ("_websocket", "_socket", "_session")
"""where pipecat's realtime services keep their connection (None while there is none)"""


def _link_attribute(service: Any) -> str | None:
    return next((a for a in LINK_ATTRIBUTES if hasattr(service, a)), None)


def _link_up(conn: Any) -> bool:
    """Is this connection object open? (a websockets connection has a `state`; others: not None)"""
    if conn is None:
        return False
    state = getattr(conn, "state", None)
    return state is None or getattr(state, "name", "OPEN") == "OPEN"


class _ServiceLink(FrameProcessor):
    """Reports when the service's connection is up and when it drops (module docstring)."""

    reports_connection: bool = True
    poll_s: float = 0.05
    end_grace_s: float = 2.0
    """how long a closed connection waits for the pipeline's end before it is reported: the service
    closes it on the EndFrame before passing the frame on to this link, so a shutdown looks like a drop
    until the frame arrives here (and cancels the watch)"""

    def __init__(self, service: Any, attribute: str) -> None:
        super().__init__(name=f"{getattr(service, 'name', 'service')}-link")
        self.service = service
        self.attribute = attribute
        self._task: asyncio.Task | None = None
        self._register_event_handler("on_model_connected")
        self._register_event_handler("on_model_disconnected")

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        from pipecat.frames.frames import CancelFrame, EndFrame

        await super().process_frame(frame, direction)
        if isinstance(frame, EndFrame | CancelFrame) and self._task is not None:
            await self.cancel_task(self._task)
            self._task = None
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame) and self._task is None:
            self._task = self.create_task(self._watch(), name=f"{self.name}-watch")

    async def _until(self, up: bool) -> None:
        """Poll the service's connection object (pipecat services signal no change of it)."""
        while True:
            if _link_up(getattr(self.service, self.attribute, None)) == up:
                return
            await asyncio.sleep(self.poll_s)

    async def _watch(self) -> None:
        await self._until(True)
        await self._call_event_handler("on_model_connected")
        await self._until(False)
        await asyncio.sleep(self.end_grace_s)  # an EndFrame or CancelFrame on its way cancels this
        await self._call_event_handler(
            "on_model_disconnected",
            f"{self.service.name}: the service's connection closed mid-scenario; "
            "see model.log for the provider's reason",
        )


class ServiceSettings(AdapterSettings, KeyFromEnv):
    """The `pipecat-service` config (module docstring)."""

    service: str | None = None
    """an alias of `SERVICES`, or ``package.module:ClassName``"""
    extra: str = "the provider's"
    """for a ``module:Class`` service: the floorbench extra that installs it (named in errors)"""
    api_key_param: str | None = "api_key"
    """the constructor argument taking the key (dotted: inside a params dict); not set: the alias's"""
    settings: dict[str, Any] | None = None
    """→ ServiceClass.Settings.from_mapping(...)"""
    params: dict[str, Any] | None = None
    """other constructor keyword arguments"""
    system_prompt: str | None = None
    prime_context: bool | None = None
    """push one empty context at start; not set: the alias's choice"""
    interrupt_on_user_speech: bool = True


class PipecatServiceModel(Model[ServiceSettings], name="pipecat-service"):
    """A pipecat realtime service, built from config (module docstring)."""

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        c = self.settings
        service = c.service
        if not service:
            raise ModelError(
                f"model {self.name}: config needs `service`: one of {', '.join(SERVICES)} "
                "or 'package.module:ClassName'"
            )
        if service in SERVICES:
            self.spec = SERVICES[service]
        elif ":" in service:
            self.spec = ServiceSpec(service, c.extra, api_key_param=c.api_key_param)
        else:
            raise ModelError(
                f"model {self.name}: unknown service {service!r}; use one of {', '.join(SERVICES)} "
                "or 'package.module:ClassName'"
            )
        self.service_alias = service
        self.system_prompt = c.system_prompt
        self.prime_context = self.spec.prime_context if c.prime_context is None else c.prime_context
        self.interrupt_on_user_speech = c.interrupt_on_user_speech
        # Import first: a missing extra is reported before a missing key.
        self.service_class = _import(self.spec.path, self.spec.extra, f"service {service!r}")
        key_param = c.api_key_param if "api_key_param" in c.model_fields_set else self.spec.api_key_param
        self._api_key = c.api_key(self.name, required=key_param is not None)
        self._key_param = key_param

    def build_service(self) -> FrameProcessor:
        """The service instance, configured; connects only when the pipeline starts."""
        c = self.settings
        kwargs: dict[str, Any] = dict(c.params or {})
        if self._key_param and self._api_key:
            head, _, tail = self._key_param.partition(".")
            if tail:
                kwargs[head] = {**dict(kwargs.get(head) or {}), tail: self._api_key}
            else:
                kwargs[head] = self._api_key
        for arg, type_path in self.spec.params_types:
            if isinstance(kwargs.get(arg), dict):
                kwargs[arg] = _import(type_path, self.spec.extra, arg)(**kwargs[arg])
        settings = dict(c.settings or {})
        if self.system_prompt:
            settings["system_instruction"] = self.system_prompt
        if settings:
            settings_cls = getattr(self.service_class, "Settings", None)
            if settings_cls is None:
                raise ModelError(f"model {self.name}: {self.spec.path} takes no `settings`; use `params`")
            kwargs["settings"] = settings_cls.from_mapping(settings)
        try:
            return self.service_class(**kwargs)
        except TypeError as e:
            raise ModelError(
                f"model {self.name}: {self.spec.path} rejected the config ({e}); fix `params`"
            ) from None

    def processors(self) -> list[FrameProcessor]:
        chain: list[FrameProcessor] = []
        if self.prime_context:
            chain.append(_ContextPrimer())
        service = self.build_service()
        # the provider's own error text names no fix: the model process adds this to each reason
        setattr(service, ERROR_HINT, self.error_hint())
        chain.append(service)
        attribute = _link_attribute(service)
        if attribute is not None:
            chain.append(_ServiceLink(service, attribute))
        if self.interrupt_on_user_speech:
            chain.append(_ServerTurnInterrupter())
        return chain

    def error_hint(self) -> str:
        key = f"the key in {self.settings.api_key_env}" if self.settings.api_key_env else "the key"
        return (
            f"check the service endpoint (`params`), {key} and the provider's status; "
            "model.log has the provider's words"
        )

    def card(self) -> dict[str, Any]:
        card = super().card()
        settings = dict(self.settings.settings or {})
        params = dict(self.settings.params or {})
        endpoint = params.get("base_url") or params.get("endpoint")
        try:
            import pipecat

            pipecat_version = getattr(pipecat, "__version__", None)
        except Exception:  # pragma: no cover
            pipecat_version = None
        card.update(
            service=self.service_alias,
            service_class=self.spec.path,
            model_id=settings.get("model") or params.get("model") or "service default",
            endpoint=public_url(endpoint) if isinstance(endpoint, str) else "service default",
            system_prompt=self.system_prompt,
            prime_context=self.prime_context,
            interrupt_on_user_speech=self.interrupt_on_user_speech,
            pipecat_version=pipecat_version,
        )
        return card
