#!/usr/bin/env bash
# Stops the kube lab and takes off the host everything its start put there:
# processes (by recorded PID only), mounts, the network namespace and veth,
# the kubepods cgroups, the kubelet's sysctl changes and the host paths the
# start created. Kept for the next start: certificates, secrets, PostgreSQL's
# data and the logs. Works after a killed run. Ends with `kubelab leftovers`,
# which fails if anything is left.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
run="$KUBE_STATE/run"
[ -d "$run" ] || { echo "down: nothing to stop" >&2; exit 0; }
if [ "${KUBE_LOCKED:-0}" != 1 ]; then # up.sh calls down.sh holding the lock
  exec 9>"$KUBE_STATE/up.lock"
  flock -w 600 9 || { echo "down: another up.sh or down.sh holds the lock" >&2; exit 1; }
fi
log() { echo "down: $*" >&2; }
kubelab="$KUBE_TOOLS/kubelab"
[ -x "$kubelab" ] || { log "$kubelab is missing: run e2e/kube/build.sh"; exit 1; }
stop() { "$kubelab" stop "$@"; }
ctrd="$KUBE_STATE/containerd"
tasks="$ctrd/state/io.containerd.runtime.v2.task"

# Clients of the control plane first, then the control plane, then containerd.
# Containers outlive the kubelet and containerd: kill each one's init
# (recorded in its task state; its death ends the container's PID
# namespace), then its parent, the shim. They go before the apiserver: a
# pod that watches it (the exporter) would hold its shutdown for the whole
# grace period.
shopt -s nullglob
stop_containers() {
  local inits=("$tasks"/*/*/init.pid)
  if [ ${#inits[@]} -gt 0 ]; then "$kubelab" stop-containers "${inits[@]}"; fi
}
stop "$run/kube-proxy.pid" "$run/kubelet.pid" "$run/kube-scheduler.pid" "$run/kube-controller-manager.pid"
stop_containers
stop "$run/kube-apiserver.pid"
stop "$run/etcd.pid"
stop "$run/containerd.pid"
stop_containers # any a dying kubelet started meanwhile
stop -signal INT "$run/postgres.pid"
stop "$run/redis.pid"
for f in "$run"/*.pid; do stop "$f"; done # anything else recorded

# Mounts the kubelet and containerd made (pod netns, shm, volumes, rootfs).
created=()
[ -f "$run/$CREATED_PATHS_FILE" ] && mapfile -t created <"$run/$CREATED_PATHS_FILE"
while read -r m; do
  [ -n "$m" ] || continue
  umount "$m" 2>/dev/null || umount -l "$m" || log "could not unmount $m"
done < <("$kubelab" mounts "$KUBE_STATE" "${created[@]}")

# The cluster's runtime state goes; a start makes it afresh.
rm -rf "$KUBE_STATE/etcd" "$KUBE_STATE/kubelet" "$ctrd" "$KUBE_STATE/cni" "$KUBE_STATE/pod-logs" \
  "$KUBE_STATE/kubelet-plugins" "$KUBE_STATE/apiserver" "$KUBE_STATE/controller-manager" "$KUBE_STATE/helm" \
  "$KUBE_STATE/prometheus" "$KUBE_STATE/keda"

# Network: deleting the host end deletes the pair and its routes.
if [ -e "/sys/class/net/$KUBE_VETH_HOST" ]; then ip link del "$KUBE_VETH_HOST" && log "removed veth $KUBE_VETH_HOST"; fi
if [ -e "/run/netns/$KUBE_NETNS" ]; then ip netns del "$KUBE_NETNS" && log "removed network namespace $KUBE_NETNS"; fi
if [ -f "$run/$MADE_MOUNTS_FILE" ]; then
  while read -r m; do
    mountpoint -q "$m" && { umount "$m" || log "could not unmount $m"; }
  done <"$run/$MADE_MOUNTS_FILE"
fi

# cgroups the kubelet made for pods, deepest first (empty once their
# processes are gone).
for root in /sys/fs/cgroup/*/kubepods; do
  [ -d "$root" ] || continue
  find "$root" -depth -type d -exec rmdir {} + 2>/dev/null
  if [ -d "$root" ]; then log "could not remove cgroup $root"; fi
done

if [ -f "$run/$SYSCTL_FILE" ]; then
  sysctl -q -p "$run/$SYSCTL_FILE" >/dev/null && rm -f "$run/$SYSCTL_FILE" && log "restored ${KUBELET_SYSCTLS[*]}"
fi

for p in "${created[@]}"; do
  [ -e "$p" ] || continue
  case $p in
    /run/netns) rmdir "$p" 2>/dev/null || log "left $p: it holds other namespaces" ;;
    *) rm -rf "$p" ;;
  esac
done

if "$kubelab" leftovers >&2; then
  rm -f "$run/$CREATED_PATHS_FILE" "$run/$NETNS_INODE_FILE" "$run/$MADE_MOUNTS_FILE"
  log "nothing left"
else
  exit 1
fi
