"""Streaming Ogg/Opus: PCM → Ogg pages and Ogg pages → PCM, through libopus (opuslib).

The Moshi server protocol (kyutai's ``moshi.server`` and its Rust backend)
carries audio as a continuous Ogg stream, cut anywhere into WebSocket messages:
the first pages hold the ``OpusHead`` and ``OpusTags`` packets, then one Opus
packet per page. kyutai uses ``sphn`` for this; floorbench does it here with
``opuslib`` (already a dependency) so that no extra wheel is needed.

- `OggOpusWriter.append_pcm` buffers int16 PCM and returns the bytes of every
  page completed (the two header pages come out with the first call).
- `OggOpusReader.append_bytes` accepts bytes cut anywhere (mid-page too) and
  returns the int16 PCM decoded from every packet completed so far.

Granule positions follow RFC 7845 (48 kHz sample counts). Pre-skip is written
but, like sphn's stream reader, not applied when reading: a live stream keeps
its timing instead of dropping its first few milliseconds.
"""

from __future__ import annotations

import struct

import numpy as np

OPUS_FRAME_MS = (10, 20, 40, 60, 80, 100, 120)
PRE_SKIP_48K = 312
"""libopus's usual encoder lookahead (6.5 ms at 48 kHz)"""


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        r = i << 24
        for _ in range(8):
            r = ((r << 1) ^ 0x04C11DB7) if r & 0x80000000 else (r << 1)
        table.append(r & 0xFFFFFFFF)
    return table


_CRC = _crc_table()


def ogg_crc(data: bytes) -> int:
    """The Ogg page checksum: CRC-32, polynomial 0x04C11DB7, no reflection, init 0."""
    crc = 0
    for b in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _CRC[((crc >> 24) & 0xFF) ^ b]
    return crc


def ogg_page(
    packet: bytes, *, serial: int, sequence: int, granule: int, bos: bool = False, eos: bool = False
) -> bytes:
    """One Ogg page holding exactly one whole packet (lacing values of 255 … n)."""
    lacing = [255] * (len(packet) // 255) + [len(packet) % 255]
    if len(lacing) > 255:
        raise ValueError(f"Opus packet of {len(packet)} bytes does not fit one Ogg page")
    header_type = (0x02 if bos else 0) | (0x04 if eos else 0)
    header = struct.pack(
        "<4sBBqIIIB", b"OggS", 0, header_type, granule, serial, sequence, 0, len(lacing)
    ) + bytes(lacing)
    page = bytearray(header + packet)
    struct.pack_into("<I", page, 22, ogg_crc(bytes(page)))
    return bytes(page)


def opus_head(sample_rate: int, channels: int = 1) -> bytes:
    return b"OpusHead" + struct.pack("<BBHIhB", 1, channels, PRE_SKIP_48K, sample_rate, 0, 0)


def opus_tags(vendor: str = "floorbench") -> bytes:
    v = vendor.encode()
    return b"OpusTags" + struct.pack("<I", len(v)) + v + struct.pack("<I", 0)


def _opuslib():  # type: ignore[no-untyped-def]
    try:
        import opuslib
    except Exception as e:  # opuslib raises at import when libopus is missing
        raise RuntimeError(
            f"Opus codec unavailable ({e}); install libopus (apt-get install -y libopus0) and opuslib"
        ) from None
    return opuslib


class OggOpusWriter:
    """Mono int16 PCM at `sample_rate` → Ogg/Opus byte stream, one packet per page."""

    def __init__(self, sample_rate: int = 24000, frame_ms: int = 80, serial: int = 42) -> None:
        if sample_rate not in (8000, 12000, 16000, 24000, 48000):
            raise ValueError(f"Opus sample rate must be 8/12/16/24/48 kHz, got {sample_rate}")
        if frame_ms not in OPUS_FRAME_MS:
            raise ValueError(f"Opus frame must be one of {OPUS_FRAME_MS} ms, got {frame_ms}")
        self.sample_rate = sample_rate
        self.frame = sample_rate * frame_ms // 1000
        self.serial = serial
        self._encoder = _opuslib().Encoder(sample_rate, 1, "voip")
        self._pending = np.zeros(0, dtype=np.int16)
        self._sequence = 0
        self._granule = 0
        self._started = False

    def _page(self, packet: bytes, granule: int, bos: bool = False) -> bytes:
        page = ogg_page(packet, serial=self.serial, sequence=self._sequence, granule=granule, bos=bos)
        self._sequence += 1
        return page

    def header(self) -> bytes:
        """The two header pages (OpusHead, OpusTags); returned once, by the first call that needs them."""
        if self._started:
            return b""
        self._started = True
        return self._page(opus_head(self.sample_rate), 0, bos=True) + self._page(opus_tags(), 0)

    def append_pcm(self, pcm: np.ndarray | bytes) -> bytes:
        """Buffer `pcm` (int16) and return the pages of every whole frame it completes."""
        x = np.frombuffer(pcm, dtype=np.int16) if isinstance(pcm, bytes | bytearray) else pcm
        if x.dtype != np.int16:
            x = np.clip(np.asarray(x, dtype=np.float32) * 32768.0, -32768, 32767).astype(np.int16)
        out = bytearray(self.header())
        self._pending = np.concatenate([self._pending, x])
        while len(self._pending) >= self.frame:
            chunk, self._pending = self._pending[: self.frame], self._pending[self.frame :]
            packet = self._encoder.encode(chunk.tobytes(), self.frame)
            self._granule += self.frame * 48000 // self.sample_rate
            out += self._page(packet, self._granule)
        return bytes(out)


class OggOpusReader:
    """Ogg/Opus byte stream cut anywhere → mono int16 PCM at `sample_rate`."""

    def __init__(self, sample_rate: int = 24000) -> None:
        self.sample_rate = sample_rate
        self._buf = bytearray()
        self._packet = bytearray()
        self._decoder = None
        self.bad_pages = 0
        """pages skipped for a bad checksum (the reader resynchronises on the next 'OggS')"""

    def append_bytes(self, data: bytes) -> np.ndarray:
        self._buf += data
        pcm: list[np.ndarray] = []
        while True:
            start = self._buf.find(b"OggS")
            if start < 0:
                del self._buf[: max(0, len(self._buf) - 3)]
                break
            if start:
                del self._buf[:start]
            if len(self._buf) < 27:
                break
            nseg = self._buf[26]
            if len(self._buf) < 27 + nseg:
                break
            lacing = self._buf[27 : 27 + nseg]
            size = 27 + nseg + sum(lacing)
            if len(self._buf) < size:
                break
            page = bytearray(self._buf[:size])
            del self._buf[:size]
            (crc,) = struct.unpack_from("<I", page, 22)
            struct.pack_into("<I", page, 22, 0)
            if ogg_crc(bytes(page)) != crc:
                self.bad_pages += 1
                self._packet.clear()
                continue
            if not page[5] & 0x01:  # not a continuation: a stale partial packet is dropped
                self._packet.clear()
            pos = 27 + nseg
            for lace in lacing:
                self._packet += page[pos : pos + lace]
                pos += lace
                if lace < 255:
                    out = self._packet_done(bytes(self._packet))
                    if out is not None:
                        pcm.append(out)
                    self._packet.clear()
        return np.concatenate(pcm) if pcm else np.zeros(0, dtype=np.int16)

    def _packet_done(self, packet: bytes) -> np.ndarray | None:
        if packet.startswith(b"OpusHead"):
            self._decoder = _opuslib().Decoder(self.sample_rate, 1)
            return None
        if packet.startswith(b"OpusTags") or self._decoder is None:
            return None
        max_frame = self.sample_rate * 120 // 1000
        return np.frombuffer(self._decoder.decode(packet, max_frame), dtype=np.int16)
