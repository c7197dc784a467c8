#!/usr/bin/env bash
# The test command: set-up, lint, type check, then the whole test suite
# (unit tests and live tests against a real LiveKit server on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check floorbench tests benchmarks
.venv/bin/pyright floorbench
if [ "$#" -gt 0 ]; then
    .venv/bin/python -m pytest -q "$@"
else
    # Unit tests on two workers; the live tests alone after them, so no live
    # room shares the CPUs with another test (live tests assert behaviour
    # that holds on a loaded machine, but each one runs rooms in real time).
    .venv/bin/python -m pytest -q -n 2 -m "not live"
    .venv/bin/python -m pytest -q -m live --durations=40
fi
