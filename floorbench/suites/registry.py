"""The old address of the plug-in contract, now `floorbench.plugins` (kept only as a re-export).

Two kinds of caller still use this path: suites outside floorbench written
against it (``from floorbench.suites.registry import SuitePlugin``, as the
docs said before the contract moved to the base layer), and three engine
modules in scoring/ and report/ not yet moved over. New code imports
`floorbench.plugins`. Nothing here has state of its own: every name is the
one object of `floorbench.plugins`, so a suite registered through either
address is the same registration.
"""

from floorbench.plugins import (
    BUILTIN,
    ENTRY_POINT_GROUP,
    PART_NAMES,
    GenerateOption,
    GenerateRequest,
    SuiteNotFound,
    SuitePlugin,
    all_suites,
    get_suite,
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

__all__ = [
    "BUILTIN", "ENTRY_POINT_GROUP", "PART_NAMES", "GenerateOption", "GenerateRequest", "SuiteNotFound",
    "SuitePlugin", "all_suites", "get_suite", "load_path", "option_name", "register_suite",
    "reload_entry_points", "suite_names", "suite_of", "suite_owning_labels", "suite_recognising",
    "suite_reporting", "unregister_suite",
]
