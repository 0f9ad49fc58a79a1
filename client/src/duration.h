// Durations as people write them on a command line: "1500ms", "10s", "5m", "1h", "2d".
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace licensed::client {

// A whole number followed by ms, s, m, h or d; nullopt for anything else or zero.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace licensed::client
