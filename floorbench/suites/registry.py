"""The old address of the plug-in contract, now `floorbench.plugins` (kept only as a re-export).

Two kinds of caller still use this path: suites outside floorbench written
against it (``from floorbench.suites.registry import SuitePlugin``, as the
docs said before the contract moved to the base layer), and three engine
modules in scoring/ and report/ not yet moved over. New code imports
`floorbench.plugins`, with one difference: `get_suite(None)` here still
answers (the catch-all suite) for that old caller. Nothing here has state of its own: every name is the
one object of `floorbench.plugins`, so a suite registered through either
address is the same registration.
"""

from floorbench import plugins
from floorbench.plugins import (
    BUILTIN,
    ENTRY_POINT_GROUP,
    PART_NAMES,
    GenerateOption,
    GenerateRequest,
    SuiteNotFound,
    SuitePlugin,
    all_suites,
    load_path,
    option_name,
    register_suite,
    reload_entry_points,
    suite_names,
    suite_of,
    suite_owning_labels,
    suite_recognising,
    suite_reporting,
    unregister_suite,
)


def get_suite(name: str | None) -> SuitePlugin:
    """`floorbench.plugins.get_suite`; None: the suite that takes what no other claims (the one
    caller, scoring/inputs.py, names its labels in an unknown-label error line)."""
    return plugins.get_suite(name) if name else plugins.catch_all("recognises")


__all__ = [
    "BUILTIN", "ENTRY_POINT_GROUP", "PART_NAMES", "GenerateOption", "GenerateRequest", "SuiteNotFound",
    "SuitePlugin", "all_suites", "get_suite", "load_path", "option_name", "register_suite",
    "reload_entry_points", "suite_names", "suite_of", "suite_owning_labels", "suite_recognising",
    "suite_reporting", "unregister_suite",
]
