"""Incremental audio files: raw PCM appended as it comes, a WAV written atomically at the end.

A WAV header needs the final length, so a crash while writing a WAV directly
leaves a file most readers reject. We append raw int16 PCM to ``NAME.part.pcm``
(flushed every second) and only at the end write ``NAME.wav`` through a
temporary file and a rename. A crash therefore leaves the ``.part.pcm``, which `recover_parts` turns into a WAV later.
Tracks of one folder have different rates (``humans.sent`` at the suite's rate,
the recorder's tracks at ``--record-rate``), and raw PCM does not say its
rate: so when a part file is opened its rate is written beside it, in
``NAME.part.json``, and recovery reads it from there.

A part file belongs to one attempt: `PcmAppender` starts it empty (never
appends to what an earlier, killed attempt left), and the runner moves an
earlier attempt's files into ``attempt-N/`` before the next attempt starts
(pipelines/run/resume.py `archive_attempt`), where `recover_folder` turns them into
WAVs and fixes the header of a WAV that was never finalised.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.errors import FloorbenchError


class PartFileError(FloorbenchError, ValueError):
    """A leftover part file cannot be turned into a WAV (its rate is unknown)."""


def rate_path(part_path: Path) -> Path:
    """``NAME.part.json`` beside ``NAME.part.pcm``: the part's sample rate."""
    return part_path.with_name(part_path.name.removesuffix(".pcm") + ".json")


class PcmAppender:
    """Append mono int16 PCM to a part file started empty; `finalize` writes the WAV atomically and removes it.

    The part file is truncated when opened: a part left by a killed attempt is that attempt's
    (archived before the next starts), never the start of this one's.
    """

    def __init__(self, wav_path: Path, sample_rate: int, flush_every_s: float = 1.0) -> None:
        self.wav_path = wav_path
        self.part_path = wav_path.with_suffix(".part.pcm")
        self.sample_rate = sample_rate
        wav_path.parent.mkdir(parents=True, exist_ok=True)
        rate_path(self.part_path).write_text(json.dumps({"sample_rate": sample_rate}) + "\n")
        self._f = self.part_path.open("wb")
        self.samples = 0
        self._flush_every = flush_every_s
        self._last_flush = time.monotonic()

    def write(self, pcm: np.ndarray | bytes) -> None:
        data = pcm.tobytes() if isinstance(pcm, np.ndarray) else pcm
        self._f.write(data)
        self.samples += len(data) // 2
        now = time.monotonic()
        if now - self._last_flush >= self._flush_every:
            self._f.flush()
            self._last_flush = now

    def write_silence(self, n: int) -> None:
        if n > 0:
            self.write(np.zeros(n, dtype=np.int16))

    def finalize(self) -> Path:
        if not self._f.closed:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()
        return pcm_to_wav(self.part_path, self.wav_path, self.sample_rate)


def pcm_to_wav(part_path: Path, wav_path: Path, sample_rate: int) -> Path:
    """Write `wav_path` from a raw PCM part file via tmp + rename; remove the part."""
    import soundfile as sf

    data = np.fromfile(part_path, dtype=np.int16) if part_path.exists() else np.zeros(0, np.int16)
    tmp = wav_path.with_name(f".{wav_path.name}.tmp")
    sf.write(str(tmp), data, sample_rate, subtype="PCM_16", format="WAV")
    os.replace(tmp, wav_path)
    part_path.unlink(missing_ok=True)
    rate_path(part_path).unlink(missing_ok=True)
    return wav_path


def part_rate(part_path: Path, default: int | None = None) -> int:
    """The rate recorded beside a part file; `default` only for a part written before rates were recorded."""
    try:
        rate = json.loads(rate_path(part_path).read_text(encoding="utf-8"))["sample_rate"]
    except FileNotFoundError:
        rate = default
    except (OSError, ValueError, KeyError, TypeError):
        rate = None
    if not isinstance(rate, int) or isinstance(rate, bool) or rate <= 0:
        raise PartFileError(
            f"{rate_path(part_path)}: missing or unreadable sample rate; "
            f"convert {part_path.name} by hand with its known rate"
        )
    return rate


def recover_parts(folder: Path, default_rate: int | None = None) -> list[Path]:
    """Turn every leftover ``*.part.pcm`` in `folder` into a WAV at the rate recorded beside it."""
    out = []
    for part in sorted(folder.glob("*.part.pcm")):
        wav = part.with_name(part.name.removesuffix(".part.pcm") + ".wav")
        out.append(pcm_to_wav(part, wav, part_rate(part, default_rate)))
    return out


WAV_HEADER_MIN = 44


def fix_wav_header(path: Path) -> bool:
    """Make a WAV whose header was never finalised readable: its RIFF and data sizes set from the file's length.

    A writer killed before it closed a WAV leaves the sizes it wrote first (0, or
    0xFFFFFFFF for a streaming writer), or a data size past the end of a cut file.
    Only those sizes are rewritten, to the whole sample frames the file holds; a
    header that agrees with the file is left alone. True when the header was fixed.
    """
    size = path.stat().st_size
    if size < WAV_HEADER_MIN:
        return False
    with path.open("r+b") as f:
        head = f.read(12)
        if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            return False
        block_align, data_at, declared = 0, None, 0
        while True:
            chunk = f.read(8)
            if len(chunk) < 8:
                break
            cid, n = chunk[:4], int.from_bytes(chunk[4:], "little")
            if cid == b"fmt ":
                fmt = f.read(min(n, 16))
                block_align = int.from_bytes(fmt[12:14], "little") if len(fmt) >= 14 else 0
                f.seek(f.tell() + n - len(fmt) + (n & 1))
                continue
            if cid == b"data":
                data_at, declared = f.tell(), n
                break
            f.seek(f.tell() + n + (n & 1))
        if data_at is None or block_align <= 0:
            return False
        actual = (size - data_at) // block_align * block_align
        if 0 < declared <= actual and _chunk_follows(f, data_at + declared + (declared & 1), size):
            return False  # finalised (the data may be followed by another chunk)
        if declared == actual:
            return False
        f.seek(data_at - 4)
        f.write(actual.to_bytes(4, "little"))
        f.seek(4)
        f.write(min(size - 8, 0xFFFFFFFF).to_bytes(4, "little"))
    return True


def _chunk_follows(f: Any, at: int, size: int) -> bool:
    """The end of a declared data chunk is the end of the file, or a well-formed chunk header."""
    if at == size:
        return True
    if at + 8 > size:
        return False
    f.seek(at)
    head = f.read(8)
    return head[:4].isascii() and head[:4].isalnum() and at + 8 + int.from_bytes(head[4:], "little") <= size


def recover_folder(folder: Path, default_rate: int | None = None) -> list[str]:
    """An interrupted attempt's folder made readable: part files to WAVs, unfinalised WAV headers fixed.

    A part without a known rate stays as it is (nothing is lost; its line says so).
    Returns one line per file changed or left, for the log.
    """
    notes: list[str] = []
    for part in sorted(folder.glob("*.part.pcm")):
        wav = part.with_name(part.name.removesuffix(".part.pcm") + ".wav")
        if part.is_symlink():  # not a file a writer of this folder made: never read through, never removed
            notes.append(f"{part}: a link, left as it is")
            continue
        try:
            pcm_to_wav(part, wav, part_rate(part, default_rate))
        except PartFileError as e:
            notes.append(str(e))
            continue
        notes.append(f"{wav}: recovered from its part file")
    for tmp in sorted(folder.glob(".*.wav.tmp")):  # a WAV being written when the process died, its part gone
        wav = folder / tmp.name[1:].removesuffix(".tmp")
        if not wav.exists():
            tmp.replace(wav)
            notes.append(f"{wav}: kept from the unfinished {tmp.name}")
    for wav in sorted(folder.glob("*.wav")):
        if not wav.is_symlink() and wav.is_file() and fix_wav_header(wav):
            notes.append(f"{wav}: header fixed from the data length")
    return notes
