#!/usr/bin/env bash
# Brings up the kube lab, a real single-node Kubernetes in its own network
# namespace, with n8n in queue mode on it; or reshapes a running one (helm
# upgrade: the cluster itself is not restarted). Interface: README.md here.
# Endpoints go to stdout as `kube: <name> <value>`, everything else to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/env.sh"

: "${KUBE_WORKERS:=1}"
: "${KUBE_WORKER_CONCURRENCY:=15}"
: "${KUBE_RUNNER_LIMIT:=5}"
: "${KUBE_PROBE:=1}"
: "${KUBE_WORKERS_WITHOUT_RUNNER:=0}"
: "${KUBE_CONCURRENCY_FROM_SECRET:=0}"
: "${KUBE_KEDA:=off}"
: "${KUBE_KEDA_MAX:=5}"
: "${KUBE_RUNNER_LAYOUT:=sidecar}"
: "${KUBE_RUNNERS:=$KUBE_WORKERS}"
: "${KUBE_SETTINGS:=configmap}"
: "${KUBE_DECLARE:=0}"

log() { echo "up: $*" >&2; }
die() { echo "up: $*" >&2; exit 1; }
valid_int() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, got '$2'"; }
valid_int KUBE_WORKER_CONCURRENCY "$KUBE_WORKER_CONCURRENCY"
valid_int KUBE_RUNNER_LIMIT "$KUBE_RUNNER_LIMIT"
[[ "$KUBE_WORKERS" =~ ^(0|[1-9][0-9]*)$ ]] || die "KUBE_WORKERS must be a count, got '$KUBE_WORKERS'"
n8n_supported "$KUBE_N8N_VERSION" || die "KUBE_N8N_VERSION must be one of: $LAB_N8N_SUPPORTED; got '$KUBE_N8N_VERSION'"
[[ "$KUBE_PROBE" =~ ^[01]$ ]] || die "KUBE_PROBE must be 0 or 1, got '$KUBE_PROBE'"
[[ "$KUBE_WORKERS_WITHOUT_RUNNER" =~ ^(0|[1-9][0-9]*)$ ]] ||
  die "KUBE_WORKERS_WITHOUT_RUNNER must be a count, got '$KUBE_WORKERS_WITHOUT_RUNNER'"
[[ "$KUBE_CONCURRENCY_FROM_SECRET" =~ ^[01]$ ]] || die "KUBE_CONCURRENCY_FROM_SECRET must be 0 or 1, got '$KUBE_CONCURRENCY_FROM_SECRET'"
[[ "$KUBE_KEDA" =~ ^(off|queue|saturation)$ ]] || die "KUBE_KEDA must be off, queue or saturation, got '$KUBE_KEDA'"
valid_int KUBE_KEDA_MAX "$KUBE_KEDA_MAX"
if [ "$KUBE_KEDA" != off ] && { [ "$KUBE_WORKERS" = 0 ] || [ "$KUBE_KEDA_MAX" -lt "$KUBE_WORKERS" ]; }; then
  die "KUBE_KEDA=$KUBE_KEDA scales the workers from KUBE_WORKERS ($KUBE_WORKERS) to KUBE_KEDA_MAX ($KUBE_KEDA_MAX): need 1 <= KUBE_WORKERS <= KUBE_KEDA_MAX"
fi
[[ "$KUBE_RUNNER_LAYOUT" =~ ^(sidecar|service)$ ]] || die "KUBE_RUNNER_LAYOUT must be sidecar or service, got '$KUBE_RUNNER_LAYOUT'"
[[ "$KUBE_RUNNERS" =~ ^(0|[1-9][0-9]*)$ ]] || die "KUBE_RUNNERS must be a count, got '$KUBE_RUNNERS'"
if [ "$KUBE_RUNNER_LAYOUT" = sidecar ] && [ "$KUBE_RUNNERS" != "$KUBE_WORKERS" ]; then
  die "KUBE_RUNNERS=$KUBE_RUNNERS: sidecar runners are one per worker pod (KUBE_WORKERS=$KUBE_WORKERS); set KUBE_RUNNER_LAYOUT=service"
fi
[[ "$KUBE_SETTINGS" =~ ^(configmap|secret)$ ]] || die "KUBE_SETTINGS must be configmap or secret, got '$KUBE_SETTINGS'"
[[ "$KUBE_DECLARE" =~ ^[01]$ ]] || die "KUBE_DECLARE must be 0 or 1, got '$KUBE_DECLARE'"
if [ "$KUBE_CONCURRENCY_FROM_SECRET" = 1 ] && [ "$KUBE_WORKERS_WITHOUT_RUNNER" = 0 ]; then
  die "KUBE_CONCURRENCY_FROM_SECRET=1 sets the worker pods without runner: set KUBE_WORKERS_WITHOUT_RUNNER too"
fi

run="$KUBE_STATE/run"
mkdir -p "$run" "$KUBE_STATE/log"
exec 9>"$KUBE_STATE/up.lock"
flock -w 600 9 || die "another up.sh or down.sh holds $KUBE_STATE/up.lock"

bash "$here/build.sh" 9>&-
bash "$here/../lab/install.sh" >&2 9>&-

kubelab="$KUBE_TOOLS/kubelab"
pki="$KUBE_STATE/pki"
kubeconfig="$KUBE_STATE/admin.kubeconfig"
apiserver="https://$KUBE_NODE_IP:6443"
netns_path="/run/netns/$KUBE_NETNS"
nsx() { nsenter --net="$netns_path" -- "$@"; }
kc() { "$KUBE_BIN/kubectl" --kubeconfig "$kubeconfig" "$@"; }
# A live process of the cluster (not a zombie, not a reused PID).
alive() { "$kubelab" alive "$@" 2>/dev/null; }

# start NAME CMD...: runs CMD detached in the cluster's namespace unless its
# recorded PID is alive. Output goes to log/NAME.log.
start() {
  local name=$1; shift
  alive "$run/$name.pid" && return 0
  log "starting $name"
  setsid nsenter --net="$netns_path" -- "$@" </dev/null >>"$KUBE_STATE/log/$name.log" 2>&1 8>&- 9>&- &
  echo $! >"$run/$name.pid"
}

components=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy redis postgres)
cluster_alive() {
  [ -e "$netns_path" ] || return 1
  local files=(); for c in "${components[@]}"; do files+=("$run/$c.pid"); done
  alive "${files[@]}"
}

if ! cluster_alive; then
  # Whatever a killed or partial run left goes first; then a cold start.
  if compgen -G "$run/*.pid" >/dev/null || [ -e "$netns_path" ] || [ -e "$run/$SYSCTL_FILE" ]; then
    log "cleaning up what an earlier run left"
    KUBE_LOCKED=1 bash "$here/down.sh" >&2 || die "down.sh could not clean up"
  fi
  . "$here/start.sh"
fi

# --- images (cheap when already imported) ---------------------------------------
# import_images NAME...: the tarballs build.sh wrote, into the node's containerd.
import_images() {
  local img
  for img; do
    ctr --address "$KUBE_STATE/containerd/containerd.sock" -n k8s.io images import --snapshotter native \
      "$KUBE_IMAGES/$img.tar" >/dev/null || die "importing the $img image failed"
  done
}
exporter_image=$(cat "$KUBE_IMAGES/exporter.ref")
import_images pause base exporter

# --- n8n ------------------------------------------------------------------------
kc get namespace "$KUBE_NAMESPACE" >/dev/null 2>&1 || kc create namespace "$KUBE_NAMESPACE" >/dev/null
# The Secret comes from the 0600 file; server-side apply keeps its values out
# of a last-applied annotation.
kc -n "$KUBE_NAMESPACE" create secret generic n8n-secrets --from-env-file="$KUBE_STATE/secrets.env" \
  --dry-run=client -o yaml | kc apply --server-side --field-manager=kube-lab -f - >/dev/null

export HELM_CACHE_HOME="$KUBE_STATE/helm/cache" HELM_CONFIG_HOME="$KUBE_STATE/helm/config" HELM_DATA_HOME="$KUBE_STATE/helm/data"
helm() { "$KUBE_BIN/helm" --kubeconfig "$kubeconfig" -n "$KUBE_NAMESPACE" "$@"; }
# A helm killed mid-upgrade leaves the release pending, and helm refuses the
# next upgrade: roll back to the last deployed revision (none: uninstall).
for release in n8n n8n-ceiling; do
  if helm list --pending -q | grep -qx "$release"; then
    log "helm: the $release release was left pending; rolling it back"
    helm rollback "$release" >&2 || helm uninstall "$release" >&2 || die "cannot clear the pending $release release"
  fi
done
log "helm: n8n $KUBE_N8N_VERSION with $KUBE_WORKERS worker pod(s), concurrency $KUBE_WORKER_CONCURRENCY, runner limit $KUBE_RUNNER_LIMIT, probe $KUBE_PROBE," \
  "$KUBE_WORKERS_WITHOUT_RUNNER without runner (concurrency from a Secret: $KUBE_CONCURRENCY_FROM_SECRET)"
log "helm: runners as $KUBE_RUNNER_LAYOUT ($KUBE_RUNNERS), capacity settings from a $KUBE_SETTINGS, declared by annotations: $KUBE_DECLARE"
probe_enabled=false; [ "$KUBE_PROBE" = 1 ] && probe_enabled=true
from_secret=false; [ "$KUBE_CONCURRENCY_FROM_SECRET" = 1 ] && from_secret=true
settings_secret=false; [ "$KUBE_SETTINGS" = secret ] && settings_secret=true
# KUBE_DECLARE=1: each workload's pods declare the capacity settings the
# chart gives it (the values of its Secret with KUBE_SETTINGS=secret) as
# n8n-ceiling.io/<VAR> annotations, and the broker port, n8n's default
# 5679, which no Secret sets: the exporter cannot list a Secret's keys, so
# a key it may hold stays unknown unless declared.
declare_args=()
if [ "$KUBE_DECLARE" = 1 ]; then
  for w in main worker; do
    for kv in EXECUTIONS_MODE=queue N8N_RUNNERS_MODE=external N8N_RUNNERS_TASK_REQUEST_TIMEOUT=60 \
      OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true N8N_RUNNERS_BROKER_PORT=5679; do
      declare_args+=(--set-string "declare.$w.$kv")
    done
  done
  declare_args+=(--set-string "declare.worker.N8N_CONCURRENCY_PRODUCTION_LIMIT=$KUBE_WORKER_CONCURRENCY")
  declare_args+=(--set-string "declare.taskRunner.N8N_RUNNERS_MAX_CONCURRENCY=$KUBE_RUNNER_LIMIT")
fi
if ! helm upgrade --install n8n "$here/chart" \
  --wait --timeout 10m \
  --set "images.exporter=$exporter_image" \
  --set "host.node=$LAB_CACHE/node24" --set "host.n8n=$LAB_N8N_DIR" --set "host.lab=$(cd "$here/../lab" && pwd)" \
  --set "database.host=$KUBE_NODE_IP" --set "redis.host=$KUBE_NODE_IP" \
  --set "main.nodePort=$KUBE_WEBHOOK_NODEPORT" \
  --set "worker.replicas=$KUBE_WORKERS" --set "worker.concurrency=$KUBE_WORKER_CONCURRENCY" \
  --set "taskRunner.maxConcurrency=$KUBE_RUNNER_LIMIT" --set "probe.enabled=$probe_enabled" \
  --set "workerWithoutRunner.replicas=$KUBE_WORKERS_WITHOUT_RUNNER" --set "workerWithoutRunner.concurrencyFromSecret=$from_secret" \
  --set "taskRunner.layout=$KUBE_RUNNER_LAYOUT" --set "taskRunner.replicas=$KUBE_RUNNERS" \
  --set "brokerService.clusterIP=$KUBE_BROKER_SERVICE_IP" --set "settings.fromSecret=$settings_secret" "${declare_args[@]}" \
  --set "workflowsHash=$(cat "$here"/../lab/workflows/*.json | sha256sum | cut -c1-16)" >&2; then
  kc -n "$KUBE_NAMESPACE" get pods -o wide >&2 || true
  die "helm upgrade of n8n failed"
fi

# Main's init container imports the workflows before main starts. n8n 2.41
# imports them into a fresh database without activating them until main
# has started once ("Failed to activate workflow"): main then restarts, and
# its init container's second import activates them.
import_log=$(kc -n "$KUBE_NAMESPACE" logs deploy/n8n-main -c import-workflows 2>/dev/null) || import_log=""
if grep -q "Failed to activate workflow" <<<"$import_log"; then
  log "n8n $KUBE_N8N_VERSION did not activate the workflows on a fresh database; restarting main to import them again"
  kc -n "$KUBE_NAMESPACE" rollout restart deployment/n8n-main >&2
  kc -n "$KUBE_NAMESPACE" rollout status deployment/n8n-main --timeout 5m >&2 || die "main did not come back after its restart"
fi

# --- KEDA: installed on first use, then the ScaledObject swapped ------------------
. "$here/autoscale.sh"
[ "$KUBE_KEDA" != off ] && ! keda_installed && keda_install
want_so=""
case $KUBE_KEDA in queue) want_so=$keda_so_queue ;; saturation) want_so=$keda_so_saturation ;; esac
keda_clear "$want_so"

# --- the exporter, with the project's chart -------------------------------------
# The image tag is the binary's hash (build.sh), so a changed exporter rolls
# out and an unchanged one is left alone. No prometheus-operator runs here:
# its resources stay off. The ServiceAccount, Role and binding are the chart's.
log "helm: the exporter ($exporter_image)"
if ! helm upgrade --install n8n-ceiling "$repo/deploy/helm/n8n-ceiling" \
  --wait --timeout 5m \
  --set "image.repository=${exporter_image%:*}" --set "image.tag=${exporter_image##*:}" --set image.pullPolicy=Never \
  --set "watch.selector=app.kubernetes.io/name=n8n" \
  --set "redis.host=$KUBE_NODE_IP" --set redis.port=6379 --set cgroup.hostPath=/sys/fs/cgroup \
  --set serviceMonitor.enabled=false --set podMonitor.enabled=false \
  --set prometheusRule.enabled=false --set dashboard.enabled=false \
  --set "keda.enabled=$([ "$KUBE_KEDA" = saturation ] && echo true || echo false)" \
  --set "keda.serverAddress=http://$prometheus_addr" --set keda.rateWindow=30s \
  --set "keda.minReplicaCount=$KUBE_WORKERS" --set "keda.maxReplicaCount=$KUBE_KEDA_MAX" \
  --set keda.scaleDown.stabilizationWindowSeconds=30 --set keda.scaleDown.pods=4 --set keda.scaleDown.periodSeconds=15 >&2; then
  kc -n "$KUBE_NAMESPACE" logs deploy/n8n-ceiling --tail 30 >&2 || true
  die "helm upgrade of the exporter failed"
fi
# The host reaches Services through the veth (kube-proxy runs in the node's
# namespace): the ClusterIP outlives the exporter's pod.
exporter_ip=$(kc -n "$KUBE_NAMESPACE" get service n8n-ceiling -o 'jsonpath={.spec.clusterIP}') ||
  die "the exporter's Service has no ClusterIP"
prometheus_up "$exporter_ip"
[ "$KUBE_KEDA" = queue ] && keda_queue_scaledobject

# --- wait and print ------------------------------------------------------------
runner=task-runner; [ "$KUBE_PROBE" = 1 ] && runner+=,probe
wait_pods() { "$kubelab" wait-pods "$apiserver" "$pki/ca.crt" "$pki/admin.token" "$KUBE_NAMESPACE" "app.kubernetes.io/component=$1" "$2" "$3" 5m; }
if [ "$KUBE_RUNNER_LAYOUT" = sidecar ]; then
  runners=$(wait_pods worker "$KUBE_WORKERS" "n8n,$runner") || die "worker pods are not running"
else
  wait_pods worker "$KUBE_WORKERS" n8n >/dev/null || die "worker pods are not running"
  runners=$(wait_pods task-runner "$KUBE_RUNNERS" "$runner") || die "task-runner pods are not running"
fi
wait_pods worker-without-runner "$KUBE_WORKERS_WITHOUT_RUNNER" n8n >/dev/null || die "worker pods without runner are not running"
webhook="http://$KUBE_NODE_IP:$KUBE_WEBHOOK_NODEPORT/webhook/bench"
log "waiting for the webhook to answer {ok:true}"
if ! "$KUBE_TOOLS/labctl" wait-webhook "$webhook" 240s; then
  for d in n8n-main n8n-worker; do kc -n "$KUBE_NAMESPACE" logs "deploy/$d" --all-containers --tail 30 >&2 || true; done
  die "the webhook did not answer"
fi

echo "kube: kubeconfig $kubeconfig"
echo "kube: apiserver $apiserver"
echo "kube: webhook $webhook"
echo "kube: redis redis://$KUBE_NODE_IP:6379"
echo "kube: exporter-metrics http://$exporter_ip:9810/metrics"
echo "kube: prometheus http://$prometheus_addr"
if [ "$KUBE_PROBE" = 1 ]; then
  while read -r name ip; do
    [ -n "$name" ] && echo "kube: probe-metrics-$name http://$ip:9810/metrics"
  done <<<"$runners"
fi
