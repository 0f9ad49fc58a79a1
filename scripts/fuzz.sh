#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang-14, ASan + UBSan) and fuzzes each one
# for SECONDS_PER_TARGET (default 60) over a copy of its seed corpus in fuzz/corpus/;
# fails on any crash, leak, timeout, undefined behaviour or violated invariant. The runs
# are the CTest tests labelled `fuzz` of build/fuzz (see docs/fuzzing.md).
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
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
jobs="$(nproc)"
echo "=== fuzz: build"
cmake --preset fuzz -DLICENSED_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build --preset fuzz -j"$jobs"
echo "=== fuzz: ${seconds}s per target"
ctest --test-dir build/fuzz -L fuzz --output-on-failure -j"$jobs"
for log in build/fuzz/fuzz/runs/*/fuzz.log; do
  echo "$(basename "$(dirname "$log")"): $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
done
