"""The old address of the plug-in contract, now `floorbench.plugins` (kept only as a re-export).

Suites outside floorbench written before the contract moved to the base layer
import it from here (``from floorbench.suites.registry import SuitePlugin``); this
thin module keeps them working. Nothing in floorbench imports it, and the docs
point new suites at `floorbench.plugins`. It has no state or behaviour of its
own: every name is the one object of `floorbench.plugins` (a suite registered
through either address is the same registration), and `get_suite` needs a name
here too, since no suite is a default.
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
