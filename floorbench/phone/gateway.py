"""`floorbench phone-gateway`: an inbound SIP gateway that brings each call into a LiveKit room of its own.

The role LiveKit SIP plays in production, on loopback: a LiveKit Agents
worker answers phone calls when a SIP service puts each call into a room and
dispatches the agent there. This gateway answers every INVITE on
``127.0.0.1:PORT`` (PJSIP, `stack`), creates a room ``phone-<n>`` on the
LiveKit server, dispatches the named agent into it, and joins it as the caller
(identity ``sip-caller``): the call's audio is published as a 16 kHz
microphone track, and the first audio track another participant publishes
(the agent's) goes back out on the call. Keys the caller presses (RFC 4733
events) reach the room as LiveKit SIP sends them: SIP DTMF packets from the
caller, which a LiveKit Agents worker hears as ``sip_dtmf_received``. When the
caller hangs up, the room is deleted (which ends the agent's job). Every call
and every key is one JSON line on stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from typing import Any

from floorbench.phone.agent import log_event, open_call, serve_calls
from floorbench.phone.stack import CLOCK_RATE, FRAME_SAMPLES, CallState, Outbox, SipStack
from floorbench.transports.rooms import token
from floorbench.transports.server import LiveKitConnection

CALLER_IDENTITY = "sip-caller"
DTMF_CODES = {**{str(i): i for i in range(10)}, "*": 10, "#": 11, "A": 12, "B": 13, "C": 14, "D": 15}
"""RFC 4733's event codes, which a SIP DTMF packet carries with the key"""


async def bridge(call: CallState, inbox: asyncio.Queue[bytes], keys: asyncio.Queue[str], conn: LiveKitConnection,
                 agent: str, room_name: str) -> None:
    """One answered call into its own room, until the call ends."""
    from livekit import api, rtc

    lk = api.LiveKitAPI(conn.http_url, conn.api_key, conn.api_secret)
    room = rtc.Room()
    tasks: list[asyncio.Task[None]] = []
    hearing: list[asyncio.Task[None]] = []
    try:
        await lk.room.create_room(api.CreateRoomRequest(name=room_name, empty_timeout=30))
        await lk.agent_dispatch.create_dispatch(api.CreateAgentDispatchRequest(
            agent_name=agent, room=room_name, metadata=json.dumps({"room": room_name, "sip": call.headers})))

        @room.on("track_subscribed")
        def _track(track: Any, pub: Any, participant: Any) -> None:
            if track.kind == rtc.TrackKind.KIND_AUDIO and not hearing:
                hearing.append(asyncio.create_task(_to_call(track, call.outbox)))
                log_event("agent", room=room_name, identity=participant.identity)

        await room.connect(conn.url, token(conn, room_name, CALLER_IDENTITY))
        source = rtc.AudioSource(CLOCK_RATE, 1, queue_size_ms=200)
        track = rtc.LocalAudioTrack.create_audio_track("phone", source)
        await room.local_participant.publish_track(
            track, rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE))
        tasks.append(asyncio.create_task(_from_call(inbox, source)))
        tasks.append(asyncio.create_task(_keys_to_room(keys, room, room_name)))
        await asyncio.to_thread(call.ended.wait)
    finally:
        for t in tasks + hearing:
            t.cancel()
        with contextlib.suppress(Exception):
            await room.disconnect()
        with contextlib.suppress(Exception):
            await lk.room.delete_room(api.DeleteRoomRequest(room=room_name))
        await lk.aclose()


async def _from_call(inbox: asyncio.Queue[bytes], source: Any) -> None:
    from livekit import rtc

    while True:
        pcm = await inbox.get()
        await source.capture_frame(rtc.AudioFrame(pcm, CLOCK_RATE, 1, len(pcm) // 2))


async def _keys_to_room(keys: asyncio.Queue[str], room: Any, room_name: str) -> None:
    """Each key the caller pressed, into the room as LiveKit SIP sends it (a SIP DTMF packet)."""
    while True:
        key = (await keys.get()).upper()
        try:
            await room.local_participant.publish_dtmf(code=DTMF_CODES.get(key, 0), digit=key)
        except Exception as e:  # the room refused the packet: the log says so, the next key is tried
            log_event("error", room=room_name, digit=key, error=f"{type(e).__name__}: {e}".splitlines()[0])
            continue
        log_event("dtmf", room=room_name, digit=key)


async def _to_call(track: Any, outbox: Outbox) -> None:
    from livekit import rtc

    async for ev in rtc.AudioStream(track, sample_rate=CLOCK_RATE, num_channels=1, frame_size_ms=20):
        outbox.feed(bytes(ev.frame.data.cast("B")))


async def serve(port: int, conn: LiveKitConnection, agent: str, codecs: list[str]) -> None:
    """Answer calls on 127.0.0.1:`port`, each into a room of its own with `agent` dispatched, until stopped."""
    loop = asyncio.get_running_loop()
    numbers = itertools.count(1)

    def incoming(call: CallState) -> int:
        inbox = open_call(call, loop)
        keys: asyncio.Queue[str] = asyncio.Queue()
        call.on_digit = lambda d, t: loop.call_soon_threadsafe(keys.put_nowait, d)
        name = f"phone-{int(time.time())}-{next(numbers)}"
        log_event("call", room=name, scenario=call.headers.get("x-floorbench-scenario"))
        loop.call_soon_threadsafe(lambda: loop.create_task(_run(call, inbox, keys, name)))
        return 200

    async def _run(call: CallState, inbox: asyncio.Queue[bytes], keys: asyncio.Queue[str], name: str) -> None:
        try:
            await bridge(call, inbox, keys, conn, agent, name)
        except Exception as e:  # the room or the dispatch refused: the caller hears silence, the log says why
            log_event("error", room=name, error=f"{type(e).__name__}: {e}".splitlines()[0])
            stack.submit(lambda: stack.hangup(call))
        log_event("ended", room=name, codec=call.codec, rate=call.codec_rate, digits="".join(d for d, _ in call.digits))

    stack = SipStack(port=port, codecs=codecs, on_incoming=incoming, quiet_start=True)
    await serve_calls(stack, agent=agent, frame_samples=FRAME_SAMPLES)
