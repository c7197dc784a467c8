"""Offline scoring from recordings: what every suite's scorer shares (docs/scoring.md).

    inputs             find dialogue folders (run directory or recordings folder), one-line errors
    vad_stage          model.wav → Silero probabilities and a drawing curve, batched over worker processes
    asr                faster-whisper on the speech inside each window (batched, cached)
    judges/            answer and intrusion judges: offline rules + MiniLM, or any OpenAI-compatible LLM
    stats              scenario bootstrap, exact McNemar, Spearman
    quality            predicted speech quality (MOS) of the model's turns
    self_interruptions cut-offs and self-interruptions read from the recordings
    transport_summary  the room's own delay beside the metrics
    outcome            what a suite's `score` part takes and returns
    minilm             the packaged MiniLM sentence model in numpy, for the offline judge
    cache              JSONL caches of transcripts and verdicts
    agreement_labels   `floorbench judge-agreement --labels`: a judge against human labels
    commands           CLI registration (heavy imports stay inside the commands)

A suite's own metrics, items and scores file are in its folder (mpe's in floorbench/suites/mpe/:
items, timing, content, metrics, scores_file, sound_flags, score, agreement), reached through its
plug-in parts `score`, `report` and `run_agreement`.

Importing this package pulls in neither LiveKit nor pipecat.
"""
