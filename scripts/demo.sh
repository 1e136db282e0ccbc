#!/usr/bin/env bash
# The main job on a fresh machine: bring the real-n8n lab up, predict its
# ceiling, show what the exporter says, measure it with a sweep and the
# runner-limit experiment, and leave the lab running.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LAB_WORKER_CONCURRENCY:=15}" "${LAB_RUNNER_LIMITS:=5}" "${DEMO_OUT:=out/demo}"
export LAB_WORKER_CONCURRENCY LAB_RUNNER_LIMITS LAB_PROBE=1
mkdir -p "$DEMO_OUT"

echo "demo: bringing the lab up (worker $LAB_WORKER_CONCURRENCY, runner limit $LAB_RUNNER_LIMITS, broker probe on)"
echo "demo: the first run installs n8n and its services (about 5 min)"
out=$(bash e2e/lab/up.sh)
echo "$out"
endpoint() { sed -n "s/^lab: $1 //p" <<<"$out"; }
webhook=$(endpoint webhook)
metrics=$(endpoint exporter-metrics)

echo; echo "== predicted: loadctl plan, 1 s tasks =="
bin/loadctl plan --worker-concurrency "$LAB_WORKER_CONCURRENCY" --runner-limit "$LAB_RUNNER_LIMITS" \
  --service-time 1s --vus 5,10,20

echo; echo "== measured: loadctl sweep, 1 s tasks =="
bin/loadctl sweep --url "$webhook" --vus 5,10,20 --step 15s --warmup 4s --set sleep_ms=1000 \
  --check ok==true --exporter "$metrics" --quiet \
  --out "$DEMO_OUT/sweep.json" --report "$DEMO_OUT/sweep.html"

echo; echo "== the exporter's verdict (${metrics%metrics}verdict) =="
curl -fsS "${metrics%metrics}verdict"

echo; echo "== the seed's isolation experiment: runner limit 2, 5, 10, 20 under worker 15 =="
bin/loadctl experiment --spec e2e/experiments/runner-limit.yaml --quiet \
  --out "$DEMO_OUT/runner-limit.json" --report "$DEMO_OUT/runner-limit.html" \
  --markdown "$DEMO_OUT/runner-limit.md" || echo "demo: some experiment checks failed; see the report"

echo
echo "reports:  $DEMO_OUT/sweep.html  $DEMO_OUT/runner-limit.html  $DEMO_OUT/runner-limit.md"
echo "The lab is still running (exporter: ${metrics%metrics}). Stop it with: make down"
