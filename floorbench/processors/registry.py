"""The one registry of systems under test ("models"), created by name.

A model is a class with a `name`, built from a `ModelContext`. Two kinds:

- ``joins = "pipeline"``: floorbench joins it to the room through a pipecat
  chain ``LiveKitTransport.input() → model.processors() → LiveKitTransport.output()``,
  in a child process of its own (so that a crashing model loses one scenario);
- ``joins = "external"``: the system joins the room by itself (a LiveKit Agents
  worker, a browser, a product); floorbench only waits for it.

Built-ins are listed here by import path and imported only when asked for, so
that an optional backend (OpenAI, Gemini, Moshi …) costs nothing until used.
A user's own model registers with `register_model`, is named in a config as
``class: "package.module:ClassName"``, or is installed by a distribution that
declares it in the entry point group ``floorbench.models``
(``name = "package.module:ClassName"``, `floorbench.plugins.MODEL_ENTRY_POINT_GROUP`),
read the first time a model is asked for and imported only when that model is.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, cast, get_args, get_origin

from typing_extensions import TypeVar

from floorbench.plugins import MODEL_ENTRY_POINT_GROUP, Installed
from floorbench.processors.adapter_config import AdapterSettings, ModelError, OpenSettings
from floorbench.redact import SECRET_NAMES
from floorbench.redact import redact as redact_config

if TYPE_CHECKING:
    from pipecat.processors.frame_processor import FrameProcessor

    from floorbench.scenarios.interface import ScenarioRecord
    from floorbench.scenarios.schema import Suite

S = TypeVar("S", bound=AdapterSettings, default=OpenSettings)


@dataclass
class ModelContext:
    """Everything a model may know before the room starts.

    `scenario` is given to every model, but only reference agents that are
    *meant* to know the script (``oracle``) may read it; real systems learn
    everything from the room's audio.
    """

    name: str
    config: dict[str, Any] = field(default_factory=dict)
    scenario: ScenarioRecord | None = None
    suite: Suite | None = None
    suite_root: Path | None = None
    in_sample_rate: int = 16000
    """rate at which the model receives room audio"""
    out_sample_rate: int = 24000
    """rate at which the model publishes its speech"""
    room: str = ""
    identity: str = "model"


Joins = Literal["pipeline", "external"]


class Model(Generic[S]):
    """Base of every system under test; a subclass is declared by its class line and builds processors.

    ``class CascadeModel(Model[CascadeSettings], name="cascade")``: the name it is
    found by, and its config declared once, as the pydantic settings class it is
    parametrised with (its `Settings`); ``joins="external"`` for a system that
    joins the room by itself. The config is read into `self.settings` here, so a
    mistyped key fails before any room starts. A model that declares no settings
    gets `OpenSettings`, which keeps any key for it in `self.config`. The same
    things set as class attributes (``name = "chime"``, ``Settings = ChimeSettings``)
    mean the same: models written that way keep working.
    """

    name: ClassVar[str] = ""
    joins: ClassVar[Joins] = "pipeline"
    Settings: ClassVar[type[AdapterSettings]] = OpenSettings
    secret_keys: ClassVar[tuple[str, ...]] = SECRET_NAMES
    """key names whose values the card redacts (`floorbench.redact.SECRET_NAMES`)"""

    def __init_subclass__(
        cls,
        *,
        name: str | None = None,
        joins: Joins | None = None,
        settings: type[AdapterSettings] | None = None,
        **kwargs: Any,
    ) -> None:
        """The class keywords; `Settings`, when neither a keyword nor the class body sets it, is the
        settings class of ``Model[...]`` in the class line (else the parent's)."""
        super().__init_subclass__(**kwargs)
        if name is not None:
            cls.name = name
        if joins is not None:
            cls.joins = joins
        declared = settings or ("Settings" not in cls.__dict__ and _parametrised_settings(cls))
        if declared:
            cls.Settings = declared

    def __init__(self, ctx: ModelContext) -> None:
        self.ctx = ctx
        self.config = dict(ctx.config)
        """the config as given (recorded, redacted, in the card)"""
        self.settings: S = cast(S, self.Settings.load(self.config, self.name or ctx.name))

    def processors(self) -> list[FrameProcessor]:
        """The pipecat processors between the transport's input and output."""
        raise NotImplementedError

    def matches(self, identity: str) -> bool:
        """Is the room participant `identity` this model?

        By default the one identity the runner gives it (config ``identity``,
        else ``model``); a model that joins by itself may accept identities it
        cannot know in advance (a dispatched worker picks ``agent-<job id>``).
        """
        return identity == (self.settings.identity or "model")

    def dispatch_metadata(self, room: str, scenario_id: str | None = None) -> str:
        """The metadata of the LiveKit agent dispatch that sends this model into `room` (JSON text)."""
        return json.dumps({"room": room, "scenario_id": scenario_id})

    def card(self) -> dict[str, Any]:
        """The model card stored in meta.json: adapter, id/version, config — no secrets."""
        return {
            "name": self.name,
            "adapter": type(self).__module__ + ":" + type(self).__qualname__,
            "joins": self.joins,
            "config": redact(self.config, self.secret_keys),
        }


def _parametrised_settings(cls: type) -> type[AdapterSettings] | None:
    """``class M(Model[MySettings])`` → MySettings; None where the class line names no settings class."""
    for base in cls.__dict__.get("__orig_bases__", ()):
        origin, args = get_origin(base), get_args(base)
        if isinstance(origin, type) and issubclass(origin, Model) and args:
            if isinstance(args[0], type) and issubclass(args[0], AdapterSettings):
                return args[0]
    return None


def redact(config: Any, secret_keys: tuple[str, ...] = SECRET_NAMES) -> Any:
    """Copy a config with every secret replaced by '<redacted>' (`floorbench.redact`: secret
    names, header maps, URL user-info and query values). Env-var *names*
    (``api_key_env: OPENAI_API_KEY``) are kept: they are not secrets and say where the key came from.
    """
    return redact_config(config, secret_keys)


BUILTIN_MODELS: dict[str, str] = {
    "silent": "floorbench.processors.reference:SilentAgent",
    "eager": "floorbench.processors.reference:EagerAgent",
    "oracle": "floorbench.processors.reference:OracleAgent",
    "echo": "floorbench.processors.reference:EchoAgent",
    "external": "floorbench.processors.external:ExternalParticipant",
    "pipecat-service": "floorbench.processors.service:PipecatServiceModel",
    "websocket": "floorbench.processors.duplex_ws:WebSocketDuplexModel",
    "moshi": "floorbench.processors.moshi:MoshiModel",
    "cascade": "floorbench.processors.cascade:CascadeModel",
    "cascade-vision": "floorbench.processors.vision_cue:VisionCascadeModel",
    "webrtc": "floorbench.processors.webrtc:WebRTCModel",
    "sip": "floorbench.phone.leg:SipModel",
}

_registered: dict[str, type[Model]] = {}
INSTALLED = Installed(MODEL_ENTRY_POINT_GROUP)
"""models of installed distributions (entry point group ``floorbench.models``): name → import path"""


def reload_entry_points() -> None:
    """Read the ``floorbench.models`` entry points again (a distribution installed while running)."""
    INSTALLED.reload()


def unregister_model(name: str) -> None:
    """Forget a registered model (tests that register one of their own)."""
    _registered.pop(name, None)


def register_model(cls: type[Model]) -> type[Model]:
    """Class decorator for a user's own model: ``@register_model class Mine(Model, name="mine")``."""
    if not cls.name:
        raise ModelError(f"{cls.__qualname__}: set a `name` before registering the model")
    _registered[cls.name] = cls
    return cls


CLASS_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
"""``package.module:ClassName``: a module path, a colon, the class (as a config's ``class:`` names it)"""


def _import_path(path: object) -> type[Model]:
    if not isinstance(path, str) or not CLASS_PATH.fullmatch(path):
        raise ModelError(f"model class {path!r}: write it as 'package.module:ClassName' (module:Class), "
                         "e.g. class: mypkg.agents:MyModel")
    mod_name, _, attr = path.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        raise ModelError(
            f"model {path}: cannot import {e.name!r}; install the extra it needs "
            "(see README, 'Systems under test')"
        ) from None
    try:
        cls = getattr(mod, attr)
    except AttributeError:
        raise ModelError(f"model {path}: {mod_name} has no {attr!r}; check the class name") from None
    if not (isinstance(cls, type) and issubclass(cls, Model)):
        raise ModelError(f"model {path}: {attr} is not a floorbench Model subclass")
    return cls


def model_names() -> list[str]:
    """Every model name that `create_model` accepts: built in, registered and installed."""
    return sorted(set(BUILTIN_MODELS) | set(_registered) | set(INSTALLED.paths()))


def model_source(name: str) -> str:
    """Where a model comes from, as `floorbench models` lists it: its import path, or ``registered``."""
    return BUILTIN_MODELS.get(name) or INSTALLED.paths().get(name) or "registered"


def model_class(name: str, config: dict[str, Any] | None = None) -> type[Model]:
    """Resolve a model name (or a config's ``class: module:Class``) to its class."""
    config = config or {}
    if config.get("class"):
        return _import_path(config["class"])
    if name in _registered:
        return _registered[name]
    if name in BUILTIN_MODELS:
        return _import_path(BUILTIN_MODELS[name])
    if name in INSTALLED.paths():
        return _import_path(INSTALLED.paths()[name])
    raise ModelError(f"unknown model {name!r}; choose one of {', '.join(model_names())}")


def create_model(ctx: ModelContext) -> Model:
    """Create the model named in `ctx` (config errors surface here, before any room)."""
    cls = model_class(ctx.name, ctx.config)
    return cls(ctx)


def check_config(config: dict[str, Any], where: str = "") -> AdapterSettings:
    """Read a model config file's settings without building the model (no keys, extras or weights needed).

    The adapter is the config's ``adapter`` (or ``class``); errors name `where`.
    """
    name = str(config.get("adapter") or "")
    if not name and not config.get("class"):
        raise ModelError(f"{where}: a model config names its adapter (`adapter: NAME`)")
    return model_class(name, config).Settings.load(config, name, where)
