#!/usr/bin/env bash
# Builds and caches what the kube lab runs, outside the repository, under
# $KUBE_CACHE (/var/cache/n8n-ceiling/kube):
#   bin/     etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
#            kubelet, kube-proxy, kubectl, KEDA's keda and keda-adapter (Go
#            module proxy) and helm
#   tools/   kubelab, labctl, pause and the exporter, from this repository
#   images/  pause, base, exporter and KEDA image tarballs (no registry)
# and installs its Debian packages. A second run with a warm cache only
# verifies. Wall time and peak memory of each build go to
# $KUBE_CACHE/build-times.log. Safe to run beside e2e/lab/install.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/env.sh"
export PATH=/usr/local/go/bin:$PATH

log() { echo "build: $*" >&2; }
die() { echo "build: $*" >&2; exit 1; }

mkdir -p "$KUBE_BIN" "$KUBE_TOOLS" "$KUBE_IMAGES"
exec 8>"$KUBE_CACHE/build.lock"
flock -w 1800 8 || die "another build.sh holds $KUBE_CACHE/build.lock"

# timed NAME CMD...: runs CMD and records its wall time and the peak RSS of
# its largest process.
timed() {
  local name=$1; shift
  /usr/bin/time -o "$KUBE_CACHE/.time" -f '%e %M' "$@" || die "$name failed"
  read -r secs kb <"$KUBE_CACHE/.time"
  echo "$(date -u +%FT%TZ) $name ${secs}s $((kb / 1024))MiB" | tee -a "$KUBE_CACHE/build-times.log" | sed 's/^/build: /' >&2
}

# stamp FILE...: one hash of the inputs, the Go version and the flags.
stamp() { { cat "$@"; go version; echo "$GOFLAGS $ldflags"; } | sha256sum | cut -c1-16; }

# The Go module proxy builds share the machine: two compile jobs at a time,
# their own module and build caches, no cgo.
GOFLAGS="-p=2 -buildvcs=false -mod=readonly"
k8s_go=(env GOMODCACHE="$KUBE_CACHE/gomod" GOCACHE="$KUBE_CACHE/go-build" GOFLAGS="$GOFLAGS" CGO_ENABLED=0 GOTOOLCHAIN=local)

# --- Kubernetes ---------------------------------------------------------------
k8s_cmds=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
ldflags="-s -w"
for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=34 -X $p.gitTreeState=clean"
done
want=$(stamp "$here/build/k8s/go.mod" "$here/build/k8s/go.sum")
if [ "$(cat "$KUBE_BIN/.k8s.stamp" 2>/dev/null)" != "$want" ] || ! (cd "$KUBE_BIN" && ls "${k8s_cmds[@]}" >/dev/null 2>&1); then
  log "kubernetes $K8S_VERSION: building ${k8s_cmds[*]} (about 5 min of CPU, 2.3 GB)"
  pkgs=(); for c in "${k8s_cmds[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  (cd "$here/build/k8s" && timed kubernetes "${k8s_go[@]}" go build -trimpath -ldflags "$ldflags" -o "$KUBE_BIN/" "${pkgs[@]}")
  echo "$want" >"$KUBE_BIN/.k8s.stamp"
fi
for c in "${k8s_cmds[@]}"; do
  flag=--version; [ "$c" = kubectl ] && flag="version --client"
  # shellcheck disable=SC2086
  v=$("$KUBE_BIN/$c" $flag 2>/dev/null) || true
  [[ "$v" == *"$K8S_VERSION"* ]] || die "$c does not report $K8S_VERSION"
done

# --- etcd ---------------------------------------------------------------------
ldflags="-s -w"
want=$(stamp "$here/build/etcd/go.mod" "$here/build/etcd/go.sum" "$here/build/etcd/main.go")
if [ "$(cat "$KUBE_BIN/.etcd.stamp" 2>/dev/null)" != "$want" ] || [ ! -x "$KUBE_BIN/etcd" ]; then
  log "etcd $ETCD_VERSION: building"
  (cd "$here/build/etcd" && timed etcd "${k8s_go[@]}" go build -trimpath -ldflags "$ldflags" -o "$KUBE_BIN/etcd" .)
  echo "$want" >"$KUBE_BIN/.etcd.stamp"
fi
v=$("$KUBE_BIN/etcd" --version) || true
[[ "$v" == *"etcd Version: ${ETCD_VERSION#v}"* ]] || die "etcd does not report $ETCD_VERSION"

# --- KEDA ---------------------------------------------------------------------
# The operator and its metrics API server (the adapter), from the Go module
# proxy (module build/keda): 8 min of both cores and 2.8 GB here, cold.
ldflags="-s -w -X=github.com/kedacore/keda/v2/version.Version=$KEDA_VERSION"
want=$(stamp "$here/build/keda/go.mod" "$here/build/keda/go.sum")
if [ "$(cat "$KUBE_BIN/.keda.stamp" 2>/dev/null)" != "$want" ] || [ ! -x "$KUBE_BIN/keda" ] || [ ! -x "$KUBE_BIN/keda-adapter" ]; then
  log "keda $KEDA_VERSION: building the operator and the metrics API server (about 8 min of both cores, 2.8 GB)"
  out="$KUBE_CACHE/keda-build"
  rm -rf "$out" && mkdir -p "$out"
  (cd "$here/build/keda" && timed keda "${k8s_go[@]}" go build -trimpath -ldflags "$ldflags" -o "$out/" \
    github.com/kedacore/keda/v2/cmd/operator github.com/kedacore/keda/v2/cmd/adapter)
  mv "$out/operator" "$KUBE_BIN/keda" && mv "$out/adapter" "$KUBE_BIN/keda-adapter" && rmdir "$out"
  echo "$want" >"$KUBE_BIN/.keda.stamp"
fi
for c in keda keda-adapter; do
  h=$("$KUBE_BIN/$c" --help 2>&1) || true
  [[ "$h" == *--zap-log-level* ]] || die "$c does not answer --help"
done

# --- helm ---------------------------------------------------------------------
helm_version() { "$KUBE_BIN/helm" version --template '{{.Version}}' 2>/dev/null || true; }
if [ "$(helm_version)" != "$HELM_VERSION" ]; then
  log "helm $HELM_VERSION: building"
  timed helm "${k8s_go[@]}" GOBIN="$KUBE_BIN" GOFLAGS="-p=2 -buildvcs=false" go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  [ "$(helm_version)" = "$HELM_VERSION" ] || die "helm does not report $HELM_VERSION"
fi

# --- this repository's tools and the images ------------------------------------
# Built with the caller's Go caches: these are the main module's own packages.
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$KUBE_TOOLS/" ./e2e/kube/kubelab ./e2e/kube/pause ./e2e/lab/labctl ./cmd/exporter) ||
  die "building kubelab, pause, labctl and the exporter failed"
kubelab="$KUBE_TOOLS/kubelab"
"$kubelab" image -o "$KUBE_IMAGES/pause.tar" -ref "$PAUSE_IMAGE" -entrypoint /pause "$KUBE_TOOLS/pause=/pause"
# The base of every n8n container: empty directories only. Pods mount /usr,
# /lib, /bin, /etc/ssl, Node and n8n read-only from the host.
"$kubelab" image -o "$KUBE_IMAGES/base.tar" -ref "$BASE_IMAGE" -dir /etc -dir /tmp -dir /root -dir /data \
  -dir /usr -dir /lib -dir /lib64 -dir /bin -dir /opt
# The exporter image is tagged with its binary's hash, so a new build rolls out.
tag=$(sha256sum "$KUBE_TOOLS/exporter" | cut -c1-12)
"$kubelab" image -o "$KUBE_IMAGES/exporter.tar" -ref "localhost/n8n-ceiling/exporter:$tag" -entrypoint /exporter \
  -dir /tmp "$KUBE_TOOLS/exporter=/exporter"
echo "localhost/n8n-ceiling/exporter:$tag" >"$KUBE_IMAGES/exporter.ref"
# KEDA's images, named as its config/ names them (up.sh renames
# ghcr.io/kedacore/* to these); rewritten only when a binary is newer.
for c in keda keda-metrics-apiserver; do
  bin=keda; [ "$c" = keda-metrics-apiserver ] && bin=keda-adapter
  if [ ! -s "$KUBE_IMAGES/$c.tar" ] || [ "$KUBE_BIN/$bin" -nt "$KUBE_IMAGES/$c.tar" ]; then
    "$kubelab" image -o "$KUBE_IMAGES/$c.tar" -ref "localhost/n8n-ceiling/$c:$KEDA_VERSION" -entrypoint "/$bin" \
      -dir /tmp -dir /certs "$KUBE_BIN/$bin=/$bin"
  fi
done

# --- Debian packages (last: a concurrent install.sh is past its apt step) ---------
apt_pkgs=(containerd runc containernetworking-plugins iptables iproute2 redis-server postgresql util-linux)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # apt-get update does not wait for its lock: retry, bounded (10 min).
  if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
    for i in $(seq 1 60); do apt-get update -qq && break; [ "$i" = 60 ] && die "apt-get update failed"; sleep 10; done
  fi
  # policy-rc.d keeps Debian from starting services the lab starts itself.
  # Another apt run (install.sh) may own it: only remove our own.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1
  fi
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null ||
    die "apt-get install ${missing[*]} failed"
  [ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
fi
for p in containerd ctr runc nsenter iptables; do command -v "$p" >/dev/null || die "$p is missing"; done
for p in bridge host-local loopback; do [ -x "/usr/lib/cni/$p" ] || die "CNI plugin $p missing in /usr/lib/cni"; done
log "ok"
