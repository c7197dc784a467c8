"""Suite `turns` — live turn-taking (docs/suites/turns.md): TurnBench's events, played against the model."""

from floorbench.plugins import GenerateOption, SuitePlugin

PLUGIN = SuitePlugin(
    name="turns",
    summary="turn-taking: end of turn, pauses, barge-ins, backchannels and noise (TurnBench's events)",
    doc="suites/turns.md",
    labels=("eot", "pause", "interrupt", "backchannel", "noise"),
    turns_fields=("condition",),
    load_scenario="floorbench.suites.turns.validate:load_turns_scenario",
    suite_info="floorbench.suites.turns.validate:turns_suite_info",
    live_schedule="floorbench.suites.turns.schedule:live_schedule",
    oracle="floorbench.suites.turns.oracle:oracle",
    generate="floorbench.suites.turns.commands:generate",
    generate_options=(GenerateOption("--language", str, "en", "en, es (Spanish), de (German) or zh (Mandarin)"),),
    recognises="floorbench.suites.turns.commands:recognises",
    score="floorbench.suites.turns.commands:score",
    reports="floorbench.suites.turns.report:is_turns_run",
    report="floorbench.suites.turns.report:report",
    commands="floorbench.suites.turns.commands:commands",
)
