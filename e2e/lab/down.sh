#!/usr/bin/env bash
# Stops exactly what up.sh started: containers by the IDs it recorded, host
# processes by their PID files. PostgreSQL is stopped only if up.sh started it.
# LAB_KEEP_DOCKERD=1 leaves dockerd running (tests that bring the lab up again).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
run="$LAB_STATE/run"
[ -d "$run" ] || { echo "down: nothing to stop"; exit 0; }
exec 9>"$LAB_STATE/up.lock"
flock -w 600 9 || { echo "down: another up.sh or down.sh holds the lock" >&2; exit 1; }

stop_pid() { # NAME PIDFILE
  local pid; [ -f "$2" ] || return 0
  pid=$(cat "$2")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    echo "down: stopped $1 ($pid)"
  fi
  rm -f "$2"
}

# Host processes that front the lab (exporter, probes) go first.
for f in "$run"/*.pid; do
  [ -e "$f" ] || continue
  case $(basename "$f") in redis.pid|dockerd.pid|dockerd-self.pid) continue ;; esac
  stop_pid "$(basename "$f" .pid)" "$f"
done

if docker -H "$LAB_DOCKER_HOST" version >/dev/null 2>&1; then
  for f in "$run"/containers/*.id; do
    [ -e "$f" ] || continue
    docker -H "$LAB_DOCKER_HOST" rm -f "$(cat "$f")" >/dev/null 2>&1 && echo "down: removed $(basename "$f" .id)"
    rm -f "$f"
  done
fi
rm -f "$run"/containers/*.id "$run"/installed.* "$run"/db.*
if [ -f "$run/network.id" ]; then
  docker -H "$LAB_DOCKER_HOST" network rm "$(cat "$run/network.id")" >/dev/null 2>&1 && echo "down: removed network $LAB_NET"
  rm -f "$run/network.id"
fi

stop_pid redis "$run/redis.pid"
[ "${LAB_KEEP_DOCKERD:-0}" = 1 ] || stop_pid dockerd "$run/dockerd.pid"
if [ -f "$run/postgres.started-by-lab" ]; then
  pg_ctlcluster "$(ls /usr/lib/postgresql | sort -n | tail -1)" main stop && echo "down: stopped postgresql"
  rm -f "$run/postgres.started-by-lab"
fi
