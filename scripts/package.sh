#!/usr/bin/env bash
# Builds the Debian package of the server (CPack, component "server": the binary, its
# man page, /etc/licensed/licensed.toml, the systemd unit, the docs) and prints its path.
#
#   scripts/package.sh              a Release build in build/package (no tests, SDK, bench)
#   scripts/package.sh BUILD_DIR    from an existing configured build (the package test
#                                   uses the one it runs in)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-}"
if [ -z "$build" ]; then
  build=build/package
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLICENSED_BUILD_TESTS=OFF \
    -DLICENSED_BUILD_CLIENT=OFF -DLICENSED_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" --target licensed >&2
out="$build/package"
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$PWD/package" >&2)
ls -1 "$out"/licensed_*.deb | tail -n 1
