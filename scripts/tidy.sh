#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy: bugprone, performance, a few readability checks; findings
# are errors) over the project's .cpp files that changed in the last
# $LICENSED_TIDY_COMMITS commits (default 15), or over all of them with `--all`. Every
# file costs a few seconds (the Boost headers), so all 200 do not fit the CI budget on two
# cores; the changed ones do, and each file is tidied when it changes.
# Usage: scripts/tidy.sh <build dir with compile_commands.json, clang> [--all]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: scripts/tidy.sh <build dir> [--all]}"
[[ -f "$build/compile_commands.json" ]] || { echo "no $build/compile_commands.json"; exit 1; }
tidy="$(command -v clang-tidy-14 || command -v clang-tidy)"
if [[ "${2:-}" == --all ]] || ! git rev-parse "HEAD~${LICENSED_TIDY_COMMITS:-15}" >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp')
else
  mapfile -t files < <(git diff --name-only --diff-filter=AMR "HEAD~${LICENSED_TIDY_COMMITS:-15}" -- '*.cpp')
fi
# Only files the build compiles (the compile database names them); not the fuzz corpora
# or files of another preset.
mapfile -t files < <(for f in "${files[@]}"; do
  grep -q "\"file\": \"[^\"]*/$f\"" "$build/compile_commands.json" && echo "$f"; done)
echo "clang-tidy: ${#files[@]} file(s)"
[[ ${#files[@]} -eq 0 ]] && exit 0
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 4 "$tidy" -p "$build" --quiet 2>/dev/null |
  tee /tmp/licensed-tidy.$$ | grep -E "(error|warning):" || true
if grep -qE "(error|warning):" /tmp/licensed-tidy.$$; then
  rm -f /tmp/licensed-tidy.$$
  echo "clang-tidy found the above"
  exit 1
fi
rm -f /tmp/licensed-tidy.$$
echo "clang-tidy: nothing found"
