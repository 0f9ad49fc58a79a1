#!/usr/bin/env bash
# Takes the dashboard's screenshots in docs/screenshots/ by running the browser tests
# with a screenshot directory (the debug build by default; LICENSED_BINARY to change).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${LICENSED_BINARY:-build/debug/licensed}"
mkdir -p docs/screenshots
tests/browser/run.sh "$binary" docs/screenshots
# The JUCE activation screen (docs/juce.md), when the JUCE example is built
# (scripts/build-juce-example.sh): rendered under Xvfb.
if [ -x build/juce-example/juce_gain_screenshots ]; then
  xvfb-run -a -s "-screen 0 1024x768x24" build/juce-example/juce_gain_screenshots docs/screenshots
fi
