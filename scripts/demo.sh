#!/usr/bin/env bash
# The main job: set-up, then a small live evaluation end to end on the local
# defaults — the example suite against a known-good (oracle) and a known-bad
# (eager) agent, each in real LiveKit rooms on a managed 127.0.0.1 server;
# then offline scoring of both runs and a side-by-side report.
# Extra arguments go to `floorbench run` (e.g. --limit 2 for a quicker look);
# JOBS=N sets how many scenarios play at once (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
OUT=${OUT:-runs/demo}
SUITE=${SUITE:-example}
# scenarios at once, each in its own room. 1 keeps every scenario's timing verdict `ok` on
# 2 cores; JOBS=2 halves the wall time but some scenarios come back `degraded` there
# (README, "Running a full suite"); more on a bigger machine, checking the timing verdicts
JOBS=${JOBS:-1}
for model in oracle eager; do
  echo "== floorbench run --model $model"
  .venv/bin/floorbench run --suite "$SUITE" --model "$model" --out "$OUT/$model" --concurrency "$JOBS" "$@"
  echo "== floorbench score $OUT/$model"
  .venv/bin/floorbench score "$OUT/$model"
done
.venv/bin/floorbench report "$OUT/oracle" "$OUT/eager" --out "$OUT/report" --title "floorbench demo: oracle vs eager"
echo "run folders: $OUT/oracle $OUT/eager; report: $OUT/report/report.html"
