"""Suite `av` — audio-visual dynamics (docs/suites/av.md): the user seen and heard, one event window each."""

from floorbench.plugins import GenerateOption, SuitePlugin

PLUGIN = SuitePlugin(
    name="av",
    summary="audio-visual turn-taking: cues seen and heard, take the floor or yield (VideoFDB's dynamics)",
    doc="suites/av.md",
    labels=("av",),
    load_scenario="floorbench.suites.av.validate:load_av_scenario",
    suite_info="floorbench.suites.av.validate:av_suite_info",
    live_schedule="floorbench.suites.av.schedule:live_schedule",
    oracle="floorbench.suites.av.oracle:oracle",
    generate="floorbench.suites.av.commands:generate",
    generate_options=(
        GenerateOption("--per-dynamic", int, 2, "scenarios per dynamic (1..50)"),
        GenerateOption("--dynamics", str, None, "comma-separated dynamics (default: all 11)"),
    ),
    recognises="floorbench.suites.av.commands:recognises",
    score="floorbench.suites.av.commands:score",
    reports="floorbench.suites.av.report:is_av_run",
    report="floorbench.suites.av.report:report",
    commands="floorbench.suites.av.commands:commands",
    own_labels="floorbench.suites.av.commands:own_labels",
    label_agreement="floorbench.suites.av.commands:label_agreement",
    rendered_by_generator=True,
)
