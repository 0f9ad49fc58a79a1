// The pieces of licensed-bench's command line that are more than a number: the base
// URL and durations.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "load/load_run.h"

namespace licensed::bench {

// "http://HOST[:PORT][/PREFIX]" (HOST may be [v6]); the port defaults to 80, and a
// trailing '/' of the prefix is dropped. nullopt for anything else (https included:
// there is no TLS client here).
std::optional<LoadTarget> parse_base_url(std::string_view url);

// "10s", "500ms", "2m", or a plain number of seconds ("1.5"); nullopt when negative or
// not one of these.
std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text);

}  // namespace licensed::bench
