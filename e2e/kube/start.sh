# shellcheck shell=bash disable=SC2154
# Cold-starts the kube lab's cluster. Sourced by up.sh (which holds the lock
# and defines run, pki, kubelab, start, nsx, kc and alive); not run on its own.

# --- what the host looks like before the cluster -------------------------------
# Each cold start logs afresh; the previous run's logs stay in log/previous.
mkdir -p "$KUBE_STATE/log/previous"
for f in "$KUBE_STATE"/log/*.log; do if [ -e "$f" ]; then mv -f "$f" "$KUBE_STATE/log/previous/"; fi; done
: >"$run/$CREATED_PATHS_FILE"
for p in "${HOST_PATHS[@]}"; do [ -e "$p" ] || echo "$p" >>"$run/$CREATED_PATHS_FILE"; done
# `ip netns add` makes /run/netns a mount point (a shared bind of itself).
: >"$run/$MADE_MOUNTS_FILE"
if [ -d /run/netns ] && ! mountpoint -q /run/netns; then echo /run/netns >>"$run/$MADE_MOUNTS_FILE"; fi
for k in "${KUBELET_SYSCTLS[@]}"; do echo "$k = $(sysctl -n "$k")"; done >"$run/$SYSCTL_FILE.tmp"
mv "$run/$SYSCTL_FILE.tmp" "$run/$SYSCTL_FILE"

# The hierarchy is hybrid here: cgroup v1 controllers with v2 only at
# /sys/fs/cgroup/unified. The kubelet is told so (failCgroupV1: false).
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then cgroup_mode=v2; else cgroup_mode=v1; fi
log "cgroups: $cgroup_mode$([ -d /sys/fs/cgroup/unified ] && echo ' (hybrid: v2 at /sys/fs/cgroup/unified)')"

# --- network -------------------------------------------------------------------
log "network namespace $KUBE_NETNS, node address $KUBE_NODE_IP"
ip netns add "$KUBE_NETNS"
stat -L -c %i "$netns_path" >"$run/$NETNS_INODE_FILE"
ip link add "$KUBE_VETH_HOST" type veth peer name "$KUBE_VETH_NODE" netns "$KUBE_NETNS"
ip addr add "$KUBE_HOST_IP/30" dev "$KUBE_VETH_HOST"
ip link set "$KUBE_VETH_HOST" up
nsx ip link set lo up
nsx ip addr add "$KUBE_NODE_IP/30" dev "$KUBE_VETH_NODE"
nsx ip link set "$KUBE_VETH_NODE" up
# The host reaches pods and Services through the node; the namespace gets no
# default route.
ip route replace "$KUBE_POD_CIDR" via "$KUBE_NODE_IP" dev "$KUBE_VETH_HOST"
ip route replace "$KUBE_SERVICE_CIDR" via "$KUBE_NODE_IP" dev "$KUBE_VETH_HOST"
# Processes in the namespace (Prometheus) reach Services too: a route makes
# the connect pass routing, then kube-proxy's OUTPUT rules rewrite the
# address to a pod's.
nsx ip route replace "$KUBE_SERVICE_CIDR" dev "$KUBE_VETH_NODE"
# Both are per network namespace: the host's own values do not change.
nsx sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1

# --- secrets, tokens, certificates, kubeconfigs ------------------------------------
umask 077
mkdir -p "$pki" "$KUBE_STATE/kubeconfig"
secrets="$KUBE_STATE/secrets.env"
rand() { head -c "$1" /dev/urandom | base64 | tr -d '/+='; }
if [ ! -s "$secrets" ]; then
  { echo "N8N_ENCRYPTION_KEY=$(rand 24)"
    echo "N8N_RUNNERS_AUTH_TOKEN=$(rand 24)"
    echo "DB_POSTGRESDB_PASSWORD=$(rand 18)"; } >"$secrets"
fi
# Static tokens: the admin (tests, helm) and one per component, each with the
# user name the default RBAC bindings expect.
declare -A users=([admin]="kube-lab-admin,kube-lab-admin,system:masters"
  [kubelet]="system:node:$KUBE_NODE_NAME,kubelet,system:nodes"
  [kube-proxy]="system:kube-proxy,kube-proxy,"
  [controller-manager]="system:kube-controller-manager,controller-manager,"
  [scheduler]="system:kube-scheduler,scheduler,")
: >"$pki/tokens.csv.tmp"
for u in admin kubelet kube-proxy controller-manager scheduler; do
  [ -s "$pki/$u.token" ] || rand 32 >"$pki/$u.token"
  IFS=, read -r name uid group <<<"${users[$u]}"
  echo "$(cat "$pki/$u.token"),$name,$uid${group:+,\"$group\"}" >>"$pki/tokens.csv.tmp"
  cat >"$KUBE_STATE/kubeconfig/$u.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kube-lab
  cluster: {server: "$apiserver", certificate-authority: "$pki/ca.crt"}
users:
- name: $u
  user: {tokenFile: "$pki/$u.token"}
contexts:
- name: kube-lab
  context: {cluster: kube-lab, user: $u, namespace: $KUBE_NAMESPACE}
current-context: kube-lab
EOF
done
mv "$pki/tokens.csv.tmp" "$pki/tokens.csv"
cp "$KUBE_STATE/kubeconfig/admin.kubeconfig" "$kubeconfig"
"$kubelab" pki "$pki" "$KUBE_NODE_IP" "$KUBE_SERVICE_IP" "$KUBE_NODE_NAME"
umask 022

# --- containerd -------------------------------------------------------------------
ctrd="$KUBE_STATE/containerd"
mkdir -p "$ctrd" "$KUBE_STATE/cni/net.d" "$KUBE_STATE/cni/ipam"
cat >"$ctrd/config.toml" <<EOF
version = 2
root = "$ctrd/root"
state = "$ctrd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$ctrd/containerd.sock"
[ttrpc]
  address = "$ctrd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$ctrd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # The VM lacks CAP_SYS_RESOURCE: the pause container's oom_score_adj -998
  # would make runc fail ("can't get final child's PID from pipe: EOF").
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_tls_streaming = false
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$ctrd/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$KUBE_STATE/cni/net.d"
EOF
cat >"$KUBE_STATE/cni/net.d/10-n8n-ceiling.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "n8n-ceiling",
  "plugins": [{
    "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
    "ipam": {"type": "host-local", "dataDir": "$KUBE_STATE/cni/ipam",
             "ranges": [[{"subnet": "$KUBE_POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}]}
  }]
}
EOF
start containerd containerd --config "$ctrd/config.toml"
"$kubelab" wait-dial unix "$ctrd/containerd.sock" 60s || die "containerd did not start; see $KUBE_STATE/log/containerd.log"

# --- etcd and the control plane -------------------------------------------------------
# etcd listens on the namespace's own loopback; its data is the cluster's and
# goes at teardown.
start etcd "$KUBE_BIN/etcd" --name node --data-dir "$KUBE_STATE/etcd" --unsafe-no-fsync \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster node=http://127.0.0.1:2380 --listen-metrics-urls "" --log-level warn
start kube-apiserver "$KUBE_BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
  --bind-address="$KUBE_NODE_IP" --advertise-address="$KUBE_NODE_IP" --secure-port=6443 \
  --service-cluster-ip-range="$KUBE_SERVICE_CIDR" \
  --token-auth-file="$pki/tokens.csv" --client-ca-file="$pki/ca.crt" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --allow-privileged=false --profiling=false --cert-dir="$KUBE_STATE/apiserver" \
  --requestheader-client-ca-file="$pki/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="$pki/front-proxy-client.crt" --proxy-client-key-file="$pki/front-proxy-client.key" \
  --enable-aggregator-routing=true
"$kubelab" wait-api "$apiserver/readyz" "$pki/ca.crt" "$pki/admin.token" 90s ||
  die "the apiserver is not ready; see $KUBE_STATE/log/kube-apiserver.log"

kcfg="$KUBE_STATE/kubeconfig"
start kube-controller-manager "$KUBE_BIN/kube-controller-manager" --kubeconfig="$kcfg/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$kcfg/controller-manager.kubeconfig" --authorization-kubeconfig="$kcfg/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --flex-volume-plugin-dir="$KUBE_STATE/kubelet-plugins" --cert-dir="$KUBE_STATE/controller-manager" --profiling=false
start kube-scheduler "$KUBE_BIN/kube-scheduler" --kubeconfig="$kcfg/scheduler.kubeconfig" \
  --authentication-kubeconfig="$kcfg/scheduler.kubeconfig" --authorization-kubeconfig="$kcfg/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false --profiling=false

# --- the node -------------------------------------------------------------------------
mkdir -p "$KUBE_STATE/kubelet" "$KUBE_STATE/pod-logs"
cat >"$KUBE_STATE/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine's cgroups are v1 (hybrid) and it has no CAP to manage swap.
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://$ctrd/containerd.sock
address: $KUBE_NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $pki/kubelet.crt
tlsPrivateKeyFile: $pki/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
# No cluster DNS and no host resolv.conf: pods reach everything by address.
resolvConf: ""
podLogsDir: $KUBE_STATE/pod-logs
volumePluginDir: $KUBE_STATE/kubelet-plugins
# A busy build disk must not evict the lab's pods or collect its images,
# which no registry could give back.
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
EOF
start kubelet "$KUBE_BIN/kubelet" --config="$KUBE_STATE/kubelet-config.yaml" --kubeconfig="$kcfg/kubelet.kubeconfig" \
  --root-dir="$KUBE_STATE/kubelet" --hostname-override="$KUBE_NODE_NAME" --node-ip="$KUBE_NODE_IP"

cat >"$KUBE_STATE/kube-proxy-config.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $kcfg/kube-proxy.kubeconfig}
hostnameOverride: $KUBE_NODE_NAME
mode: iptables
clusterCIDR: $KUBE_POD_CIDR
nodePortAddresses: ["primary"]
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# Zeros leave the conntrack sysctls alone: some are not per namespace.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
start kube-proxy "$KUBE_BIN/kube-proxy" --config="$KUBE_STATE/kube-proxy-config.yaml"

kc wait --for=create "node/$KUBE_NODE_NAME" --timeout=60s >/dev/null || die "the node did not register; see $KUBE_STATE/log/kubelet.log"
kc wait --for=condition=Ready "node/$KUBE_NODE_NAME" --timeout=120s >/dev/null || die "the node is not Ready; see $KUBE_STATE/log/kubelet.log"

# --- Redis and PostgreSQL on the node's address ----------------------------------------
# Protected mode would refuse pods: Redis is reachable only inside the
# namespace and from this host.
start redis redis-server --bind "$KUBE_NODE_IP" --port 6379 --protected-mode no --save '' --appendonly no --daemonize no
"$kubelab" wait-dial tcp "$KUBE_NODE_IP:6379" 30s || die "redis did not start; see $KUBE_STATE/log/redis.log"

pg_bin="/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -1)/bin"
pg="$KUBE_STATE/postgres"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
if [ ! -s "$pg/data/PG_VERSION" ]; then
  install -d -o postgres -g postgres -m 700 "$pg" "$pg/data" "$pg/run"
  as_postgres "$pg_bin/initdb" -D "$pg/data" -U postgres --auth-local=peer --auth-host=scram-sha-256 >>"$KUBE_STATE/log/postgres.log"
  echo "host all all 10.213.0.0/16 scram-sha-256" >>"$pg/data/pg_hba.conf"
fi
install -d -o postgres -g postgres -m 700 "$pg/run"
touch "$KUBE_STATE/log/postgres.log" && chown postgres: "$KUBE_STATE/log/postgres.log"
# pg_ctl waits until the server accepts connections; the postmaster stays in
# the namespace and its PID is the first line of postmaster.pid.
nsx setpriv --reuid=postgres --regid=postgres --init-groups -- "$pg_bin/pg_ctl" -D "$pg/data" -l "$KUBE_STATE/log/postgres.log" -w -t 60 \
  -o "-c listen_addresses=$KUBE_NODE_IP -c port=5432 -c unix_socket_directories=$pg/run -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null 9>&- || die "postgresql did not start; see $KUBE_STATE/log/postgres.log"
head -1 "$pg/data/postmaster.pid" >"$run/postgres.pid"
# shellcheck disable=SC1090
. "$secrets"
as_postgres "$pg_bin/psql" -qtAX -h "$pg/run" -d postgres >/dev/null <<SQL
SELECT 'CREATE ROLE n8n LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'n8n')\gexec
ALTER ROLE n8n PASSWORD '$DB_POSTGRESDB_PASSWORD';
SELECT 'CREATE DATABASE n8n OWNER n8n' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'n8n')\gexec
SQL
