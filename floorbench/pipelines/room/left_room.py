"""Why the model participant left the room: its own doing, or a connection the server dropped.

A model that leaves mid-scenario fails it as `model_left`: that is the model's
result and is not retried. But on an overloaded machine (more rooms than its
cores hold) the server also drops participants whose connection stopped
answering — its pings time out, the media path fails — and the recorder then
sees the model "leave" with the server's reason (``SIGNAL_CLOSE``,
``CONNECTION_TIMEOUT``, ...). When floorbench's own model process is still
running at that moment, the model did not choose to go: the room lost it, and
the scenario fails as `connection_lost`, an infrastructure failure that
``--retries`` runs again. An external agent's process is not ours to see, so
its departure stays `model_left`, with the server's reason in the text.
"""

from __future__ import annotations

from floorbench.records import FailureKind

CONNECTION_DROPPED = frozenset({"SIGNAL_CLOSE", "CONNECTION_TIMEOUT", "MEDIA_FAILURE", "STATE_MISMATCH", "JOIN_FAILURE"})
"""the server's disconnect reasons that mean the connection failed, not that the participant hung up"""


def why_model_left(identity: str, disconnect_reason: str | None, process_running: bool | None) -> tuple[FailureKind, str]:
    """The failure for a model participant seen leaving.

    `disconnect_reason` is the server's (`Recorder.left_reasons`); `process_running` says whether
    floorbench's model process was still alive after the departure (None: an external agent).
    """
    if disconnect_reason in CONNECTION_DROPPED and process_running:
        return FailureKind.connection_lost, (
            f"the LiveKit server dropped model participant {identity!r} ({disconnect_reason}) while its "
            "process was running: the machine or server is overloaded (lower --concurrency) or the network failed"
        )
    said = f" (the server said {disconnect_reason})" if disconnect_reason else ""
    return FailureKind.model_left, f"model participant {identity!r} left the room{said}"
