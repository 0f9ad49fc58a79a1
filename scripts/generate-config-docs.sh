#!/usr/bin/env bash
# Rewrites docs/configuration.md and deploy/licensed.toml from the settings table
# (src/config/serve_settings.cpp), through the unit test that checks them.
# Usage: scripts/generate-config-docs.sh [BUILD_DIR]   (default build/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/debug}"
cmake --build "$build" --target unit_tests
UPDATE_GENERATED_DOCS=1 "$build/unit_tests" --gtest_filter='ConfigurationDoc.*' >/dev/null || true
"$build/unit_tests" --gtest_filter='ConfigurationDoc.*'
