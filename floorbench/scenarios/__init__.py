"""Scenario suites of the `mpe` benchmark: records, validation, generation, import, audio.

    schema    the scenario and suite records as stored in YAML
    validate  load a suite and enforce the benchmark's rules, one line per broken rule
    files     write scenario and suite files in one canonical, byte-stable form
    generate  the procedural generator (deterministic for a seed)
    vocab     its fixed vocabularies of the five scenario attributes
    phrases   its sentence frames, grouped by turn label
    tasks     its task families: facts, the request and the gold answer
    llm       the optional LLM-backed generator (any OpenAI-compatible endpoint)
    importer  `suite import`: externally written scenarios through the validator
    render    turns and preamble to content-addressed audio (cached, resumable, parallel)
    info      `suite info`: counts, hours of audio, audio hash check
    commands  CLI registration (heavy imports stay inside the commands)
"""
