#!/usr/bin/env bash
# The SDK for 64-bit Windows, cross-compiled with Debian's mingw-w64 (POSIX thread model)
# and its native backend (WinHTTP and CNG, client/CMakeLists.txt): nothing to ship beside
# it. Installs into OUT_DIR:
#   bin/license_client.dll      the SDK (C ABI), with the C++ runtime and winpthreads inside
#   bin/licensectl.exe          the command line for CI, one file
#   lib/liblicense_client.dll.a the DLL's import library (lib/license_client.def: its
#                               exports, for MSVC's `lib /def:`)
#   lib/liblicense_client.a     the static library, to link the SDK into the plugin itself
#   lib/cmake/LicenseClient/    the CMake package; include/license_client/ the headers
# then checks that the DLL and licensectl.exe import only DLLs of Windows itself
# (scripts/check-windows-imports.sh). Boost.JSON and CLI11 are used from their headers, through
# directories holding only a link to them, so the cross compiler sees nothing else of
# /usr/include. With --tests it also builds the tests that run under Wine
# (scripts/test-windows-sdk.sh, client/tests/windows_sdk_test.cpp) in OUT_DIR/build, a
# host with the static library linked in among them, whose imports are checked too.
# docs/sdk-windows.md says more.
#   scripts/build-windows.sh OUT_DIR [--tests]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/build-windows.sh OUT_DIR [--tests]}
tests=OFF
[ "${2:-}" = "--tests" ] && tests=ON
for tool in x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-objdump cmake ninja; do
  command -v "$tool" >/dev/null ||
    { echo "build-windows.sh: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
for dir in /usr/include/boost /usr/include/CLI; do
  [ -d "$dir" ] || { echo "build-windows.sh: $dir is missing (libboost-dev, libcli11-dev)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$out/build
# Header-only dependencies, each alone in a directory of its own.
mkdir -p "$build/deps/boost-headers" "$build/deps/cli11-headers"
ln -sfn /usr/include/boost "$build/deps/boost-headers/boost"
ln -sfn /usr/include/CLI "$build/deps/cli11-headers/CLI"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/client" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$src/client/cmake/mingw-w64-x86_64.cmake" \
  -DLICENSE_CLIENT_BACKEND=native \
  -DLICENSE_CLIENT_BOOST_INCLUDE_DIR="$build/deps/boost-headers" \
  -DLICENSE_CLIENT_CLI11_INCLUDE_DIR="$build/deps/cli11-headers" \
  -DLICENSE_CLIENT_PORTABLE_TESTS=$tests -DLICENSE_CLIENT_TEST_PATH_PREFIX=Z: \
  "${launcher[@]}" >"$build/configure.log" || { cat "$build/configure.log"; exit 1; }
targets=(license_client license_client_static licensectl)
[ "$tests" = ON ] && targets+=(sdk_portable_tests startup_check_host startup_check_host_static)
cmake --build "$build" -j "${BUILD_JOBS:-2}" --target "${targets[@]}"
rm -rf "$out/bin" "$out/lib" "$out/include"
cmake --install "$build" --prefix "$out" --strip >"$build/install.log"
for f in bin/license_client.dll bin/licensectl.exe lib/liblicense_client.dll.a lib/liblicense_client.a \
         include/license_client/license_client.h lib/cmake/LicenseClient/LicenseClientConfig.cmake; do
  [ -e "$out/$f" ] || { echo "build-windows.sh: the install has no $f" >&2; exit 1; }
done
checked=("$out/bin/license_client.dll" "$out/bin/licensectl.exe")
# A host with the static library linked in needs nothing beside it either.
[ "$tests" = ON ] && checked+=("$build/startup_check_host_static.exe")
"$src/scripts/check-windows-imports.sh" "${checked[@]}"
