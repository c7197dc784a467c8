"""`floorbench report`: scored runs side by side as Markdown and self-contained HTML.

    load      scored runs (scores.json, items.jsonl, vad.jsonl with its drawing curves) and turns.json
    tables    every table as plain data, shared by both formats
    markdown  report.md (cells escaped) and the summary `floorbench score` prints
    svg       metric bars with 95% intervals, per-dialogue timelines (all text escaped)
    html      report.html: inline CSS and SVG, no scripts, no external resources
    render    picks the dialogues to draw and writes both files

The report reads only what `floorbench score` wrote: it reads no audio and
runs no VAD, ASR or judge.
"""
