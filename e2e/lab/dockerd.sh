#!/usr/bin/env bash
# Starts the lab's own dockerd (no bridge, no iptables: every container uses
# the host network) unless one already answers on the lab socket, then makes
# sure the empty base image exists. Prints the DOCKER_HOST to use.
set -euo pipefail
. "$(dirname "$0")/env.sh"
mkdir -p "$LAB_STATE/run" "$LAB_STATE/docker-data" "$LAB_STATE/docker-exec"
dk() { docker -H "$LAB_DOCKER_HOST" "$@"; }

if ! dk version >/dev/null 2>&1; then
  pidf="$LAB_STATE/run/dockerd.pid"
  # A killed earlier run leaves its pid file and socket behind.
  if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then
    echo "dockerd.sh: dockerd $(cat "$pidf") is running but not answering" >&2; exit 1
  fi
  rm -f "$pidf" "$LAB_DOCKER_SOCK" "$LAB_STATE/docker-exec/docker.pid"
  dockerd --host "$LAB_DOCKER_HOST" --data-root "$LAB_STATE/docker-data" \
    --exec-root "$LAB_STATE/docker-exec" --pidfile "$LAB_STATE/run/dockerd-self.pid" \
    --bridge=none --iptables=false --ip-masq=false \
    >"$LAB_STATE/dockerd.log" 2>&1 &
  echo $! > "$pidf"
  for _ in $(seq 1 60); do dk version >/dev/null 2>&1 && break; sleep 0.5; done
  dk version >/dev/null 2>&1 || { echo "dockerd.sh: dockerd did not answer; see $LAB_STATE/dockerd.log" >&2; exit 1; }
fi

if ! dk image inspect "$LAB_IMAGE" >/dev/null 2>&1; then
  # An empty image: the lab bind-mounts /usr, /lib, node and n8n read-only.
  tmp=$(mktemp -d); mkdir -p "$tmp/etc" "$tmp/tmp" "$tmp/root"
  tar -C "$tmp" -c . | dk import - "$LAB_IMAGE" >/dev/null
  rm -rf "$tmp"
fi
echo "$LAB_DOCKER_HOST"
