"""Suite `mpe` — multi-party selective engagement (docs/suites/mpe.md): answer when addressed, else stay silent.

Its scenario record, rules, live schedule, oracle, generator, timing rules, items, metrics, scores file
and report are in this folder, reached by the engine only through the parts below; the
engine lends it what every suite shares (windows, VAD, ASR, judges, bootstrap, the
report's page shell).
"""

from pathlib import Path

from floorbench.plugins import GenerateOption, SuitePlugin

PLUGIN = SuitePlugin(
    name="mpe",
    summary="multi-party rooms: answer when addressed, stay silent otherwise (Duplex-MPE)",
    doc="suites/mpe.md",
    paired=True,
    labels=("T", "N1", "N2", "N3", "N4Q", "N4R"),
    turns_fields=("pair_id", "condition"),
    load_scenario="floorbench.suites.mpe.validate:load_scenario",
    check_suite="floorbench.suites.mpe.validate:check_suite",
    suite_info="floorbench.suites.mpe.validate:suite_info",
    live_schedule="floorbench.suites.mpe.schedule:live_schedule",
    oracle="floorbench.suites.mpe.oracle:oracle",
    generate="floorbench.suites.mpe.commands:generate",
    generate_options=(
        GenerateOption("--min-turns", int, 6, "fewest human turns per scenario (4..40)"),
        GenerateOption("--max-turns", int, 10, "most human turns per scenario (4..40)"),
        GenerateOption("--llm", Path, None, "LLM config YAML: let an OpenAI-compatible model write the turns"),
        GenerateOption("--language", str, "en", "en, es (Spanish), de (German) or zh (Mandarin)"),
    ),
    score="floorbench.suites.mpe.commands:score",
    report="floorbench.suites.mpe.report:write_scored_report",
    run_agreement="floorbench.suites.mpe.agreement:agreement",
    check_turns="floorbench.suites.mpe.timing:check_turns",
    commands="floorbench.suites.mpe.commands:commands",
)
