#!/usr/bin/env bash
# Builds the JUCE example (client/examples/juce-gain/) as LV2 and VST3, the way a vendor
# would: Debian's JUCE 7 (installed by scripts/install-deps.sh when missing), the SDK
# built alone and installed into a prefix, linked statically with hidden symbols. Also
# builds the project's LV2 host on liblilv (tests/juce/lv2_host.cpp) that the tests run.
#   scripts/build-juce-example.sh [OUT]          (default build/juce-example)
# Leaves OUT/JuceGain.lv2, OUT/JuceGain.vst3, OUT/lv2_host, OUT/juce_gain_screenshots and
# OUT/juce_gain_screen_driver (the activation screen driven by tests/juce/).
# Exits 77 (a skip for ctest) only when JUCE cannot be installed here.
# JUCE_BUILD_JOBS (default 2) bounds the compile: JUCE is CPU heavy.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$src/build/juce-example}" && cd "${1:-$src/build/juce-example}" && pwd)
jobs=${JUCE_BUILD_JOBS:-2}
juce_cmake=/usr/lib/x86_64-linux-gnu/cmake/JUCE-7.0.5
started=$(date +%s)

if [ ! -f "$juce_cmake/JUCEConfig.cmake" ] || ! pkg-config --exists lilv-0; then
  "$src/scripts/install-deps.sh" || { echo "build-juce-example.sh: JUCE cannot be installed here" >&2; exit 77; }
fi
[ -f "$juce_cmake/JUCEConfig.cmake" ] || { echo "build-juce-example.sh: no JUCE at $juce_cmake" >&2; exit 77; }

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

# The SDK as a vendor gets it: client/ built alone, installed into a prefix.
cmake -S "$src/client" -B "$out/sdk-build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  >"$out/sdk-configure.log" || { cat "$out/sdk-configure.log"; exit 1; }
cmake --build "$out/sdk-build" -j"$jobs"
cmake --install "$out/sdk-build" --prefix "$out/sdk" >/dev/null

# The plugin. One configuration (Release), reused by every test.
cmake -S "$src/client/examples/juce-gain" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$out/sdk;$juce_cmake" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "${launcher[@]}" \
  -DJUCE_GAIN_SCREEN_DRIVER="$src/tests/juce/activation_screen_driver.cpp" \
  >"$out/configure.log" || { cat "$out/configure.log"; exit 1; }
cmake --build "$out/build" -j"$jobs"
artefacts="$out/build/JuceGain_artefacts/Release"
ln -sfn "$artefacts/LV2/JuceGain.lv2" "$out/JuceGain.lv2"
ln -sfn "$artefacts/VST3/JuceGain.vst3" "$out/JuceGain.vst3"
ln -sfn "$out/build/juce_gain_screenshots" "$out/juce_gain_screenshots"
ln -sfn "$out/build/juce_gain_screen_driver" "$out/juce_gain_screen_driver"

# The test host on liblilv (lv2apply cannot load JUCE 7 plugins: they declare atom ports).
# shellcheck disable=SC2046
"${CXX:-c++}" -std=c++17 -O1 -g -Wall -Wextra -o "$out/lv2_host" "$src/tests/juce/lv2_host.cpp" \
  $(pkg-config --cflags --libs lilv-0) -lpthread

echo "$(( $(date +%s) - started ))" >"$out/build-seconds"
echo "JUCE example built in $(cat "$out/build-seconds") s: $out/JuceGain.lv2 $out/JuceGain.vst3"
