#!/usr/bin/env bash
# Installs the Debian 12 packages licensed builds and tests with (only what is missing),
# and any further packages named as arguments (scripts/bench.sh asks for nginx and wrk).
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-json1.81-dev libssl-dev libsqlite3-dev
  libspdlog-dev libfmt-dev libcli11-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev sqlite3 curl python3 python3-yaml python3-cryptography
  libcurl4-openssl-dev
  clang-14 libclang-rt-14-dev
  libhiredis-dev libsodium-dev redis-server nginx
  systemd prometheus
  chromium nodejs
  g++-mingw-w64-x86-64-posix wine wine64 osslsigncode
  "$@"
  libpq-dev postgresql-15
  juce-modules-source lv2-dev liblilv-dev lilv-utils jalv jackd2 xvfb xauth
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs has npm apart; a nodejs from elsewhere (NodeSource) brings its own.
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
