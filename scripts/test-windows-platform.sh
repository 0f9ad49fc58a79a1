#!/usr/bin/env bash
# The SDK's Windows code, compiled for Windows and tested there as far as this machine
# can: client/src/platform/ (machine identity from the registry, the cache directory
# under %LOCALAPPDATA%, atomic file replace, wide-character paths) cross-compiled with
# Debian's mingw-w64 and its unit tests run under Debian's wine, in a Wine prefix of
# their own made in WORK_DIR (nothing is downloaded). The whole SDK for Windows (WinHTTP
# and CNG) is scripts/build-windows.sh's, tested by scripts/test-windows-sdk.sh and
# client/tests/windows_sdk_test.cpp (docs/sdk-windows.md).
#   scripts/test-windows-platform.sh WORK_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: scripts/test-windows-platform.sh WORK_DIR}
for tool in x86_64-w64-mingw32-g++-posix wine wineserver; do
  command -v "$tool" >/dev/null ||
    { echo "test-windows-platform.sh: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
rm -rf "$work" && mkdir -p "$work"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/client" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_TOOLCHAIN_FILE="$src/client/cmake/mingw-w64-x86_64.cmake" \
  -DLICENSE_CLIENT_PLATFORM_ONLY=ON "${launcher[@]}" >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" --target platform_tests

export WINEPREFIX="$work/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# The Wine server outlives the program by a few seconds unless told: stop it, so
# nothing of this test keeps running (or holds CTest's output pipe) after it.
trap 'wineserver -k >/dev/null 2>&1 || true' EXIT
wine "$work/build/platform_tests.exe" --gtest_color=no 2>&1 | tr -d '\r'
exit "${PIPESTATUS[0]}"
