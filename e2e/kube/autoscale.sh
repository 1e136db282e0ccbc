# shellcheck shell=bash disable=SC2154
# Prometheus and KEDA in the kube lab. Sourced by up.sh (which holds the
# lock and defines run, repo, here, kc, nsx, start, alive, import_images,
# log and die).

keda_so_queue=n8n-worker            # queue-scaledobject.yaml.in
keda_so_saturation=n8n-ceiling-workers # deploy/helm/n8n-ceiling, release n8n-ceiling
keda_operator_ip=10.213.2.66         # fixed: the lab has no cluster DNS
prometheus_addr="$KUBE_NODE_IP:9090"

# prometheus_up EXPORTER_IP: Debian's Prometheus on the node's address,
# scraping the exporter's Service and n8n main's /metrics (its NodePort)
# every 5 s, with the project's recording and alerting rules. A running
# one reloads a changed config (SIGHUP).
prometheus_up() {
  local dir="$KUBE_STATE/prometheus" cfg
  mkdir -p "$dir/data"
  cfg=$(cat <<YAML
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: ["$repo/compose/prometheus/rules/n8n-ceiling.yml"]
scrape_configs:
  - job_name: n8n-ceiling
    static_configs: [{targets: ["$1:9810"]}]
  - job_name: n8n
    static_configs: [{targets: ["$KUBE_NODE_IP:$KUBE_WEBHOOK_NODEPORT"]}]
YAML
)
  if [ "$cfg" != "$(cat "$dir/prometheus.yml" 2>/dev/null)" ]; then
    printf '%s\n' "$cfg" >"$dir/prometheus.yml"
    if alive "$run/prometheus.pid"; then kill -HUP "$(cat "$run/prometheus.pid")"; fi
  fi
  start prometheus prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --storage.tsdb.retention.time=1d --web.listen-address="$prometheus_addr"
  "$KUBE_TOOLS/kubelab" wait-dial tcp "$prometheus_addr" 60s || die "prometheus did not start; see $KUBE_STATE/log/prometheus.log"
}

# keda_install: KEDA's CRDs, RBAC, operator and metrics API server from the
# module's own config/ (kustomization.yaml.in), and the APIService
# external.metrics.k8s.io Available through the aggregation layer.
keda_install() {
  local dir="$KUBE_STATE/keda" mod
  import_images keda keda-metrics-apiserver
  mod=$(cd "$here/build/keda" && env GOMODCACHE="$KUBE_CACHE/gomod" GOFLAGS=-mod=readonly GOTOOLCHAIN=local \
    /usr/local/go/bin/go list -m -f '{{.Dir}}' github.com/kedacore/keda/v2) || die "KEDA's module is not in $KUBE_CACHE/gomod: run build.sh"
  rm -rf "$dir" && mkdir -p "$dir/config"
  for c in crd general rbac service_account manager metrics-server; do cp -r "$mod/config/$c" "$dir/config/"; done
  chmod -R u+w "$dir"
  sed -e "s|@KEDA_VERSION@|$KEDA_VERSION|g" -e "s|@OPERATOR_IP@|$keda_operator_ip|g" \
    "$here/keda/kustomization.yaml.in" >"$dir/kustomization.yaml"
  log "keda $KEDA_VERSION: the operator and the metrics API server"
  kc apply --server-side --force-conflicts --field-manager=kube-lab -k "$dir" >/dev/null || die "applying KEDA failed"
  kc -n keda rollout status deployment/keda-operator deployment/keda-metrics-apiserver --timeout 5m >&2 ||
    { kc -n keda logs deployment/keda-operator --tail 30 >&2 || true; die "KEDA did not become ready"; }
  kc wait --for=condition=Available apiservice/v1beta1.external.metrics.k8s.io --timeout 3m >/dev/null ||
    { kc get apiservice v1beta1.external.metrics.k8s.io -o yaml >&2 || true; die "external.metrics.k8s.io is not Available"; }
}

keda_installed() { kc get crd scaledobjects.keda.sh >/dev/null 2>&1; }

# keda_clear WANT: deletes every ScaledObject in n8n's namespace but WANT
# (its HPA goes with it) and, when one went or WANT is new, puts the worker
# Deployment back at KUBE_WORKERS, where the next scaler starts from.
keda_clear() {
  local want=$1 so reset=1
  keda_installed || return 0
  for so in $(kc -n "$KUBE_NAMESPACE" get scaledobjects -o name); do
    if [ "${so#*/}" = "$want" ]; then reset=0; continue; fi
    log "keda: removing $so"
    kc -n "$KUBE_NAMESPACE" delete "$so" --wait >/dev/null || die "deleting $so failed"
  done
  if [ "$reset" = 1 ]; then
    kc -n "$KUBE_NAMESPACE" wait --for=delete hpa --all --timeout 60s >/dev/null 2>&1 || true
    kc -n "$KUBE_NAMESPACE" scale deployment/n8n-worker --replicas="$KUBE_WORKERS" >/dev/null
  fi
}

keda_queue_scaledobject() {
  sed -e "s|@REDIS@|$KUBE_NODE_IP:6379|" -e "s|@MIN@|$KUBE_WORKERS|" -e "s|@MAX@|$KUBE_KEDA_MAX|" \
    "$here/keda/queue-scaledobject.yaml.in" | kc -n "$KUBE_NAMESPACE" apply -f - >/dev/null || die "applying the queue ScaledObject failed"
}
