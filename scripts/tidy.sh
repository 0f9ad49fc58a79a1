#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy: bugprone, performance, a few readability checks; findings
# are errors) over the project's .cpp files that differ from <base> (default HEAD~1: what
# the last commit changed, as CI sees it), or over all of them with `--all`. A file costs
# 5-10 s (the Boost headers), so all 230 (25 min on two cores) do not fit the CI budget;
# the changed ones do, so each file is tidied when it changes.
# Usage: scripts/tidy.sh <build dir with compile_commands.json, clang> [--all | <base>]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: scripts/tidy.sh <build dir> [--all | <base>]}"
[[ -f "$build/compile_commands.json" ]] || { echo "no $build/compile_commands.json"; exit 1; }
tidy="$(command -v clang-tidy-14 || command -v clang-tidy)"
base="${2:-HEAD~1}"
if [[ "$base" == --all ]] || ! git rev-parse "$base" >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp')
else
  mapfile -t files < <(git diff --name-only --diff-filter=AMR "$base" -- '*.cpp')
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
