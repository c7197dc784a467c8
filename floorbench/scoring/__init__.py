"""Offline scoring of the `mpe` suite from recordings (docs/suites/mpe.md); see docs/scoring.md.

    inputs      find dialogue folders (run directory or recordings folder), one-line errors
    vad_stage   model.wav → Silero probabilities and a drawing curve, batched over worker processes
    items       one line of items.jsonl: metric, kind and reason of one window
    timing      the mpe timing rules on VAD segments → items with kind + reason
    asr         faster-whisper on the speech inside each window (batched, cached)
    judges/     answer and intrusion judges: offline rules + MiniLM, or any OpenAI-compatible LLM
    content     ASR + judges filled into the pending items
    metrics     items → per-condition scores, presence split, position, silence sensitivity, McNemar
    stats       scenario bootstrap, exact McNemar, Spearman
    score       the `floorbench score` pipeline and its files (scores.json, items.jsonl, vad.jsonl)
    minilm      the packaged MiniLM sentence model in numpy, for the offline judge
    cache       JSONL caches of transcripts and verdicts
    agreement   `floorbench judge-agreement`
    commands    CLI registration (heavy imports stay inside the commands)

Importing this package pulls in neither LiveKit nor pipecat.
"""
