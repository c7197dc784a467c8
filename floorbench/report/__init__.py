"""`floorbench report`: the page shell every suite's report shares (each suite draws its own tables).

    load      scored runs (scores.json, items.jsonl, vad.jsonl with its drawing curves) and turns.json
    svg       escaping for SVG and HTML, metric bars with 95% intervals
    html      the pages' head and CSS: inline, no scripts, no external resources
    render    asks the runs' suite for its part `report`, writes its two pages

A suite's tables and sections are in its own folder (mpe's in floorbench/suites/mpe/report.py).

The report reads only what `floorbench score` wrote: it reads no audio and
runs no VAD, ASR or judge.
"""
