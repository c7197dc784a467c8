"""A room's records, once it has ended: turns.json on the timing clock, the legs, the verdicts, video.

Part of `ScenarioRun` (floorbench.pipelines.run.scenario_run; state in `run_state`).
Computed in a worker thread after the room is closed, so other rooms keep
playing; whatever fails here leaves the recordings and says why in meta.json.
"""

from __future__ import annotations

import logging
import sys

from floorbench.audio.files import recover_parts
from floorbench.pipelines.room.playback import PlaybackParticipant
from floorbench.pipelines.run.run_state import RunState
from floorbench.pipelines.run.sender_timing import sender_timing, timed_turns
from floorbench.pipelines.run.timing_verdict import (
    figures_of,
    receive_delays_ms,
    sender_figures,
    sender_verdict,
    timing_verdict,
    unmeasured,
)
from floorbench.pipelines.run.turn_mapping import dialogue_turns, measure_latency, turn_entries
from floorbench.pipelines.video.timing import meta_entry as video_meta
from floorbench.records import DialogueTurns, TrackInfo, read_timeline, with_run_fields, write_json_atomic

log = logging.getLogger(__name__)

TIMING_CLOCK = "timing"
"""turns.json ``clock``: each track's sender clock plus its leg's median latency (docs/transport.md)"""


SENDER_RECORDS = (
    "humans.sent.tsv", "humans.clean.wav", "model.sent.wav", "model.sent.tsv", "model.heard.wav", "model.heard.tsv",
)
"""the senders' own records (floorbench.pipelines.room.sender_log); an earlier try's are removed before the next"""


class RunRecords(RunState):
    """What is written after the room: turns.json, the timing verdicts, the video entry, the sent SNR."""

    def _record_video(self) -> None:
        """meta.json's ``video`` (sent and recorded tracks, timing) and the user video's latency entry."""
        video = self.playback.video if self.playback is not None else None
        recorded = self.recorder.video_infos if self.recorder is not None else {}
        if video is None and not recorded:
            return
        try:
            self.meta.video, latency = video_meta(self.dir, video.writer.summary() if video else None, recorded)
        except Exception as e:  # the recordings stay; say why the measures are missing
            log.exception("scenario %s: video timing failed", self.scenario.scenario_id)
            self.meta.video = {"tracks": recorded, "error": f"{type(e).__name__}: {e}"}
            return
        if latency is not None:
            self.meta.transport_latency_ms["humans.video"] = latency

    def _finish_records(self, playback: PlaybackParticipant | None, infos: dict[str, TrackInfo]) -> None:
        """turns.json on the timing clock, the legs' latencies, both timing verdicts (meta.json).

        The receiver-clock figures come first, as before the sender records (`turn_mapping`: the turns in
        the recorder's copy; meta.json ``timing_receiver``), then every track is timed at its sender where
        floorbench owns it (`sender_timing`; ``timing``, ``legs``). If that fails, turns.json stays on the
        recorder's clock and the verdict says why.
        """
        if playback is None or "humans" not in infos or "model" not in infos:
            return
        import soundfile as sf

        events = read_timeline(self.dir / "timeline.jsonl")
        starts, ends = turn_entries(events)
        if not starts:
            return
        sent, sr_sent = sf.read(str(self.dir / "humans.sent.wav"), dtype="int16")
        rec, sr_rec = sf.read(str(self.dir / "humans.wav"), dtype="int16")
        humans, model = infos["humans"], infos["model"]
        latency = measure_latency(sent, sr_sent, rec, sr_rec, starts, humans.start_ns)
        fit = playback.writer.fit()
        underruns = playback.writer.underruns
        self.meta.transport_latency_ms = {"humans": latency.summary()}
        self.meta.playback = {
            "online_start_ns": playback.writer.first_write_ns,
            "capture_fit_start_ns": fit.start_ns,
            "underruns": underruns,
            "queue_ms": playback.queue_ms,
            "turn_onset_error_ms": latency.onset_errors(),
        }
        self._measure_sent_snr()
        delays = receive_delays_ms(events)
        self.meta.timing_receiver = timing_verdict(figures_of(latency, underruns, delays))
        on_recorder = dialogue_turns(self.scenario.turns, starts, ends, latency, humans.start_ns - model.start_ns)
        turns, clock, time_map = on_recorder, None, None
        try:
            if self.model.joins == "pipeline":  # a model process killed at the end leaves its records as parts
                recover_parts(self.dir)
            timing = sender_timing(self.dir, starts, ends, humans, model, model_is_ours=self.model.joins == "pipeline")
        except Exception as e:
            log.exception("scenario %s: sender timing failed", self.scenario.scenario_id)
            self.meta.timing = unmeasured(f"sender timing failed ({type(e).__name__}: {e}); turns.json is on the recorder's clock")
        else:
            self.meta.transport_latency_ms.update(timing.transport())
            self.meta.legs = timing.legs([t.id for t in self.scenario.turns])
            figures = sender_figures(timing, underruns, self.meta.receivers, delays)
            self.meta.timing = sender_verdict(figures, timing.clocks.record())
            turns, clock = timed_turns(self.scenario.turns, timing, model.start_ns, on_recorder), TIMING_CLOCK
            time_map = timing.time_map.points() or None
        write_json_atomic(
            self.dir / "turns.json",
            with_run_fields(DialogueTurns(
                scenario_id=self.scenario.scenario_id,
                turns=turns,
                model_wav_end_ms=model.samples * 1000 // model.sample_rate,
                clock=clock,
                model_time_map=time_map,
            ), self.scenario.run_fields),
        )

    def _measure_sent_snr(self) -> None:
        """meta.json ``acoustics.snr_sent_track_db``: the SNR of the whole sent track, from it and the clean one."""
        clean_path = self.dir / "humans.clean.wav"
        if self.meta.acoustics is None or not clean_path.is_file():
            return
        import soundfile as sf

        from floorbench.speech.acoustics import estimate_snr_db

        sent, rate = sf.read(str(self.dir / "humans.sent.wav"), dtype="int16")
        clean, _ = sf.read(str(clean_path), dtype="int16")
        self.meta.acoustics["snr_sent_track_db"] = estimate_snr_db(sent, clean, rate)
        if self.acoustics is not None:
            self.meta.acoustics["clips_without_clean_copy"] = self.acoustics.unmatched


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for dist in ("pipecat-ai", "livekit", "livekit-api", "onnxruntime", "numpy"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            pass
    from floorbench.transports.server import LIVEKIT_VERSION

    out["livekit-server"] = LIVEKIT_VERSION
    return out
