#!/usr/bin/env bash
# Takes the dashboard's screenshots in docs/screenshots/ by running the browser tests
# with a screenshot directory (the debug build by default; LICENSED_BINARY to change).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${LICENSED_BINARY:-build/debug/licensed}"
mkdir -p docs/screenshots
tests/browser/run.sh "$binary" docs/screenshots
