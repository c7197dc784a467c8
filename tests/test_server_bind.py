"""The managed LiveKit server listens on loopback only, unless told one other address (docs/transport.md).

The live test reads the sockets of the real server process (psutil): every TCP
and UDP socket it has bound — the HTTP/WebSocket port and the media port's UDP
mux, which livekit-server would otherwise open on every interface address —
is on 127.0.0.1 or ::1; then audio still crosses a room on it.
"""

from __future__ import annotations

import asyncio

import numpy as np
import psutil
import pytest

from floorbench.transports.server import (
    BIND_ENV,
    LiveKitConnection,
    LiveKitServer,
    ServerError,
    bind_address,
    server_config,
)

LOOPBACK = {"127.0.0.1", "::1"}


def test_the_generated_config_keeps_media_on_the_bound_address() -> None:
    import yaml

    cfg = yaml.safe_load(server_config(7880, 7882, "k", "s"))
    assert cfg["bind_addresses"] == ["127.0.0.1"]
    rtc = cfg["rtc"]
    assert (rtc["node_ip"], rtc["use_external_ip"], rtc["tcp_port"], rtc["udp_port"]) == ("127.0.0.1", False, 0, 7882)
    assert rtc["ips"] == {"includes": ["127.0.0.1/32"]} and rtc["enable_loopback_candidate"] is True
    lan = yaml.safe_load(server_config(7880, 7882, "k", "s", bind="10.0.0.5"))
    assert lan["bind_addresses"] == ["10.0.0.5"] and lan["rtc"]["node_ip"] == "10.0.0.5"
    assert lan["rtc"]["ips"] == {"includes": ["10.0.0.5/32"]} and lan["rtc"]["enable_loopback_candidate"] is False


def test_the_bind_address_is_loopback_unless_one_address_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BIND_ENV, raising=False)
    assert bind_address() == "127.0.0.1"
    monkeypatch.setenv(BIND_ENV, "10.0.0.5")
    assert bind_address() == "10.0.0.5" and bind_address("127.0.0.1") == "127.0.0.1"
    for bad in ("0.0.0.0", "example.com", "::", "10.0.0.5,10.0.0.6", "224.0.0.1"):
        monkeypatch.setenv(BIND_ENV, bad)
        with pytest.raises(ServerError, match=BIND_ENV):
            bind_address()


def _bound(pid: int) -> list[tuple[str, str, int]]:
    """(kind, address, port) of every TCP socket listening and every UDP socket bound by `pid`."""
    out = []
    for c in psutil.Process(pid).net_connections(kind="inet"):
        kind = "udp" if c.type == 2 else "tcp"
        if kind == "tcp" and c.status != psutil.CONN_LISTEN:
            continue  # a connection out (none expected) is no listening socket
        out.append((kind, c.laddr.ip, c.laddr.port))
    return out


@pytest.mark.live
async def test_every_socket_of_the_managed_server_is_on_loopback(
    livekit_server: LiveKitServer, livekit: LiveKitConnection
) -> None:
    assert livekit_server.proc is not None
    bound = _bound(livekit_server.proc.pid)
    assert ("tcp", "127.0.0.1", livekit_server.port) in bound, bound
    assert ("udp", "127.0.0.1", livekit_server.udp_port) in bound, bound
    assert all(ip in LOOPBACK for _, ip, _ in bound), bound
    await _audio_crosses_a_room(livekit)
    assert all(ip in LOOPBACK for _, ip, _ in _bound(livekit_server.proc.pid))  # also with a room open


async def _audio_crosses_a_room(conn: LiveKitConnection) -> None:
    from livekit import rtc

    from floorbench.transports.rooms import token

    room = "fb-test-bind"
    sender, receiver = rtc.Room(), rtc.Room()
    got = asyncio.Event()
    readers: list[asyncio.Task[None]] = []

    @receiver.on("track_subscribed")
    def _subscribed(track: rtc.Track, *_: object) -> None:
        async def read() -> None:
            async for _frame in rtc.AudioStream(track, sample_rate=16000, num_channels=1):
                got.set()
                return

        readers.append(asyncio.ensure_future(read()))

    try:
        await receiver.connect(conn.url, token(conn, room, "receiver", publish=False))
        await sender.connect(conn.url, token(conn, room, "sender"))
        source = rtc.AudioSource(16000, 1)
        await sender.local_participant.publish_track(rtc.LocalAudioTrack.create_audio_track("tone", source))
        tone = (np.sin(np.arange(160) * 2 * np.pi * 440 / 16000) * 8000).astype(np.int16)
        for _ in range(500):  # up to 5 s of 10 ms frames
            await source.capture_frame(rtc.AudioFrame(tone.tobytes(), 16000, 1, 160))
            if got.is_set():
                break
        assert got.is_set(), "no audio crossed the room on the loopback-only server"
    finally:
        for t in readers:
            t.cancel()
        await sender.disconnect()
        await receiver.disconnect()
