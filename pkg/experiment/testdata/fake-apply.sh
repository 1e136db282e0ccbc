#!/usr/bin/env bash
# fake apply hook for the experiment tests: it stands in for e2e/lab/up.sh,
# which must not run in unit tests. It records the case's settings where
# the test's fake exporter reads them, then prints `lab:` lines that point
# at the test's local servers, the way up.sh prints the lab's.
set -euo pipefail
if [ -n "${FAKE_APPLY_FAIL:-}" ]; then
  echo "fake apply: asked to fail" >&2
  exit 3
fi
echo "fake apply: runner limits ${LAB_RUNNER_LIMITS:-10}" >&2
printf '%s\n' "${LAB_RUNNER_LIMITS:-10}" "${LAB_RUNNER_MEMORY:-0}" > "$FAKE_STATE.tmp"
mv "$FAKE_STATE.tmp" "$FAKE_STATE"
echo "some other output"
echo "lab: webhook $FAKE_WEBHOOK"
echo "lab: exporter-metrics $FAKE_EXPORTER"
echo "lab: probe-metrics-1 $FAKE_EXPORTER"
