#!/usr/bin/env bash
# The SDK's portable unit tests (the contract's vectors, the crypto seam over CNG, the
# cache, backoff) as a Windows program, run under Debian's wine in a Wine prefix of its
# own made in a temporary directory and removed after (nothing is downloaded). OUT_DIR is
# a build of scripts/build-windows.sh OUT_DIR --tests.
#   scripts/test-windows-sdk.sh OUT_DIR [gtest arguments...]
set -euo pipefail
out=${1:?usage: scripts/test-windows-sdk.sh OUT_DIR [gtest arguments...]}
shift
program=$out/build/sdk_portable_tests.exe
[ -x "$program" ] || { echo "test-windows-sdk.sh: no $program (scripts/build-windows.sh OUT_DIR --tests)" >&2; exit 1; }
for tool in wine wineserver; do
  command -v "$tool" >/dev/null ||
    { echo "test-windows-sdk.sh: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
prefix=$(mktemp -d "${TMPDIR:-/tmp}/licensed-wine-XXXXXX")
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# The Wine server outlives the program by a few seconds unless told: stop it, so nothing
# of this test keeps running (or holds CTest's output pipe) after it.
trap 'wineserver -k >/dev/null 2>&1 || true; rm -rf "$prefix"' EXIT
wine "$program" --gtest_color=no "$@" 2>&1 | tr -d '\r'
exit "${PIPESTATUS[0]}"
