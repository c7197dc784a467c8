"""CLI: `floorbench phone-agent` (the agent end on loopback) and `--via sip:URI` for run/test/load.

``--via`` is read here so that the three commands share one reading: the
system under test becomes the `sip` model calling that URI (a ``--config``
for ``adapter: sip`` may add codecs and timeouts); ``--model`` names what
runs behind the phone line only in `phone-agent`, never with ``--via``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

VIA_HELP = ("reach the agent over a phone line: sip:[user@]host[:port] (a SIP call from the room, G.711/G.722 "
            "over RTP; credentials from FLOORBENCH_SIP_USER/FLOORBENCH_SIP_PASSWORD); docs/phone.md")


def via_syntax(value: str | None) -> str | None:
    """``--via`` checked as the command line is read (before a suite is written or rendered): one line."""
    from floorbench.phone.uri import PhoneError, parse_target, shown

    if value is None:
        return None
    if not value.startswith("sip:"):
        raise typer.BadParameter(f"{shown(value)!r}: only sip: URIs are supported (sip:[user@]host[:port])")
    try:
        parse_target(value, allow_remote=True)  # whether the host may be called is the config's (allow_remote)
    except PhoneError as e:
        raise typer.BadParameter(str(e).removeprefix("--via ")) from None
    return value


def phone_twice(acoustics: str) -> str:
    """Why ``--acoustics`` with a ``phone`` part is refused with ``--via sip:`` (docs/phone.md "Phone-line
    conditions"): the leg's negotiated codec is the telephone line, and the stand-in would code the caller twice."""
    rest = "+".join(p for p in acoustics.split("+") if p != "phone")
    fix = f"use --acoustics {rest}" if rest else "leave out --acoustics"
    return (f"--acoustics {acoustics!r} with --via sip:: the phone leg's own codec (G.711 at 8 kHz, or G.722) is the "
            f"telephone line, and the 'phone' stand-in would band-limit and code the caller a second time; {fix}")


def via_system(via: str | None, model: str | None, cfg: dict[str, Any], name: str | None) -> tuple[str | None,
                                                                                                      dict[str, Any]]:
    """The system under test with ``--via`` applied: (model name, config); `PhoneError` on a bad URI or mix."""
    from floorbench.phone.uri import PhoneError, parse_target, shown

    if via is None:
        return name, cfg
    if not via.startswith("sip:"):
        raise PhoneError(f"--via {shown(via)!r}: only sip: URIs are supported (sip:[user@]host[:port])")
    if model not in (None, "sip") or (name not in (None, "", "sip")):
        raise PhoneError(f"--via {shown(via)} calls the agent over SIP: leave out --model {model or name} "
                         "(run that agent behind a SIP endpoint, e.g. `floorbench phone-agent --model NAME`)")
    out = dict(cfg)
    out["uri"] = via
    parse_target(via, allow_remote=bool(out.get("allow_remote", False)))
    return "sip", out


def phone_agent(
    port: Annotated[int, typer.Option(help="UDP port on 127.0.0.1 for SIP (0: any free one; printed)")] = 5070,
    model: Annotated[str, typer.Option(help="the reference agent behind the phone line: oracle, silent, echo, eager")] = "oracle",
    config: Annotated[Path | None, typer.Option(help="that agent's config YAML")] = None,
    answer: Annotated[str, typer.Option(help="answer | busy | decline | ring (never answers) | drop:SECONDS")] = "answer",
    codecs: Annotated[str, typer.Option(help="codecs it accepts, in order (PCMU, PCMA, G722)")] = "PCMU,PCMA,G722",
) -> None:
    """A plain SIP endpoint in auto-answer running a reference agent per call (the agent end of `--via sip:`)."""
    from floorbench.errors import check_range
    from floorbench.phone.agent import main, parse_answer
    from floorbench.phone.stack import load_pjsua2
    from floorbench.phone.uri import codec_names
    from floorbench.pipelines.command_support import read_model_config

    check_range("--port", port, 0, 65535)
    parse_answer(answer)
    names = codec_names(codecs.split(","))
    if model not in ("oracle", "silent", "echo", "eager"):
        from floorbench.phone.uri import PhoneError

        raise PhoneError(f"--model {model}: phone-agent runs oracle, silent, echo or eager; a real agent answers "
                         "on its own SIP endpoint")
    cfg = read_model_config(config) if config is not None else {}
    load_pjsua2()
    main(port, model, cfg, answer, names)


def phone_gateway(
    dispatch: Annotated[str, typer.Option(help="the LiveKit agent name to dispatch into each call's room")],
    port: Annotated[int, typer.Option(help="UDP port on 127.0.0.1 for SIP (0: any free one; printed)")] = 5080,
    livekit_url: Annotated[str | None, typer.Option(help="the LiveKit server (also LIVEKIT_URL; key/secret from LIVEKIT_API_KEY/SECRET)")] = None,
    codecs: Annotated[str, typer.Option(help="codecs it accepts, in order (PCMU, PCMA, G722)")] = "PCMU,PCMA,G722",
) -> None:
    """An inbound SIP gateway: each call into a LiveKit room of its own, the agent dispatched there (as LiveKit SIP does)."""
    import asyncio

    from floorbench.errors import check_range
    from floorbench.phone.gateway import serve
    from floorbench.phone.stack import load_pjsua2
    from floorbench.phone.uri import PhoneError, codec_names
    from floorbench.transports.server import LiveKitConnection

    check_range("--port", port, 0, 65535)
    names = codec_names(codecs.split(","))
    conn = LiveKitConnection.from_env(livekit_url)
    if conn is None:
        raise PhoneError("phone-gateway needs a LiveKit server: pass --livekit-url (or set LIVEKIT_URL) with "
                         "LIVEKIT_API_KEY and LIVEKIT_API_SECRET")
    load_pjsua2()
    try:
        asyncio.run(serve(port, conn, dispatch, names))
    except KeyboardInterrupt:
        pass


def register(app: typer.Typer) -> None:
    app.command("phone-agent")(phone_agent)
    app.command("phone-gateway")(phone_gateway)
