#!/usr/bin/env bash
# Builds the libFuzzer targets (part of the asan preset: clang-14, ASan + UBSan) and
# fuzzes each one for SECONDS_PER_TARGET (default 60) over a copy of its seed corpus in
# fuzz/corpus/; fails on any crash, leak, timeout, undefined behaviour or violated
# invariant. The runs are the CTest tests labelled `fuzz` of build/asan (see
# docs/fuzzing.md).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
if [[ ! "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [SECONDS_PER_TARGET]" >&2
  exit 2
fi
scripts/install-deps.sh
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/licensed-ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=true
jobs="$(nproc)"
echo "=== fuzz: build"
cmake --preset asan -DLICENSED_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build build/asan --target fuzzers -j"$jobs"
echo "=== fuzz: ${seconds}s per target"
ctest --test-dir build/asan -L fuzz --output-on-failure -j"$jobs"
for log in build/asan/fuzz/runs/*/fuzz.log; do
  echo "$(basename "$(dirname "$log")"): $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
done
