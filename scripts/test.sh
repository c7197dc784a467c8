#!/usr/bin/env bash
# The test command: set-up, lint, type check, then the whole test suite
# (unit tests and live tests against a real LiveKit server on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check floorbench tests benchmarks
.venv/bin/pyright floorbench
.venv/bin/python -m pytest -q "$@"
