#!/usr/bin/env bash
# The main job: set-up, then a small live evaluation end to end on the local
# defaults — the example suite against a known-good (oracle) and a known-bad
# (eager) agent, each in real LiveKit rooms on a managed 127.0.0.1 server;
# then offline scoring of both runs and a side-by-side report.
#
# By default it plays the first pair of the example suite (the same dialogue with
# an explicit and an implicit request) for each model, two rooms at a time, so a
# newcomer sees the report in a few minutes once set up. FULL=1 plays all eight
# scenarios. Extra arguments go to `floorbench run`.
# JOBS sets the rooms at once: `auto` (the default) starts at one room per core and
# lowers it when a scenario's timing verdict comes back `degraded` (that scenario
# is played again), so a busy machine costs time, not trust.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
OUT=${OUT:-runs/demo}
SUITE=${SUITE:-example}
JOBS=${JOBS:-auto}
LIMIT=(--limit 2)
[ "${FULL:-0}" = 1 ] && LIMIT=()
start=$(date +%s)
for model in oracle eager; do
  echo "== floorbench run --model $model"
  .venv/bin/floorbench run --suite "$SUITE" --model "$model" --out "$OUT/$model" --concurrency "$JOBS" "${LIMIT[@]}" "$@"
  echo "== floorbench score $OUT/$model"
  .venv/bin/floorbench score "$OUT/$model"
done
.venv/bin/floorbench report "$OUT/oracle" "$OUT/eager" --out "$OUT/report" --title "floorbench demo: oracle vs eager"
echo "run folders: $OUT/oracle $OUT/eager; report: $OUT/report/report.html ($(( $(date +%s) - start )) s after set-up)"
