"""Voices: text to audio for scenario rendering and for the models that speak.

- `tts` — voice names (`piper:joe`, `flite:…`, `festival:…`, `pipecat:…`) to audio.
- `tts_festival`, `tts_pipecat` — the engines behind some of those names.
- `spoken_numbers` — numbers spelled out, so every voice reads them the same way.
- `acoustics`, `rooms`, `noises` — the rooms and noise the humans' voices are heard in
  (`--acoustics`): shoebox impulse responses, noise beds (babble from these voices), a phone line.

Both the renderer (`floorbench.scenarios`) and the models (`floorbench.processors`)
import this package; it imports neither.
"""
