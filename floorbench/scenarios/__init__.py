"""Scenario suites, whatever the suite: reading and checking files, writing them, audio, suite facts.

    schema    the records every suite shares: the suite header (`Suite`), the id rule, a speaker, a
              clip's head (each suite's own scenario record is in its folder: mpe's in suites/mpe/schema.py)
    interface what the engine reads of any suite's scenario (`ScenarioRecord`, `ScenarioTurn`)
    validate  load a suite: each file by its suite's rules (part `load_scenario`), the suite's own
              cross-scenario rules (part `check_suite`), one line per broken rule
    files     write scenario and suite files in one canonical, byte-stable form
    banks     read a generator's word banks, YAML files in its suite folder (`banks/`), frozen
    render    turns and preamble to content-addressed audio (cached, resumable, parallel)
    info      `suite info`: counts, hours of audio, audio hash check
    commands  CLI registration (heavy imports stay inside the commands)

Each suite's generator, importer and vocabularies are in its own folder (floorbench/suites/).
"""
