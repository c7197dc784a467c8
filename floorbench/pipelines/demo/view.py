"""What `floorbench demo` shows while you talk: who is speaking, and the model's latency after each of your turns.

`TurnWatcher` is pure: it is fed, per participant, speech/no-speech decisions
with their session times (Silero windows on the audio as it was captured or
as it arrived here), and keeps who is speaking now and, after each of your
turns, how long the model took to start speaking — from the end of your
speech (the last speech window before `end_silence_ms` of silence) to the
model's first speech window heard here. So the figure is the model's latency
as you heard it: both trips through the room included.
"""

from __future__ import annotations

from dataclasses import dataclass, field

YOU = "you"
MODEL = "model"
HUMANS = "humans"


@dataclass
class Talk:
    """One participant's speech state (times: session clock, ns)."""

    speaking: bool = False
    last_speech_ns: int | None = None
    started_ns: int | None = None


@dataclass
class TurnLatency:
    turn: int
    your_end_ms: int
    """session time your speech ended"""
    latency_ms: int | None
    """model onset minus your end; None: the model did not answer before you spoke again"""


@dataclass
class TurnWatcher:
    end_silence_ms: int = 700
    """silence after your speech that ends your turn"""
    talk: dict[str, Talk] = field(default_factory=dict)
    turns: list[TurnLatency] = field(default_factory=list)
    your_turns: int = 0
    """your turns ended so far"""
    _open_end_ns: int | None = None
    """your last turn's end, waiting for the model's answer"""

    def feed(self, who: str, t_ns: int, speech: bool) -> TurnLatency | None:
        """One window of `who` at `t_ns`; returns a turn's latency when it becomes known."""
        st = self.talk.setdefault(who, Talk())
        if speech:
            if not st.speaking:
                st.started_ns = t_ns
            st.speaking = True
            st.last_speech_ns = t_ns
        elif st.speaking and st.last_speech_ns is not None and t_ns - st.last_speech_ns >= self.end_silence_ms * 1_000_000:
            st.speaking = False
            if who == YOU:
                return self._your_turn_ended(st.last_speech_ns)
        if who == MODEL and speech and self._open_end_ns is not None and t_ns >= self._open_end_ns:
            return self._answered(t_ns)
        if who == YOU and speech and self._open_end_ns is not None and st.started_ns == t_ns:
            return self._unanswered()
        return None

    def _your_turn_ended(self, end_ns: int) -> TurnLatency | None:
        self.your_turns += 1
        previous = self._unanswered() if self._open_end_ns is not None else None
        self._open_end_ns = end_ns
        model = self.talk.get(MODEL)
        if model is not None and model.speaking and model.started_ns is not None and model.started_ns >= end_ns:
            return self._answered(model.started_ns)
        return previous

    def _answered(self, onset_ns: int) -> TurnLatency:
        assert self._open_end_ns is not None
        t = TurnLatency(len(self.turns) + 1, self._open_end_ns // 1_000_000, (onset_ns - self._open_end_ns) // 1_000_000)
        self.turns.append(t)
        self._open_end_ns = None
        return t

    def _unanswered(self) -> TurnLatency:
        assert self._open_end_ns is not None
        t = TurnLatency(len(self.turns) + 1, self._open_end_ns // 1_000_000, None)
        self.turns.append(t)
        self._open_end_ns = None
        return t

    def status(self) -> str:
        """One line: each participant speaking or quiet, and the last turn's latency."""
        parts = []
        for who in (YOU, HUMANS, MODEL):
            if who in self.talk:
                parts.append(f"{who}: {'SPEAKING' if self.talk[who].speaking else 'quiet   '}")
        last = self.turns[-1] if self.turns else None
        if last is not None:
            parts.append(
                f"last turn {last.turn}: " + (f"model after {last.latency_ms} ms" if last.latency_ms is not None else "no answer")
            )
        return "  ".join(parts)


def turn_line(t: TurnLatency) -> str:
    if t.latency_ms is None:
        return f"turn {t.turn}: the model did not answer before you spoke again"
    return f"turn {t.turn}: the model started {t.latency_ms} ms after you stopped"
