"""The one error of the conversation test file format, in its own module.

`floorbench.suites.agent.validate` reads a test file and raises it; the step
readers it calls (`dtmf_format`, the keys of a ``dtmf:`` step) raise it too.
Here, below both, so a step reader never has to load the file reader that
loads it.
"""

from __future__ import annotations

from floorbench.scenarios.validate import ScenarioError


class AgentTestError(ScenarioError):
    """A test file breaks the format; the message is one line naming the file, test and step."""
