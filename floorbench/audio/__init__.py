"""Signal-level building blocks every layer above may use; they import nothing of floorbench's.

- `vad` — Silero through onnxruntime: streaming and batched probabilities and
  the one set of speech-segment rules used live and offline.
- `alignment` — normalised cross-correlation: where a known clip lies in a recording.
- `files` — incremental part files and atomic WAV writes.
"""
