"""Suite agent's part `cli_commands`: the top-level commands it adds to `floorbench`.

In a module of its own so that the command modules it names (`commands`: `floorbench test`,
`floorbench persona-standin`; `load_command`: `floorbench load`, which reuses what
`floorbench test` does) do not import each other both ways.
"""

from __future__ import annotations

import typer


def cli_commands(app: typer.Typer) -> None:
    """`floorbench test`, `floorbench load` and `floorbench persona-standin`."""
    from floorbench.suites.agent.commands import persona_standin, run_tests
    from floorbench.suites.agent.load_command import run_load

    app.command("test")(run_tests)
    app.command("load")(run_load)
    app.command("persona-standin")(persona_standin)
