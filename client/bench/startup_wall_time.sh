#!/usr/bin/env bash
# The start-up check's wall time per situation of the network, for one plugin instance
# and for eight loaded one after the other, with and without a cached answer: a table in
# Markdown on standard output. Builds startup_wall_time.cpp against the SDK of a build
# directory, starts a real `licensed` on loopback for "up" and to make the cached answer.
#
#   client/bench/startup_wall_time.sh [BUILD_DIR]     (default build/debug; needs root for
#                                                      the two DNS situations)
# Each cell: the slowest single check / all checks of the process / the process's whole
# life (set-up, checks, lc_client_free, exit), in milliseconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build/debug}" && pwd)
work=$(mktemp -d /tmp/startup-wall-time.XXXXXX)
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

c++ -std=c++17 -O1 -pthread -o "$work/probe" "$here/startup_wall_time.cpp" \
  -I "$root/client/include" -I "$build/client/include" \
  -L "$build/client" -llicense_client -Wl,-rpath,"$build/client"

secret="s3cr3t-0123456789abcdef0123456789abcdef"
store="sqlite:$work/licensed.db"
licensed="$build/licensed"
"$licensed" init --store "$store" >/dev/null
"$licensed" admin --store "$store" product create --slug reverb --name "Reverb Pro" >/dev/null
license=$("$licensed" admin --store "$store" license create --product reverb --max 3 --json |
  sed -n 's/.*"licenseKey": *"\([^"]*\)".*/\1/p')
"$licensed" serve --store "$store" --listen 127.0.0.1:0 --admin-listen off \
  --signing-key "plugin-2026=$secret" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/server.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$work/server.log" | head -1)
url="http://127.0.0.1:$port"
public_key=$(curl -s "$url/api/v1/license/public-keys" | sed -n 's/.*"publicKey": *"\([^"]*\)".*/\1/p')
machine="bench-machine-0001"
LICENSE_SECRET=$secret "$build/client/licensectl" --url "$url" --key-id plugin-2026 \
  --license-key "$license" --machine-id "$machine" activate >/dev/null

# One run of the probe: "slowest / checks / process" in ms.
run() {  # situation instances cache_dir
  local start end line
  start=$(date +%s%N)
  line=$("$work/probe" --situation "$1" --instances "$2" --url "$url" --secret "$secret" \
    --license-key "$license" --public-key "$public_key" --cache-dir "$3" --machine-id "$machine")
  end=$(date +%s%N)
  local slowest checks source
  slowest=$(sed -n 's/.*slowest_ms=\([0-9]*\).*/\1/p' <<<"$line")
  checks=$(sed -n 's/.*total_ms=\([0-9]*\).*/\1/p' <<<"$line")
  source=$(sed -n 's/.*source=\([0-9]*\).*/\1/p' <<<"$line")
  local names=(none network cache offline lease)
  echo "$slowest / $checks / $(((end - start) / 1000000)) (${names[$source]})"
}

warm="$work/warm-cache"
"$work/probe" --situation up --instances 1 --url "$url" --secret "$secret" --license-key "$license" \
  --public-key "$public_key" --cache-dir "$warm" --machine-id "$machine" >/dev/null

echo "| situation | 1 instance, no cache | 8 instances, no cache | 1 instance, cached answer | 8 instances, cached answer |"
echo "|---|---|---|---|---|"
for situation in up refused unroutable silent 503 unresolvable dns-silent; do
  row="| $situation"
  for cached in no yes; do
    for n in 1 8; do
      dir="$work/cache-$situation-$n-$cached"
      if [[ $cached == yes ]]; then cp -a "$warm" "$dir"; else mkdir -p "$dir"; fi
      row+=" | $(run "$situation" "$n" "$dir")"
    done
  done
  echo "$row |"
done
