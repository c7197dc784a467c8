"""Offline scoring of the `mpe` suite from recordings (benchmarks.md §1); see docs/scoring.md.

    inputs      find dialogue folders (run directory or recordings folder), one-line errors
    vad_stage   model.wav → Silero probabilities, batched over files in worker processes
    timing      the §1 timing rules on VAD segments → items with kind + reason
    asr         faster-whisper on the speech inside each window (batched, cached)
    judges/     answer and intrusion judges: offline rules + MiniLM, or any OpenAI-compatible LLM
    content     ASR + judges filled into the pending items
    metrics     items → per-condition scores, presence split, position, silence sensitivity, McNemar
    stats       scenario bootstrap, exact McNemar, Spearman
    score       the `floorbench score` pipeline and its files (scores.json, items.jsonl, vad.jsonl)
    agreement   `floorbench judge-agreement`
    commands    CLI registration (heavy imports stay inside the commands)

Importing this package pulls in neither LiveKit nor pipecat.
"""
