"""A stand-in model process for tests/test_model_fork.py: says where it runs and what it was given."""

import json
import os
import sys


def main() -> None:
    line = sys.stdin.readline()
    sys.stdout.write(json.dumps({"cwd": os.getcwd(), "probe": os.environ.get("PROBE"), "line": line.strip(),
                                 "secret": os.environ.get("FORKPROBE_SECRET")}) + "\n")
    sys.stdout.flush()
    sys.stderr.write("probe on stderr\n")
    code = int(os.environ.get("PROBE_EXIT", "0"))
    if os.environ.get("PROBE_HANG"):
        import time

        time.sleep(60)
    sys.exit(code)
