"""Suite `agent` — conversation tests with assertions (docs/testing.md): `floorbench test`.

A test file's tests become one scenario per trial; the caller's steps play
reactively against the agent's speech, and each assertion is judged from the
recording, with its measured value.
"""

from floorbench.plugins import SuitePlugin
from floorbench.suites.agent.rules import LABELS

PLUGIN = SuitePlugin(
    name="agent",
    summary="conversation tests: a caller's steps against a voice agent, assertions judged from the recording",
    doc="testing.md",
    labels=LABELS,
    load_scenario="floorbench.suites.agent.scenario_file:load_agent_scenario",
    suite_info="floorbench.suites.agent.importer:agent_suite_info",
    live_schedule="floorbench.suites.agent.schedule:live_schedule",
    oracle="floorbench.suites.agent.oracle:oracle",
    recognises="floorbench.suites.agent.commands:recognises",
    score="floorbench.suites.agent.commands:score",
    cli_commands="floorbench.suites.agent.cli:cli_commands",
    reports="floorbench.suites.agent.report:is_test_run",
    report="floorbench.suites.agent.report:report",
)
