"""`floorbench phone-gateway`: an inbound SIP gateway that brings each call into a LiveKit room of its own.

The role LiveKit SIP plays in production, on loopback: a LiveKit Agents
worker answers phone calls when a SIP service puts each call into a room and
dispatches the agent there. This gateway answers every INVITE on
``127.0.0.1:PORT`` (PJSIP, `stack`), creates a room ``phone-<n>`` on the
LiveKit server, dispatches the named agent into it, and joins it as the caller
(identity ``sip-caller``): the call's audio is published as a 16 kHz
microphone track, and the first audio track another participant publishes
(the agent's) goes back out on the call. When the caller hangs up, the room is
deleted (which ends the agent's job). Every call is one JSON line on stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from typing import Any

from floorbench.phone.agent import REPLY_QUEUE_MS
from floorbench.phone.stack import CLOCK_RATE, FRAME_SAMPLES, CallState, Outbox, SipStack
from floorbench.transports.rooms import token
from floorbench.transports.server import LiveKitConnection

CALLER_IDENTITY = "sip-caller"


def _log(event: str, **kw: Any) -> None:
    print(json.dumps({"t_ms": int(time.time() * 1000), "event": event, **kw}), flush=True)


async def bridge(call: CallState, inbox: asyncio.Queue[bytes], conn: LiveKitConnection, agent: str, room_name: str) -> None:
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
                _log("agent", room=room_name, identity=participant.identity)

        await room.connect(conn.url, token(conn, room_name, CALLER_IDENTITY))
        source = rtc.AudioSource(CLOCK_RATE, 1, queue_size_ms=200)
        track = rtc.LocalAudioTrack.create_audio_track("phone", source)
        await room.local_participant.publish_track(
            track, rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE))
        tasks.append(asyncio.create_task(_from_call(inbox, source)))
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


async def _to_call(track: Any, outbox: Outbox) -> None:
    from livekit import rtc

    async for ev in rtc.AudioStream(track, sample_rate=CLOCK_RATE, num_channels=1, frame_size_ms=20):
        outbox.feed(bytes(ev.frame.data.cast("B")))


async def serve(port: int, conn: LiveKitConnection, agent: str, codecs: list[str]) -> None:
    """Answer calls on 127.0.0.1:`port`, each into a room of its own with `agent` dispatched, until stopped."""
    loop = asyncio.get_running_loop()
    numbers = itertools.count(1)

    def incoming(call: CallState) -> int:
        # the agent's audio arrives at its own pace (AudioStream), and is paced out by the call's clock
        call.outbox = Outbox(max_ms=REPLY_QUEUE_MS)
        inbox: asyncio.Queue[bytes] = asyncio.Queue()
        call.on_audio = lambda pcm, t: loop.call_soon_threadsafe(inbox.put_nowait, pcm)
        name = f"phone-{int(time.time())}-{next(numbers)}"
        _log("call", room=name, scenario=call.headers.get("x-floorbench-scenario"))
        loop.call_soon_threadsafe(lambda: loop.create_task(_run(call, inbox, name)))
        return 200

    async def _run(call: CallState, inbox: asyncio.Queue[bytes], name: str) -> None:
        try:
            await bridge(call, inbox, conn, agent, name)
        except Exception as e:  # the room or the dispatch refused: the caller hears silence, the log says why
            _log("error", room=name, error=f"{type(e).__name__}: {e}".splitlines()[0])
            stack.submit(lambda: stack.hangup(call))
        _log("ended", room=name, codec=call.codec, rate=call.codec_rate)

    stack = SipStack(port=port, codecs=codecs, on_incoming=incoming, quiet_start=True)
    await asyncio.to_thread(stack.start)
    _log("ready", uri=f"sip:agent@127.0.0.1:{stack.port}", agent=agent, frame_samples=FRAME_SAMPLES)
    try:
        await asyncio.Event().wait()
    finally:
        await asyncio.to_thread(stack.stop)
