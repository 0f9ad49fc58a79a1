#!/usr/bin/env bash
# client/ as a CMake project of its own, the way a plugin vendor builds the SDK from its
# sources: configure `cmake -S client` outside the server's build, build the shared and
# the static library and licensectl, install them, then build a C++17 host against the
# installed static library and check it carries the SDK itself (no liblicense_client.so
# to ship beside it) and exports nothing of it.
#   scripts/test-client-alone.sh WORK_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: scripts/test-client-alone.sh WORK_DIR}
rm -rf "$work" && mkdir -p "$work"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fail() { echo "test-client-alone.sh: $*" >&2; exit 1; }

cmake -S "$src/client" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  >"$work/configure.log" || { cat "$work/configure.log"; fail "configure failed"; }
cmake --build "$work/build"
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
for f in lib/liblicense_client.so.0 lib/liblicense_client.a bin/licensectl \
         include/license_client/license_client.h include/license_client/license_client.hpp \
         include/license_client/license_client_export.h lib/cmake/LicenseClient/LicenseClientConfig.cmake; do
  [ -e "$work/prefix/$f" ] || fail "the install has no $f"
done
"$work/prefix/bin/licensectl" --help >/dev/null || fail "licensectl --help failed"

# A host with the SDK linked in: the example host, as C++17, against the static library.
mkdir -p "$work/host"
cat >"$work/host/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(static_host LANGUAGES CXX)
find_package(LicenseClient 0.1 REQUIRED)
add_executable(static_host $src/client/examples/host.cpp)
set_target_properties(static_host PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
target_link_libraries(static_host PRIVATE LicenseClient::license_client_static)
CMAKE
cmake -S "$work/host" -B "$work/host/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/host/configure.log" ||
  { cat "$work/host/configure.log"; fail "the host does not configure against the install"; }
cmake --build "$work/host/build"
host="$work/host/build/static_host"
# (Into files first: grep -q stops reading early, which pipefail would count as a failure.)
ldd "$host" >"$work/host/ldd.txt"
nm "$host" >"$work/host/symbols.txt"
nm -D --defined-only "$host" >"$work/host/dynamic-symbols.txt"
if grep license_client "$work/host/ldd.txt"; then fail "the static host needs liblicense_client.so"; fi
grep -q ' [Tt] lc_client_new$' "$work/host/symbols.txt" || fail "the static host does not hold lc_client_new"
if grep ' lc_' "$work/host/dynamic-symbols.txt"; then fail "the static host exports lc_* symbols"; fi
echo "client/ builds alone: shared and static libraries, licensectl, a static C++17 host"
