#!/bin/sh
# Bench loadctl against hey and wrk on a trivial local server, then check
# the open-loop rate. Prints req/s per tool, the ratios, and loadctl's CPU.
# Usage: bench/loadctl/run.sh [compare flags, e.g. -d 10s -c 50 -rate 2000]
set -eu
cd "$(dirname "$0")/../.."
for tool in hey wrk; do
	command -v "$tool" >/dev/null || { echo "bench: $tool not found (apt-get install -y $tool)" >&2; exit 1; }
done
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/loadctl" ./cmd/loadctl
go build -o "$bin/server" ./bench/loadctl/server
go run ./bench/loadctl/compare -loadctl "$bin/loadctl" -server "$bin/server" "$@"
