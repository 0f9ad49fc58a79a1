#!/usr/bin/env bash
# Runs the dashboard's browser tests: installs playwright-core from the lock file (no
# browser download: the tests drive Debian's /usr/bin/chromium), then node's test
# runner. Usage: tests/browser/run.sh PATH/TO/licensed [SCREENSHOT_DIR]
set -euo pipefail
binary="$(realpath "$1")"
shots="${2:+$(realpath "$2")}"
cd "$(dirname "$0")"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [[ ! -d node_modules/playwright-core ]] || [[ package-lock.json -nt node_modules ]]; then
  npm ci --no-audit --no-fund --loglevel=error
  touch node_modules
fi
export LICENSED_BINARY="$binary"
[[ -n "$shots" ]] && export LICENSED_SCREENSHOT_DIR="$shots"
exec node --test --test-reporter=spec ./*.test.mjs
