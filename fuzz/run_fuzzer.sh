#!/usr/bin/env bash
# Fuzzes one target for a bounded time over a COPY of its seed corpus (the repository is
# never written), and fails on any crash, leak, timeout, out-of-memory, undefined
# behaviour or violated invariant. CTest runs it for each target (fuzz/CMakeLists.txt);
# scripts/fuzz.sh runs CTest.
#   run_fuzzer.sh FUZZER_BINARY SEED_CORPUS_DIR SECONDS WORK_DIR [DICTIONARY]
# WORK_DIR is emptied first; afterwards it holds corpus/ (the seeds and what this run
# added), artifacts/ (the failing input, if any) and fuzz.log (libFuzzer's output).
set -euo pipefail
if (($# < 4)); then
  echo "usage: $0 FUZZER_BINARY SEED_CORPUS_DIR SECONDS WORK_DIR [DICTIONARY]" >&2
  exit 2
fi
fuzzer=$1 seeds=$2 seconds=$3 work=$4 dict=${5:-}
name=$(basename "$fuzzer")

rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp -R "$seeds/." "$work/corpus/"

# -max_len covers the largest seeds (a body over the 16 KiB limit); -timeout makes a
# hang a finding.
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=20000
      -error_exitcode=77 -timeout_exitcode=78 -detect_leaks=1 -print_final_stats=1
      -artifact_prefix="$work/artifacts/")
[[ -n "$dict" && -f "$dict" ]] && args+=(-dict="$dict")

# Ours come last so they win over what the caller set. UBSan already aborts on its first
# report (-fno-sanitize-recover=all); halt_on_error says so to the runtime too.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1"

# A fixed address-space layout, as scripts/test.sh gives the sanitizer presets, where
# setarch may set it.
launcher=()
if setarch "$(uname -m)" -R true 2>/dev/null; then launcher=(setarch "$(uname -m)" -R); fi

echo "$name: fuzzing for ${seconds}s over a copy of $seeds (log: $work/fuzz.log)"
status=0
"${launcher[@]}" "$fuzzer" "${args[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
if ((status != 0)); then
  # The sanitizer's or the invariant's report, and the input as libFuzzer printed it.
  tail -n 80 "$work/fuzz.log" >&2
  echo "FAILED: $name exited $status; reproduce with:" >&2
  for artifact in "$work"/artifacts/*; do
    [[ -e "$artifact" ]] && echo "  $fuzzer $artifact" >&2
  done
  exit 1
fi
grep -E '^#[0-9]+[[:space:]]+DONE' "$work/fuzz.log" | tail -n 1 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$work/fuzz.log" || true
echo "$name: no findings in ${seconds}s"
