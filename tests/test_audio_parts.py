"""Crash recovery of part files keeps each track's own sample rate (floorbench.audio.files)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from floorbench.audio.files import PartFileError, PcmAppender, recover_parts


def _crash(path: Path, rate: int, samples: int) -> None:
    """Write `samples` samples and leave the part file behind, as a killed run would."""
    a = PcmAppender(path, rate)
    a.write(np.full(samples, 7, dtype=np.int16))
    a._f.flush()
    a._f.close()


def test_each_part_is_recovered_at_the_rate_it_was_written_at(tmp_path: Path) -> None:
    _crash(tmp_path / "humans.sent.wav", 16000, 16000)  # the suite's rate: 1 s
    _crash(tmp_path / "model.wav", 48000, 48000)  # --record-rate: 1 s
    assert json.loads((tmp_path / "model.part.json").read_text()) == {"sample_rate": 48000}
    recovered = recover_parts(tmp_path)
    assert [p.name for p in recovered] == ["humans.sent.wav", "model.wav"]
    for name, rate in (("humans.sent.wav", 16000), ("model.wav", 48000)):
        data, sr = sf.read(str(tmp_path / name), dtype="int16")
        assert sr == rate and len(data) == rate  # both still one second long
    assert sorted(p.name for p in tmp_path.iterdir()) == ["humans.sent.wav", "model.wav"]


def test_a_finished_track_leaves_no_rate_file(tmp_path: Path) -> None:
    a = PcmAppender(tmp_path / "x.wav", 24000)
    a.write(np.zeros(240, dtype=np.int16))
    a.finalize()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.wav"]


def test_a_part_without_its_rate_needs_a_default_or_says_so(tmp_path: Path) -> None:
    (tmp_path / "old.part.pcm").write_bytes(np.zeros(100, dtype=np.int16).tobytes())
    with pytest.raises(PartFileError, match=r"old\.part\.json: missing or unreadable sample rate"):
        recover_parts(tmp_path)
    assert (tmp_path / "old.part.pcm").exists()  # nothing lost
    recover_parts(tmp_path, default_rate=24000)
    assert sf.info(str(tmp_path / "old.wav")).samplerate == 24000
