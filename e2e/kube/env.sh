# shellcheck shell=bash disable=SC2034
# Shared names, paths and addresses of the kube lab. Sourced, not run.
# Node and n8n come from the Docker lab's cache (e2e/lab/env.sh), n8n at
# KUBE_N8N_VERSION (one of LAB_N8N_SUPPORTED; default the newest).
: "${KUBE_N8N_VERSION:=2.41.1}"
LAB_N8N_VERSION=$KUBE_N8N_VERSION
. "$(dirname "${BASH_SOURCE[0]}")/../lab/env.sh"
export KUBE_N8N_VERSION
: "${KUBE_CACHE:=/var/cache/n8n-ceiling/kube}"
: "${KUBE_STATE:=/var/lib/n8n-ceiling-kube}"
export KUBE_CACHE KUBE_STATE
KUBE_BIN="$KUBE_CACHE/bin"        # etcd, Kubernetes, helm
KUBE_TOOLS="$KUBE_CACHE/tools"    # kubelab, labctl, pause, exporter (from this repo)
KUBE_IMAGES="$KUBE_CACHE/images"  # image tarballs for `ctr images import`
K8S_VERSION=v1.34.4
ETCD_VERSION=v3.6.16
HELM_VERSION=v3.18.6
KEDA_VERSION=2.21.0  # the module build/keda requires, without the v
PAUSE_IMAGE=localhost/n8n-ceiling/pause:1
BASE_IMAGE=localhost/n8n-ceiling/base:1

# The cluster lives in its own network namespace. The node's address is the
# namespace end of a veth pair; pods and Services have private ranges that
# the host routes through the veth. The namespace has no default route, so
# nothing in it reaches past this machine.
KUBE_NETNS=n8n-ceiling-kube
KUBE_VETH_HOST=nck-host
KUBE_VETH_NODE=nck-node
KUBE_HOST_IP=10.213.0.1
KUBE_NODE_IP=10.213.0.2
KUBE_POD_CIDR=10.213.1.0/24
KUBE_SERVICE_CIDR=10.213.2.0/24
KUBE_SERVICE_IP=10.213.2.1   # the kubernetes Service
# The workers' broker Service (KUBE_RUNNER_LAYOUT=service). Fixed, since
# the lab has no cluster DNS (the runner pods name it by hostAliases), and
# in the low band of the range, which dynamic allocation uses last.
KUBE_BROKER_SERVICE_IP=10.213.2.10
KUBE_NODE_NAME=n8n-ceiling-node
KUBE_NAMESPACE=n8n
KUBE_WEBHOOK_NODEPORT=30678

# Records under $KUBE_STATE/run that down.sh and `kubelab leftovers` read
# (the names are fixed in footprint.go).
SYSCTL_FILE=sysctl.saved         # key = value, as found before the kubelet ran
CREATED_PATHS_FILE=created-paths # host paths the start created
NETNS_INODE_FILE=netns-inode
MADE_MOUNTS_FILE=made-mounts     # existing paths the start turned into mount points
# The kubelet rewrites these host sysctls (vm.overcommit_memory 0→1,
# kernel.panic 1→10, kernel.panic_on_oops 0→1; the others when lower).
KUBELET_SYSCTLS=(vm.overcommit_memory kernel.panic kernel.panic_on_oops vm.panic_on_oom kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
# Paths the kubelet, containerd and the CNI plugins use whatever their roots
# say; the start records which of them it created.
HOST_PATHS=(/var/lib/kubelet /var/lib/cni /run/netns /var/log/pods /var/log/containers /run/containerd /etc/cni /opt/cni /opt/containerd /usr/libexec/kubernetes)
