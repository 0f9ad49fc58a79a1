#!/usr/bin/env bash
# Fails when a tracked C++ source is not formatted as .clang-format says (clang-format
# --dry-run -Werror); prints the first differences. `scripts/check_format.sh --fix`
# formats them in place instead. Exit 77 (skipped) outside a git checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout"; exit 77; }
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [[ "${1:-}" == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/licensed-format.$$; then
  head -40 /tmp/licensed-format.$$
  echo "$(grep -c 'error:' /tmp/licensed-format.$$) place(s) not formatted: run scripts/check_format.sh --fix"
  rm -f /tmp/licensed-format.$$
  exit 1
fi
rm -f /tmp/licensed-format.$$
echo "formatting: ${#files[@]} files as .clang-format says"
