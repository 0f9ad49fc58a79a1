#!/usr/bin/env bash
# One command for the tests: installs what is missing, then builds and runs the unit and
# black-box suites under ASan+UBSan and under TSan, then fuzzes each libFuzzer target
# for a bounded time (the fuzz targets are part of the asan build). The arguments choose
# presets (default: asan tsan fuzz); `scripts/test.sh debug` is the quick local loop.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/licensed-ccache}"
# Paths relative to the checkout, and the working directory left out of the hash (debug
# info names it), so every clone on this machine shares the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=true
jobs="$(nproc)"
presets=("${@:-asan tsan fuzz}")
for preset in ${presets[*]}; do
  if [[ "$preset" == fuzz ]]; then
    scripts/fuzz.sh "${LICENSED_FUZZ_SECONDS:-60}"
    continue
  fi
  echo "=== $preset: build"
  cmake --preset "$preset" >/dev/null
  cmake --build "build/$preset" -j"$jobs"
  echo "=== $preset: test"
  # TSan needs a fixed address-space layout on newer kernels; halt_on_error makes any
  # report fail the run.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    setarch "$(uname -m)" -R ctest --test-dir "build/$preset" --label-exclude fuzz \
      --output-on-failure -j"$jobs" --timeout 300
done
echo "all test suites passed: ${presets[*]}"
